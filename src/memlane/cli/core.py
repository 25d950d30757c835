"""Core commands: ingest, context, threads, show, demo."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from ..context.policy import Policy
from ..errors import UsageError
from ..ingest import ingest
from ..memory import Memory
from ..render import clip as _clip
from ..render import render_context
from ..store.sqlite import default_path
from ..types import ROLES, public_dict
from ..validate import timestamp
from . import (
    JSON_HELP,
    add_embedder_arg,
    add_progress_arg,
    check_store_url,
    emit,
    plural,
    progress,
    tokens,
)


def open_memory(args: argparse.Namespace, *, read_only: bool = False, **kwargs: Any) -> Memory:
    """The memory `--db` (or `$MEMLANE_DB`, or the default file) names, for `--namespace`.

    `read_only`: the command only reads, so a SQLite file that does not exist is an error
    ("no database at PATH") rather than a new empty file: `memlane threads` on a fresh machine
    must not leave a ~/.memlane/memlane.db behind."""
    target = args.db if args.db is not None else os.environ.get("MEMLANE_DB") or None
    path = sqlite_file(target)
    if read_only and path is not None and not Path(path).exists():
        raise UsageError(f"no database at {path}: nothing stored yet. Write to it first "
                         "(`memlane ingest`, `memlane chat`, `memlane demo`), or pass "
                         "--db PATH (or set $MEMLANE_DB) for another one")
    if "embedder" not in kwargs:
        kwargs["embedder"] = getattr(args, "embedder", None)
    new = [p for p in (Path(path), *Path(path).parents) if not p.exists()] if path else []
    try:
        return Memory.open(target, namespace=args.namespace, **kwargs)
    except BaseException:
        # An open that fails (an unknown --embedder) leaves no empty database behind, so the
        # next read says "no database" instead of listing nothing.
        _remove_new(new)
        raise


def _remove_new(created: list[Path]) -> None:
    """Remove a SQLite file this open created (`created[0]`, with its -wal and -shm) and the
    directories made for it (the rest, innermost first), when they hold nothing else."""
    if not created:
        return
    for f in (created[0], Path(f"{created[0]}-wal"), Path(f"{created[0]}-shm")):
        f.unlink(missing_ok=True)
    for d in created[1:]:
        try:
            d.rmdir()
        except OSError:
            break  # not empty: another file is there now


def sqlite_file(target: str | None) -> str | None:
    """The file a SQLite target names (None for PostgreSQL or `:memory:`); None target: the
    default file. A URL of another scheme (`mysql://...`) is a `UsageError`."""
    if target is None:
        return default_path()
    check_store_url(target)
    if target.startswith(("postgresql://", "postgres://")) or target == ":memory:":
        return None
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///"):]
    return str(Path(target).expanduser()) if target and target != ":memory:" else None


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ingest", help="append a JSONL conversation to a thread, filing as it goes")
    p.add_argument("thread", help="thread id (created if new)")
    p.add_argument("file", nargs="?", default=None,
                   help='JSONL, one message per line: {"role", "content", "ts"?, "name"?}; - '
                        "for stdin")
    p.add_argument("--every", type=int, default=None,
                   help="file a stretch every N user turns (default 4)")
    p.add_argument("--no-step", action="store_true", help="append only; do not file stretches")
    add_embedder_arg(p)
    add_progress_arg(p)
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("context", help="what the model would see next, by layer")
    p.add_argument("thread", help="thread id (`memlane threads` lists them)")
    p.add_argument("--budget", type=tokens, default=4000, help="token budget (default 4000)")
    p.add_argument("--message", default=None, help="the new user message, if any")
    p.add_argument("--no-tools", action="store_true", help="do not offer the memory tools")
    p.add_argument("--full", action="store_true",
                   help="print every message whole (default: the system prompt and turns are "
                        "clipped to a line; notes, core and buffer are always whole)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_context)

    p = sub.add_parser("threads", help="list threads of the namespace, most recent first")
    p.add_argument("--limit", type=int, default=100,
                   help="list at most this many (default %(default)s)")
    p.add_argument("--offset", type=int, default=0,
                   help="skip this many first (default 0), to page on")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_threads)

    p = sub.add_parser("show", help="a thread's messages and its buffer lines")
    p.add_argument("thread", help="thread id (`memlane threads` lists them)")
    p.add_argument("--limit", type=int, default=200,
                   help="show at most this many messages (default %(default)s)")
    p.add_argument("--offset", type=int, default=0,
                   help="skip this many first messages (default 0), to page on")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("demo", help="replay a bundled long conversation offline and show what "
                                    "the episodic buffer buys")
    p.add_argument("--budget", type=tokens, default=1500,
                   help="token budget of the context shown (default %(default)s)")
    p.add_argument("--db", dest="demo_db", default=None, metavar="PATH",
                   help="where to keep the demo's thread (default: the global --db if given, "
                        "else ~/.memlane/demo.db; never your memory file unless you name it)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_demo)


def read_jsonl(path: str) -> list[dict[str, Any]]:
    """The messages of a JSONL file, each line checked (role, content, ts) before anything is
    written, so a bad line 900 does not leave 899 messages ingested."""
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {path!r}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise UsageError(f"{path}:{line}: not UTF-8 (byte {raw[e.start]:#04x}); convert the file "
                         "to UTF-8 (e.g. `iconv -f latin1 -t utf-8`)") from None
    out: list[dict[str, Any]] = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            _not_jsonl(path, text, first=not out)
            raise UsageError(f"{path}:{i}: not valid JSON ({e.msg}); each line must be one "
                             '{"role", "content", "ts"?} object') from None
        except RecursionError:
            raise UsageError(f"{path}:{i}: JSON nested too deeply; each line must be one flat "
                             '{"role", "content", "ts"?} object') from None
        if not isinstance(obj, dict) or "role" not in obj or "content" not in obj:
            _not_jsonl(path, text, first=not out)
            raise UsageError(f'{path}:{i}: each line needs "role" and "content"')
        if obj["role"] not in ROLES:
            raise UsageError(f"{path}:{i}: role must be one of {', '.join(ROLES)}, got "
                             f"{obj['role']!r:.40}")
        if not isinstance(obj["content"], str):
            raise UsageError(f"{path}:{i}: content must be a string")
        try:
            timestamp(obj.get("ts"))
        except UsageError as e:
            raise UsageError(f"{path}:{i}: {e}") from None
        out.append(obj)
    return out


def _not_jsonl(path: str, text: str, *, first: bool) -> None:
    """When the first line fails because the file is one JSON document rather than JSONL (an
    array of messages, an object holding them, an export), a `UsageError` naming the command
    or the conversion that reads it; else nothing, and the line's own error stands."""
    try:
        data = json.loads(text) if first else None
    except (json.JSONDecodeError, RecursionError):
        return
    from ..importers import PROVIDERS, sniff

    src = "-" if path == "-" else shlex.quote(path)
    found = sniff(data)
    if found:
        raise UsageError(f"{path} is a {PROVIDERS[found]} export: read it with `memlane "
                         f"import --from {found} {src}` (a thread per conversation)")
    if isinstance(data, dict) and str(data.get("format", "")).startswith("memlane-export"):
        raise UsageError(f"{path} is a `memlane export`: restore it with `memlane import {src}`")
    where = ".messages" if isinstance(data, dict) and isinstance(data.get("messages"), list) \
        else "." if isinstance(data, list) else None
    if where is not None:
        raise UsageError(f"{path} is one JSON document, not JSONL: ingest reads one "
                         '{"role", "content", "ts"?} object per line; convert it with '
                         f"`jq -c '{where}[]' {src} > conversation.jsonl`")


