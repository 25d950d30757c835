"""The `Store` seam: what memlane needs from a database, as Protocols split by concern (the
message log, episodes, records and search, administration) joined in `Store`.

Two implementations pass one conformance suite: `SQLiteStore` (embedded, default) and
`PostgresStore` (many processes on many machines). Every method takes the namespace first and
every query is scoped by it: no call can read another namespace's rows.

Logic that must be the same on both engines (applying a memory step, bounding history) is written
once against the small transactional interface `StoreTx` and lives outside the stores
(`memlane.step.apply`), so the stores hold SQL and nothing else.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from ..types import ContextRows, Episode, Message, Record, ThreadInfo


@dataclass(frozen=True)
class NewMessage:
    """A message to append; the store assigns `id` and `seq`."""

    role: str
    content: str
    ts: float
    tokens: int
    name: str | None = None


@dataclass(frozen=True)
class HistoryPolicy:
    """Bounds on the message log (bounded history)."""

    ttl_seconds: float | None = 30 * 24 * 3600
    """A thread with no write for this long is deleted (None: never). Goes by wall-clock write
    time, not by message timestamps, so importing an old conversation does not expire it."""
    max_threads: int | None = 1000
    """Per namespace; past it the least recently written thread is evicted (None: no ceiling)."""


@dataclass(frozen=True)
class SearchFilters:
    """Constraints on what a search may return (None: no constraint)."""

    kinds: tuple[str, ...] | None = None
    """Only records of these kinds."""
    thread_id: str | None = None
    """Only records filed from this thread."""
    since: float | None = None
    """Only records created at or after this time (epoch seconds)."""
    until: float | None = None
    """Only records created at or before this time (epoch seconds)."""


@dataclass(frozen=True)
class SearchBounds:
    """How much work one lexical search may do (`RecordsAndSearch.search_records`).

    Ranking every record that shares a word with the query costs a few microseconds per record
    (FTS5's bm25() and PostgreSQL's ts_rank both score every match of every term before the top
    k are known), so a query with one common word cost 16 ms on 25,000 records and grew with
    them. Bounded, a search keeps the query's `max_terms` rarest terms (by their document
    counts, read every search; terms in no record are dropped) and reads at most `per_term`
    postings of each: a term in at most `per_term` records is rare and read whole; the commoner
    ones share what is left of `exact_postings` (at least `common_take` each) and give their
    newest records of the namespace (passing the filters). When the kept terms
    match at most `exact_postings` records in all (the usual case on a small store) every match
    is ranked; otherwise only those candidates. Either way, and on both engines, a record scores
    BM25 at tf = 1 (one-line facts rarely repeat a word), its length counted in words, summed
    over the terms it was found by, newest first on ties. A common term counts only for the
    candidates among its newest postings, so an old record is scored by its rare terms: that
    is the approximation, and `benchmarks/bench_search_reach.py` measures what it costs in
    reach against the exhaustive search.
    """

    max_terms: int = 8
    """Query terms kept (the rarest; a pasted paragraph or a query with recent turns added still
    costs at most this many postings lists)."""
    per_term: int = 100
    """A term in at most this many records is rare: its postings are read whole."""
    common_take: int = 40
    """At least this many postings read of a commoner term (its newest)."""
    exact_postings: int = 600
    """Kept terms matching at most this many records in all (store-wide counts) are ranked
    exactly by the engine: about the work of the bounded read, so no reason to approximate."""
    count_cap: int = 2_000
    """A term's documents are counted up to this many (by the database, every search)."""


BOUNDED = SearchBounds()
"""The default bounds of every store (`CommonStore.search_bounds`; None there: exhaustive)."""


@dataclass(frozen=True)
class Snapshot:
    """A recall snapshot: a past tool call's result, kept per namespace across conversations."""

    id: int
    namespace: str
    tool: str
    """Name of the tool that produced the result."""
    args: dict[str, Any]
    """The arguments it was called with."""
    result: str
    """The result text, in full."""
    created: float
    """When it was first stored (epoch seconds)."""
    tokens: int
    """Token count of `result`."""
    thread_id: str | None = None
    """The conversation it was fetched in, if known."""


