"""`prompt_version` is memoised by content: equal inputs give the memoised value, and a schema
changed in place (the same objects, other words) gives a new version, as computed afresh."""

from __future__ import annotations

import copy

from memlane.tool_schemas import TOOL_SCHEMAS
from memlane.tools import answer


def test_prompt_version_follows_the_content_not_the_objects() -> None:
    tools = [dict(t) for t in TOOL_SCHEMAS]
    v1 = answer.prompt_version("Be brief.", True, tools)
    assert answer.prompt_version("Be brief.", True, [dict(t) for t in TOOL_SCHEMAS]) == v1
    # The same dicts, one description changed in place: a different prompt.
    changed = copy.deepcopy(tools)
    changed[0]["function"]["description"] += " Also the weather."
    v2 = answer.prompt_version("Be brief.", True, changed)
    assert v2 != v1
    answer._VERSIONS.clear()
    assert answer.prompt_version("Be brief.", True, changed) == v2  # computed afresh, same
    assert answer.prompt_version("Be brief.", True, tools) == v1
    assert answer.prompt_version("Be brief.", False, tools) != v1
    assert answer.prompt_version("Be brief.", True, tools, inline=True) != v1


def test_prompt_version_takes_what_marshal_cannot_encode() -> None:
    class Odd(str):  # a str subclass: marshal refuses it, json writes it
        pass

    tools = [{"type": "function", "function": {"name": Odd("x"), "parameters": {}}}]
    plain = [{"type": "function", "function": {"name": "x", "parameters": {}}}]
    assert answer.prompt_version("p", True, tools) == answer.prompt_version("p", True, plain)
