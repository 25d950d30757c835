"""docs/API.md, written from the OpenAPI spec the server serves (`/openapi.json`), so the page
cannot drift from what the server accepts; a test compares the two.

    python -m memlane.server.apidoc --write      # regenerate docs/API.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HEADER = """# REST API

Generated from the OpenAPI spec that `memlane serve` publishes at `/openapi.json` (the same table
of operations validates requests); regenerate with `python -m memlane.server.apidoc --write`.

Every route takes `Authorization: Bearer KEY` (a key from `memlane keys add NAMESPACE`; the key
alone decides the namespace). With no keys configured the server runs in dev mode on loopback and
serves one namespace (`memlane -n NS serve`, default `default`) without a key. A namespace is
1-200 letters, digits or `. _ : @ -`, starting with a letter or digit; a thread id is printable,
with no bidirectional controls and no whitespace at either end (refused, never trimmed).

Errors are `{"error": {"message", "type"}}`, with `problems` (each `path: what is wrong`) when
the request failed a check. Status 400: bad JSON, or a query parameter, path id or header that
fails its check (`?budget=4k`, a thread id with a space at an end); 401 (no or bad key), 404 (no
such thread or record, or another namespace's), 405, 409 (a stretch filed already), 413 (body
over 1 MiB) or 422 (a body field that fails the schema, every problem listed). Bad input is
never a 5xx; 502 means the upstream model failed, 503 that the server was started without
one (`memlane serve --upstream URL`), 504 that it did not answer in time.

Also served: `/v1/chat/completions` (the OpenAI-compatible proxy, below), MCP at `/mcp`, the
inspector at `/`, `/openapi.json` and `/healthz`. Other `/v1/...` routes go to the upstream only
when the operator allows them: `GET /v1/models` and `GET /v1/models/{id}` by default, more with
`memlane serve --passthrough '[METHOD] PATH'`; any other is a 403 `passthrough_not_allowed`.
"""


def _type(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"])
    t = schema.get("type", "any")
    text = " or ".join(t) if isinstance(t, list) else str(t)
    if text == "array" and "items" in schema:
        text = f"array of {_type(schema['items'])}"
    facts = []
    if "enum" in schema:
        facts.append("one of " + ", ".join(f"`{v}`" for v in schema["enum"]))
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if lo is not None or hi is not None:
        facts.append(f"{'' if lo is None else lo}..{'' if hi is None else hi}")
    if "maxLength" in schema:
        facts.append(f"at most {schema['maxLength']:,} characters")
    if "maxItems" in schema:
        facts.append(f"at most {schema['maxItems']} items")
    if "default" in schema:
        facts.append(f"default `{json.dumps(schema['default'])}`")
    return text + (f" ({'; '.join(facts)})" if facts else "")


def _fields(schema: dict[str, Any], indent: str = "") -> list[str]:
    """An object's properties as a bullet list, one level of nesting spelled out."""
    props = schema.get("properties") or {}
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return _fields(schema["items"], indent)
    required = set(schema.get("required") or [])
    out = []
    for name, sub in props.items():
        mark = "" if name in required else " (optional)"
        desc = f": {sub['description']}" if sub.get("description") else ""
        out.append(f"{indent}- `{name}`{mark}: {_type(sub)}{desc}")
        if not indent and (sub.get("properties") or
                           (sub.get("type") == "array" and
                            isinstance(sub.get("items"), dict) and sub["items"].get("properties"))):
            out += _fields(sub, indent + "  ")
    return out


def render(spec: dict[str, Any]) -> str:
    """The Markdown page for `spec` (an OpenAPI 3 document as `openapi_spec()` builds it)."""
    lines = [HEADER]
    by_tag: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            tag = (op.get("tags") or ["other"])[0]
            by_tag.setdefault(tag, []).append((method.upper(), path, op))
    lines.append("## Routes\n")
    lines.append("| method | path | what |\n|---|---|---|")
    for ops in by_tag.values():
        for method, path, op in ops:
            lines.append(f"| {method} | `{path}` | {op.get('summary', '')} |")
    lines.append("")
    for tag, ops in by_tag.items():
        lines.append(f"## {tag}\n")
        for method, path, op in ops:
            lines.append(f"### {method} `{path}`\n")
            if op.get("summary"):
                lines.append(op["summary"] + ("" if op["summary"].endswith(".") else ".") + "\n")
            params = op.get("parameters") or []
            if params:
                lines.append("| parameter | in | type | |\n|---|---|---|---|")
                for p in params:
                    req = "required" if p.get("required") else ""
                    desc = p.get("description", "")
                    lines.append(f"| `{p['name']}` | {p['in']} | {_type(p.get('schema', {}))} | "
                                 f"{'; '.join(x for x in (req, desc) if x)} |")
                lines.append("")
            body = (op.get("requestBody") or {}).get("content", {}).get("application/json")
            if body:
                lines.append("Request body (JSON):\n")
                lines += _fields(body.get("schema", {})) or ["- any JSON object"]
                lines.append("")
            ok = (op.get("responses") or {}).get("200", {})
            schema = ok.get("content", {}).get("application/json", {}).get("schema")
            if schema:
                lines.append("Response (200):\n")
                lines += _fields(schema) or [f"- {_type(schema)}"]
                lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def default_path() -> Path:
    """docs/API.md of the source checkout this module sits in."""
    return Path(__file__).resolve().parents[3] / "docs" / "API.md"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m memlane.server.apidoc", description=__doc__)
    ap.add_argument("--write", action="store_true", help="write docs/API.md (default: print)")
    args = ap.parse_args(argv)
    from .operations import openapi_spec

    text = render(openapi_spec())
    if args.write:
        default_path().write_text(text, encoding="utf-8")
        print(f"wrote {default_path()}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
