"""Every command is documented: it has a help line, `--help` works, and the README names it."""

import argparse
from pathlib import Path

import pytest

from memlane.cli import build_parser, main

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _commands() -> dict[str, str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return {c.dest: (c.help or "") for c in sub._choices_actions}


def test_every_command_has_a_help_line():
    cmds = _commands()
    assert {"ingest", "context", "threads", "show", "records", "search", "forget", "export",
            "demo", "chat", "eval", "serve", "ledger", "migrate"} <= set(cmds)
    assert all(h.strip() for h in cmds.values()), cmds


@pytest.mark.parametrize("cmd", sorted(_commands()))
def test_command_help_runs(cmd, capsys):
    with pytest.raises(SystemExit) as e:
        main([cmd, "--help"])
    assert e.value.code == 0
    assert cmd in capsys.readouterr().out


@pytest.mark.parametrize("cmd", ["ingest", "context", "threads", "show", "records", "search",
                                 "chat", "serve", "eval"])
def test_readme_names_the_main_commands(cmd):
    assert f"memlane {cmd}" in README or f"; memlane {cmd}" in README


def _parsers(parser, path=("memlane",)):
    yield path, parser
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sp in a.choices.items():
                yield from _parsers(sp, (*path, name))


def test_every_option_and_positional_has_help():
    missing = [
        f"{' '.join(path)} {a.option_strings[0] if a.option_strings else a.dest}"
        for path, parser in _parsers(build_parser())
        for a in parser._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))
        and not (a.help or "").strip()
    ]
    assert not missing, missing


def test_version(capsys):
    from memlane import __version__

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"memlane {__version__}"


def test_every_command_is_documented_in_readme_or_docs():
    import re

    docs = Path(__file__).resolve().parents[1] / "docs"
    text = README + "".join(p.read_text() for p in sorted(docs.glob("*.md")))
    for cmd in _commands():
        # `memlane CMD`, with global options between: `memlane --db X -n NS CMD`.
        pattern = r"memlane(?: --?[\w-]+(?: (?!-)[^\s`]+)?)* " + re.escape(cmd) + r"\b"
        assert re.search(pattern, text), f"`memlane {cmd}` is not in README.md or docs/"