class StoreTx(Protocol):
    """Primitive writes inside one open transaction (see `Store.transaction`)."""

    def record_owner(self, namespace: str, record_id: int) -> str | None:
        """The namespace of record `record_id`, or None if it does not exist."""
        ...

    def records_of_step(self, namespace: str, thread_id: str, end: int) -> list[int]:
        """Ids of the records added by the step filed at `(thread_id, end)`."""
        ...

    def add_record(
        self,
        namespace: str,
        text: str,
        kind: str,
        source_ids: Sequence[int],
        thread_id: str | None,
        now: float,
        step_end: int | None,
        suspect: bool,
        pinned: bool = False,
    ) -> int: ...

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float, suspect: bool,
        source_ids: Sequence[int] = (), new_kind: str | None = None,
    ) -> None: ...

    def delete_record(self, namespace: str, record_id: int, now: float) -> None: ...

    def get_episode(self, namespace: str, thread_id: str, end: int) -> Episode | None: ...

    def upsert_episode(self, namespace: str, episode: Episode, now: float) -> None:
        """Insert or overwrite the episode keyed by `(thread_id, end)`."""
        ...

    def set_relevance(
        self, namespace: str, thread_id: str, scores: dict[int, float]
    ) -> None:
        """Set relevance by message seq."""
        ...

    def message_ids(self, namespace: str, thread_id: str, start: int, end: int) -> dict[int, int]:
        """Map message id -> seq for messages of the thread with start <= seq <= end."""
        ...

    def rewrite_message(self, namespace: str, message_id: int, content: str, tokens: int) -> None:
        """Replace a message's text (forgetting redacts the sentences a record came from); the
        log is otherwise append-only."""
        ...

    def mark_scanned(self, namespace: str, table: str, items: Sequence[tuple[int, str]],
                     tag: int) -> None:
        """Keep `tag` (`safety.SCANNER`) as the clean scan verdict of each `(id, text)` of
        `table` (`"messages"` or `"records"`) whose text is still that text (migration 7)."""
        ...

    def overlapping_episodes(
        self, namespace: str, thread_id: str, start: int, end: int
    ) -> list[tuple[int, int]]:
        """`(start, end)` of the filed stretches that overlap `start..end`, other than
        `start..end` itself (a retry replaces that one). Runs after `message_ids`, under the same
        lock, so a step that applied meanwhile is seen (the claim in `step/runner.py`)."""
        ...


@dataclass(frozen=True)
class Capabilities:
    """What a store is and can do beyond the protocol, declared by the store (callers read this
    instead of probing attributes)."""

    engine: str
    """"sqlite" or "postgresql"."""
    path: str | None
    """The database file, or None when the data is not in one local file (`:memory:`, a
    server)."""
    parallel_search: bool
    """Whether `vector_candidates` may run on another thread while this one searches lexically
    (`memlane.search.hybrid` then runs the two halves at once)."""
    concurrency: int = 1
    """How many calls the store can serve at once: 1 for SQLite (one connection behind a lock),
    its connection pool's size for PostgreSQL. `AsyncMemory` sizes its worker threads by it."""


