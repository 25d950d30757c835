"""The value types: every field documented, and the hot paths' bulk constructors equal to the
dataclass constructors (a field added to one and not the other fails here)."""

from __future__ import annotations

import ast
import dataclasses
import inspect

from memlane import types
from memlane.search.hybrid import Hit, make_hit
from memlane.types import ChatMessage, Message, make_chat_message, make_message


def test_bulk_constructors_build_the_same_objects():
    args = dict(id=7, thread_id="t", seq=3, role="user", content="hi", ts=1.5, tokens=2,
                relevance=None, name="ana", scanned=5)
    assert {f.name for f in dataclasses.fields(Message)} == set(args)
    fast, slow = make_message(**args), Message(**args)
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert fast.__dict__ == slow.__dict__
    fast_c, slow_c = make_chat_message("user", "hi", "new"), ChatMessage("user", "hi", "new")
    assert {f.name for f in dataclasses.fields(ChatMessage)} == {"role", "content", "layer"}
    assert fast_c == slow_c and repr(fast_c) == repr(slow_c)
    rec = types.Record(id=3, namespace="ns", text="t", kind="fact", thread_id=None,
                       created=1.0, updated=1.0)
    rargs = dict(id=4, namespace="ns", text="t", kind="event", source_ids=(1, 2),
                 thread_id="t", created=1.0, updated=2.0, pinned=True, suspect=False,
                 stated=1.5, scanned=9)
    assert {f.name for f in dataclasses.fields(types.Record)} == set(rargs)
    fast_r, slow_r = types.make_record(**rargs), types.Record(**rargs)
    assert fast_r == slow_r and hash(fast_r) == hash(slow_r) and repr(fast_r) == repr(slow_r)
    assert fast_r.__dict__ == slow_r.__dict__
    assert {f.name for f in dataclasses.fields(Hit)} == {"record", "score", "lexical_rank",
                                                         "vector_rank"}
    for args in ((rec, 1.5, 2, None), (rec, -0.0, None, 4)):
        fast_h, slow_h = make_hit(*args), Hit(*args)
        assert fast_h == slow_h and hash(fast_h) == hash(slow_h) and repr(fast_h) == repr(slow_h)


def test_every_field_of_every_value_type_has_a_docstring():
    tree = ast.parse(inspect.getsource(types))
    missing = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        body = node.body
        for i, stmt in enumerate(body):
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                nxt = body[i + 1] if i + 1 < len(body) else None
                documented = (isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
                              and isinstance(nxt.value.value, str))
                if not documented:
                    missing.append(f"{node.name}.{stmt.target.id}")
    assert missing == []
