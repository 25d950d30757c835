"""Forgotten means gone from disk: a canary planted in messages, records (live, deleted by a step,
replaced by a retry), snapshots, the full-text index and the quality ledger is grepped out of
every database file after forgetting through the CLI and through the server, on both stores."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from memlane.ledger import Ledger
from memlane.memory import Memory

CANARY = "ZQXCANARY"


def plant(mem: Memory, thread: str = "t", ledger: Ledger | None = None) -> None:
    """The canary everywhere a forget must reach: messages, a filed record, a record a retry
    replaced, a record a step deleted, the history of an update, a snapshot, a ledger note."""
    t = mem.thread(thread)
    for i in range(4):
        t.add("user", f"My locker code is {CANARY}{i} and my gym is Fit{i}.")
        t.add("assistant", f"Noted: {CANARY}{i}.")
    first = t.step()
    assert first is not None and first.added
    # A retry of the same stretch deletes the first attempt's records (their history stays).
    retry = t.step({"records": [{"op": "add", "text": f"Locker code {CANARY}-retry."}],
                    "episode": f"Locker {CANARY}.", "relevance": []},
                   start=first.start, end=first.end)
    assert retry is not None and retry.replaced
    rid = retry.added[0]
    mem.update(rid, f"Locker code {CANARY}-updated.")
    for i in range(4):
        t.add("user", f"Forget the old code; it was {CANARY}-old{i}.")
        t.add("assistant", "OK.")
    step = t.step({"records": [{"op": "delete", "id": rid},
                               {"op": "add", "text": f"New code {CANARY}-new."}],
                   "episode": "Code changed.", "relevance": []})
    assert step is not None and step.deleted == (rid,)
    mem.save_snapshot("lookup", {"q": CANARY}, f"result {CANARY}", thread_id=thread)
    assert any(CANARY in h.record.text for h in mem.search(f"{CANARY}-new"))
    if ledger is not None:
        ledger.feedback(thread, 2, 0.1, note=f"it forgot {CANARY}", namespace=mem.ns)


def sqlite_files(db: Path) -> list[Path]:
    return [p for p in db.parent.iterdir() if p.name.startswith(db.name)]


def assert_gone(files: list[Path]) -> None:
    assert files
    found = [p.name for p in files if CANARY.encode() in p.read_bytes()]
    assert found == [], f"the canary is still in {found}"


def test_planted_canary_is_on_disk_before_forgetting(tmp_path):
    """The check below can fail: without a forget the canary is in the files."""
    db = tmp_path / "m.db"
    with Memory.open(db) as mem:
        plant(mem)
        mem.forget_thread("other")  # forgets nothing of t
        mem.compact()
    with pytest.raises(AssertionError, match="still in"):
        assert_gone(sqlite_files(db))


@pytest.mark.parametrize("what", ["--thread", "--namespace"])
def test_cli_forget_leaves_no_trace_in_sqlite_files(tmp_path, what):
    db = tmp_path / "m.db"
    with Memory.open(db) as mem, Ledger(str(db) + ".ledger.db") as ledger:
        plant(mem, ledger=ledger)
        plant(mem.namespace("other"), "keep")  # another namespace keeps its copy
    args = ["--thread", "t"] if what == "--thread" else ["--namespace-all"]
    p = subprocess.run([sys.executable, "-m", "memlane", "--db", str(db), "forget", *args,
                        "--yes"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    with Memory.open(db) as mem:
        assert mem.records() == [] and mem.namespace("other").records()
        mem.namespace("other").forget_namespace()
        mem.compact()
    with Ledger(str(db) + ".ledger.db") as ledger:
        assert ledger.rows(kind="feedback")  # the signal row stays; its note is gone
        assert all(r.note is None for r in ledger.rows(namespace="default"))
    assert_gone(sqlite_files(db))


def _server_forget(mem: Memory, ledger: Ledger | None, path: str, body: dict | None,
                   keys: Path) -> dict:
    pytest.importorskip("starlette")
    from memlane.server.app import ServerConfig, create_app
    from memlane.server.auth import Auth, KeyRing
    from memlane.testing import serve_in_thread

    ring = KeyRing.load(keys)
    key = ring.add(mem.ns)
    app = create_app(mem, Auth(ring), ServerConfig(), ledger=ledger, mcp=False)
    with serve_in_thread(app) as url:
        req = urllib.request.Request(
            url + path, method="DELETE" if body is None else "POST",
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())


@pytest.mark.parametrize("how", ["thread", "namespace"])
def test_server_forget_compacts_sqlite(tmp_path, how):
    db = tmp_path / "m.db"
    mem = Memory.open(db)
    ledger = Ledger(str(db) + ".ledger.db")
    plant(mem, ledger=ledger)
    if how == "thread":
        out = _server_forget(mem, ledger, "/v1/memlane/threads/t", None, tmp_path / "k.json")
    else:
        out = _server_forget(mem, ledger, "/v1/memlane/forget", {"namespace": True},
                             tmp_path / "k.json")
    assert out["compacted"] is True and out["deleted"]["messages"] == 16
    assert_gone(sqlite_files(db))  # while the server's store is still open: file + WAL
    mem.close()
    ledger.close()
    assert_gone(sqlite_files(db))


def test_model_forget_tool_through_the_server_schedules_compaction(tmp_path):
    pytest.importorskip("mcp")
    from memlane.server.app import ServerConfig, Service
    from memlane.server.auth import Auth, KeyRing
    from memlane.server.mcp import call

    db = tmp_path / "m.db"
    mem = Memory.open(db)
    svc = Service(mem, Auth(KeyRing([])), ServerConfig())
    rec = mem.remember(f"Safe code {CANARY}.")
    assert not call(svc.mem("default"), "forget", {"id": rec.id}).is_error
    assert svc.schedule_compaction().result(timeout=60) is True
    assert_gone(sqlite_files(db))
    svc.close()
    mem.close()


def test_server_forget_compacts_postgres(pg_url, tmp_path):
    """PostgreSQL: the database's own folder (base/<oid>) holds no canary after a forget
    through the server (VACUUM FULL rewrote the tables). The server's WAL and backups follow
    its own retention (docs/SAFETY.md)."""
    import psycopg

    from memlane.store.postgres import PostgresStore

    mem = Memory(PostgresStore(pg_url, min_size=1, max_size=4))
    plant(mem)
    with psycopg.connect(pg_url, autocommit=True) as c:
        row = c.execute("SELECT current_setting('data_directory'), d.oid FROM pg_database d"
                        " WHERE d.datname = current_database()").fetchone()
        assert row is not None
        folder = Path(row[0]) / "base" / str(row[1])

        def files() -> list[Path]:
            c.execute("CHECKPOINT")  # dirty pages reach the files
            return [p for p in folder.iterdir() if p.is_file()]

        try:
            files()
        except PermissionError:
            pytest.skip("the PostgreSQL data folder is not readable by the tests")
        with pytest.raises(AssertionError, match="still in"):
            assert_gone(files())  # it can fail: the canary is there before the forget
        out = _server_forget(mem, None, "/v1/memlane/threads/t", None, tmp_path / "k.json")
        assert out["compacted"] is True
        assert_gone(files())
    mem.close()


def test_cli_forget_compacts_postgres(pg_url):
    import psycopg

    from memlane.store.postgres import PostgresStore

    mem = Memory(PostgresStore(pg_url, min_size=1, max_size=2))
    plant(mem)
    mem.close()
    with psycopg.connect(pg_url, autocommit=True) as c:
        row = c.execute("SELECT current_setting('data_directory'), d.oid FROM pg_database d"
                        " WHERE d.datname = current_database()").fetchone()
        assert row is not None
        folder = Path(row[0]) / "base" / str(row[1])
        try:
            folder.iterdir()
        except PermissionError:
            pytest.skip("the PostgreSQL data folder is not readable by the tests")
        p = subprocess.run([sys.executable, "-m", "memlane", "--db", pg_url, "forget",
                            "--thread", "t", "--yes"], capture_output=True, text=True,
                           timeout=120)
        assert p.returncode == 0, p.stderr
        c.execute("CHECKPOINT")
        assert_gone([f for f in folder.iterdir() if f.is_file()])


def test_a_models_forget_outside_the_server_reaches_the_disk(tmp_path):
    """`memlane mcp` on stdio, `memlane chat` and `Agent` have no server to compact after a
    forget: the tool's forget compacts itself (`Memory.forget_to_disk`)."""
    from memlane.tools.handlers import MemoryTools

    db = tmp_path / "m.db"
    mem = Memory.open(db)
    rec = mem.remember(f"Locker code {CANARY}-tool.")
    mem.remember("Keeps bees.")
    assert MemoryTools(mem).call("forget", {"id": rec.id}) == {"id": rec.id, "forgotten": True}
    assert [r.text for r in mem.records()] == ["Keeps bees."]
    assert_gone(sqlite_files(db))
    mem.close()
