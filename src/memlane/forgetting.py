"""Forgetting, as `Memory` does it (a mixin of the facade): one record with what was derived
from it and its statements in the conversation (`memlane.redact`), a thread, a namespace, and
seeing the text leave the database files (`compact`, or the `on_forget` a server schedules)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import validate
from .caches import Caches
from .redact import Forgotten, Redaction, names, plan_redaction, words_of
from .store.protocol import Store
from .telemetry import traced
from .validate import in_range

if TYPE_CHECKING:
    from .context.tokens import Tokenizer


class Forgetting:
    """The forget paths of `Memory`: every forget a model, a user or a server asks for."""

    store: Store
    ns: str
    tokenizer: Tokenizer
    caches: Caches
    on_forget: Callable[[], object] | None

    def forget(self, record_id: int, *, redact_sources: bool = True) -> bool:
        """Erase one record and everything derived from it (index rows, vector, history, its id
        in buffer lines) and, by default, redact the fact from the conversation it came from
        (see `forget_record`). False if there was no such record."""
        return self.forget_record(record_id, redact_sources=redact_sources).found

    def forget_to_disk(self, record_id: int) -> bool:
        """Forget a record and see that its text leaves the database files: what every forget
        a model asks for runs (`MemoryTools`: the agent, `memlane chat`, MCP on stdio or
        HTTP, the proxy). When the memory was made with `on_forget` (the server schedules a
        compaction there) that runs; otherwise the store is compacted now. False: no such
        record (nothing compacted)."""
        if not self.forget(record_id):
            return False
        if self.on_forget is None:
            self.compact()
        return True

    @traced("forget")
    def forget_record(self, record_id: int, *, redact_sources: bool = True) -> Forgotten:
        """`forget`, saying what it removed. With `redact_sources` (the default: a user who asks
        to forget a fact expects it gone from what the model sees) the sentences that state it
        in its source messages, its specific tokens elsewhere in those threads, and its words in
        the buffer lines that pointed at it are redacted too (`memlane.redact`)."""
        rid = validate.record_id(record_id)
        if not in_range(rid):
            return Forgotten(rid, False)
        live = self.store.records(self.ns, [rid])
        plan = Redaction()
        if live and redact_sources:
            rec = live[0]
            threads = {m.thread_id for m in self.store.messages_by_id(self.ns,
                                                                      list(rec.source_ids))}
            if rec.thread_id:
                threads.add(rec.thread_id)
            ordered = sorted(threads)
            msgs = [m for t in ordered for m in self.store.messages(self.ns, t)]
            # Its earlier versions go with it; the other records stated in these messages stay
            # (forgetting one fact never redacts another's statement).
            earlier = [h["text"] for h in self.store.record_history(self.ns, rid)
                       if h["op"] != "delete"]
            plan = plan_redaction(
                rec, msgs, [e for t in ordered for e in self.store.episodes(self.ns, t)],
                earlier=earlier,
                keep=self.store.records_from(self.ns, [m.id for m in msgs]),
                names=self._names_of(rid, [rec.text, *earlier],
                                     [m.content for m in msgs if m.id in rec.source_ids]))
        try:
            # The conversation is redacted first, then the record erased: if the second step
            # fails the record is still there and the forget can be asked again (the other
            # order left the fact in the messages with no record to find it by), and the
            # store's forget runs last, so its cleanup (PostgreSQL samples its statistics
            # again) sees the redacted rows.
            if plan.messages or plan.episodes:
                tokens = self.tokenizer.count(list(plan.messages.values()))
                with self.store.transaction() as tx:
                    for (mid, text), n in zip(plan.messages.items(), tokens, strict=True):
                        tx.rewrite_message(self.ns, mid, text, n)
                    for e in plan.episodes:
                        tx.upsert_episode(self.ns, e, time.time())
            # Called even without a live record: a deleted record's history is erased too.
            found = self.store.forget_record(self.ns, rid)
        finally:
            self.caches.clear()
        self._forgotten()
        if not found or not live:
            return Forgotten(rid, found)
        seqs = {m.id: (m.thread_id, m.seq)
                for m in self.store.messages_by_id(self.ns, list(plan.messages))}
        return Forgotten(
            rid, True, live[0].text,
            redacted_messages=tuple(sorted(seqs.values())),
            redacted_sentences=plan.sentences,
            redacted_lines=tuple((e.thread_id, e.start, e.end) for e in plan.episodes),
            removed_words=plan.words)

    def _names_of(self, rid: int, texts: list[str], said: list[str]) -> set[str]:
        """The names, places and codes of a fact (`redact.names`: its `texts`, confirmed by the
        messages it was `said` in) that no other current record of the namespace holds: those
        are its own, and go wherever they were repeated."""
        own = set()
        for name in names(texts, said):
            hits = self.store.search_records(self.ns, name, 50)
            if not any(r.id != rid and name in words_of(r.text) for r, _ in hits):
                own.add(name)
        return own

    @traced("forget_thread")
    def forget_thread(self, thread_id: str) -> dict[str, int]:
        """Erase a thread: messages, buffer lines, its records and snapshots. Counts by kind."""
        thread_id = validate.identifier(thread_id, "thread id")
        try:
            counts = self.store.forget_thread(self.ns, thread_id)
        finally:
            self.caches.clear()
        self._forgotten()
        return counts

    @traced("forget_namespace")
    def forget_namespace(self) -> dict[str, int]:
        """Erase everything of this namespace. Run `compact()` after it for the bytes to go."""
        try:
            counts = self.store.forget_namespace(self.ns)
        finally:
            self.caches.clear()
        self._forgotten()
        return counts

    def _forgotten(self) -> None:
        if self.on_forget is not None:
            self.on_forget()

    def compact(self) -> None:
        """Physically remove deleted data from the database files (see `Store.compact`)."""
        self.store.compact()

