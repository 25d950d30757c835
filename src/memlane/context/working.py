"""Working memory: turns scored by the memory step, decayed with age, pruned lowest first.

Pure functions of the turns and the policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..types import Message


@dataclass(frozen=True)
class Turn:
    """A user message and what followed it, up to the next user message."""

    messages: tuple[Message, ...]

    @property
    def seq(self) -> int:
        return self.messages[0].seq

    @property
    def end(self) -> int:
        return self.messages[-1].seq

    @property
    def relevance(self) -> float | None:
        for m in self.messages:
            if m.relevance is not None:
                return m.relevance
        return None


def split_turns(messages: Sequence[Message]) -> list[Turn]:
    """Group messages into turns; messages before the first user message form their own turn."""
    turns: list[list[Message]] = []
    for m in messages:
        if m.role == "user" or not turns:
            turns.append([m])
        else:
            turns[-1].append(m)
    return [Turn(tuple(t)) for t in turns]


def decayed(score: float, age_turns: int, half_life: float) -> float:
    """`score` halved every `half_life` turns of age."""
    if half_life <= 0:
        return score
    return score * 0.5 ** (age_turns / half_life)


def score_turns(
    turns: Sequence[Turn], newest_index: int, half_life: float, default: float
) -> list[float]:
    """Decayed score for each turn; age counts turns back from `newest_index`."""
    out = []
    for i, t in enumerate(turns):
        r = t.relevance
        out.append(decayed(default if r is None else r, newest_index - i, half_life))
    return out


def drop_order(scores: Sequence[float]) -> list[int]:
    """Indices in the order working memory gives them up: lowest score first, oldest on ties."""
    return sorted(range(len(scores)), key=lambda i: (round(scores[i], 9), i))
