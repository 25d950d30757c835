"""`memlane serve` as a real process: SIGTERM (what a supervisor, systemd or `docker stop`
sends) shuts it down as Ctrl-C does: requests finish, stores close, the WAL is checkpointed."""

from __future__ import annotations

import json
import signal
import socket
import urllib.request

import pytest

from serve_process import start_serve

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_closes_the_store_and_leaves_no_wal(tmp_path, sig):
    proc, url = start_serve(tmp_path)
    try:
        for i in range(3):
            body = json.dumps({"messages": [{"role": "user", "content": f"I live in Oslo {i}."},
                                            {"role": "assistant", "content": "Noted."}],
                               "step": True}).encode()
            req = urllib.request.Request(url + "/v1/memlane/threads/t/messages", data=body,
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r:
                assert r.status == 200
        wal = tmp_path / "m.db-wal"
        assert wal.exists() and wal.stat().st_size > 0  # it can fail: the WAL is in use now
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stores closed" in err and "Traceback" not in err
    assert not wal.exists() or wal.stat().st_size == 0
    from memlane.memory import Memory

    with Memory.open(tmp_path / "m.db") as mem:
        assert mem.thread("t").info().messages == 6


def test_serve_on_a_busy_port_fails_clearly_before_the_banner(tmp_path, capsys):

    from memlane.cli import main

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        code = main(["--db", str(tmp_path / "m.db"), "serve", "--port", str(port), "--no-mcp",
                     "--keys", str(tmp_path / "keys.json")])
    finally:
        busy.close()
    err = capsys.readouterr().err
    assert code != 0 and f"port {port} on 127.0.0.1 is in use" in err and "--port" in err
    assert "serving" not in err  # no banner
    assert not (tmp_path / "m.db").exists()  # and no empty database left behind


def test_serve_http_parser_option(tmp_path, capsys, monkeypatch):
    """`--http` picks the parser; one that is not installed is a clear error before anything
    opens, naming the extra that has it."""
    from memlane.cli import build_parser, main
    from memlane.server import conn

    assert build_parser().parse_args(["serve"]).http == "auto"
    assert conn.uvicorn_options("h11")["http"] is conn.GuardedH11
    auto = conn.uvicorn_options()["http"]
    assert auto is (conn.GuardedH11 if conn.GuardedHttpTools is None else conn.GuardedHttpTools)
    monkeypatch.setattr(conn, "GuardedHttpTools", None)  # as without the package
    assert conn.uvicorn_options()["http"] is conn.GuardedH11
    code = main(["--db", str(tmp_path / "m.db"), "serve", "--http", "httptools", "--no-mcp",
                 "--keys", str(tmp_path / "keys.json")])
    err = capsys.readouterr().err
    from memlane.errors import install_hint

    assert code != 0 and install_hint("server") in err and "httptools" in err
    assert not (tmp_path / "m.db").exists()


def test_sigterm_stops_the_server_while_a_model_step_hangs(tmp_path):
    """A memory step waiting on a slow upstream model does not hold the stop: the server exits
    within 10 s of SIGTERM (a supervisor's SIGKILL comes at 10 s), the messages stored."""
    import time

    from memlane.step.model import STEP_INSTRUCTIONS
    from memlane.testing import FakeUpstream, Reply

    def script(body):
        first = body["messages"][0].get("content") or ""
        if first == STEP_INSTRUCTIONS:
            return Reply(content="{}", delay=60)  # the model writing the step hangs
        return Reply(content="Noted.")

    with FakeUpstream(script) as up:
        proc, url = start_serve(tmp_path, "--upstream", up.url, "--upstream-model", "m",
                                "--step", "model")
        try:
            for i in range(5):
                body = json.dumps({"model": "m", "messages": [
                    {"role": "user", "content": f"I live in Oslo, fact {i}."}]}).encode()
                req = urllib.request.Request(url + "/v1/chat/completions", data=body, headers={
                    "Content-Type": "application/json", "X-Memlane-Thread": "t"})
                with urllib.request.urlopen(req, timeout=30) as r:
                    assert r.status == 200
            deadline = time.monotonic() + 30
            while not any(b["messages"][0].get("content") == STEP_INSTRUCTIONS
                          for b in up.requests):
                assert time.monotonic() < deadline, "no memory step reached the model"
                time.sleep(0.05)
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
            took = time.monotonic() - started
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0 and took < 10, (took, err)
    assert "Traceback" not in err and "memory step was still running" in err
    from memlane.memory import Memory

    with Memory.open(tmp_path / "m.db") as mem:
        assert mem.thread("t").info().messages == 10