class MessageLog(Protocol):
    """The conversation log: threads, their messages, and the bounded read `context()` makes."""

    def append(
        self,
        namespace: str,
        thread_id: str,
        messages: Sequence[NewMessage],
        now: float,
        history: HistoryPolicy,
    ) -> list[Message]:
        """Append in order (seq assigned atomically); creates the thread, evicts LRU threads."""
        ...

    def thread(self, namespace: str, thread_id: str) -> ThreadInfo | None: ...

    def threads(self, namespace: str, limit: int = 100, offset: int = 0) -> list[ThreadInfo]: ...

    def messages(
        self,
        namespace: str,
        thread_id: str,
        start: int = 1,
        end: int | None = None,
        limit: int | None = None,
    ) -> list[Message]: ...

    def messages_in(self, namespace: str, thread_id: str,
                    ranges: Sequence[tuple[int, int]], limit: int) -> list[Message]:
        """The messages of each (start, end) seq range, at most `limit` (the first) of each,
        range by range, in one read."""
        ...

    def messages_by_id(self, namespace: str, ids: Sequence[int]) -> list[Message]: ...

    def message_seqs(self, namespace: str, thread_id: str, ids: Sequence[int]
                     ) -> dict[int, int]:
        """{id: seq} of those of `ids` that are messages of the thread (what `messages_by_id`
        would say of them, without their text)."""
        ...

    def context_rows(
        self,
        namespace: str,
        thread_id: str,
        window_turns: int,
        buffer_lines: int,
        held: ContextRows | None = None,
    ) -> ContextRows:
        """The bounded read assembly needs: the window of the last `window_turns` user turns
        plus one probe message, the first and the latest `buffer_lines` episodes that start
        before the window, counts that prove the gap, and the namespace's pinned records.

        `held`: the rows an earlier call returned for a smaller window of this thread (the
        budget filler grows the window). The store then reads only the older messages and the
        episodes the larger window adds and returns what a call without `held` would, as of
        the held rows; if they cannot be extended (another thread, a smaller window, rows gone)
        it reads the window whole. Sizing and assembly happen in the caller, never inside the
        store's lock or transaction."""
        ...

    def delete_thread(self, namespace: str, thread_id: str) -> bool: ...

    def truncate(self, namespace: str, thread_id: str, from_seq: int,
                 now: float | None = None) -> int:
        """Drop the messages from `from_seq` on (seqs are reused); returns how many went. A
        memory step whose stretch reaches them is withdrawn only as far as the cut: its
        episode ends before it, and only the records all of whose sources went are deleted
        (unless pinned); see `CommonStore.truncate`."""
        ...

    def hold_thread(self, namespace: str, thread_id: str) -> AbstractContextManager[None]:
        """Hold the thread against other holders until the block ends (the proxy serialises a
        thread's turns with it). Store writes inside the block work as usual."""
        ...

    def expire(self, now: float, history: HistoryPolicy, namespace: str | None = None) -> int:
        """Delete threads idle past the TTL; returns how many."""
        ...


class Episodes(Protocol):
    """Filed stretches (the buffer's lines), written by a memory step through `transaction()`
    (`memlane.step.apply`: the episode, its records and relevance land together or not at all)."""

    def transaction(self) -> AbstractContextManager[StoreTx]:
        """One write transaction: all of it lands, or none of it."""
        ...

    def episodes(self, namespace: str, thread_id: str) -> list[Episode]: ...

    def episode_lines(self, namespace: str, thread_id: str, latest: int
                      ) -> list[tuple[int, str]]:
        """`(end, line)` of the thread's newest `latest` episodes, in filing order: what the
        line index matches, without reading and decoding whole rows."""
        ...

    def episodes_ending(self, namespace: str, thread_id: str, ends: Sequence[int]
                        ) -> list[Episode]:
        """The thread's episodes that end at `ends`, in that order (missing ones left out)."""
        ...


