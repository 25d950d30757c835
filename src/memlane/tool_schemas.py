"""JSON schemas of memlane's memory tools, in OpenAI function format (what the model is offered).

Handlers live in `memlane.tools.handlers`, above `Memory`; these are only the definitions, here
below it, so assembly can count them in the budget without importing the handlers.
"""

from __future__ import annotations

from typing import Any


def _fn(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    _fn("search_memory", "Search long-term memory records of this user.",
        {"query": {"type": "string"}, "limit": {"type": "integer", "default": 5}}, ["query"]),
    _fn("open_memory", "Open records by id (e.g. from a memory note); optionally their source "
        "messages, or their earlier versions (a fact that changed).",
        {"ids": {"type": "array", "items": {"type": "integer"}},
         "sources": {"type": "boolean", "default": False},
         "history": {"type": "boolean", "default": False}}, ["ids"]),
    _fn("remember", "Save one lasting fact to long-term memory.",
        {"text": {"type": "string"}, "kind": {"type": "string"}}, ["text"]),
    _fn("update_memory", "Replace the text of a record that changed.",
        {"id": {"type": "integer"}, "text": {"type": "string"}}, ["id", "text"]),
    _fn("forget", "Erase a record the user asked to forget (its sentences in the conversation "
        "are redacted too). A wrong record: fix it with update_memory.",
        {"id": {"type": "integer"}}, ["id"]),
    _fn("recall", "Find a result of a tool call made in an earlier conversation.",
        {"query": {"type": "string"}, "limit": {"type": "integer", "default": 3}}, ["query"]),
)

# What the handlers also accept beyond what the model is offered. Kept out of the model's schemas
# (they are in every context); clients that are not a model see them (MCP's input schemas).
_HANDLER_EXTRAS: dict[str, dict[str, Any]] = {
    "search_memory": {"kind": {"type": "string",
                               "description": "only records of this kind (fact, preference, ...)"}},
}

TOOL_ARGUMENTS: dict[str, dict[str, Any]] = {
    t["function"]["name"]: {
        **t["function"]["parameters"],
        "properties": {**t["function"]["parameters"]["properties"],
                       **_HANDLER_EXTRAS.get(t["function"]["name"], {})},
    }
    for t in TOOL_SCHEMAS
}
"""Each tool's arguments as its handler takes them (JSON schema): the model's schema plus the
extras above. The one source of `memlane.tools.handlers`' argument check and of MCP's input
schemas."""

MEMORY_TOOL_NAMES: frozenset[str] = frozenset(t["function"]["name"] for t in TOOL_SCHEMAS)
"""The names of memlane's memory tools (an application or client tool may not shadow them in
the agent; in the proxy a client tool of the same name wins)."""
