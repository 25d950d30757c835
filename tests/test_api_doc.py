"""docs/API.md is the REST API as the server publishes it: regenerated from the OpenAPI spec."""

from pathlib import Path

import pytest

pytest.importorskip("starlette")

from memlane.server.apidoc import default_path, render  # noqa: E402
from memlane.server.operations import OPERATIONS, openapi_spec  # noqa: E402

DOC = Path(__file__).resolve().parents[1] / "docs" / "API.md"


def test_api_md_is_in_sync_with_the_spec():
    assert default_path() == DOC
    assert DOC.read_text(encoding="utf-8") == render(openapi_spec()), (
        "docs/API.md is stale: run `python -m memlane.server.apidoc --write`")


def test_every_route_and_parameter_is_documented():
    text = DOC.read_text(encoding="utf-8")
    for op in OPERATIONS:
        assert f"### {op.method} `{op.path}`" in text
        for p in op.params:
            assert f"| `{p.name}` | {p.where} |" in text, (op.path, p.name)


def test_readme_links_the_api_page():
    readme = (DOC.parents[1] / "README.md").read_text(encoding="utf-8")
    assert "docs/API.md" in readme


def test_the_error_statuses_are_as_documented(tmp_path):
    """The header's error paragraph, request by request, on a real SQLite file."""
    from starlette.testclient import TestClient

    from memlane.memory import Memory
    from memlane.server.app import ServerConfig, create_app
    from memlane.server.auth import Auth, KeyRing
    from memlane.testing import FakeUpstream, Reply

    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "Status 400: bad JSON, or a query parameter, path id or header that fails its " \
           "check (`?budget=4k`, a thread id with a space at an end)" in text
    assert "422 (a body field that fails the schema, every problem listed)" in text
    api = "/v1/memlane/threads"
    with Memory.open(tmp_path / "m.db") as mem, \
            FakeUpstream(lambda req: Reply(content="ok")) as up:
        without = create_app(mem, Auth(KeyRing(), dev=True), ServerConfig(), mcp=False)
        with TestClient(without, base_url="http://127.0.0.1") as c:
            no_upstream = c.post("/v1/chat/completions", json={
                "user": "t", "messages": [{"role": "user", "content": "hi"}]})
        app = create_app(mem, Auth(KeyRing(), dev=True), ServerConfig(upstream=up.url),
                         mcp=False)
        with TestClient(app, base_url="http://127.0.0.1") as c:
            ok = c.post(f"{api}/t/messages", json={"messages": [{"role": "user",
                                                                  "content": "hi"}]})
            assert ok.status_code == 200, ok.text
            bad_json = c.post(f"{api}/t/messages", content=b"{not json",
                              headers={"content-type": "application/json"})
            query = c.get(f"{api}/t/context", params={"budget": "4k"})
            path_id = c.post(f"{api}/%20t/messages",
                             json={"messages": [{"role": "user", "content": "hi"}]})
            header = c.post("/v1/chat/completions", headers={"X-Memlane-Budget": "4k"},
                            json={"user": "t", "messages": [{"role": "user", "content": "hi"}]})
            body = c.post(f"{api}/t/messages", json={"messages": [{"role": "usr",
                                                                    "content": 1}]})
            missing = c.get(f"{api}/nope")
    for r in (bad_json, query, path_id, header):
        assert r.status_code == 400, r.text
        assert set(r.json()["error"]) >= {"message", "type"}
    assert query.json()["error"]["problems"] == ["budget: must be an integer, got '4k'"]
    assert "whitespace" in path_id.json()["error"]["message"]
    assert body.status_code == 422
    assert [p.split(":")[0] for p in body.json()["error"]["problems"]] == [
        "body.messages[0].role", "body.messages[0].content"]
    assert missing.status_code == 404
    assert no_upstream.status_code == 503 and "--upstream" in no_upstream.json()["error"][
        "message"]
    assert "503 that the server was started without one (`memlane serve --upstream URL`)" in text