class RecordsAndSearch(Protocol):
    """Long-term records outside a memory step (the agent's own tools), lexical and vector
    search, and recall snapshots. Every method is scoped by `namespace`."""

    search_bounds: SearchBounds | None
    """The work one lexical search may do (default `BOUNDED`); None: rank every match."""

    def records(
        self,
        namespace: str,
        ids: Sequence[int] | None = None,
        limit: int = 1000,
        offset: int = 0,
        pinned_only: bool = False,
        *,
        sources: int | None = None,
        newest: bool = False,
    ) -> list[Record]:
        """The namespace's records (`ids`, sorted by id, or a page in id order). `sources`: each
        record carries at most this many of its source ids, the lowest (None: all of them;
        the read path asks for a few, `Thread.context`). `newest`: the page counts from the
        newest record, in descending id order (the memory step's scan for a held residence,
        `step/places.py`: one read of the primary key, whatever the namespace's size)."""
        ...

    def standing_records(self, namespace: str, limit: int) -> list[Record]:
        """The namespace's standing records (pinned, or of a kind in `validate.STANDING_KINDS`),
        at most `limit`: pinned first, then by kind in that order, newest first within a kind.
        Indexed reads (`records_pinned`, `records_kind`) of at most `limit` rows, whatever the
        namespace's size."""
        ...

    def corrected_records(self, namespace: str, limit: int, sources: int | None = None
                          ) -> list[Record]:
        """The namespace's current records whose text was corrected (an `update` in their
        history: a value the user changed), at most `limit`, newest first; `sources` as
        `records`'. One seek of the index `record_history_op` per record, whatever the size of
        the namespace or how often a record was corrected."""
        ...

    def record_namespaces(self, prefix: str = "", kinds: Sequence[str] | None = None
                          ) -> list[str]:
        """Namespaces holding records (of `kinds`): all, or `prefix` and `prefix.`..."""
        ...

    def add_record(
        self,
        namespace: str,
        text: str,
        kind: str = "fact",
        source_ids: Sequence[int] = (),
        thread_id: str | None = None,
        pinned: bool = False,
        now: float | None = None,
        suspect: bool = False,
        scanned: int = 0,
    ) -> Record:
        """Add one record outside a memory step (the `remember` tool). Source ids that are not
        messages of this namespace are dropped. `scanned`: the clean verdict's tag to keep with
        the text (`safety.clean_tag`; 0: none)."""
        ...

    def update_record(
        self, namespace: str, record_id: int, text: str, now: float | None = None,
        suspect: bool = False, scanned: int = 0,
    ) -> Record:
        """Replace a record's text (the old text goes to the history); raises `NotFound`.
        `scanned` as in `add_record`."""
        ...

    def delete_record(self, namespace: str, record_id: int, now: float | None = None) -> bool:
        """Delete a record, keeping its history for audit (as a memory step's delete does)."""
        ...

    def pin(self, namespace: str, record_id: int, pinned: bool = True) -> Record:
        """Put a record in (or take it out of) the pinned core set; raises `NotFound`."""
        ...

    def records_from(self, namespace: str, message_ids: Sequence[int]) -> list[Record]:
        """The namespace's records any of `message_ids` is a source of (sorted by id)."""
        ...

    def sources_among(self, namespace: str, record_ids: Sequence[int],
                      message_ids: Sequence[int]) -> dict[int, frozenset[int]]:
        """Which of `message_ids` each of `record_ids` was filed from (records citing none of
        them left out): bounded by the ids given, however many messages a record cites."""
        ...

    def record_history(self, namespace: str, record_id: int) -> list[dict[str, Any]]:
        """A record's versions, oldest first: `{text, op, changed, stated, sources,
        superseded, superseded_by}` (see `common.history_rows`)."""
        ...

    def search_records(
        self,
        namespace: str,
        query: str,
        k: int,
        kinds: Sequence[str] | None = None,
        thread_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
        *,
        sources: int | None = None,
        counts: Mapping[str, int] | None = None,
    ) -> list[tuple[Record, float]]:
        """Lexical (BM25) search, best first; score: higher is better. Any user text is safe:
        it is reduced to quoted terms, never parsed as query syntax. `since`/`until` bound the
        record's creation time (epoch seconds, inclusive). `sources`: as `records`'.
        `counts`: document counts of some of the query's terms (`text.query_terms`) as
        `term_counts(terms, search_bounds.count_cap)` gave them at the store's current
        `revision()` (the caller's read cache keeps them, `memlane.caches`); a bounded search
        counts only the others (the exhaustive one ignores them). The result is the same."""
        ...

    def term_counts(self, terms: Sequence[str], cap: int) -> list[int]:
        """How many records hold each term (store-wide, every namespace), each counted up to
        `cap`: the counts a bounded search ranks with (`search_records`' `counts`)."""
        ...

    def selective_query(self, namespace: str, query: str, docs: int) -> str:
        """`query` reduced to its selective terms (those in fewer than `docs` records, rarest
        first, about `docs` matches in all) when the namespace holds more than `docs` records;
        else `query` as given. What a caller that must bound a search by work rather than by
        the namespace searches with (`Memory.related`)."""
        ...

    def put_vectors(
        self, namespace: str, items: Sequence[tuple[int, Sequence[float]]], model: str,
        target: str = "records",
    ) -> int:
        """Store (replace) embeddings of records (or of snapshots: `target="snapshots"`) made by
        embedder `model`; ids not in this namespace are skipped. Returns how many were stored."""
        ...

    def vector_candidates(
        self,
        namespace: str,
        qvec: Sequence[float],
        k: int,
        filters: SearchFilters | None = None,
        model: str = "",
        target: str = "records",
    ) -> list[tuple[int, float]]:
        """The `k` ids whose `model` vectors are most similar to `qvec` (cosine), best first."""
        ...

    def missing_vectors(
        self, namespace: str, model: str, target: str = "records", limit: int = 1000
    ) -> list[tuple[int, str]]:
        """`(id, text)` of rows with no vector from `model` yet (to embed them)."""
        ...

    def save_snapshot(
        self,
        namespace: str,
        tool: str,
        args: Mapping[str, Any],
        result: str,
        tokens: int,
        thread_id: str | None = None,
        now: float | None = None,
    ) -> tuple[Snapshot, bool]:
        """Store a tool result; an identical result already stored in the namespace is returned
        instead (dedup by content hash). The bool says whether a new row was written."""
        ...

    def snapshots(
        self, namespace: str, ids: Sequence[int] | None = None, limit: int = 1000,
        offset: int = 0,
    ) -> list[Snapshot]: ...

    def search_snapshots(
        self, namespace: str, query: str, k: int
    ) -> list[tuple[Snapshot, float]]:
        """Lexical (BM25) search over snapshots' tool, arguments and result."""
        ...


