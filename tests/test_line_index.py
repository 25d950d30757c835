"""The line index carried on from the one before (a memory step filed more stretches, the oldest
left the newest `INDEXED_LINES`) is the index built afresh: the same lines, terms and matches."""

from __future__ import annotations

import random

from memlane.context.line_index import INDEXED_LINES, best_ends, build_index


def _terms(line: str) -> frozenset[str]:
    return frozenset(w for w in line.lower().split() if len(w) > 2)


def _normal(index: tuple) -> tuple:  # positions counted from the first line kept
    lines, bags, where, offset = index
    return lines, bags, {t: [p - offset for p in ps] for t, ps in where.items()}


def test_a_carried_index_is_the_index_built_afresh() -> None:
    rng = random.Random(3)
    words = [f"word{i}" for i in range(60)] + ["talked", "about", "caroline"]
    episodes: list[tuple[int, str]] = []
    end = 0
    last = None
    carried = 0
    for step in range(400):
        for _ in range(rng.choice([1, 1, 1, 2, 5])):
            end += rng.randint(2, 9)
            episodes.append((end, " ".join(rng.sample(words, rng.randint(3, 9)))))
        if step % 37 == 36 and len(episodes) > 3:  # not only filed: a line changed
            i = rng.randrange(len(episodes))
            episodes[i] = (episodes[i][0], "rewritten " + episodes[i][1])
        lines = episodes[-(INDEXED_LINES + 1):]  # what `episode_lines` returns
        fresh = build_index(lines, _terms)
        got = build_index(lines, _terms, last)
        carried += got[3] > 0
        assert _normal(got) == _normal(fresh), step
        for _ in range(5):
            want = frozenset(rng.sample(words, rng.randint(1, 4)))
            k = rng.randint(1, 6)
            assert best_ends(got, want, k) == best_ends(fresh, want, k), step
        last = got
    assert carried > 100  # carried on, not rebuilt, once the index is full
