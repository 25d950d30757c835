"""Restoring an export (`Memory.export()`, `memlane export`) into a store: `memlane import`.

An export holds a namespace's threads (messages, buffer lines, relevance scores), records (with
their sources and history) and recall snapshots. Restoring it into another store, of either
engine, gives the same texts in the same order; only the ids are new, since each store assigns
its own, so every reference is rewritten on the way in (a record's source message ids, a buffer
line's record ids).

Decisions:
- The target namespace must be empty: records have no natural key, so restoring twice (or into a
  namespace with memory of its own) would hold two copies of each fact. Import into a new
  namespace (`--namespace`), or erase the old one first.
- The whole export is validated before anything is written. The messages are appended thread by
  thread (the store's own append, which assigns seqs), then records, buffer lines and scores go
  in one transaction. A failure in between leaves a namespace that `forget --namespace-all`
  clears; it never touches another namespace.
- A record's history is replayed (its first text, then each later version, at their times), so
  the restored record has the same versions; a deleted record's history is not in an export.
- Imported threads count as written now (their TTL starts again) and the thread ceiling is not
  applied while importing; the next new thread applies it as usual.
- Vectors are derived, not exported: with an embedder, `Memory.reindex()` computes them after.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from .errors import UsageError
from .safety import admit, clean_tag
from .store.protocol import HistoryPolicy, NewMessage
from .types import ROLES, Episode
from .validate import kind, timestamp

FORMAT = "memlane-export/1"


def import_namespace(memory: Any, data: Mapping[str, Any], *,
                     progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Restore `data` (an export) into `memory`'s namespace, which must be empty. Returns counts
    by kind: threads, messages, episodes, records, snapshots."""
    threads, records, snapshots = _validate(data)
    _check_empty(memory)
    counts = {"threads": 0, "messages": 0, "episodes": 0, "records": 0, "snapshots": 0}
    msg_id = _append_threads(memory, threads, counts, progress)
    # Each text is scanned once (`scans`), before the transaction (as a memory step's are: it
    # holds the store's write lock); a clean verdict is kept with it (`scan_stored`), as a
    # memory step keeps its own: an export's flags are never taken as a verdict.
    scans: dict[str, tuple[str, ...]] = {}
    likes: dict[str, tuple[str, ...]] = {}  # `safety.admit`'s memo, as a step's
    for r in records:
        for text in (r["text"], *(h["text"] for h in r.get("history", [])
                                  if h.get("op") in ("add", "update"))):
            admit(text, scans=scans, likes=likes)
    for t in threads:
        for e in t.get("episodes", []):
            admit(e["line"], scans=scans, likes=likes)
    now = time.time()
    with memory.store.transaction() as tx:
        rec_id = _restore_records(tx, memory.ns, records, _step_of(threads), msg_id,
                                  (scans, likes), now, counts)
        _restore_episodes(tx, memory.ns, threads, rec_id, (scans, likes), now, counts)
    for s in snapshots:
        memory.store.save_snapshot(memory.ns, s["tool"], dict(s.get("args") or {}), s["result"],
                                   memory.tokenizer.count([s["result"]])[0], s.get("thread_id"),
                                   now=float(s.get("created") or now))
        counts["snapshots"] += 1
    memory.reindex()
    return counts


def _check_empty(memory: Any) -> None:
    store, ns = memory.store, memory.ns
    if store.threads(ns, 1, 0) or store.records(ns, None, 1, 0) or store.snapshots(ns, None, 1):
        raise UsageError(
            f"namespace {ns!r} already holds memory; import restores into an empty namespace "
            "(two copies of each fact otherwise): pass --namespace NEW, or erase it first with "
            "`memlane forget --namespace-all`")


