"""Turns, and working memory: turns scored by the memory step, decayed with age, pruned lowest
first, a run of pruned turns shown as one elision marker."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..types import Message
from .tokens import MESSAGE_OVERHEAD


class Turn(NamedTuple):
    """A user message and what followed it, up to the next user message (messages before the
    first user message form their own turn), as the context shows it. (A named tuple: a
    context builds dozens, and a frozen dataclass's `__init__` costs several times more.)"""

    start: int
    """Seq of its first message."""
    end: int
    """Seq of its last message."""
    messages: tuple[tuple[str, str], ...]
    """(role, text) of each message as shown: cut if oversize, a tool result as a system
    note."""
    tokens: int
    """Tokens of the messages as shown, framing included (what it costs in the context)."""
    text_tokens: int
    """Tokens of the message texts alone (what the trace says giving it up saved)."""
    relevance: float | None
    """That of its first scored message."""

    @property
    def ref(self) -> str:
        return f"msgs {self.start}-{self.end}"


def shown(m: Message, text: str) -> tuple[str, str]:
    """(role, text) a replayed message is shown with."""
    if m.role == "tool":
        # A replayed tool result has lost its call id; shown as a system note so every
        # provider accepts the message list.
        return "system", f"[tool result{' ' + m.name if m.name else ''}] {text}"
    return m.role, text


def split_turns(window: Sequence[Message], texts: Sequence[tuple[str, int]],
                count: Callable[[str], int]) -> list[Turn]:
    """The window's turns; `texts[j]` is (text, tokens) message j is shown with; `count(text)`
    counts the text of a tool result's note."""
    # `new(Turn, fields)` is `Turn(*fields)` without the named tuple's Python-level `__new__`,
    # which cost a sixth of the pure assembler on a wide window (bench_assemble).
    new = tuple.__new__
    turns: list[Turn] = []
    start = end = tokens = text_tokens = 0
    messages: list[tuple[str, str]] = []
    relevance: float | None = None
    for m, (text, n) in zip(window, texts, strict=True):
        role = m.role
        if role == "user" and messages:
            turns.append(new(Turn, (start, end, tuple(messages), tokens, text_tokens, relevance)))
            messages, tokens, text_tokens, relevance = [], 0, 0, None
        if not messages:
            start = m.seq
        end = m.seq
        if relevance is None:
            relevance = m.relevance
        if role == "tool":
            role, text = shown(m, text)
            tokens += count(text) + MESSAGE_OVERHEAD
        else:
            tokens += n + MESSAGE_OVERHEAD
        messages.append((role, text))
        text_tokens += n
    if messages:
        turns.append(new(Turn, (start, end, tuple(messages), tokens, text_tokens, relevance)))
    return turns


def decayed(score: float, age_turns: int, half_life: float) -> float:
    """`score` halved every `half_life` turns of age."""
    if half_life <= 0:
        return score
    return float(score * 0.5 ** (age_turns / half_life))


def drop_order(scores: Sequence[float]) -> list[int]:
    """Indices in the order working memory gives them up: lowest score first, oldest on ties."""
    # A stable sort by the rounded score alone keeps equal ones in index order (oldest first).
    rounded = [round(s, 9) for s in scores]
    return sorted(range(len(scores)), key=rounded.__getitem__)


def marker(n: int, a: int, b: int) -> str:
    """The elision marker of `n` consecutive working turns, msgs `a`-`b`."""
    return f"[{n} earlier turn{'s' if n > 1 else ''} elided from working memory (msgs {a}-{b})]"


def with_markers(turns: Sequence[Turn], kept: Sequence[bool]) -> list[Turn | str]:
    """Working memory as shown: the kept turns, each run of the others as one marker."""
    out: list[Turn | str] = []
    run = 0  # length of the run of elided turns ending at i - 1
    for i, t in enumerate(turns):
        if kept[i]:
            if run:
                out.append(marker(run, turns[i - run].start, turns[i - 1].end))
                run = 0
            out.append(t)
        else:
            run += 1
    if run:
        out.append(marker(run, turns[-run].start, turns[-1].end))
    return out
