"""What a store memoises of rows only a write to records or episodes changes, valid while its
`revision()` stays (SQLite: `PRAGMA data_version`; PostgreSQL: the counter of migration 6; plus
the store object's own write transactions): records and their sources by id, pages of records,
the index size; on SQLite also term counts, each term's newest postings and its scored matches.
A conversation asks for the same common words turn after turn, and a fact restated over a long
thread has a thousand sources: read once, not every turn. Bounded; emptied on every write of
this store (a forgotten text must not stay) and whenever another connection commits."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from operator import attrgetter

from ...types import Record

POSTINGS_MEMO = 1024
"""Terms whose postings `memo_search.SQLiteMemoSearch._memo_candidates` memoises before it
starts again (a term's list holds at most `SearchBounds.exact_postings` (id, length factor)
pairs)."""
RECORDS_MEMO = 8192
"""Records (and records' sources) the SQLite store memoises before it starts again."""


TOUCHED_MAX = 4096
"""Records this store's own steps may touch before the newest postings are emptied instead of
caught up (`RowMemos.touched`)."""


@dataclass(eq=False)
class Newest:
    """A term's newest postings in a namespace (SQLite's `_memo_candidates`): `(record id, its
    words)` pairs, newest first, a prefix of the term's postings: every posting with an id at
    least the last one's is here (`complete`: all of them are). It reflects the first `upto`
    records of `RowMemos.touched`: the rest are read again (`_catch_up`) before it is used.
    `lengths`: the distinct lengths among the pairs (None: not counted since they changed);
    `scaled`: each length's part of a score for the (term weight, average length) `scaled_for`
    (`memo_search._scaled`)."""

    pairs: list[tuple[int, int]]
    complete: bool
    upto: int
    lengths: set[int] | None = None
    scaled_for: tuple[float, float] | None = None
    scaled: dict[int, float] | None = None


@dataclass(eq=False)
class Scored:
    """A term's matches in the whole index, with what FTS5's bm25() scores each by (SQLite's
    `_memo_exact`): `rows`, `(record id, namespace, tf, D)` in id order: the term's hits in
    the record's text and the record's tokens in all columns. With the index's row count and
    token total, and the term's document count (`len(rows)`), they give each match's score to
    the bit (`memo_search.bm25_part`), so the list stays through this store's own steps: it
    reflects the first `upto` records of `RowMemos.touched`, the rest are caught up before it
    is used. `parts`: each namespace's `(record id, score)` pairs for the index's `totals`
    (row count, token total). `kept` False: the scores read could not be reproduced (another
    build of SQLite, another connection's commit between the reads): `parts` as read, valid
    for this revision only, and `rows` empty."""

    rows: list[tuple[int, str, float, int]]
    upto: int
    kept: bool
    totals: tuple[int, int] | None
    parts: dict[str, list[tuple[int, float]]]


BY_ID = attrgetter("id")
"""A record's id, the key `records` by ids sorts on (in C)."""


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
        """Newest postings by (namespace, term) (PostgreSQL's `_memo_candidates`)."""
        self.pages: dict[tuple[str, int, int, bool], list[Record]] = {}
        """Records by (namespace, limit, offset, pinned only) (PostgreSQL's `records`)."""
        self.size: float | None = None
        """How many records the lexical index holds (PostgreSQL's `_index_size`)."""
        self.seen: set[tuple[str, str]] = set()
        """(namespace, term) a search asked for since the memos were emptied: a term's list is
        read the second time it is asked for (SQLite's `_memo_worth`); kept through this
        store's own steps, as the newest postings are."""
        self.seen_exact: set[tuple[str, str]] = set()
        """The same for the exact branch's scored lists (kept through this store's own steps
        too)."""
        self.newest: dict[tuple[str, str], Newest] = {}
        """SQLite's newest postings by (namespace, term): kept through this store's own steps
        (caught up with the records they touched), emptied like the rest otherwise."""
        self.scored: dict[str, Scored] = {}
        """SQLite's scored matches by term, store-wide (`_memo_exact`): kept through this
        store's own steps (caught up with the records they touched, scored again for the
        index's new statistics), emptied like the newest postings otherwise."""
        self.totals: tuple[int, int] | None = None
        """The lexical index's row count and token total (SQLite's `_index_totals`), read once
        a revision."""
        self.touched: list[int] = []
        """The records this store's own tracked writes touched since the memos were emptied, in
        order (a record may come back): what `Newest.upto` counts."""
        self.on_drop: Callable[[], None] | None = None
        """Called when the newest postings are emptied: the store empties what it derived
        from `touched` (SQLite's index of the touched records' texts: a forgotten text must
        not stay)."""

    def known_records(self, ids: Iterable[int], namespace: str
                      ) -> tuple[list[Record], list[int]]:
        """(the memoised records of `ids` that are in `namespace`, the ids not memoised), each
        id once, in order (both engines' `records` by ids)."""
        get = self.records.get
        mine: list[Record] = []
        rest: list[int] = []
        for i in dict.fromkeys(ids):
            r = get(i)
            if r is None:
                rest.append(i)
            elif r.namespace == namespace:
                mine.append(r)
        return mine, rest

    def drop(self) -> None:
        self.rev = None
        self.size = None
        self.totals = None
        self.seen.clear()
        self.seen_exact.clear()
        for memo in (self.sources, self.records, self.postings, self.counts, self.pages):
            memo.clear()
        self._drop_newest()

    def _drop_newest(self) -> None:
        self.newest.clear()
        self.scored.clear()
        self.touched.clear()
        if self.on_drop is not None:
            self.on_drop()

    def keep_but(self, touched: set[int], rev: Hashable) -> None:
        """After this store's own write to the `touched` records only (and episodes): those
        records and their sources leave; term counts, pages and the index size and
        totals (the index's statistics moved) are emptied; the newest postings and
        the kept scored matches stay, to be caught up with the `touched` records before they
        are used; the rest is valid for `rev`, the revision now."""
        for rid in touched:
            self.records.pop(rid, None)
            self.sources.pop(rid, None)
        self.postings.clear()
        self.counts.clear()
        self.pages.clear()
        self.size = None
        self.totals = None
        for t in [t for t, e in self.scored.items() if not e.kept]:
            del self.scored[t]
        # `seen` and `seen_exact` stay with the lists: a term asked for before has its list
        # kept.
        self.touched.extend(sorted(touched))
        if len(self.touched) > TOUCHED_MAX:
            self._drop_newest()
        self.rev = rev

    def fresh(self, rev: Hashable) -> None:
        """Emptied if the revision moved; each memo bounded on its own (a full one starts
        again; the others keep what they hold)."""
        if rev != self.rev:
            self.drop()
            self.rev = rev
        for memo, most in ((self.sources, RECORDS_MEMO), (self.records, RECORDS_MEMO),
                           (self.postings, POSTINGS_MEMO), (self.counts, RECORDS_MEMO),
                           (self.pages, POSTINGS_MEMO), (self.seen, RECORDS_MEMO),
                           (self.seen_exact, RECORDS_MEMO)):
            if len(memo) > most:
                memo.clear()
        if len(self.newest) > POSTINGS_MEMO:
            self._drop_newest()
        if len(self.scored) > POSTINGS_MEMO:
            self.scored.clear()
