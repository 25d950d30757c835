"""Turning any user text into a safe full-text query.

A query typed by a person or written by a model is never handed to the engine's query parser: it
is cut into word tokens, common English function words are dropped (they match most rows, add
nothing to BM25 and are what makes a query slow on a big namespace), and each remaining term is
quoted and OR-ed. `"` and `*`, `NEAR`, `AND`, column filters: none of it survives as syntax, so no
input can raise a syntax error or reach another column.
"""

from __future__ import annotations

from ..text import MAX_QUERY_TERMS as MAX_TERMS
from ..text import QUERY_STOPWORDS as STOPWORDS
from ..text import SEARCH_TOKEN as _TOKEN
from ..text import query_terms

__all__ = ["MAX_TERMS", "STOPWORDS", "fts5_match", "query_terms", "quote"]


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
