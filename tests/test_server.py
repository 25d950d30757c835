"""The REST API of `memlane serve`: contract, namespaces and keys, limits, errors.

In-process through Starlette's TestClient on a real SQLite file, plus one live loopback server
and the CLI that manages keys.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("mcp")

from starlette.testclient import TestClient  # noqa: E402

from memlane.cli import main  # noqa: E402
from memlane.context.policy import Policy  # noqa: E402
from memlane.errors import UsageError  # noqa: E402
from memlane.memory import Cadence, Memory  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.server.operations import OPERATIONS  # noqa: E402
from memlane.testing import serve_in_thread  # noqa: E402

API = "/v1/memlane"
FACT = "My passport number is K4471902 and I fly to Lisbon on 3 May."


def conversation(n: int) -> list[dict[str, str]]:
    out = [{"role": "user", "content": FACT}, {"role": "assistant", "content": "Noted."}]
    for i in range(n):
        out.append({"role": "user", "content": f"Question {i}: what is the weather in Oslo in "
                                               f"week {i}?"})
        out.append({"role": "assistant", "content": f"Week {i} in Oslo is usually mild."})
    return out


@pytest.fixture
def keys(tmp_path):
    ring = KeyRing.load(tmp_path / "keys.json")
    return ring, ring.add("acme"), ring.add("globex")


@pytest.fixture
def memory(tmp_path):
    # Notes off: these tests follow an evicted fact through the buffer (with notes the default
    # shows a small namespace's records in view).
    m = Memory.open(tmp_path / "m.db", cadence=Cadence(every_user_turns=2),
                    policy=Policy(notes_share=0.0))
    yield m
    m.close()


@pytest.fixture
def client(memory, keys):
    ring, _, _ = keys
    app = create_app(memory, Auth(ring), ServerConfig(max_body=64 * 1024), mcp=False)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def seed(client, key, thread="t1", n=8, step=True):
    r = client.post(f"{API}/threads/{thread}/messages", headers=bearer(key),
                    json={"messages": conversation(n), "step": step})
    assert r.status_code == 200, r.text
    return r.json()


def test_append_show_and_context_by_layer(client, keys):
    _, a, _ = keys
    out = seed(client, a)
    assert len(out["messages"]) == 18 and [m["seq"] for m in out["messages"]] == list(range(1, 19))
    assert len(out["steps"]) == 4  # cadence 2: four full stretches of two user turns filed
    shown = client.get(f"{API}/threads/t1", headers=bearer(a)).json()
    assert shown["thread"]["messages"] == 18 and shown["thread"]["filed_to"] == 16
    assert len(shown["episodes"]) == 4
    ctx = client.get(f"{API}/threads/t1/context", headers=bearer(a),
                     params={"budget": 1500, "message": "What was my passport number?"}).json()
    layers = ctx["trace"]["tokens_by_layer"]
    assert ctx["trace"]["tokens_total"] <= 1500
    assert sum(layers.values()) == ctx["trace"]["tokens_total"]
    assert ctx["messages"][-1] == {"role": "user", "content": "What was my passport number?",
                                   "layer": "new"}
    assert {"system", "tools", "new"} <= set(layers)
    # With no tools asked for, the tools layer costs nothing.
    bare = client.get(f"{API}/threads/t1/context", headers=bearer(a),
                      params={"budget": 1500, "tools": "false"}).json()
    assert bare["tools"] == [] and bare["trace"]["tokens_by_layer"].get("tools", 0) == 0


def test_buffer_points_at_the_records_of_the_evicted_fact(client, keys):
    _, a, _ = keys
    seed(client, a, n=40)  # ~1,300 tokens of conversation: more than the budget holds
    ctx = client.get(f"{API}/threads/t1/context", headers=bearer(a),
                     params={"budget": 1200}).json()
    assert all(FACT not in m["content"] for m in ctx["messages"])  # slid out of the window
    lines = ctx["trace"]["buffer"]["lines"]
    assert lines and lines[0]["start"] == 1  # the first stretch: how the conversation started
    rec = client.get(f"{API}/records/{lines[0]['record_ids'][0]}", headers=bearer(a),
                     params={"sources": "true"}).json()
    assert "K4471902" in rec["record"]["text"]
    assert rec["sources"][0]["content"] == FACT


def test_memory_step_validated_422_with_problems_and_nothing_applied(client, keys):
    _, a, _ = keys
    seed(client, a, n=1, step=False)
    bad = {"records": [{"op": "add"}, {"op": "explode", "id": 3}], "relevance": "high"}
    r = client.post(f"{API}/threads/t1/step", headers=bearer(a), json={"output": bad})
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["type"] == "step_error"
    assert any(p.startswith("records[0].text") for p in err["problems"])
    assert any(p.startswith("records[1].op") for p in err["problems"])
    assert any(p.startswith("episode") for p in err["problems"])
    assert client.get(f"{API}/records", headers=bearer(a)).json()["records"] == []
    assert client.get(f"{API}/threads/t1", headers=bearer(a)).json()["episodes"] == []

    good = {"records": [{"op": "add", "text": "Passport K4471902", "source": [1]},
                        {"op": "update", "id": 999, "text": "invented"}],
            "episode": "Passport number given; trip to Lisbon planned",
            "relevance": [{"seq": 1, "score": 0.9}]}
    r = client.post(f"{API}/threads/t1/step", headers=bearer(a),
                    json={"output": good, "start": 1, "end": 4})
    assert r.status_code == 200, r.text
    res = r.json()["result"]
    assert len(res["added"]) == 1 and res["episode"]["record_ids"] == res["added"]
    assert set(res["dropped_ids"]) == {"999"}  # the model's invented id is dropped, reported
    # Retrying the same stretch overwrites: still one episode, one record.
    again = client.post(f"{API}/threads/t1/step", headers=bearer(a),
                        json={"output": good, "start": 1, "end": 4}).json()["result"]
    assert again["replaced"] is True
    assert len(client.get(f"{API}/records", headers=bearer(a)).json()["records"]) == 1
    # A string that is not JSON is a step error too; start without end is a usage error.
    r = client.post(f"{API}/threads/t1/step", headers=bearer(a),
                    json={"output": "{nope", "start": 1, "end": 4})
    assert r.status_code == 422 and r.json()["error"]["problems"]
    r = client.post(f"{API}/threads/t1/step", headers=bearer(a), json={"start": 1})
    assert r.status_code == 400
    r = client.post(f"{API}/threads/nope/step", headers=bearer(a), json={})
    assert r.status_code == 404


def test_records_crud_and_forget(client, keys):
    _, a, _ = keys
    r = client.post(f"{API}/records", headers=bearer(a),
                    json={"text": "Prefers aisle seats", "kind": "preference"})
    assert r.status_code == 201
    rec = r.json()["record"]
    assert rec["text"] == "Prefers aisle seats" and rec["namespace"] == "acme"
    rid = rec["id"]
    found = client.get(f"{API}/search", headers=bearer(a), params={"q": "aisle seats"}).json()
    assert [h["record"]["id"] for h in found["results"]] == [rid]
    r = client.patch(f"{API}/records/{rid}", headers=bearer(a), json={"text": "Prefers window"})
    assert r.json()["record"]["text"] == "Prefers window"
    r = client.patch(f"{API}/records/{rid}", headers=bearer(a), json={"pinned": True})
    assert r.json()["record"]["pinned"] is True
    exported = client.get(f"{API}/export", headers=bearer(a)).json()
    assert exported["namespace"] == "acme"
    assert [x["text"] for x in exported["records"]] == ["Prefers window"]
    assert [h["text"] for h in exported["records"][0]["history"]] == \
        ["Prefers aisle seats", "Prefers window"]
    listed = client.get(f"{API}/records", headers=bearer(a), params={"ids": f"{rid},99999"})
    assert [x["id"] for x in listed.json()["records"]] == [rid]
    assert client.delete(f"{API}/records/{rid}", headers=bearer(a)).status_code == 200
    assert client.get(f"{API}/records/{rid}", headers=bearer(a)).status_code == 404
    assert client.delete(f"{API}/records/{rid}", headers=bearer(a)).status_code == 404

    seed(client, a, thread="gone", n=1, step=False)
    r = client.post(f"{API}/forget", headers=bearer(a), json={"thread_id": "gone"})
    assert r.status_code == 200
    deleted = r.json()["deleted"]
    assert deleted["thread_id"] == "gone" and deleted["messages"] == 4
    assert client.get(f"{API}/threads/gone", headers=bearer(a)).status_code == 404
    r = client.post(f"{API}/forget", headers=bearer(a), json={"thread_id": "x", "record_id": 1})
    assert r.status_code == 422  # exactly one thing to forget per call
    _, _, b = keys
    seed(client, a, thread="kept-by-b", n=1, step=False)
    seed(client, b, thread="kept-by-b", n=1, step=False)
    r = client.post(f"{API}/forget", headers=bearer(a), json={"namespace": True})
    assert r.status_code == 200 and r.json()["deleted"]["namespace"] == "acme"
    assert client.get(f"{API}/threads", headers=bearer(a)).json() == {"threads": []}
    assert len(client.get(f"{API}/threads", headers=bearer(b)).json()["threads"]) == 1


def test_a_key_never_reads_or_writes_another_namespace(client, keys):
    _, a, b = keys
    seed(client, a, n=6)
    rid = client.get(f"{API}/records", headers=bearer(a)).json()["records"][0]["id"]
    hb = bearer(b)
    assert client.get(f"{API}/threads", headers=hb).json() == {"threads": []}
    assert client.get(f"{API}/threads/t1", headers=hb).status_code == 404
    assert client.get(f"{API}/records", headers=hb).json() == {"records": []}
    assert client.get(f"{API}/records", headers=hb, params={"ids": str(rid)}).json() == \
        {"records": []}
    for method, path, body in [("GET", f"/records/{rid}", None),
                               ("PATCH", f"/records/{rid}", {"text": "pwned"}),
                               ("DELETE", f"/records/{rid}", None),
                               ("POST", "/forget", {"record_id": rid}),
                               ("DELETE", "/threads/t1", None),
                               ("POST", "/threads/t1/step", {})]:
        r = client.request(method, API + path, headers=hb, json=body)
        assert r.status_code == 404, (method, path, r.text)
    ctx = client.get(f"{API}/threads/t1/context", headers=hb).json()
    assert all("K4471902" not in m["content"] for m in ctx["messages"])
    assert ctx["trace"]["buffer"]["lines"] == []
    # A writes by B land in B's namespace, under the same thread id, without touching A's.
    seed(client, b, n=0, step=False)
    assert client.get(f"{API}/threads/t1", headers=hb).json()["thread"]["messages"] == 2
    assert client.get(f"{API}/threads/t1", headers=bearer(a)).json()["thread"]["messages"] == 14
    assert client.get(f"{API}/records/{rid}", headers=bearer(a)).status_code == 200


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer nope", "Basic abc",
                                    "Bearer mlk_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAA"])
def test_requests_without_a_valid_key_are_401(client, keys, header):
    headers = {"Authorization": header} if header else {}
    r = client.get(f"{API}/threads", headers=headers)
    assert r.status_code == 401
    assert r.json()["error"]["type"] == "unauthorized"
    assert r.headers["www-authenticate"] == "Bearer"


def test_keys_are_stored_hashed_and_checked_by_secret(tmp_path, keys):
    ring, a, _ = keys
    text = (tmp_path / "keys.json").read_text()
    assert a not in text and a.split("_", 2)[2] not in text
    assert oct((tmp_path / "keys.json").stat().st_mode & 0o777) == "0o600"
    reloaded = KeyRing.load(tmp_path / "keys.json")
    assert reloaded.namespace_for(a) == "acme"
    forged = a[:-4] + ("AAAA" if not a.endswith("AAAA") else "BBBB")
    assert reloaded.namespace_for(forged) is None
    assert reloaded.revoke(a.split("_", 2)[1]) and KeyRing.load(tmp_path / "keys.json") \
        .namespace_for(a) is None


def test_keys_revoked_or_added_by_the_cli_apply_to_a_running_server(client, keys, tmp_path,
                                                                     capsys):
    ring, a, b = keys
    assert client.get(f"{API}/whoami", headers=bearer(a)).status_code == 200
    assert main(["keys", "revoke", a.split("_", 2)[1], "--keys", str(ring.path)]) == 0
    assert main(["keys", "add", "initech", "--keys", str(ring.path), "--json"]) == 0
    c = json.loads(capsys.readouterr().out.split("\n", 1)[1])["key"]
    ring.refresh(every=0)  # the server checks the file at most once a second
    assert client.get(f"{API}/whoami", headers=bearer(a)).status_code == 401
    assert client.get(f"{API}/whoami", headers=bearer(b)).json()["namespace"] == "globex"
    assert client.get(f"{API}/whoami", headers=bearer(c)).json()["namespace"] == "initech"


def test_dev_mode_only_on_loopback(memory, tmp_path):
    empty = KeyRing.load(tmp_path / "none.json")
    with pytest.raises(UsageError, match="not loopback"):
        Auth.for_host(empty, "0.0.0.0")
    auth = Auth.for_host(empty, "127.0.0.1")
    assert auth.dev
    with TestClient(create_app(memory, auth, mcp=False), base_url="http://localhost:8765") as c:
        assert c.get(f"{API}/whoami").json()["namespace"] == "default"
        assert "security" not in c.get("/openapi.json").json()  # no keys to send
        # DNS rebinding: a page on evil.example resolving to 127.0.0.1 is refused.
        r = c.get(f"{API}/threads", headers={"Host": "evil.example"})
        assert r.status_code == 403 and r.json()["error"]["type"] == "forbidden"
        # The first key added ends dev mode on the running server.
        KeyRing.load(tmp_path / "none.json").add("acme")
        empty.refresh(every=0)
        assert c.get(f"{API}/whoami").status_code == 401


def test_limits_and_errors_are_json_4xx(client, keys):
    _, a, _ = keys
    h = bearer(a)
    big = {"messages": [{"role": "user", "content": "x" * 70_000}]}
    r = client.post(f"{API}/threads/t/messages", headers=h, json=big)
    assert r.status_code == 413 and r.json()["error"]["type"] == "payload_too_large"

    def chunks():  # no Content-Length: the limit is enforced while reading
        for _ in range(100):
            yield b"x" * 1024

    hj = {**h, "Content-Type": "application/json"}
    r = client.post(f"{API}/threads/t/messages", headers=hj, content=chunks())
    assert r.status_code == 413
    r = client.post(f"{API}/threads/t/messages", headers=hj, content=b"{not json")
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_json"
    r = client.post(f"{API}/threads/t/messages", headers=hj, content=b'{"messages": [NaN]}')
    assert r.status_code == 400
    r = client.post(f"{API}/threads/t/messages", headers=h,
                    json={"messages": [{"role": "robot", "content": 5}], "extra": 1})
    assert r.status_code == 422
    probs = r.json()["error"]["problems"]
    assert any("role" in p for p in probs) and any("content" in p for p in probs)
    assert any("extra" in p for p in probs)
    r = client.post(f"{API}/threads/t/messages", headers=hj,
                    content=b'{"messages": [{"role": "user", "content": "\\ud800"}]}')
    assert r.status_code == 422
    r = client.get(f"{API}/threads/t/context", headers=h, params={"budget": "lots"})
    assert r.status_code == 400
    r = client.get(f"{API}/threads/{'x' * 201}/context", headers=h)  # breaks the id rule
    assert r.status_code == 400 and "at most 200 characters" in r.json()["error"]["message"]
    r = client.get(f"{API}/threads/t/context", headers=h, params={"budget": 10})
    assert r.status_code == 400 and r.json()["error"]["type"] == "budget_too_small"
    r = client.get(f"{API}/nothing-here", headers=h)
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found"
    r = client.put(f"{API}/records", headers=h)
    assert r.status_code == 405 and "error" in r.json()
    r = client.get("/v1/chat/completions", headers=h)  # the proxy's route, the wrong method
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    # Past the spec's range (1..2**63-1) a path id is a bad request, as the spec says; within
    # it, an id this namespace does not hold is a 404.
    r = client.get(f"{API}/records/99999999999999999999", headers=h)
    assert r.status_code == 400
    r = client.get(f"{API}/records/{2**63}", headers=h)
    assert r.status_code == 400 and "<= 9223372036854775807" in r.json()["error"]["message"]
    assert client.get(f"{API}/records/{2**63 - 1}", headers=h).status_code == 404


def test_openapi_describes_every_route(client):
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.1")
    for op in OPERATIONS:
        assert op.method.lower() in spec["paths"][op.path], op.path
    assert "/v1/chat/completions" in spec["paths"]
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


def test_live_server_on_loopback(memory, keys):
    ring, a, _ = keys
    with serve_in_thread(create_app(memory, Auth(ring), mcp=False)) as url:
        req = urllib.request.Request(
            f"{url}{API}/threads/live/messages", method="POST",
            data=json.dumps({"messages": conversation(0)}).encode(),
            headers={"Authorization": f"Bearer {a}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req) as r:
            assert r.status == 200
        with urllib.request.urlopen(url + "/") as r:
            assert b"memlane inspector" in r.read()
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(f"{url}{API}/threads")
        assert e.value.code == 401


def test_cli_keys_and_serve_refuses_an_open_public_server(tmp_path, capsys):
    keyfile = str(tmp_path / "k.json")
    assert main(["keys", "add", "acme", "--keys", keyfile, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert KeyRing.load(keyfile).namespace_for(shown["key"]) == "acme"
    assert shown["key"] not in (tmp_path / "k.json").read_text()
    assert main(["keys", "list", "--keys", keyfile]) == 0
    assert "acme" in capsys.readouterr().out
    empty = str(tmp_path / "none.json")
    code = main(["--db", str(tmp_path / "x.db"), "serve", "--host", "0.0.0.0", "--keys", empty])
    assert code == 2 and "not loopback" in capsys.readouterr().err


def test_serve_with_a_namespace_in_dev_mode_serves_that_namespace(tmp_path):
    """`memlane -n work serve` with no keys: requests read and write namespace 'work'."""
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "m.db"
    env = {**os.environ, "HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlane", "--db", str(db), "-n", "work", "serve", "--port",
         str(port), "--keys", str(tmp_path / "keys.json"), "--no-mcp"],
        stderr=subprocess.PIPE, text=True, env=env)
    try:
        base = f"http://127.0.0.1:{port}/v1/memlane"
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"{base}/whoami", timeout=2) as r:
                    who = json.load(r)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("server did not start")
        assert who["namespace"] == "work" and who["dev_mode"] is True
        req = urllib.request.Request(
            f"{base}/threads/t/messages", method="POST",
            data=json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode(),
            headers={"content-type": "application/json"})
        urllib.request.urlopen(req, timeout=5).close()
    finally:
        proc.terminate()
        err = proc.communicate(timeout=20)[1]
    assert "namespace 'work'" in err
    with Memory.open(db, namespace="work") as mem:
        assert [t.thread_id for t in mem.threads()] == ["t"]
        assert mem.namespace("default").threads() == []


@pytest.mark.parametrize(("exc", "status", "kind"), [
    ("StepConflict", 409, "step_conflict"), ("NotFound", 404, "not_found"),
    ("BudgetTooSmall", 400, "budget_too_small"),
    ("UsageError", 400, "invalid_request"), ("UpstreamTimeout", 504, "upstream_timeout"),
    ("ModelError", 502, "upstream_error"), ("StoreError", 500, "server_error"),
])
def test_each_memlane_error_has_its_status(exc, status, kind):
    # A subclass gets its own status, not its base's (a timeout is 504, not 502).
    from memlane import errors
    from memlane.server.base import error_response

    r = error_response(getattr(errors, exc)("what went wrong"))
    assert (r.status_code, json.loads(r.body)["error"]) == (
        status, {"message": "what went wrong", "type": kind})


def test_request_threads_carry_context_and_finish_before_a_cancel(memory, keys):
    """`Service.in_thread`, the hop every route's blocking work takes: the caller's context
    variables reach the thread, an error comes back as raised, and a request cancelled while
    its thread runs waits for the thread's work to finish before it is cancelled (a turn is
    never left half done, as with anyio's `to_thread` before)."""
    import asyncio
    import contextvars
    import threading
    import time

    from memlane.server.base import Service

    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    svc = Service(memory, Auth(keys[0]), ServerConfig())
    finished: list[str] = []

    def slow() -> None:
        time.sleep(0.3)
        finished.append(threading.current_thread().name)

    def fails() -> None:
        raise UsageError("bad input")

    async def go() -> None:
        var.set("the request's")
        assert await svc.in_thread(var.get) == "the request's"
        with pytest.raises(UsageError, match="bad input"):
            await svc.in_thread(fails)
        task = asyncio.ensure_future(svc.in_thread(slow))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert finished and finished[0].startswith("memlane-request")

    try:
        asyncio.run(go())
    finally:
        svc.close()
