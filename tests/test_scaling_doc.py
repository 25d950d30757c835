"""docs/SCALING.md's `memlane migrate` example is what the command prints now: its numbers are
the latest migration's, and its lines have the command's form (run here on a real SQLite file,
the same code as on PostgreSQL)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memlane.cli import main
from memlane.store import migrations

DOC = Path(__file__).resolve().parents[1] / "docs" / "SCALING.md"


def test_the_migrate_example_names_the_latest_migration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    latest = max(m.number for m in migrations.POSTGRES)
    assert latest == max(m.number for m in migrations.SQLITE)
    text = DOC.read_text(encoding="utf-8")
    line = re.search(r"^postgresql://\S+: applied migrations (\d+) \(schema at (\d+); "
                     r"migrations recorded: ([\d, ]+)\)$", text, re.M)
    assert line, "SCALING.md shows no `memlane migrate` output line"
    assert int(line[1]) == int(line[2]) == latest
    assert line[3] == ", ".join(str(n) for n in range(1, latest + 1))
    assert f'"latest": {latest}' in text

    db = str(tmp_path / "m.db")
    assert main(["--db", db, "migrate"]) == 0
    got = capsys.readouterr().out.strip()
    assert got.endswith(f"(schema at {latest}; migrations recorded: {line[3]})"), got
    assert main(["--db", db, "migrate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["new"] == [] and data["latest"] == latest
    assert data["applied"] == list(range(1, latest + 1))
