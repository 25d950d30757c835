"""The one tool-calling turn core (`memlane.tools.turn`) and the one answer record
(`memlane.tools.answer`): the decisions on their own, then the same conversation through the
agent, the proxy's JSON path and its SSE path, which must record the same answers and write the
same ledger rows."""

from __future__ import annotations

import json
from collections import deque

import pytest

from memlane import Memory
from memlane.agent import Agent
from memlane.context.tokens import default_tokenizer
from memlane.ledger import Ledger
from memlane.models.base import ModelReply, ToolCall
from memlane.models.scripted import ScriptedModel
from memlane.tools.rounds import ToolCallRecord
from memlane.tools.turn import Answer, RunTools, TurnLoop


def _loop(max_rounds: int = 2, **kw) -> TurnLoop:
    def execute(c: ToolCall, rnd: int) -> ToolCallRecord:
        err = "bad" if c.name == "broken" else None
        return ToolCallRecord(c.id, c.name, dict(c.arguments), {"ok": 1}, err, rnd, "memory")

    return TurnLoop(max_rounds, execute, default_tokenizer(), 100, **kw)


def test_text_before_a_tool_call_starts_the_next_rounds_paragraph():
    loop = _loop()
    assert loop.text("Let me ") + loop.text("look.") == "Let me look."
    d = loop.end_round([ToolCall("a", "recall", {"query": "x"})], "Let me look.")
    assert isinstance(d, RunTools)
    assert [m["role"] for m in d.messages] == ["assistant", "tool"]
    assert d.messages[0]["content"] == "Let me look."
    # The next round's first fragment starts a paragraph; the recorded answer is what was sent.
    assert loop.text("Found") == "\n\nFound"
    assert loop.text(" it.") == " it."
    d = loop.end_round([])
    assert d == Answer("Let me look.\n\nFound it.", [], False)
    assert loop.signals == {"tool_calls": ["recall"]}


def test_a_round_that_said_nothing_adds_no_blank_line():
    loop = _loop()
    loop.text("   ")
    assert isinstance(loop.end_round([ToolCall("a", "recall", {})]), RunTools)
    assert loop.text("Answer.") == "Answer."


def test_client_calls_go_back_and_memory_calls_are_taken_out_of_a_mixed_answer():
    loop = _loop(is_memory=lambda name: name == "recall")
    calls = [ToolCall("a", "recall", {}), ToolCall("b", "get_weather", {})]
    d = loop.end_round(calls)
    assert d == Answer("", [1], True)
    assert loop.records == []  # nothing ran: the client has to answer first


def test_the_last_round_runs_nothing_and_says_so():
    loop = _loop(max_rounds=1)
    assert not loop.last
    assert isinstance(loop.end_round([ToolCall("a", "broken", {})]), RunTools)
    assert loop.last
    d = loop.end_round([ToolCall("b", "recall", {})])
    assert isinstance(d, Answer) and d.dropped and d.keep == []
    assert loop.signals == {"tool_calls": ["broken"], "tool_errors": ["broken"],
                            "tool_rounds_exhausted": 1}


def test_memory_calls_are_not_run_when_memory_tools_were_not_offered():
    loop = _loop(offered=False)
    d = loop.end_round([ToolCall("a", "recall", {})])
    assert isinstance(d, Answer) and d.dropped and loop.records == []


# the same conversation on every surface --------------------------------------------------------
TURNS = [
    "Hi, my order number is 81-3319 and it hasn't arrived.",
    "Can you check where it is?",
    "I already told you, it's 81-3319.",
]
REPLIES = [
    ("Let me look.", ("recall", {"query": "order"})),
    ("I'm sorry to hear that. I'll look into it.", None),
    ("Sure. What's your order number?", None),  # asks for what the user already gave
    ("Thanks, I can see it now.", None),
]
EXPECTED = ["Let me look.\n\nI'm sorry to hear that. I'll look into it.",
            "Sure. What's your order number?", "Thanks, I can see it now."]


def _rows(ledger: Ledger):
    answers = ledger.rows(kind="answer")
    return ([(r.seq, sorted(r.signals), r.prompt_version) for r in answers],
            [(r.seq, sorted(r.signals)) for r in ledger.rows(kind="signal")])


def _agent_run(tmp_path) -> tuple[list[str], Ledger]:
    mem = Memory.open(tmp_path / "agent.db")
    ledger = Ledger(":memory:")
    model = ScriptedModel(*[ModelReply(content=c, tool_calls=(ToolCall("call_0", *t),) if t
                                       else ()) for c, t in REPLIES])
    agent = Agent(mem, model, ledger=ledger, extractor=mem.extractor, background=False)
    for text in TURNS:
        agent.turn("support", text)
    return [m.content for m in mem.thread("support").messages(1) if m.role == "assistant"], \
        ledger


def _proxy(db, upstream_url: str, ledger: Ledger | None = None):
    """A proxy over a real app (SQLite file `db`, the given upstream, no background steps) and
    the memory of its one key's namespace."""
    from memlane.server.app import create_app
    from memlane.server.auth import Auth, KeyRing
    from memlane.server.base import ServerConfig
    from memlane.server.proxy import Proxy

    ring = KeyRing.load(db.parent / "keys.json")
    ring.add("acme")
    app = create_app(Memory.open(db), Auth(ring),
                     ServerConfig(upstream=upstream_url, background_steps=False),
                     ledger=ledger, mcp=False)
    return Proxy(app.state.service), app.state.service.mem("acme")


