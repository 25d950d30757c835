"""Turning any user text into a safe full-text query.

A query typed by a person or written by a model is never handed to the engine's query parser: it
is cut into word tokens, common English function words are dropped (they match most rows, add
nothing to BM25 and are what makes a query slow on a big namespace), and each remaining term is
quoted and OR-ed. `"` and `*`, `NEAR`, `AND`, column filters: none of it survives as syntax, so no
input can raise a syntax error or reach another column.
"""

from __future__ import annotations

import re

# Letters and digits, as FTS5's unicode61 tokenizer splits them (underscore is a separator there).
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

MAX_TERMS = 32
"""Longer queries keep their first 32 distinct terms (a pasted paragraph is not a query)."""

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves s t d ll m re ve
    """.split()
)


def query_terms(text: str) -> list[str]:
    """Distinct lower-cased search terms of `text`, function words dropped (unless nothing else
    is left), at most `MAX_TERMS`."""
    words = [w.lower() for w in _TOKEN.findall(text or "")]
    content = [w for w in words if w not in STOPWORDS]
    out: list[str] = []
    for w in content or words:
        if w not in out:
            out.append(w)
            if len(out) == MAX_TERMS:
                break
    return out


def quote(term: str) -> str:
    """An FTS5 string literal (a phrase of the tokens in `term`)."""
    return '"' + term.replace('"', '""') + '"'


def fts5_match(terms: list[str], columns: tuple[str, ...] = (),
               namespace: str | None = None, op: str = "OR") -> str | None:
    """An FTS5 MATCH expression: any of `terms` (in `columns`, if given) and, when the namespace
    has word characters, the namespace's tokens as a phrase in the `namespace` column. That
    namespace filter narrows the index scan; it is a superset (namespaces "a-b" and "a b" share
    tokens), so callers still check the namespace exactly. None when there is nothing to search.
    """
    if not terms:
        return None
    assert op in ("OR", "AND")
    expr = "(" + f" {op} ".join(quote(t) for t in terms) + ")"
    if columns:
        expr = "{" + " ".join(columns) + "} : " + expr
    if namespace is not None and _TOKEN.search(namespace):
        expr += " AND {namespace} : " + quote(namespace)
    return expr
