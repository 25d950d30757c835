"""The pre-checks of every rule and pattern the scan searches, built once at import (speed
only: see prechecks.py for what they stand in for and what they are tested against)."""

from __future__ import annotations

from .patterns import _COMPILED, _QUOTED, _ROT13_OVERRIDE
from .prechecks import _gate, _Literals
from .signals import (
    _AI_WORDS,
    _CONTEXT_OBJECT,
    _DECODE_ASK,
    _INLINE_HUMAN,
    _PROMPT_REFERENCE,
    _READER_ORDER,
    _ROLEPLAY,
)


class _Prechecks:
    """The pre-checks (`_gate`) of the rules and of the patterns `_scan` searches in the folded
    text, and the one pass that reads them all from a view (`literals`). Built at import
    (`_PRECHECKS`: reading the patterns takes a while), not by the first scan: a process's
    first turn or memory step would wait for it (tests/test_crash.py's writers, killed a moment
    after their first commit, then did too little work for the test: 14 messages, not 40)."""

    def __init__(self) -> None:
        groups: list[tuple[str, ...]] = []
        self.rules = [_gate(groups, rule[1]) for rule in _COMPILED]
        self.rot13_override = _gate(groups, _ROT13_OVERRIDE, rot13=True)
        self.ai_words = _gate(groups, _AI_WORDS)
        self.roleplay = _gate(groups, _ROLEPLAY)
        self.prompt_reference = _gate(groups, _PROMPT_REFERENCE)
        self.context_object = _gate(groups, _CONTEXT_OBJECT)
        self.reader_order = _gate(groups, _READER_ORDER)
        self.decode_ask = _gate(groups, _DECODE_ASK)
        self.inline = _gate(groups, _INLINE_HUMAN)
        self.quoted = _gate(groups, _QUOTED)
        self.groups = groups
        self.literals = _Literals(groups)


_PRECHECKS = _Prechecks()


def _passes(gate: frozenset[int] | None, view: str, present: frozenset[int] | None) -> bool:
    """Whether a pattern with pre-check `gate` may match `view`, whose groups are `present`."""
    if gate is None:
        return True
    return gate <= (_PRECHECKS.literals.present(view) if present is None else present)
