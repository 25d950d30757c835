"""`memlane ledger report|export`: the quality ledger, for engineers between releases.

The ledger is a separate file (`<db>.ledger.db` beside the memory database, `$MEMLANE_LEDGER`,
or `--ledger PATH`). Both commands read every namespace unless `--namespace` names one (before
the command, as everywhere, or after it): the ledger is about how the agent did, across users.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError
from ..ledger import Ledger, default_ledger_path, render_report
from . import JSON_HELP, emit, open_output


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ledger", help="the quality ledger: a row per answer, with its signals")
    p.add_argument("--ledger", default=None, metavar="PATH",
                   help="ledger file (default: $MEMLANE_LEDGER or <db>.ledger.db)")
    lsub = p.add_subparsers(dest="ledger_command", metavar="ACTION")

    r = lsub.add_parser("report", help="answers by signal, by version or by day")
    r.add_argument("--by", choices=("signal", "version", "day"), default="signal",
                   help="group answers by quality signal, agent version or day (default "
                        "%(default)s)")
    _namespace_option(r)
    r.add_argument("--thread", default=None, help="only this thread")
    r.add_argument("--json", action="store_true", help=JSON_HELP)
    r.set_defaults(func=cmd_report)

    e = lsub.add_parser("export", help="every row as JSONL, oldest first")
    e.add_argument("--out", default=None, metavar="FILE",
                   help="a new file to write (default: stdout)")
    e.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    _namespace_option(e)
    e.set_defaults(func=cmd_export)

    def show_help(args: argparse.Namespace) -> int:
        p.print_help()
        return 0

    p.set_defaults(func=show_help)


def _namespace_option(p: argparse.ArgumentParser) -> None:
    # The same option as the global one (`memlane -n NS ledger report` works too); `--ns` is
    # kept as an alias for scripts written before.
    p.add_argument("--namespace", "-n", "--ns", dest="ledger_namespace", default=None,
                   metavar="NS", help="only this namespace (default: every namespace)")


def _namespace(args: argparse.Namespace) -> str | None:
    """The namespace to report on: the command's own option, else the global `--namespace` if
    it was given, else None (every namespace)."""
    own = args.ledger_namespace
    given = args.namespace if getattr(args, "namespace_given", False) else None
    if own and given and own != given:
        raise UsageError(f"two namespaces given ({given!r} before the command, {own!r} after "
                         "it): give one")
    return own or given


def open_ledger(args: argparse.Namespace) -> Ledger:
    path = args.ledger or default_ledger_path(args.db)
    if path != ":memory:" and not Path(path).expanduser().exists():
        raise UsageError(f"no quality ledger at {path}: it is written by `memlane chat` and the "
                         "agent loop (Agent(ledger=...)); pass --ledger PATH or set "
                         "$MEMLANE_LEDGER if it lives elsewhere")
    return Ledger(path)


def cmd_report(args: argparse.Namespace) -> int:
    with open_ledger(args) as lg:
        rep = lg.report(args.by, namespace=_namespace(args), thread_id=args.thread)
    emit(rep, args.json, render_report(rep))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with open_ledger(args) as lg:
        if args.out:
            # Never the ledger itself, nor the memory database beside it.
            with open_output(args.out, force=args.force,
                             protect=[args.ledger or default_ledger_path(args.db), args.db]) as f:
                n = lg.export(f, namespace=_namespace(args))
            print(f"wrote {n} ledger rows to {args.out}", file=sys.stderr)
        else:
            lg.export(sys.stdout, namespace=_namespace(args))
    return 0
