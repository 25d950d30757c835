"""`memlane export` then `memlane import`: the same memory in another store, of either engine."""

import json

import pytest

from memlane import Memory
from memlane.cli import main
from memlane.errors import UsageError


def _source(path):
    mem = Memory.open(str(path), namespace="acme")
    t = mem.thread("trip")
    for i in range(10):
        t.add("user", f"My booking reference for hotel {i} is HX-{i}{i}42, in Porto.", ts=1.7e9 + i)
        t.add("assistant", f"Noted booking {i}.", ts=1.7e9 + i + 0.5, name="bot")
    t.maybe_step()
    t.step()
    rec = mem.remember("Prefers aisle seats.", kind="preference", pinned=True)
    mem.update(rec.id, "Prefers aisle seats, near the front.")
    mem.save_snapshot("weather", {"city": "Porto"}, "Sunny, 24C", thread_id="trip")
    mem.thread("empty-ish").add("user", "hello")
    return mem


def _normal(export):
    """An export with the store-assigned ids replaced by what they point at."""
    msg_text = {m["id"]: (t["thread_id"], m["seq"]) for t in export["threads"]
                for m in t["messages"]}
    rec_text = {r["id"]: r["text"] for r in export["records"]}
    threads = [{
        "thread_id": t["thread_id"], "filed_to": t["filed_to"],
        "messages": [{k: v for k, v in m.items() if k != "id"} for m in t["messages"]],
        "episodes": [e | {"record_ids": [rec_text[i] for i in e["record_ids"]]}
                     for e in t["episodes"]],
    } for t in sorted(export["threads"], key=lambda t: t["thread_id"])]
    records = sorted(({k: v for k, v in r.items() if k not in ("id", "namespace")}
                      | {"source_ids": sorted(msg_text[s] for s in r["source_ids"])}
                      for r in export["records"]), key=lambda r: r["text"])
    snaps = [{k: v for k, v in s.items() if k not in ("id", "namespace")}
             for s in export["snapshots"]]
    return {"threads": threads, "records": records, "snapshots": snaps}


def test_export_import_round_trip_sqlite_to_postgres(tmp_path, capsys, pg_url):
    src = _source(tmp_path / "src.db")
    before = src.export()
    src.close()
    assert before["records"] and any(t["episodes"] for t in before["threads"])
    out = tmp_path / "acme.json"
    assert main(["--db", str(tmp_path / "src.db"), "-n", "acme", "export", "--out",
                 str(out)]) == 0
    assert main(["--db", pg_url, "-n", "acme", "import", str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["imported"]
    assert got == {"threads": 2, "messages": 21, "episodes": len(before["threads"][0]["episodes"]),
                   "records": len(before["records"]), "snapshots": 1}
    with Memory.open(pg_url, namespace="acme") as dst:
        after = dst.export()
        assert _normal(after) == _normal(before)
        # The restored memory works: its lines point at its own records, search finds them,
        # and the context shows the same buffer lines.
        t = dst.thread("trip")
        ep = t.episodes()[0]
        assert {r.id for r in dst.records(list(ep.record_ids))} == set(ep.record_ids)
        assert dst.search("booking reference hotel 3")[0].record.text.startswith("My booking")
        assert dst.store.record_history("acme", dst.search("aisle")[0].record.id)[0]["text"] == \
            "Prefers aisle seats."
    with Memory.open(str(tmp_path / "src.db"), namespace="acme") as src:
        a = src.thread("trip").context(budget=600, new_message="my hotel?")
    with Memory.open(pg_url, namespace="acme") as dst:
        b = dst.thread("trip").context(budget=600, new_message="my hotel?")
    assert [m.content for m in a.messages if m.layer != "buffer"] == \
        [m.content for m in b.messages if m.layer != "buffer"]
    assert [x.line for x in a.trace.buffer_lines] == [x.line for x in b.trace.buffer_lines]


def test_import_into_either_store(store, tmp_path):
    src = _source(tmp_path / "src.db")
    before = src.export()
    src.close()
    dst = Memory(store, "other")
    counts = dst.restore(before)
    assert counts["messages"] == 21
    assert _normal(dst.export()) == _normal(before)


def test_import_refuses_a_namespace_with_memory_and_bad_files(tmp_path, capsys):
    src = _source(tmp_path / "src.db")
    data = src.export()
    with pytest.raises(UsageError, match="already holds memory"):
        src.restore(data)
    src.close()
    with Memory.open(str(tmp_path / "dst.db")) as dst:
        bad = json.loads(json.dumps(data))
        bad["threads"][0]["messages"][3]["seq"] = 9
        with pytest.raises(UsageError, match=r"threads\[0\]\.messages\[3\]\.seq"):
            dst.restore(bad)
        with pytest.raises(UsageError, match="format"):
            dst.restore({"threads": []})
        assert dst.threads() == [], "a rejected import writes nothing"
    p = tmp_path / "x.json"
    p.write_text("{not json")
    assert main(["--db", str(tmp_path / "dst.db"), "import", str(p)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["--db", str(tmp_path / "dst.db"), "import", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_export_out_never_overwrites_the_database_nor_a_file_it_did_not_create(tmp_path, capsys):
    # Issue 20: `memlane --db z.db -n alice export --out z.db` replaced the whole database
    # with one namespace's JSON and exited 0.
    db = tmp_path / "z.db"
    with Memory.open(db, namespace="alice") as mem:
        mem.remember("My locker code is 4471.")
    with Memory.open(db, namespace="bob") as mem:
        mem.remember("Bob's fact.")
    before = db.read_bytes()
    for out in (str(db), str(tmp_path / "." / "z.db")):
        for force in ([], ["--force"]):
            assert main(["--db", str(db), "-n", "alice", "export", "--out", out, *force]) == 2
            assert "which this command reads" in capsys.readouterr().err
    assert db.read_bytes() == before
    with Memory.open(db, namespace="bob") as mem:
        assert [r.text for r in mem.records()] == ["Bob's fact."]
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    assert main(["--db", str(db), "-n", "alice", "export", "--out", str(other)]) == 2
    assert "pass --force" in capsys.readouterr().err and other.read_text() == "keep me"
    assert main(["--db", str(db), "-n", "alice", "export", "--out", str(other), "--force"]) == 0
    assert json.loads(other.read_text())["records"][0]["text"] == "My locker code is 4471."
    # The ledger's export is held to the same rule.
    from memlane.ledger import Ledger

    Ledger(tmp_path / "z.db.ledger.db").close()
    ledger = tmp_path / "z.db.ledger.db"
    capsys.readouterr()
    for out in (ledger, db):
        assert main(["--db", str(db), "ledger", "export", "--out", str(out), "--force"]) == 2
        assert "which this command reads" in capsys.readouterr().err
    assert db.read_bytes() == before


def test_import_keeps_threads_created_and_last_active(store, tmp_path):
    src = _source(tmp_path / "src.db")
    data = src.export()
    src.close()
    # Times from long ago, as an old memory's would be (the idle TTL reads last_active).
    for n, t in enumerate(data["threads"]):
        t["created"], t["last_active"] = 1.6e9 + n, 1.6e9 + 3600 + n
    dst = Memory(store, "other")
    dst.restore(data)
    got = {t.thread_id: (t.created, t.last_active) for t in dst.threads()}
    assert got == {t["thread_id"]: (t["created"], t["last_active"]) for t in data["threads"]}
    assert dst.expire(now=1.6e9 + 40 * 86400) == len(data["threads"])  # idle 30 days: expired