def cmd_ingest(args: argparse.Namespace) -> int:
    if args.file is None:
        if Path(args.thread).is_file():  # `memlane ingest conversation.jsonl`: no thread id
            raise UsageError(f"{args.thread} is a file: name the thread first, e.g. memlane "
                             f"ingest mythread {shlex.quote(args.thread)}")
        raise UsageError("no file given: memlane ingest THREAD FILE (- for stdin), e.g. "
                         "memlane ingest mythread conversation.jsonl")
    msgs = read_jsonl(args.file)
    if not msgs:
        name = "stdin" if args.file == "-" else args.file
        raise UsageError(f"{name} holds no messages (nothing was stored): each line must be "
                         'one {"role", "content", "ts"?} object')
    kwargs: dict[str, Any] = {}
    if args.every:
        from ..step.runner import Cadence
        kwargs["cadence"] = Cadence(every_user_turns=args.every)
    with open_memory(args, **kwargs) as mem, \
            progress(args, f"ingest {args.thread}: messages", len(msgs)) as bar:
        out = ingest(mem, args.thread, msgs, step=not args.no_step, progress=bar)
    held = f" ({out['held']} held already, not added)" if out["held"] else ""
    emit(out, args.json, f"ingested {plural(out['messages'], 'message')} into "
                         f"{out['thread']!r}{held}: {plural(out['steps'], 'memory step')}, "
                         f"{plural(out['episodes'], 'buffer line')} ({bar.elapsed:.1f}s)")
    return filing_problems(out["problems"])


