"""Every command is documented: it has a help line, `--help` works, and the README names it."""

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
