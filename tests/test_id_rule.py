"""One id rule on every surface, stated in the OpenAPI spec (`validate.ID_SCHEMA`,
`validate.RECORD_ID_SCHEMA`), and REST append with `step: true` that reports a step it could not
file in its 200 answer, after storing the messages once."""

from __future__ import annotations

import re
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("mcp")

from starlette.testclient import TestClient  # noqa: E402

from memlane import Memory  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.server.mcp import _mcp_schema  # noqa: E402
from memlane.tools.handlers import MemoryTools  # noqa: E402
from memlane.validate import ID_SCHEMA, RECORD_ID_SCHEMA, problems  # noqa: E402

API = "/v1/memlane"


@pytest.fixture
def served(tmp_path):
    mem = Memory.open(tmp_path / "m.db")
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    app = create_app(mem, Auth(ring), ServerConfig(), mcp=False)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield mem.namespace("acme"), c, {"Authorization": f"Bearer {key}"}
    mem.close()


@pytest.mark.parametrize("bad", ["a" * 201, " a", "a ", "a\u202eb", "a%09b"])
def test_a_thread_id_that_breaks_the_rule_is_400_on_every_route(served, bad):
    mem, c, auth = served
    sent = bad.replace("%09", "\t")  # a tab, as the server decodes the path
    assert re.search(ID_SCHEMA["pattern"], sent) is None or len(sent) > ID_SCHEMA["maxLength"]
    for method, url, body in [
            ("GET", f"{API}/threads/{bad}", None), ("GET", f"{API}/threads/{bad}/context", None),
            ("DELETE", f"{API}/threads/{bad}", None),
            ("POST", f"{API}/threads/{bad}/messages",
             {"messages": [{"role": "user", "content": "hi"}]}),
            ("POST", f"{API}/threads/{bad}/step", {})]:
        r = c.request(method, url, headers=auth, json=body)
        assert r.status_code == 400, (method, url, r.text)
        problem = r.json()["error"]["problems"][0]
        assert problem.startswith("thread id") and "must match" not in problem
    assert mem.threads() == []  # nothing was stored under any of them
    # a well-formed id the namespace does not hold is a 404
    assert c.get(f"{API}/threads/{'a' * 200}", headers=auth).status_code == 404


def test_the_spec_states_the_rule_the_server_applies(served):
    _, c, _ = served
    spec = c.get("/openapi.json").json()
    thread = spec["paths"][f"{API}/threads/{{thread_id}}"]["get"]["parameters"][0]
    assert thread["schema"] == ID_SCHEMA
    assert "400" in spec["paths"][f"{API}/threads/{{thread_id}}"]["get"]["responses"]
    forget = spec["paths"][f"{API}/forget"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["anyOf"][0]["properties"]["record_id"]
    assert forget == RECORD_ID_SCHEMA
    assert _mcp_schema("update_memory")["properties"]["id"] == RECORD_ID_SCHEMA


@pytest.mark.parametrize("ref,ok", [(1, True), ("1", True), ("#1", True), (" 1", False),
                                    ("1 ", False), ("one", False), (True, False)])
def test_a_record_id_reads_the_same_on_rest_mcp_and_the_tools(served, ref, ok):
    mem, c, auth = served
    rec = mem.remember("Dana has a dog called Rex.")
    assert (not problems(RECORD_ID_SCHEMA, ref)) is ok  # MCP's input schema
    got = MemoryTools(mem).call("update_memory", {"id": ref, "text": "Dana has two dogs."})
    assert ("error" not in got) is ok, got
    r = c.post(f"{API}/forget", headers=auth, json={"record_id": ref})
    assert (r.status_code == 200) is ok, r.text
    assert (r.status_code == 422) is (not ok)
    assert (mem.records([rec.id]) == []) is ok


def test_append_with_step_reports_a_stalled_step_in_a_200_after_storing_once(served):
    mem, c, auth = served
    # A record left tied to step 8 of the thread that no episode has: every stretch ending
    # there is refused (the state a thread deleted before migration 8 left).
    with mem.store.transaction() as tx:
        tx.add_record(mem.ns, "A stale record of an old step.", "fact", [], "t", time.time(),
                      8, False)
    msgs = [{"role": r, "content": f"My locker number {i} is {4400 + i}."}
            for i in range(5) for r in ("user", "assistant")]
    r = c.post(f"{API}/threads/t/messages", headers=auth, json={"messages": msgs,
                                                                 "step": True})
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["messages"]) == 10
    assert body["step_problem"]["type"] == "step_stalled"
    assert (body["step_problem"]["start"], body["step_problem"]["end"]) == (1, 8)
    assert mem.thread("t").info().messages == 10  # stored once: nothing for a client to resend
    # without the stall the field is absent
    r = c.post(f"{API}/threads/u/messages", headers=auth, json={"messages": msgs[:2],
                                                                 "step": True})
    assert r.status_code == 200 and "step_problem" not in r.json()
