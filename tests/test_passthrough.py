"""The /v1 passthrough is the operator's allowlist: read-only model listing by default, any
other route only when `memlane serve --passthrough` names it. A refused route is a 403 naming
the flag, and nothing of it reaches the upstream, so the upstream never sees the operator's key
for it. Real sockets: the official `openai` SDK against a server on loopback, in front of a
scripted upstream that records every request's headers."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

pytest.importorskip("starlette")
openai = pytest.importorskip("openai")

from memlane.errors import UsageError  # noqa: E402
from memlane.memory import Memory  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.server.upstream import PassRoute, passthrough_routes  # noqa: E402
from memlane.testing import FakeUpstream, Reply, serve_in_thread  # noqa: E402

SECRET = "Bearer operator-secret"


@pytest.fixture
def serve(tmp_path):
    """Start a keyed server with the given allowlist; yields (url, key, upstream)."""
    memory = Memory.open(tmp_path / "m.db")
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    with FakeUpstream(lambda body: Reply(content="hi")) as up:
        def start(passthrough=None):
            app = create_app(memory, Auth(ring), ServerConfig(
                upstream=up.url, upstream_key="operator-secret", passthrough=passthrough),
                mcp=False)
            return serve_in_thread(app)
        yield start, key, up
    memory.close()


def call(url, key, method, path, body=None):
    req = urllib.request.Request(f"{url}{path}", method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {key}",
                                          "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_by_default_only_model_listing_reaches_the_upstream(serve):
    start, key, up = serve
    with start() as url:
        client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
        assert [m.id for m in client.models.list()] == ["fake-model"]
        assert client.models.retrieve("fake-model").id == "fake-model"
        assert [h["Authorization"] for h in up.headers] == [SECRET, SECRET]
        seen = len(up.headers)
        with pytest.raises(openai.PermissionDeniedError) as e:
            client.files.delete("file-123")
        assert "--passthrough 'DELETE files/file-123'" in e.value.message
        with pytest.raises(openai.PermissionDeniedError):
            client.embeddings.create(input="hi", model="e")
        for method, path in [("DELETE", "/v1/files/file-123"), ("GET", "/v1/files"),
                             ("POST", "/v1/embeddings"), ("DELETE", "/v1/models/fake-model"),
                             ("POST", "/v1/models"), ("GET", "/v1/models/a/b"),
                             ("POST", "/v1/fine_tuning/jobs")]:
            status, body = call(url, key, method, path, {} if method == "POST" else None)
            assert status == 403, (method, path, status)
            assert body["error"]["type"] == "passthrough_not_allowed"
            assert "--passthrough" in body["error"]["message"]
        assert len(up.headers) == seen  # none of it was sent: the key never left


def test_the_operator_widens_it_route_by_route(serve):
    start, key, up = serve
    with start(("DELETE files/*", "POST embeddings")) as url:
        assert call(url, key, "DELETE", "/v1/files/file-123") == (
            200, {"deleted": "/v1/files/file-123"})
        status, body = call(url, key, "POST", "/v1/embeddings", {"input": "hi"})
        assert status == 200 and body["path"] == "/v1/embeddings"
        assert {h["Authorization"] for h in up.headers} == {SECRET}
        seen = len(up.headers)
        # what the operator named, and nothing more: not GET files, not models any longer
        for method, path in [("GET", "/v1/files"), ("GET", "/v1/files/file-123"),
                             ("POST", "/v1/files/file-1"), ("GET", "/v1/models")]:
            assert call(url, key, method, path)[0] == 403, (method, path)
        assert len(up.headers) == seen


@pytest.mark.parametrize("spec,method,path,ok", [
    ("GET models", "GET", "models", True),
    ("GET models", "HEAD", "models", True),
    ("GET models", "POST", "models", False),
    ("models/*", "GET", "models/gpt", True),
    ("models/*", "POST", "models/gpt", True),
    ("models/*", "DELETE", "models/gpt", False),  # DELETE only when named
    ("models/*", "GET", "models", False),
    ("models/*", "GET", "models/a/b", False),
    ("/v1/files/**", "GET", "files", True),
    ("files/**", "GET", "files/a/content", True),
    ("files/**", "GET", "filesx", False),
    ("DELETE files/*", "DELETE", "files/f1", True),
    ("**", "POST", "anything/at/all", True),
])
def test_routes_match_segment_by_segment(spec, method, path, ok):
    assert PassRoute(spec).allows(method, path) is ok


@pytest.mark.parametrize("spec", ["", "PUT models", "GET models extra", "../admin",
                                  "**/files", "files/%2e%2e", "files//x"])
def test_a_malformed_route_is_refused_with_the_form(spec):
    with pytest.raises(UsageError, match="--passthrough"):
        passthrough_routes((spec,))


def test_serve_flag_env_and_help(monkeypatch, capsys):
    from memlane.cli import build_parser
    from memlane.cli.serve import passthrough_setting

    parse = build_parser().parse_args
    assert passthrough_setting(parse(["serve"]).passthrough) is None
    args = parse(["serve", "--passthrough", "POST embeddings", "--passthrough", "GET files"])
    assert passthrough_setting(args.passthrough) == ("POST embeddings", "GET files")
    monkeypatch.setenv("MEMLANE_PASSTHROUGH", "POST embeddings, DELETE files/*")
    assert passthrough_setting(None) == ("POST embeddings", "DELETE files/*")
    with pytest.raises(SystemExit):
        parse(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--passthrough ROUTE" in text and "GET models" in text
    assert "the client gets 504" in text
