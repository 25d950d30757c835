"""One validator for namespaces and thread ids, whatever the surface: `memlane -n`, `memlane
keys add`, `Memory.open`, REST, the proxy, the memory tools and MCP refuse the same ids with
the same message. Refused in ids: path-like namespaces (`../evil`), bidirectional controls
(U+202E would show one id as another), and whitespace at either end (nothing is trimmed:
`"real "` and `"real"` were two threads). A real server on loopback for REST and the proxy."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from memlane.cli import main
from memlane.errors import UsageError
from memlane.memory import Memory
from memlane.tools.handlers import MemoryTools

BAD_NAMESPACES = ["../evil", "a/b", " acme", "acme ", "ac me", "acme\u202e", "", "-x",
                  "x" * 201]
GOOD_NAMESPACES = ["acme", "users.u1", "a@b.example", "t:1", "x" * 200]
BAD_THREADS = ["abc\u202eexe.txt", "x\u2066y", "\u200ereal", "r\u200fl", "real ", " real",
               "real\u00a0", "\u3000real"]


@pytest.mark.parametrize("ns", BAD_NAMESPACES)
def test_a_namespace_is_refused_alike_by_cli_keys_and_api(tmp_path, capsys, ns):
    db = tmp_path / "m.db"
    assert main(["--db", str(db), f"--namespace={ns}", "remember", "a fact"]) == 2
    said_by_n = capsys.readouterr().err
    assert main(["keys", "add", "--keys", str(tmp_path / "k.json"), "--", ns]) == 2
    said_by_keys = capsys.readouterr().err
    assert said_by_n == said_by_keys and "letters, digits or . _ : @ -" in said_by_n
    assert not db.exists()  # refused before a store opened
    with pytest.raises(UsageError, match="letters, digits"):
        Memory.open(tmp_path / "api.db", namespace=ns)


@pytest.mark.parametrize("ns", GOOD_NAMESPACES)
def test_a_good_namespace_works_on_every_surface(tmp_path, capsys, ns):
    db = tmp_path / "m.db"
    assert main(["--db", str(db), "-n", ns, "remember", "Ann likes tea"]) == 0
    assert main(["keys", "add", ns, "--keys", str(tmp_path / "k.json")]) == 0
    with Memory.open(db, namespace=ns) as m:
        assert [r.text for r in m.records()] == ["Ann likes tea"]


@pytest.mark.parametrize("thread", BAD_THREADS)
def test_thread_ids_with_bidi_controls_or_edge_spaces_are_refused(tmp_path, thread):
    with Memory.open(tmp_path / "m.db") as m:
        with pytest.raises(UsageError) as e:
            m.thread(thread)
        assert ("bidirectional" in str(e.value)) or ("whitespace" in str(e.value))
        with pytest.raises(UsageError):
            m.remember("x", thread_id=thread)
        assert "error" in MemoryTools(m, thread_id=thread).call("remember", {"text": "x"})
        assert m.threads() == [] and m.records() == []


def test_cli_thread_arguments_go_through_it(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    assert main(["--db", db, "remember", "Ann likes tea"]) == 0
    assert main(["--db", db, "context", "real "]) == 2
    assert "whitespace" in capsys.readouterr().err


pytest.importorskip("starlette")

from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.testing import FakeUpstream, Reply, serve_in_thread  # noqa: E402


@pytest.fixture
def server(tmp_path):
    memory = Memory.open(tmp_path / "m.db")
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    with FakeUpstream(lambda body: Reply(content="hi")) as up:
        app = create_app(memory, Auth(ring), ServerConfig(upstream=up.url), mcp=False)
        with serve_in_thread(app) as url:
            def call(method, path, body=None, headers=()):
                req = urllib.request.Request(
                    url + path, method=method,
                    data=None if body is None else json.dumps(body).encode(),
                    headers={"Authorization": f"Bearer {key}",
                             "Content-Type": "application/json", **dict(headers)})
                try:
                    with urllib.request.urlopen(req, timeout=10) as r:
                        return r.status, json.load(r)
                except urllib.error.HTTPError as e:
                    return e.code, json.load(e)
            yield call, memory.namespace("acme"), up
    memory.close()


@pytest.mark.parametrize("thread", ["real ", "abc\u202eexe", " real"])
def test_rest_and_proxy_refuse_them_and_store_nothing(server, thread):
    call, mem, up = server
    quoted = urllib.parse.quote(thread, safe="")
    status, body = call("POST", f"/v1/memlane/threads/{quoted}/messages",
                        {"messages": [{"role": "user", "content": "hello"}]})
    assert status == 400 and ("whitespace" in body["error"]["message"]
                              or "bidirectional" in body["error"]["message"])
    status, _ = call("GET", f"/v1/memlane/threads/{quoted}")
    assert status in (400, 404)
    status, body = call("POST", "/v1/memlane/records", {"text": "Ann likes tea",
                                                       "thread_id": thread})
    assert 400 <= status < 500
    chat = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
    status, body = call("POST", "/v1/chat/completions", {**chat, "user": thread})
    assert status == 400 and "error" in body
    # (X-Memlane-Thread: HTTP itself drops the spaces around a header's value, so "real " in
    # a header is "real" before memlane reads it.)
    assert mem.threads() == [] and mem.records() == [] and up.requests == []
    # the id without the spaces is its own, ordinary thread
    assert call("POST", "/v1/chat/completions", {**chat, "user": "real"})[0] == 200
    assert [t.thread_id for t in mem.threads()] == ["real"]


def test_mcp_takes_record_ids_as_text_like_the_other_surfaces(tmp_path):
    pytest.importorskip("mcp")
    import jsonschema

    from memlane.server.mcp import _mcp_schema, call

    with Memory.open(tmp_path / "m.db") as m:
        rec = m.remember("Ann likes tea")
        args = {"id": f"#{rec.id}", "text": "Ann likes green tea"}
        jsonschema.validate(args, _mcp_schema("update_memory"))  # the client would send it
        jsonschema.validate({"ids": [str(rec.id)]}, _mcp_schema("open_memory"))
        result = call(m, "update_memory", args)
        assert not result.is_error
        assert [r.text for r in m.records()] == ["Ann likes green tea"]
