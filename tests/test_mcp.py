"""The memory tools over MCP, through the official `mcp` client: stdio (`memlane mcp` as a
subprocess) and streamable HTTP (`/mcp` of a live `memlane serve` app, with API keys)."""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("mcp")

import anyio  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from memlane.memory import Memory  # noqa: E402
from memlane.server.app import create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.testing import serve_in_thread  # noqa: E402
from memlane.tool_schemas import TOOL_SCHEMAS  # noqa: E402

TOOL_NAMES = sorted(t["function"]["name"] for t in TOOL_SCHEMAS)
FACT = "Ravi's passport number is K4471902"


async def exercise(client: Client) -> dict:
    """List the tools, remember a fact, find it, open it, and call a tool that does not exist."""
    listed = await client.list_tools()
    out: dict = {"tools": sorted(t.name for t in listed.tools),
                 "schemas": {t.name: t.input_schema for t in listed.tools}}
    saved = await client.call_tool("remember", {"text": FACT, "kind": "fact"})
    out["remember"] = saved
    found = await client.call_tool("search_memory", {"query": "passport number"})
    out["search"] = found
    # A string limit (as some clients send numbers) and a kind filter.
    out["search_str"] = await client.call_tool("search_memory", {
        "query": "passport number", "limit": "3", "kind": "fact"})
    out["search_other_kind"] = await client.call_tool("search_memory", {
        "query": "passport number", "kind": "preference"})
    unknown = await client.call_tool("launch_rockets", {})
    out["unknown"] = unknown
    bad = await client.call_tool("update_memory", {"id": 987654, "text": "nope"})
    out["bad"] = bad
    rid = json.loads(saved.content[0].text)["id"]
    # Models often send ids as strings: "74", or "#74" as the notes show them.
    out["open_str"] = await client.call_tool("open_memory", {"ids": [str(rid), f"#{rid}"]})
    out["remember_kind"] = await client.call_tool("remember", {
        "text": "Ravi prefers window seats.", "kind": "preference"})
    out["resources"] = (await client.list_resources()).resources
    out["templates"] = (await client.list_resource_templates()).resource_templates
    out["prompts"] = (await client.list_prompts()).prompts
    return out


def check(out: dict) -> None:
    assert out["tools"] == TOOL_NAMES
    assert out["schemas"]["open_memory"]["required"] == ["ids"]
    assert "kind" in out["schemas"]["search_memory"]["properties"]
    assert not out["remember"].is_error
    assert not out["search"].is_error
    text = out["search"].content[0].text
    assert "K4471902" in text
    assert out["search"].structured_content == json.loads(text)
    assert not out["search_str"].is_error, out["search_str"].content[0].text
    assert "K4471902" in out["search_str"].content[0].text
    assert not out["search_other_kind"].is_error
    assert "K4471902" not in out["search_other_kind"].content[0].text  # kind filters
    assert not out["remember_kind"].is_error, out["remember_kind"].content[0].text
    assert out["unknown"].is_error and "launch_rockets" in out["unknown"].content[0].text
    assert out["bad"].is_error  # a record that does not exist: an error the model can read
    assert not out["open_str"].is_error, out["open_str"].content[0].text
    opened = json.loads(out["open_str"].content[0].text)["records"]
    assert [r["text"] for r in opened] == [FACT]
    assert out["resources"] == [] and out["templates"] == [] and out["prompts"] == []


def test_stdio(tmp_path):
    db = str(tmp_path / "m.db")
    # The whole environment, PYTHONPATH included: the client passes only a safe minimum by
    # default, and the subprocess must import this checkout's memlane.
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memlane", "--db", db, "--namespace", "acme", "mcp"],
        env=dict(os.environ))

    async def main() -> dict:
        async with Client(params, read_timeout_seconds=30) as client:
            return await exercise(client)

    check(anyio.run(main))
    with Memory.open(db, namespace="acme") as mem:
        assert [r.text for r in mem.records()] == [FACT, "Ravi prefers window seats."]
        assert mem.namespace("default").records() == []


def test_streamable_http_with_keys(tmp_path):
    ring = KeyRing.load(tmp_path / "keys.json")
    a, b = ring.add("acme"), ring.add("globex")
    memory = Memory.open(tmp_path / "m.db")

    def connect(url: str, key: str | None) -> Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        http = httpx2.AsyncClient(headers=headers, timeout=30)
        return Client(streamable_http_client(url + "/mcp", http_client=http))

    async def main(url: str) -> tuple[dict, str]:
        async with connect(url, a) as client:
            out = await exercise(client)
        async with connect(url, b) as other:
            seen = await other.call_tool("search_memory", {"query": "passport number"})
        return out, seen.content[0].text

    with serve_in_thread(create_app(memory, Auth(ring))) as url:
        out, seen_by_b = anyio.run(main, url)
        check(out)
        assert "K4471902" not in seen_by_b  # another key, another namespace

        async def no_key() -> None:
            async with connect(url, None) as client:
                await client.list_tools()

        with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the 401 its own way
            anyio.run(no_key)
        req = urllib.request.Request(url + "/mcp", method="POST", data=b"{}",
                                     headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req)
        assert e.value.code == 401
    assert [r.text for r in memory.namespace("acme").records()] == [
        FACT, "Ravi prefers window seats."]
    assert memory.namespace("globex").records() == []
    memory.close()