def _proxy_run(tmp_path, stream: bool) -> tuple[list[str], Ledger]:
    pytest.importorskip("starlette")
    from memlane.testing import FakeUpstream, Reply

    ledger = Ledger(":memory:")
    queue = deque(Reply(content=c, tool_calls=(t,) if t else ()) for c, t in REPLIES)
    with FakeUpstream(lambda body: queue.popleft()) as up:
        proxy, m = _proxy(tmp_path / f"proxy-{stream}.db", up.url, ledger)
        for text in TURNS:
            body = {"model": "m", "messages": [{"role": "user", "content": text}],
                    "user": "support", "stream": stream}
            if stream:
                turn, first, held = proxy._begin_stream(m, body, {})
                events = b"".join(proxy._stream(turn, first, held)).decode()
                assert events.endswith("data: [DONE]\n\n")
                said = "".join(
                    (json.loads(e[6:])["choices"] or [{}])[0].get("delta", {}).get("content")
                    or "" for e in events.split("\n\n") if e.startswith("data: {"))
            else:
                data, _, _ = proxy._answer(m, body, {})
                said = data["choices"][0]["message"]["content"]
            assert said == EXPECTED[TURNS.index(text)]  # what the client saw is what is kept
    log = [x.content for x in m.thread("support").messages(1) if x.role == "assistant"]
    return log, ledger


def test_agent_json_and_sse_record_the_same_answers_and_ledger_rows(tmp_path):
    runs = {"agent": _agent_run(tmp_path), "json": _proxy_run(tmp_path, False),
            "sse": _proxy_run(tmp_path, True)}
    for name, (answers, _) in runs.items():
        assert answers == EXPECTED, name
    rows = {name: _rows(ledger) for name, (_, ledger) in runs.items()}
    answers, signals = rows["agent"]
    assert [(seq, keys) for seq, keys, _ in answers] == [
        (2, ["tool_calls"]), (4, ["asked_again"]), (6, [])]
    assert signals == [(4, ["user_correction"])]
    assert rows["json"] == rows["sse"] == rows["agent"]  # prompt_version included


def test_sse_sends_the_last_chunk_before_the_ledger_row_is_written(tmp_path):
    # The answer is recorded before the finish chunk (the client's next request is aligned
    # against the log), but the ledger row (which may search memory for asked_again) waits
    # until the client has [DONE]; closing the stream right after [DONE], as a client that
    # leaves does, still writes it.
    pytest.importorskip("starlette")
    from memlane.testing import FakeUpstream, Reply

    ledger = Ledger(":memory:")
    with FakeUpstream(lambda body: Reply(content="What is your email address?")) as up:
        proxy, m = _proxy(tmp_path / "m.db", up.url, ledger)
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                "user": "support", "stream": True}
        stream = proxy._stream(*proxy._begin_stream(m, body, {}))
        for chunk in stream:
            if chunk == b"data: [DONE]\n\n":
                break
        else:
            raise AssertionError("the stream ended without [DONE]")
        assert m.thread("support").messages(1)[-1].content == "What is your email address?"
        assert ledger.rows(kind="answer") == []  # the client has every chunk; no row yet
        stream.close()
    assert [r.seq for r in ledger.rows(kind="answer")] == [2]


def test_the_tool_rule_reads_the_users_whole_message_not_the_cut_one(tmp_path):
    # The forget rule compares with the user's message as the log keeps it: asked in the middle
    # of a message too long for the budget (sent upstream as head and tail), it still counts.
    pytest.importorskip("starlette")
    from memlane.testing import FakeUpstream, Reply

    replies = deque([Reply(tool_calls=(("forget", {"id": 1}),)), Reply(content="Done.")])
    with FakeUpstream(lambda body: replies.popleft()) as up:
        proxy, m = _proxy(tmp_path / "m.db", up.url)
        rec = m.remember("The user's locker code is 4017")
        filler = "The weather was mild and the train was late again. " * 150
        text = filler + f"Please forget record #{rec.id}, it is stale. " + filler
        body = {"model": "m", "messages": [{"role": "user", "content": text}],
                "user": "support"}
        _, _, turn = proxy._answer(m, body, {"x-memlane-budget": "600"})
        assert "X-Memlane-Truncated" in turn.headers  # the model saw head and tail only
        assert "forget record" not in up.requests[0]["messages"][-1]["content"]
        tool_result = up.requests[1]["messages"][-1]
        assert tool_result["role"] == "tool" and "refused" not in tool_result["content"]
    assert m.records([rec.id]) == []


def test_the_streams_own_decision_of_which_calls_are_memlanes_wins():
    # The SSE path decides as a call's first piece arrives (a call it already forwarded to the
    # client stays the client's, whatever its full name turns out to be).
    loop = _loop()
    d = loop.end_round([ToolCall("a", "recall", {}), ToolCall("b", "recall", {})], mine=[0])
    assert d == Answer("", [1], True) and loop.records == []
