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


_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_BOOL: dict[str, Any] = {"type": "boolean"}

# Every context that offers the tools pays for these: terse, the descriptions saying what the
# memory instructions do not, the parameters without defaults (the handlers hold them; MCP's
# input schemas show them, below).
TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    _fn("search_memory", "Search the user's long-term memory.",
        {"query": _STR, "limit": _INT}, ["query"]),
    _fn("open_memory", "Open records by id; sources: their messages too; history: their "
        "earlier versions.",
        {"ids": {"type": "array", "items": _INT}, "sources": _BOOL, "history": _BOOL}, ["ids"]),
    _fn("remember", "Save a lasting fact.", {"text": _STR, "kind": _STR}, ["text"]),
    _fn("update_memory", "Replace a changed record's text.", {"id": _INT, "text": _STR},
        ["id", "text"]),
    _fn("forget", "Erase a record the user asks to forget (redacting its sentences); fix a "
        "wrong one with update_memory.", {"id": _INT}, ["id"]),
    _fn("recall", "Find a tool result from an earlier conversation.",
        {"query": _STR, "limit": _INT}, ["query"]),
)

# What the handlers also accept or assume beyond what the model is offered. Kept out of the
# model's schemas (they are in every context); clients that are not a model see them (MCP's
# input schemas).
_HANDLER_EXTRAS: dict[str, dict[str, Any]] = {
    "search_memory": {"limit": {**_INT, "default": 5},
                      "kind": {"type": "string",
                               "description": "only records of this kind (fact, preference, ...)"}},
    "open_memory": {"sources": {**_BOOL, "default": False},
                    "history": {**_BOOL, "default": False}},
    "recall": {"limit": {**_INT, "default": 3}},
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
