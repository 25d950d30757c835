"""Working memory: turns scored by the memory step, decayed with age, pruned lowest first.

The two rules the assembler (`assemble.py`) applies to its working turns, as pure functions of
scores; it groups the window into turns itself, inline, on its fast path.
"""

from __future__ import annotations

from collections.abc import Sequence


def decayed(score: float, age_turns: int, half_life: float) -> float:
    """`score` halved every `half_life` turns of age."""
    if half_life <= 0:
        return score
    return score * 0.5 ** (age_turns / half_life)


def drop_order(scores: Sequence[float]) -> list[int]:
    """Indices in the order working memory gives them up: lowest score first, oldest on ties."""
    return sorted(range(len(scores)), key=lambda i: (round(scores[i], 9), i))
