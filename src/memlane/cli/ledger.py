"""`memlane ledger report|export`: the quality ledger, for engineers between releases.

The ledger is a separate file (`<db>.ledger.db` beside the memory database, `$MEMLANE_LEDGER`,
or `--ledger PATH`). Both commands read every namespace unless `--ns` names one: the ledger is
about how the agent did, across users.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from ..ledger import Ledger, default_ledger_path, render_report
from . import emit


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ledger", help="the quality ledger: a row per answer, with its signals")
    p.add_argument("--ledger", default=None, metavar="PATH",
                   help="ledger file (default: $MEMLANE_LEDGER or <db>.ledger.db)")
    lsub = p.add_subparsers(dest="ledger_command", metavar="ACTION")

    r = lsub.add_parser("report", help="answers by signal, by version or by day")
    r.add_argument("--by", choices=("signal", "version", "day"), default="signal")
    r.add_argument("--ns", default=None, help="only this namespace")
    r.add_argument("--thread", default=None, help="only this thread")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=cmd_report)

    e = lsub.add_parser("export", help="every row as JSONL, oldest first")
    e.add_argument("--out", default=None, metavar="FILE", help="write here (default: stdout)")
    e.add_argument("--ns", default=None, help="only this namespace")
    e.set_defaults(func=cmd_export)

    def show_help(args: argparse.Namespace) -> int:
        p.print_help()
        return 0

    p.set_defaults(func=show_help)


def open_ledger(args: argparse.Namespace) -> Ledger:
    path = args.ledger or default_ledger_path(args.db)
    if path != ":memory:" and not Path(path).expanduser().exists():
        raise UsageError(f"no quality ledger at {path}: it is written by `memlane chat` and the "
                         "agent loop (Agent(ledger=...)); pass --ledger PATH or set "
                         "$MEMLANE_LEDGER if it lives elsewhere")
    return Ledger(path)


def cmd_report(args: argparse.Namespace) -> int:
    with open_ledger(args) as lg:
        rep = lg.report(args.by, namespace=args.ns, thread_id=args.thread)
    emit(rep, args.json, render_report(rep))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with open_ledger(args) as lg:
        if args.out:
            try:
                with open(args.out, "w", encoding="utf-8") as f:
                    n = lg.export(f, namespace=args.ns)
            except OSError as e:
                raise UsageError(f"cannot write {args.out!r}: {e.strerror}") from None
            print(f"wrote {n} ledger rows to {args.out}", file=sys.stderr)
        else:
            lg.export(sys.stdout, namespace=args.ns)
    return 0
