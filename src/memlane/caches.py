"""The read cache of one `Memory`: what the read path keeps between calls, in front of the store.

One key rule. An entry is kept under (what it is, namespace, thread, the inputs) for one value
of the store's `revision()` (which any write to records, their sources or episodes moves, by
any connection or process; appends do not): `Caches.turn(revision)`, called once at the start
of each read, empties every entry when the revision moved, and a store that cannot tell (None)
keeps nothing. No entry is keyed by an object's identity, and none is caught up through the
store's own writes: a write that moves the revision empties them all. Every forget path
empties them too (`Caches.clear()`): a forgotten fact must not outlive `forget` in this
process's memory either. The pure functions (`memlane.context`) take no memo: this is the only
place a read is remembered.

The off switch is the reference: `Memory(..., cache=False)` / `Memory.open(..., cache=False)`
keeps nothing at all, and a context or search is the same with the cache on or off
(tests/test_read_cache.py replays conversations on both engines both ways).

What is kept, what each stands in for, and what it buys: the real turn with a new message
(`benchmarks/bench_turn_trees.py`'s loop on its 10k-message file, CPU median of 120 turns, on a
quiet 2-core machine; that kind of entry not kept against everything kept, 3.1-3.4 ms a turn;
nothing kept, `cache=False`: 13 ms):

- `line_index`: a thread's buffer-line index (`context.line_index`) and the winners' rows.
  Stands in for reading the thread's newest `INDEXED_LINES` lines and splitting each into
  terms: about 6 ms a turn (9.5 ms without it; a conversation going on: 4.0 against 10.5 ms).
- `search`: the notes search's records for (query, k). Stands in for `Memory._found` (the
  search `Memory.search` runs, each record's sources capped to the few it reads): a turn's
  follow-up search (`context.notes.recent_query`) is the search the turn before ran for its own
  message, and an agent's tool loop asks for the same message again: about 1 ms a turn (4.0-4.5
  ms without it; going on: 4.0 against 4.7 ms).
- `piece`: an opened-turns candidate stretch (`context.turns.Piece`, by its seq range), with
  the terms of its messages once `rank_pieces` has split them. Stands in for reading the
  stretch's messages (`Store.messages_in`) and splitting each into terms: a range ends before
  the window, so its messages are there already and only a revision move changes them. The
  best notes cite the same stretches turn after turn: about 0.9 ms a turn at 1k, 10k and 100k
  messages (`benchmarks/cache_entry_gain.py --entry piece`: CPU median of 240 turns, the entry
  skipped in alternate blocks of 10 in one run, on a loaded machine: 2.00 / 2.16 / 2.61 ms
  kept against 2.85 / 3.12 / 3.52 ms not kept).
  tests/test_read_cache.py checks a second turn reads no stretch, the reference (cache off)
  reads them every turn, and both show the same.
- `standing`: the namespace's standing records and changed values (`Store.standing_records`,
  `Store.corrected_records`, at most `STANDING_READ` and `CHANGED_READ`), their terms and the
  ones a newer record supersedes (a `context.standing.Pool`). Stands in for those reads and
  splitting each record into terms (and reading it for the "newer than" mark) every turn: on
  the 10k-message file (200 standing records), 3.4 ms a turn kept against 5.8 ms not kept (CPU
  medians of 5 interleaved rounds of 40 turns, a loaded machine). tests/test_standing.py compares
  the context with the cache on and off after a write.

- `df`: a query term's document count, store-wide, up to `SearchBounds.count_cap`
  (`Memory._term_counts`), handed to `Store.search_records` (`counts`). Stands in for the
  database counting every term of every notes search (a walk of up to 2,000 postings for a
  common word): a conversation's new messages share most of their words, and the commonest
  cost the most to count. Instructions a turn (`benchmarks/turn_instructions.py`, 100 turns;
  the tree before the entry against the one with it): 17.61 / 30.04 M not kept against
  16.67 / 26.74 M kept at 1k / 100k messages (-5% / -11%).
  tests/test_read_cache.py checks a new message has only its new words counted, the reference
  counts them all, both show the same, and a write has them counted again.

Not kept: where cited messages are (no measurable gain), and the rendered lines, notes,
windows and policies the assembler memoised by identity. The engines keep no memo at all: a
search's term counts are kept here, in front of the store (`df`), never in it.

Besides those, two plain memos of pure functions of a text, shared with the write path and
emptied with the rest: `scans` (injection-scan verdicts, `memlane.safety.scan`) and `facts`
(the heuristic memory step's readings of a text, `memlane.step.heuristic`). `scans` stands in for
scanning every shown note, line and opened turn whose row carries no verdict of the running
scanner (every row after the scanner changes): the read lends it to the scanner for its
duration (`scans_during`). Measured (`benchmarks/bench_turn_trees.py`'s turn, cProfile, 1k
messages on a file whose rows carry an older scanner's tag): 75 scans a turn without it, about
two thirds of the turn's CPU.

And one thing that is no memo: `fills`, where each thread's last fill ended, the fill's state (it
shapes the context, so it is kept with the cache off too, `memlane.context.fill.start_policy`;
it holds no text).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

MAX_ENTRIES = 4096
"""Entries per memo before it is emptied."""
QUERY_CHARS = 4_000
"""Longer queries are searched every time, never kept (a pasted page is no repeated query)."""


class _Nothing(dict[Any, Any]):
    """A memo that keeps nothing (the cache switched off): every lookup misses."""

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


class Caches:
    """The read cache of one memory (shared by its `namespace()` views, which share its store).
    `enabled=False`: keeps nothing (the reference)."""

    def __init__(self, on_clear: Callable[[], None] | None = None, *,
                 enabled: bool = True) -> None:
        """`on_clear`: also called by `clear()` (the memory's tokenizer memo, when it has one)."""
        self.enabled = enabled
        memo: Callable[[], dict[Any, Any]] = dict if enabled else _Nothing
        self.scans: dict[str, tuple[str, ...]] = memo()
        """Injection-scan verdicts by text (`memlane.safety.scan`)."""
        self.facts: dict[str, tuple[Any, ...]] = memo()
        """A text read as a fact by the heuristic memory step (`memlane.step.heuristic
        .fact_readings`)."""
        self.fills: dict[tuple[Any, ...], int] = {}
        """Not a memo, the fill's state (kept with the cache off too, and through a forget: it
        holds no text, only where each thread's last fill to a budget ended, by (namespace,
        thread, budget, policy): `memlane.context.fill.start_policy`)."""
        self._reads: dict[tuple[Any, ...], Any] = {}
        """The read entries: `(what, namespace, thread, inputs) -> value`, all for `_rev`."""
        self._rev: Hashable | None = None
        """The revision the read entries are for."""
        self._mine = threading.local()
        """Per thread: the revision its read started at (`turn`)."""
        self._on_clear = on_clear

    def turn(self, revision: Hashable | None) -> bool:
        """Start a read on this thread at the store's `revision` (read before the rows are):
        the read entries are emptied if it moved (or is None). Whether entries may be kept
        and used now."""
        self._mine.rev = revision
        if revision is None or revision != self._rev:
            self._reads.clear()
            self._rev = revision
        return self.enabled and revision is not None

    def keeping(self) -> bool:
        """Whether this thread's read may use and keep entries now (`get` / `put`)."""
        return self._current()

    def _current(self) -> bool:
        """Whether this thread's read started at the revision the entries are for (another
        thread may have seen the revision move since: what this one read is then not kept)."""
        rev = getattr(self._mine, "rev", None)
        return self.enabled and rev is not None and rev == self._rev

    def get(self, what: str, namespace: str, thread: str | None, inputs: Hashable) -> Any:
        """The entry kept under the key, else None."""
        if not self._current():
            return None
        return self._reads.get((what, namespace, thread, inputs))

    def put(self, what: str, namespace: str, thread: str | None, inputs: Hashable,
            value: Any) -> Any:
        """Keep `value` under the key for the revision this thread's read started at (nothing
        when the cache is off, the store has no revision, or the revision moved since);
        returns `value`."""
        if self._current():
            remember(self._reads, (what, namespace, thread, inputs), value)
        return value

    def memos(self) -> dict[str, dict[Any, Any]]:
        """Every memo by name (what `clear` empties; tests walk them)."""
        return {"scans": self.scans, "facts": self.facts, "reads": self._reads}

    def clear(self) -> None:
        """Empty every memo (and the tokenizer's, through `on_clear`)."""
        for memo in self.memos().values():
            memo.clear()
        self._rev = None
        self._mine = threading.local()
        if self._on_clear is not None:
            self._on_clear()


_SCANS: ContextVar[dict[str, tuple[str, ...]] | None] = ContextVar("memlane_read_scans",
                                                                  default=None)
"""The memory's scan verdicts (`Caches.scans`) while one of its reads runs (`scans_during`)."""


@contextmanager
def scans_during(memo: dict[str, tuple[str, ...]]) -> Iterator[None]:
    """While the block runs, on this thread (or task), a stored text whose verdict is not
    kept with it (`safety.scan_stored`) is scanned through `memo`: the pure assembler takes no
    memo, and the memory's verdicts reach the scanner this way, for one read only."""
    token = _SCANS.set(memo)
    try:
        yield
    finally:
        _SCANS.reset(token)


def read_scans() -> dict[str, tuple[str, ...]] | None:
    """The scan verdicts of the read running on this thread (`scans_during`), else None."""
    return _SCANS.get()


def remember(memo: dict[Any, Any], key: Any, value: Any, most: int = MAX_ENTRIES) -> Any:
    """Store `value` under `key`, emptying `memo` first when it holds `most`; returns `value`."""
    if len(memo) >= most:
        memo.clear()
    memo[key] = value
    return value
