"""The CLI's edges a new user meets first: a failed open leaves no file, a store URL memlane has
no engine for is refused by name, `--db` is taken after the command too. Real SQLite files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlane.cli import main


@pytest.fixture
def convo(tmp_path: Path) -> Path:
    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps({"role": "user", "content": "I live in Leeds."}) + "\n"
                 + json.dumps({"role": "assistant", "content": "Noted."}) + "\n")
    return p


def test_a_failed_embedder_leaves_no_database(tmp_path: Path, convo: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "m.db"
    assert main(["--db", str(db), "ingest", "t", str(convo), "--embedder", "bogus"]) == 2
    assert "unknown embedder 'bogus'" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]  # no -wal, -shm either
    assert main(["--db", str(db), "threads"]) == 2
    assert f"no database at {db}" in capsys.readouterr().err
    # A database that was there already is left as it was.
    assert main(["--db", str(db), "ingest", "t", str(convo)]) == 0
    assert main(["--db", str(db), "ingest", "t", str(convo), "--embedder", "bogus"]) == 2
    capsys.readouterr()
    assert main(["--db", str(db), "threads", "--json"]) == 0
    assert [t["messages"] for t in json.loads(capsys.readouterr().out)] == [2]


def test_a_failed_embedder_leaves_no_default_database_nor_its_directory(
        tmp_path: Path, convo: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("MEMLANE_DB", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["ingest", "t", str(convo), "--embedder", "bogus"]) == 2
    assert not (tmp_path / ".memlane").exists()
    assert main(["threads"]) == 2
    assert f"no database at {tmp_path / '.memlane' / 'memlane.db'}" in capsys.readouterr().err


@pytest.mark.parametrize("url", ["mysql://ada:secret@db.example/mem", "redis://localhost/0"])
@pytest.mark.parametrize("argv", [["threads"], ["ingest", "t", "{convo}"], ["migrate"],
                                  ["demo", "--budget", "900"]])
def test_an_unsupported_store_url_is_refused_by_name(
        tmp_path: Path, convo: Path, url: str, argv: list[str],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("{convo}", str(convo)) for a in argv]
    assert main(["--db", url, *argv]) == 2
    err = capsys.readouterr().err
    scheme = url.split("://")[0]
    assert f"{scheme}:// is not a store memlane supports" in err
    assert "sqlite:///PATH" in err and "postgresql://" in err
    assert "secret" not in err  # a password in the URL is not echoed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]  # no file made of it


def test_the_demo_s_own_db_is_checked_too(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--db", "mysql://h/db"]) == 2
    assert "mysql:// is not a store memlane supports" in capsys.readouterr().err


def test_db_and_namespace_after_the_command(tmp_path: Path, convo: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "m.db")
    assert main(["ingest", "t", str(convo), "--db", db, "-n", "ada"]) == 0
    capsys.readouterr()
    assert main(["threads", "--db", db, "--json", "--namespace", "ada"]) == 0
    assert [t["thread_id"] for t in json.loads(capsys.readouterr().out)] == ["t"]
    assert main(["threads", "--db", db, "--json"]) == 0  # the default namespace: none there
    assert json.loads(capsys.readouterr().out) == []
    # After the command wins over before it, as a later option does.
    assert main(["--db", str(tmp_path / "other.db"), "records", "--db", db, "-n", "ada",
                 "--json"]) == 0
    assert any("Leeds" in r["text"] for r in json.loads(capsys.readouterr().out))
    # Subcommands take it too.
    assert main(["ledger", "report", "--db", db]) == 2
    assert f"no quality ledger at {db}.ledger.db" in capsys.readouterr().err
