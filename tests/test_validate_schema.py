"""The one JSON-schema validator (`memlane.validate.problems`) on the proxy's request schema:
what it reports, word for word, for the forms `anyOf` allows and refuses and for text that is
not Unicode."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from memlane.server.proxy import CHAT_REQUEST  # noqa: E402
from memlane.validate import problems  # noqa: E402


def body(content: object) -> dict[str, object]:
    return {"model": "m", "messages": [{"role": "user", "content": content}]}


@pytest.mark.parametrize("content", ["hi", "héllo ünïcode", None, [{"type": "text"}], ""])
def test_allowed_forms_pass(content):
    assert problems(CHAT_REQUEST, body(content), "body") == []


def test_a_form_none_of_anyof_allows_names_each():
    assert problems(CHAT_REQUEST, body(3), "body") == [
        "body.messages[0].content: matches none of the allowed forms (body.messages[0].content: "
        "must be string, got integer; body.messages[0].content: must be null, got integer; "
        "body.messages[0].content: must be array, got integer)"]
    assert problems(CHAT_REQUEST, body([1]), "body") == [
        "body.messages[0].content: matches none of the allowed forms (body.messages[0].content: "
        "must be string, got array; body.messages[0].content: must be null, got array; "
        "body.messages[0].content[0]: must be object, got integer)"]


def test_lone_surrogates_are_refused_in_any_string():
    assert problems(CHAT_REQUEST, {**body("ok"), "user": "a\ud800b"}, "body") == [
        "body.user: is not valid Unicode text (lone surrogate)"]
    # In content, every form fails: the string form on the surrogate.
    found = problems(CHAT_REQUEST, body("x\udfffy"), "body")
    assert len(found) == 1 and "(body.messages[0].content: is not valid Unicode text" in found[0]


def test_many_messages_each_checked():
    msgs = [{"role": "user", "content": f"m{i}"} for i in range(200)]
    msgs[150] = {"role": "robot", "content": "x"}
    found = problems(CHAT_REQUEST, {"messages": msgs}, "body")
    assert found == ["body.messages[150].role: must be one of ['system', 'developer', 'user', "
                     "'assistant', 'tool', 'function'], got 'robot'"]
