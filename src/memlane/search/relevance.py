"""The score a search hit shows: how well the record matches the query, from 0 to 1.

The rankings a search runs on have no common scale: BM25 grows with the rarity of the words a
record shares with the query (and is near 0 in a small memory, where no word is rare), a cosine
depends on the embedding model (multilingual-e5-small puts unrelated texts at 0.70-0.78), and
reciprocal rank fusion gives every list the same 1/61, 1/62, ... whatever it holds. None of them
tells a reader whether a hit is any good, so every hit carries a relevance on one scale:

- lexical: the share of the query's search terms (`text.query_terms`: function words dropped)
  the record holds, each compared stemmed (`text.stem`). 1.0: every word of the query is in it.
  A lexical hit always shares a word, so it never scores 0.
- vector: the cosine placed in the embedder's `cosine_band` (lo, hi): 0 at or below `lo` (what
  unrelated texts reach), 1 at or above `hi`. An embedder without a band uses (0, 1).
- hybrid: the two combined as independent evidence, `1 - (1 - lexical) * (1 - vector)`: never
  below either half, 1 only when one half is certain.

A hit under `FLOOR` is not returned (a vector-only candidate whose cosine is no better than an
unrelated text's), so a query about nothing the memory holds returns nothing; a hit under `WEAK`
is returned but reads as weak (`Hit.weak`, and the tools say so). The order of the results is
the search's own ranking (BM25; fused by rank in hybrid search), not this score.
"""

from __future__ import annotations

from ..text import SEARCH_TOKEN, query_terms, stem

FLOOR = 0.01
"""Hits scoring below this are dropped: a hit shown always scores at least 0.01."""

WEAK = 0.3
"""Hits scoring below this are weak: they share little with the query (one word in four, or a
cosine near what unrelated texts reach)."""

DEFAULT_BAND = (0.0, 1.0)
"""The cosine band of an embedder that does not declare its own (`cosine_band`)."""


def query_stems(query: str) -> list[str]:
    """The query's search terms, stemmed and distinct: what `lexical` counts."""
    return list(dict.fromkeys(stem(t) for t in query_terms(query)))


def lexical(stems: list[str], text: str) -> float:
    """The share of `stems` (from `query_stems`) that `text` holds. The engine found the record
    by one of them at least (its stemmer may join words `text.stem` keeps apart), so a hit
    counts one term whatever the comparison finds."""
    if not stems:
        return FLOOR
    held = {stem(w) for w in SEARCH_TOKEN.findall(text.lower())}
    return max(sum(1 for s in stems if s in held), 1) / len(stems)


def vector(cosine: float, band: tuple[float, float]) -> float:
    """`cosine` placed in `band` (lo, hi), clipped to 0..1."""
    lo, hi = band
    if hi <= lo:
        return 1.0 if cosine > lo else 0.0
    return min(max((cosine - lo) / (hi - lo), 0.0), 1.0)


def combine(lex: float, vec: float) -> float:
    """A hybrid hit's relevance from its two halves' (0 for a half that did not find it)."""
    return 1.0 - (1.0 - lex) * (1.0 - vec)


def band_of(embedder: object) -> tuple[float, float]:
    """The embedder's `cosine_band` (lo, hi), or `DEFAULT_BAND`."""
    band = getattr(embedder, "cosine_band", None)
    if isinstance(band, tuple) and len(band) == 2:
        return float(band[0]), float(band[1])
    return DEFAULT_BAND
