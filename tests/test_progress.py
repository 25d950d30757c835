"""Progress on long work (`memlane.progress`): a bar on a terminal, nothing in a pipe or with
`--no-progress`, and the command's summary line either way. Terminals are real
pseudo-terminals (pexpect) where the command runs as a process; in-process runs swap stderr for
a stream that says it is a terminal."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memlane.cli import main
from memlane.progress import Progress

DATA = Path(__file__).parent / "data"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLANE_", "OPENAI_"))}
    env.update(HOME=str(tmp_path), PYTHONUNBUFFERED="1", COLUMNS="120",
               MEMLANE_LEDGER=str(tmp_path / "ledger.db"))
    return env


@pytest.fixture
def convo(tmp_path: Path) -> Path:
    lines = [{"role": "user", "content": "Hi, I'm Ravi and my passport number is K4471902.",
              "ts": 1.7e9}, {"role": "assistant", "content": "Noted, Ravi."}]
    for i in range(30):
        lines += [{"role": "user", "content": f"Is Oslo cold in week {i}?"},
                  {"role": "assistant", "content": f"Week {i} in Oslo is mild."}]
    p = tmp_path / "c.jsonl"
    p.write_text("".join(json.dumps(m) + "\n" for m in lines))
    return p


def test_the_helper_draws_only_on_a_terminal_and_when_enabled() -> None:
    for stream, enabled, drawn in ((Terminal(), True, True), (Terminal(), False, False),
                                   (io.StringIO(), True, False)):
        with Progress(4, "work", stream=stream, enabled=enabled) as bar:
            for i in range(4):
                bar.step(f"item {i}")
        text = stream.getvalue()
        assert ("[" + "#" * 30 + "] 100% 4/4" in text) == drawn, text
        assert (text == "") == (not drawn)
    # The callback form, and a total not known in advance: a count, no bar.
    term = Terminal()
    with Progress(None, "embedded", stream=term) as bar:
        bar(256, None)
    assert "embedded: 256 done" in term.getvalue() and "#" not in term.getvalue()
    assert term.getvalue().endswith("\r\x1b[K")  # the line is cleared for the summary


def test_ingest_in_a_pty_shows_the_bar_then_the_summary(tmp_path: Path, convo: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    db = str(tmp_path / "m.db")
    child = pexpect.spawn(sys.executable, ["-m", "memlane", "--db", db, "ingest", "t", str(convo)],
                          env=_env(tmp_path), encoding="utf-8", timeout=120)
    try:
        child.expect(r"ingest t: messages \[#+ *\] +\d+% \d+/62")
        child.expect(r"ingested 62 messages into 't': \d+ memory steps, \d+ buffer lines")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_piped_commands_print_no_bar_and_their_summary(tmp_path: Path, convo: Path) -> None:
    db = str(tmp_path / "m.db")
    env = _env(tmp_path)

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        out = subprocess.run([sys.executable, "-m", "memlane", "--db", db, *argv], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "\r" not in out.stderr and "[#" not in out.stderr, out.stderr
        return out

    assert re.fullmatch(r"ingested 62 messages into 't': \d+ memory steps, \d+ buffer lines "
                        r"\(\d+\.\ds\)\n", run("ingest", "t", str(convo)).stdout)
    assert re.fullmatch(r"embedded \d+ records and snapshots with hash\S* \(\d+\.\ds\); it is "
                        r"now the memory's embedder\n",
                        run("reindex", "--embedder", "hash").stdout)
    got = run("import", "--from", "claude", str(DATA / "claude_conversations.json")).stdout
    assert got.startswith("imported 1 Claude conversation (4 messages, 1 memory step) into")
    assert "skipped: 2 attachments, 2 tool messages; 1 conversation with no text" in got


def test_reindex_and_import_draw_on_a_terminal(tmp_path: Path, convo: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    assert main(["--db", db, "ingest", "t", str(convo), "--no-progress"]) == 0
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(["--db", db, "reindex", "--embedder", "hash"]) == 0
    assert re.search(r"reindex: records and snapshots embedded: \d+ done", term.getvalue())
    term.seek(0)
    term.truncate()
    assert main(["--db", db, "import", "--from", "chatgpt",
                 str(DATA / "chatgpt_conversations.json")]) == 0
    assert "import chatgpt: conversations [" + "#" * 30 + "] 100% 2/2" in term.getvalue()
    term.seek(0)
    term.truncate()
    assert main(["--db", db, "-n", "quiet", "import", "--from", "chatgpt", "--no-progress",
                 str(DATA / "chatgpt_conversations.json")]) == 0
    assert term.getvalue() == ""
    assert "imported 2 ChatGPT conversations" in capsys.readouterr().out


def test_eval_needle_piped_has_its_table_and_no_bar(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "needle", "--budget", "800", "--seeds", "1", "--turns", "20",
                 "--depths", "0", "--filler", "builtin", "--policies", "window"]) == 0
    got = capsys.readouterr()
    assert got.err == "" and "window" in got.out