def _append_threads(memory: Any, threads: list[dict[str, Any]], counts: dict[str, int],
                    progress: Callable[[int, int], None] | None) -> dict[int, int]:
    """Append each thread's messages (the store assigns seqs and ids); the exported message id
    to the new one."""
    store, ns = memory.store, memory.ns
    unbounded = HistoryPolicy(ttl_seconds=None, max_threads=None)
    msg_id: dict[int, int] = {}
    for t in threads:
        msgs = t["messages"]
        if not msgs:
            continue
        tokens = memory.tokenizer.count([m["content"] for m in msgs])
        new = [NewMessage(role=m["role"], content=m["content"], ts=float(m["ts"]), tokens=n,
                          name=m.get("name")) for m, n in zip(msgs, tokens, strict=True)]
        stored = store.append(ns, t["thread_id"], new, time.time(), unbounded)
        created, active = timestamp(t.get("created")), timestamp(t.get("last_active"))
        if created is not None and active is not None:
            # The exported times, not the import's: the idle TTL and LRU eviction read them.
            store.set_thread_times(ns, t["thread_id"], created, max(created, active))
        for old, got in zip(msgs, stored, strict=True):
            msg_id[int(old["id"])] = got.id
        counts["threads"] += 1
        counts["messages"] += len(stored)
        if progress is not None:
            progress(counts["threads"], len(threads))
    return msg_id


def _step_of(threads: list[dict[str, Any]]) -> dict[int, tuple[str, int]]:
    """Which step wrote a record (its buffer line's end), so a retried step still replaces it."""
    step_of: dict[int, tuple[str, int]] = {}
    for t in threads:
        for e in t.get("episodes", []):
            for rid in e.get("record_ids", []):
                step_of.setdefault(int(rid), (t["thread_id"], int(e["end"])))
    return step_of


_Memos = tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]
"""`safety.admit`'s memos for one import: the scan's and `prompt_like`'s."""


def _quarantined(text: str, memos: _Memos) -> bool:
    """An imported text is data like any other (`safety.admit`, the rule of every path into
    memory): an export's own flags are never taken as a verdict that it is clean."""
    return admit(text, scans=memos[0], likes=memos[1]).quarantined


def _restore_records(tx: Any, ns: str, records: list[dict[str, Any]],
                     step_of: dict[int, tuple[str, int]], msg_id: dict[int, int],
                     memos: _Memos, now: float,
                     counts: dict[str, int]) -> dict[int, int]:
    """Replay each record's versions (first text, then each later one, at their times); the
    exported record id to the new one."""
    rec_id: dict[int, int] = {}

    def said_in(v: dict[str, Any]) -> list[int]:
        # The messages a version was stated in (exports since migration 4 list them), so each
        # restored version keeps its own date.
        return [msg_id[s] for s in v.get("sources", []) if s in msg_id]

    for r in records:
        versions = [h for h in r.get("history", []) if h.get("op") in ("add", "update")]
        if not versions or versions[-1]["text"] != r["text"]:
            versions.append({"text": r["text"], "changed": r.get("updated") or now})
        sources = [msg_id[s] for s in r.get("source_ids", []) if s in msg_id]
        thread, end = step_of.get(int(r["id"]), (r.get("thread_id"), None))
        first = versions[0]
        new_id = tx.add_record(ns, first["text"], kind(r.get("kind") or "fact"),
                               said_in(first) or sources, r.get("thread_id"),
                               float(first.get("changed") or r.get("created") or now),
                               end if thread == r.get("thread_id") else None,
                               _quarantined(first["text"], memos), bool(r.get("pinned")))
        for v in versions[1:]:
            tx.update_record(ns, new_id, v["text"], float(v.get("changed") or now),
                             _quarantined(v["text"], memos), said_in(v))
        if len(versions) > 1 or said_in(first):
            # The rest of its sources (repeats): the same text again adds them, no version.
            tx.update_record(ns, new_id, versions[-1]["text"],
                             float(versions[-1].get("changed") or now),
                             _quarantined(versions[-1]["text"], memos), sources)
        tx.mark_scanned(ns, "records", [(new_id, versions[-1]["text"])],
                        clean_tag(versions[-1]["text"], memos[0]))
        rec_id[int(r["id"])] = new_id
        counts["records"] += 1
    return rec_id