class Admin(Protocol):
    """What a store is (its URL and capabilities), its schema, forgetting, export and upkeep."""

    url: str
    """Where the store is, safe to print (a PostgreSQL URL's password is masked)."""
    capabilities: Capabilities
    migrations_run: list[int]
    """Migration numbers this open applied (empty when the schema was already current)."""

    def migrations_applied(self) -> list[int]:
        """Every migration number recorded in the database."""
        ...

    def setting(self, key: str) -> str | None:
        """A property of the whole store (e.g. `embedder`), or None if never set."""
        ...

    def put_setting(self, key: str, value: str, *, replace: bool = False) -> str:
        """Set `key` if it has no value yet (`replace`: whatever it holds); returns the value
        it holds now, which is the first writer's when two set it at once."""
        ...

    def has_records(self) -> bool:
        """Whether any namespace holds a long-term record."""
        ...

    def set_thread_times(self, namespace: str, thread_id: str, created: float,
                         last_active: float) -> None:
        """Set a thread's creation and last-activity times (an import keeps the exported
        ones: the idle TTL and the LRU eviction read them)."""
        ...

    def forget_record(self, namespace: str, record_id: int) -> bool:
        """Erase a record with everything derived from it: index rows, vector, sources, history,
        and its id in buffer lines."""
        ...

    def forget_thread(self, namespace: str, thread_id: str) -> dict[str, int]:
        """Erase a thread: messages, episodes, its records (and their index rows, vectors,
        sources, history) and its snapshots. Returns counts by kind."""
        ...

    def forget_namespace(self, namespace: str) -> dict[str, int]:
        """Erase every row of the namespace. Returns counts by kind."""
        ...

    def export_namespace(self, namespace: str) -> dict[str, Any]:
        """The namespace as JSON-ready data: threads with messages and episodes, records with
        sources and history, snapshots. Vectors and index rows are derived and left out."""
        ...

    def compact(self) -> None:
        """Physically erase deleted data: merge the search indexes, VACUUM, truncate the log.
        Run after forgetting when no trace may remain in the database files."""
        ...

    def revision(self) -> Hashable | None:
        """A value that differs after any write to the store's records, record sources or
        episodes, by this object or by any other connection or process on the same database;
        None when the engine cannot tell (then nothing may be memoised across calls). What a
        caller memoises of those rows under a revision it read *before* reading them stays
        exact while `revision()` returns the same value (`memlane.caches`). Appending
        messages need not change it (a turn's own appends would otherwise empty every memo
        every turn)."""
        ...

    def close(self) -> None: ...


class Store(MessageLog, Episodes, RecordsAndSearch, Admin, Protocol):
    """A memlane database: the four concerns above, on one engine."""


def snapshot_text(tool: str, args: Mapping[str, Any], result: str, max_chars: int = 4000) -> str:
    """What a snapshot's embedding is made from: the call and the head of its result."""
    call = ", ".join(f"{k}={v}" for k, v in sorted(args.items()))
    return f"{tool}({call}): {result[:max_chars]}"


def chunks(seq: Sequence[int], n: int = 500) -> Iterator[Sequence[int]]:
    """Split id lists so `IN (...)` queries stay under parameter limits."""
    for i in range(0, len(seq), n):
        yield seq[i : i + n]
