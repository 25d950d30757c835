"""The line index, pure: which of a thread's buffer lines best match the new message
(`Policy.index_lines`), so a question that matches a stretch's line reaches its records even when
it matches none of them. `Thread.matched_lines` reads the lines (the memory's read cache keeps the
index, `memlane.caches`); this module builds it and scores it."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from typing import TypeAlias

INDEXED_LINES = 256
"""How many of a thread's newest stretches the line index (`Thread.matched_lines`) reads: it
keeps the per-turn cost bounded on a thread of any length (a LoCoMo conversation files about
80); an older stretch is still reached through its records by the notes search."""

LineIndex: TypeAlias = tuple[list[tuple[int, str]], list[frozenset[str]], dict[str, list[int]],
                             int]
"""(end, line) of each candidate stretch, oldest first, the content terms of each line, the
lines each term is in (by position: the line's index plus the offset), and the offset (0)."""


def build_index(lines: Sequence[tuple[int, str]], terms_of: Callable[[str], frozenset[str]]
                ) -> LineIndex:
    """The index over the newest stretches' (end, line), oldest first, as
    `Store.episode_lines(..., INDEXED_LINES + 1)` returns them: when all of them came back the
    first stretch is among them, and it is left out (it is shown anyway)."""
    kept = list(lines[1:] if len(lines) <= INDEXED_LINES else lines[-INDEXED_LINES:])
    bags = []
    where: dict[str, list[int]] = {}
    for i, (_, line) in enumerate(kept):
        bag = terms_of(line)
        bags.append(bag)
        for t in bag:
            where.setdefault(t, []).append(i)
    return kept, bags, where, 0


def best_ends(index: LineIndex, want: frozenset[str] | set[str], k: int) -> list[int]:
    """The ends of the `k` stretches whose lines best match the terms `want`, best first: a
    line's terms weighted by how few lines have them (words every line has, "talked", a
    participant's name, weigh nothing); ties to the older line."""
    lines, bags, where, offset = index
    if not lines or not want:
        return []
    df = {t: len(where[t]) for t in want if t in where}
    n = len(bags)
    # A term in half the lines or more says nothing about which stretch is meant.
    weight = {t: math.log(n / c) for t, c in df.items() if 2 * c < n or n < 3}
    # Only the lines holding a weighted term can score: each weighted term adds its weight to
    # the lines it is in (its postings), terms in sorted order so the sums do not depend on
    # set order (a term without weight adds nothing).
    score: dict[int, float] = {}
    get = score.get
    for t in sorted(weight):
        w = weight[t]
        for p in where[t]:
            score[p] = get(p, 0.0) + w
    # `nlargest` is `sorted(..., reverse=True)[:k]` (the pairs are distinct: no ties).
    best = heapq.nlargest(k, [(s, -p) for p, s in score.items() if s > 0])
    return [lines[-p - offset][0] for _, p in best]


def line_terms(index: LineIndex, terms_of: Callable[[str], frozenset[str]]
               ) -> Callable[[str], frozenset[str]]:
    """`terms_of` for lines, answered from `index`'s own terms where it holds the line (made
    when the index was, once a revision) and by `terms_of` otherwise: what
    `context.when.dated_stretches` ranks a day's stretches with, dozens on a busy day."""
    bags = dict(zip((line for _, line in index[0]), index[1], strict=True))

    def terms(line: str) -> frozenset[str]:
        got = bags.get(line)
        return terms_of(line) if got is None else got
    return terms
