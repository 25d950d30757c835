"""What a store memoises of rows only a write to records or episodes changes, valid while its
`revision()` stays (SQLite: `PRAGMA data_version`; PostgreSQL: the counter of migration 6; plus
the store object's own write transactions): records and their sources by id, pages of records,
the index size; on SQLite also term counts, each term's newest postings and its scored matches.
A conversation asks for the same common words turn after turn, and a fact restated over a long
thread has a thousand sources: read once, not every turn. Bounded; emptied on every write of
this store (a forgotten text must not stay) and whenever another connection commits."""

from __future__ import annotations

from collections.abc import Hashable

from ...types import Record

POSTINGS_MEMO = 1024
"""Terms whose postings `memo_search.SQLiteMemoSearch._memo_candidates` memoises before it
starts again (a term's list holds at most `SearchBounds.exact_postings` (id, length factor)
pairs)."""
RECORDS_MEMO = 8192
"""Records (and records' sources) the SQLite store memoises before it starts again."""


class RowMemos:
    """The memos and the revision they are valid for."""

    def __init__(self) -> None:
        self.rev: Hashable | None = None
        self.sources: dict[int, tuple[int, ...]] = {}
        """Source message ids by record id (`_with_sources`)."""
        self.records: dict[int, Record] = {}
        """Records by id (`_records` with ids)."""
        self.counts: dict[tuple[str, int], int] = {}
        """Records holding a term, counted up to a cap: `(term, cap) -> n` (`_term_counts`)."""
        self.postings: dict[tuple[str, ...], tuple[list[tuple[int, float]], bool]] = {}
        """Newest postings by (namespace, term) (`_memo_candidates`); by (namespace, term,
        "bm25"), a term's scored matches (`_memo_exact`)."""
        self.pages: dict[tuple[str, int, int, bool], list[Record]] = {}
        """Records by (namespace, limit, offset, pinned only) (PostgreSQL's `records`)."""
        self.size: float | None = None
        """How many records the lexical index holds (PostgreSQL's `_index_size`)."""
        self.seen: set[tuple[str, str]] = set()
        """(namespace, term) a search asked for since the memos were emptied: a term's list is
        read the second time it is asked for (SQLite's `_memo_worth`)."""

    def drop(self) -> None:
        self.rev = None
        self.size = None
        self.seen.clear()
        for memo in (self.sources, self.records, self.postings, self.counts, self.pages):
            memo.clear()

    def keep_but(self, touched: set[int], rev: Hashable) -> None:
        """After this store's own write to the `touched` records only (and episodes): those
        records and their sources leave; term counts, postings, pages and the index size (the
        index's statistics moved) are emptied; the rest is valid for `rev`, the revision now."""
        for rid in touched:
            self.records.pop(rid, None)
            self.sources.pop(rid, None)
        self.postings.clear()
        self.counts.clear()
        self.pages.clear()
        self.seen.clear()
        self.size = None
        self.rev = rev

    def fresh(self, rev: Hashable) -> None:
        """Emptied if the revision moved; each memo bounded on its own (a full one starts
        again; the others keep what they hold)."""
        if rev != self.rev:
            self.drop()
            self.rev = rev
        for memo, most in ((self.sources, RECORDS_MEMO), (self.records, RECORDS_MEMO),
                           (self.postings, POSTINGS_MEMO), (self.counts, RECORDS_MEMO),
                           (self.pages, POSTINGS_MEMO), (self.seen, RECORDS_MEMO)):
            if len(memo) > most:
                memo.clear()
