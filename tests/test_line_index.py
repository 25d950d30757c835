"""The line index carried on from the one before (a memory step filed more stretches, the oldest
left the newest `INDEXED_LINES`) is the index built afresh: the same lines, terms and matches."""

from __future__ import annotations


def _terms(line: str) -> frozenset[str]:
    return frozenset(w for w in line.lower().split() if len(w) > 2)


def _normal(index: tuple) -> tuple:  # positions counted from the first line kept
    lines, bags, where, offset = index
    return lines, bags, {t: [p - offset for p in ps] for t, ps in where.items()}