def _restore_episodes(tx: Any, ns: str, threads: list[dict[str, Any]], rec_id: dict[int, int],
                      memos: _Memos, now: float,
                      counts: dict[str, int]) -> None:
    """Buffer lines (their record ids rewritten) and relevance scores."""
    for t in threads:
        for e in t.get("episodes", []):
            tx.upsert_episode(ns, Episode(
                thread_id=t["thread_id"], start=int(e["start"]), end=int(e["end"]),
                line=e["line"], record_ids=tuple(rec_id[i] for i in e.get("record_ids", [])
                                                 if i in rec_id),
                date=float(e["date"]),
                suspect=bool(e.get("suspect")) or _quarantined(e["line"], memos),
                scanned=clean_tag(e["line"], memos[0])), now)
            counts["episodes"] += 1
        scores = {int(m["seq"]): float(m["relevance"]) for m in t["messages"]
                  if m.get("relevance") is not None}
        if scores:
            tx.set_relevance(ns, t["thread_id"], scores)


def _validate(data: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                   list[dict[str, Any]]]:
    """Check the whole export before writing a row; every problem names its place."""
    if not isinstance(data, Mapping):
        raise UsageError("not a memlane export: expected a JSON object (from `memlane export`)")
    if data.get("format") != FORMAT:
        raise UsageError(f"not a memlane export: format is {data.get('format')!r}, expected "
                         f"{FORMAT!r} (from `memlane export`)")
    threads, records, snapshots = (data.get(k, []) for k in ("threads", "records", "snapshots"))
    for name, value in (("threads", threads), ("records", records), ("snapshots", snapshots)):
        if not isinstance(value, list) or not all(isinstance(x, Mapping) for x in value):
            raise UsageError(f"export: {name!r} must be a list of objects")
    seen: set[str] = set()
    msg_ids: set[int] = set()
    for i, t in enumerate(threads):
        where = f"threads[{i}]"
        tid = t.get("thread_id")
        if not isinstance(tid, str) or not tid or tid in seen:
            raise UsageError(f"export: {where}.thread_id must be a unique non-empty string")
        seen.add(tid)
        msgs = t.get("messages")
        if not isinstance(msgs, list):
            raise UsageError(f"export: {where}.messages must be a list")
        for j, m in enumerate(msgs):
            w = f"{where}.messages[{j}]"
            if not isinstance(m, Mapping) or m.get("role") not in ROLES or \
                    not isinstance(m.get("content"), str):
                raise UsageError(f"export: {w} needs a role ({', '.join(ROLES)}) and a "
                                 "string content")
            if m.get("seq") != j + 1:
                raise UsageError(f"export: {w}.seq is {m.get('seq')!r}, expected {j + 1} "
                                 "(messages in order, gapless)")
            if not isinstance(m.get("id"), int) or not isinstance(m.get("ts"), (int, float)):
                raise UsageError(f"export: {w} needs an integer id and a numeric ts")
            msg_ids.add(m["id"])
        for j, e in enumerate(t.get("episodes", []) or []):
            w = f"{where}.episodes[{j}]"
            if not isinstance(e, Mapping) or not isinstance(e.get("line"), str) or \
                    not all(isinstance(e.get(k), int) for k in ("start", "end")) or \
                    not 1 <= e["start"] <= e["end"] <= len(msgs):
                raise UsageError(f"export: {w} needs a line and start <= end within the "
                                 f"thread's {len(msgs)} messages")
    rec_ids: set[int] = set()
    for i, r in enumerate(records):
        if not isinstance(r.get("id"), int) or r["id"] in rec_ids or \
                not isinstance(r.get("text"), str) or not r["text"].strip():
            raise UsageError(f"export: records[{i}] needs a unique integer id and a text")
        rec_ids.add(r["id"])
    for i, s in enumerate(snapshots):
        if not isinstance(s.get("tool"), str) or not isinstance(s.get("result"), str):
            raise UsageError(f"export: snapshots[{i}] needs a tool and a result text")
    return list(threads), list(records), list(snapshots)