def filing_problems(problems: list[str]) -> int:
    """The exit status of a command that filed: 1, each problem said on stderr, when a memory
    step that was due could not run (the messages are stored either way)."""
    for p in problems:
        print(f"memlane: error: {p}", file=sys.stderr)
    return 1 if problems else 0


def cmd_context(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        t = mem.thread(args.thread)
        t.info()  # a clear NotFound for a thread that does not exist
        ctx = t.context(budget=args.budget, new_message=args.message,
                        tools=[] if args.no_tools else None)
    emit(ctx.to_dict(), args.json, render_context(ctx, full=args.full))
    return 0


def cmd_threads(args: argparse.Namespace) -> int:
    if args.limit < 1 or args.offset < 0:
        raise UsageError("--limit must be at least 1 and --offset at least 0")
    with open_memory(args, read_only=True) as mem:
        rows = mem.threads(limit=args.limit + 1, offset=args.offset)  # one more: any more?
        more = len(rows) > args.limit
        rows = rows[: args.limit]
        # The last message's time, not the thread's last write: an imported conversation
        # shows its own date (its last write, the TTL clock, is the import's).
        last = {r.thread_id: _last_said(mem, r) for r in rows}
    data = [r.__dict__ | {"last_message": last[r.thread_id]} for r in rows]
    w = max([30, *(len(r.thread_id) for r in rows)])
    text = "\n".join(
        f"{r.thread_id:<{w}} {r.messages:>6} msgs  filed to {r.filed_to:<6} "
        f"started {_day(r.created)}  last {_day(last[r.thread_id], '%Y-%m-%d %H:%M')}"
        for r in rows
    ) or "(no threads)"
    if more:
        text += (f"\n(more threads: showing {args.offset + 1}-{args.offset + len(rows)}; "
                 f"--offset {args.offset + len(rows)} for the next page, or a larger --limit)")
    emit(data, args.json, text)
    return 0


def _last_said(mem: Memory, info: Any) -> float:
    """When the thread's last message was said (its write time when it has none)."""
    tail = mem.thread(info.thread_id).messages(info.messages, info.messages)
    return tail[-1].ts if tail else float(info.last_active)


def _day(ts: float, fmt: str = "%Y-%m-%d") -> str:
    return time.strftime(fmt, time.localtime(ts))


def cmd_show(args: argparse.Namespace) -> int:
    if args.limit < 1 or args.offset < 0:
        raise UsageError("--limit must be at least 1 and --offset at least 0")
    with open_memory(args, read_only=True) as mem:
        t = mem.thread(args.thread)
        info = t.info()
        # One more than the page: whether there are more is known without a count.
        msgs = t.messages(limit=args.offset + args.limit + 1)[args.offset:]
        eps = t.episodes()
    more = len(msgs) > args.limit
    msgs = msgs[: args.limit]
    data = {
        "thread": info.__dict__,
        "messages": [public_dict(m) for m in msgs],
        "episodes": [public_dict(e) for e in eps],
    }
    out = [f"thread {info.thread_id}: {info.messages} messages, {len(eps)} buffer lines"]
    for m in msgs:
        rel = f" (relevance {m.relevance:.2f})" if m.relevance is not None else ""
        out.append(f"  #{m.seq:<5} {m.role + ':':<11}{_clip(m.content, 90)}{rel}")
    if more:
        out.append(f"  (more messages: showing {args.offset + 1}-{args.offset + len(msgs)} of "
                   f"{info.messages}; --offset {args.offset + len(msgs)} for the next page)")
    out.append("buffer lines:")
    for e in eps:
        out.append(f"  msgs {e.start}-{e.end}: {e.line} -> {list(e.record_ids)}")
    emit(data, args.json, "\n".join(out))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    if args.budget <= 0:
        raise UsageError("--budget must be a positive number of tokens")
    check_store_url(args.demo_db)
    return run_demo(budget=args.budget, as_json=args.json, db=args.demo_db or args.db,
                    namespace=args.namespace)


__all__ = ["ingest", "open_memory", "render_context", "register", "Policy"]
