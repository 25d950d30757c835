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
