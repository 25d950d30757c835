"""Forgetting: a record, a thread, a namespace; and the canary: no bytes left in the file."""

import pytest

from memlane import Memory
from memlane.recall.embed import HashEmbedder

CANARY = "zqxcanary7f3k9"
OTHER = "plumvessel44rt"


def _plant(mem, word, thread="t1"):
    t = mem.thread(thread)
    for i in range(4):
        t.add("user", f"My code word is {word} and my locker is number {i}.")
        t.add("assistant", f"I will remember {word}.")
    step = t.step()  # records + an episode line carrying the word
    assert step is not None and step.added
    assert word.lower() in step.episode.line.lower() or any(
        word in r.text for r in mem.records())
    rec = mem.remember(f"The code word is {word}", thread_id=thread)
    mem.update(rec.id, f"The code word is still {word}")  # history row too
    mem.save_snapshot("vault_lookup", {"word": word}, f"vault entry for {word}: shelf 9",
                      thread_id=thread)
    return rec


def _file_bytes(path):
    data = path.read_bytes()
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        data += wal.read_bytes()
    return data


def test_canary_is_gone_from_the_database_file(tmp_path):
    path = tmp_path / "canary.db"
    emb = HashEmbedder(64)
    victim = Memory.open(path, namespace="victim", embedder=emb)
    keeper = victim.namespace("keeper")
    _plant(victim, CANARY)
    _plant(keeper, OTHER)
    victim.store.compact()
    before = _file_bytes(path)
    assert CANARY.encode() in before and OTHER.encode() in before  # the scan can see it

    counts = victim.forget_namespace()
    assert counts["records"] >= 2 and counts["messages"] == 8 and counts["snapshots"] == 1
    victim.compact()
    after = _file_bytes(path)
    # the word, and its stemmed / prefix forms as an index might keep them
    assert CANARY.encode() not in after
    assert CANARY[:9].encode() not in after
    assert OTHER.encode() in after

    # the other namespace is intact and searchable
    assert keeper.search(OTHER)[0].record.text.endswith(OTHER)
    assert keeper.recall(OTHER)[0].snapshot.args == {"word": OTHER}
    assert victim.search(CANARY) == [] and victim.records() == [] and victim.threads() == []
    assert victim.export()["records"] == []
    victim.close()


def test_forget_thread_takes_everything_derived(tmp_path):
    mem = Memory.open(tmp_path / "t.db", embedder=HashEmbedder(64))
    _plant(mem, "gone", thread="t1")
    keep = _plant(mem, "kept", thread="t2")
    counts = mem.forget_thread("t1")
    assert counts["messages"] == 8 and counts["threads"] == 1 and counts["snapshots"] == 1
    assert counts["records"] >= 2
    assert {r.thread_id for r in mem.records()} == {"t2"}
    assert mem.store.search_records("default", "gone", 10) == []
    assert mem.recall("gone")[0].snapshot.thread_id == "t2" if mem.recall("gone") else True
    assert [s.thread_id for s in mem.store.snapshots("default")] == ["t2"]
    n_vec = mem.store.conn.execute("SELECT COUNT(*) FROM record_vectors").fetchone()[0]
    assert n_vec == len(mem.records())
    hist = mem.store.conn.execute("SELECT DISTINCT record_id FROM record_history").fetchall()
    assert {h[0] for h in hist} <= {r.id for r in mem.records()} | {keep.id}
    assert not mem.thread("t1").exists()
    assert mem.forget_thread("t1") == {"records": 0, "snapshots": 0, "messages": 0,
                                       "episodes": 0, "threads": 0}


def test_forget_record_strips_buffer_pointers_and_history(tmp_path):
    mem = Memory.open(tmp_path / "r.db", embedder=HashEmbedder(64))
    t = mem.thread("t1")
    for i in range(4):
        t.add("user", f"My bike lock combination is 90{i}2.")
        t.add("assistant", "Got it.")
    step = t.step()
    assert step is not None
    rid = step.added[0]
    assert rid in t.episodes()[0].record_ids
    assert mem.forget(rid)
    assert rid not in t.episodes()[0].record_ids
    assert mem.store.record_history("default", rid) == []
    assert mem.store.conn.execute("SELECT COUNT(*) FROM record_vectors WHERE record_id = ?",
                                  (rid,)).fetchone()[0] == 0
    assert mem.store.conn.execute("SELECT COUNT(*) FROM record_sources WHERE record_id = ?",
                                  (rid,)).fetchone()[0] == 0
    assert not mem.forget(rid)


@pytest.mark.parametrize("target", ["record", "thread"])
def test_forgotten_text_is_not_in_the_file_after_compact(tmp_path, target):
    path = tmp_path / "f.db"
    mem = Memory.open(path)
    t = mem.thread("t1")
    t.add("user", "hello")
    rec = mem.remember(f"secret {CANARY}", thread_id="t1")
    mem.remember(f"public {OTHER}")
    if target == "record":
        mem.forget(rec.id)
    else:
        mem.forget_thread("t1")
    mem.compact()
    data = _file_bytes(path)
    assert CANARY[:9].encode() not in data and OTHER.encode() in data


def test_forget_empties_the_in_process_caches(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Context assembly memoises token counts and rendered lines; forgetting drops them, so a
    forgotten text does not stay in the process through a cache."""
    from memlane import Memory
    from memlane.context import buffer

    canary = "the vault code is zebra-4417-canary"
    with Memory.open(str(tmp_path / "m.db")) as mem:
        th = mem.thread("t")
        for i in range(30):
            th.add("user", f"{canary} turn {i}")
            th.add("assistant", "noted")
        th.maybe_step()
        th.context(budget=900)
        memo = mem.tokenizer._memo  # type: ignore[attr-defined]
        assert any(canary in k for k in memo) or any(canary in v[1] for v in buffer._LINES.values())
        mem.forget_thread("t")
        assert not any(canary in k for k in memo)
        assert not any(canary in v[1] for v in buffer._LINES.values())
