"""Long-term records outside a memory step: add, update (with history), delete, pin, export."""

import pytest

from memlane import Memory, NotFound, UsageError
from memlane.search.embed import HashEmbedder


@pytest.fixture
def mem(tmp_path):
    m = Memory.open(tmp_path / "m.db", namespace="alice", embedder=HashEmbedder(64))
    yield m
    m.close()


def test_migration_2_applied_and_idempotent(tmp_path):
    path = tmp_path / "m.db"
    Memory.open(path).close()
    with Memory.open(path) as m:
        assert m.store.migrations_applied()[:2] == [1, 2]


def test_remember_links_sources_of_this_namespace_only(mem):
    t = mem.thread("t1")
    msg = t.add("user", "I moved to Porto last spring.")
    other = mem.namespace("bob").thread("t1").add("user", "Bob's secret message")
    rec = mem.remember("Alice lives in Porto", "fact", source_ids=[msg.id, other.id],
                       thread_id="t1")
    assert rec.source_ids == (msg.id,)  # the other namespace's message is not linked
    assert rec.kind == "fact" and rec.thread_id == "t1" and rec.namespace == "alice"
    assert mem.records([rec.id])[0].text == "Alice lives in Porto"


def test_update_replaces_text_and_keeps_history(mem):
    rec = mem.remember("Alice's dentist is Dr. Silva")
    new = mem.update(rec.id, "Alice's dentist is Dr. Costa")
    assert new.text == "Alice's dentist is Dr. Costa" and new.id == rec.id
    assert [r.text for r in mem.records()] == ["Alice's dentist is Dr. Costa"]  # one copy
    hist = mem.store.record_history("alice", rec.id)
    assert [h["op"] for h in hist] == ["add", "update"]
    assert hist[0]["text"] == "Alice's dentist is Dr. Silva"
    # the search index follows the update
    assert [r.id for r, _ in mem.store.search_records("alice", "Costa", 5)] == [rec.id]
    assert mem.store.search_records("alice", "Silva", 5) == []


def test_update_and_pin_unknown_or_foreign_id_raise_not_found(mem):
    foreign = mem.namespace("bob").remember("Bob's fact")
    with pytest.raises(NotFound):
        mem.update(foreign.id, "hijacked")
    with pytest.raises(NotFound):
        mem.update(9999, "nothing there")
    with pytest.raises(NotFound):
        mem.pin(foreign.id)
    assert mem.namespace("bob").records()[0].text == "Bob's fact"


def test_bad_input_is_a_usage_error(mem):
    with pytest.raises(UsageError):
        mem.remember("   ")
    with pytest.raises(UsageError):
        mem.remember("x" * 5000)
    with pytest.raises(UsageError):
        mem.remember("ok", kind="")
    with pytest.raises(UsageError):
        mem.update("3", "text")  # type: ignore[arg-type]


def test_pin_puts_record_in_core_set(mem):
    a = mem.remember("Alice is allergic to penicillin", "fact")
    mem.remember("Alice likes jazz", "preference")
    assert mem.pin(a.id).pinned
    assert [r.id for r in mem.store.records("alice", pinned_only=True)] == [a.id]
    assert not mem.pin(a.id, False).pinned
    assert mem.store.records("alice", pinned_only=True) == []


def test_delete_record_keeps_audit_history_but_strips_buffer_pointers(mem):
    t = mem.thread("t1")
    for i in range(4):
        t.add("user", f"My locker code is 55{i}1 and I park on level {i}.")
        t.add("assistant", "Noted.")
    step = t.step()
    assert step is not None and step.added
    rid = step.added[0]
    assert mem.store.delete_record("alice", rid)
    assert rid not in t.episodes()[0].record_ids
    assert [h["op"] for h in mem.store.record_history("alice", rid)][-1] == "delete"
    assert not mem.store.delete_record("alice", rid)


def test_step_records_are_embedded_after_the_step(mem):
    t = mem.thread("t1")
    for i in range(4):
        t.add("user", f"My favourite climbing gym is Boulder Bar number {i}.")
        t.add("assistant", "Nice.")
    step = t.step()
    assert step is not None and step.added
    assert mem.store.missing_vectors("alice", mem.embedder.name) == []
    got = mem.store.vector_candidates(
        "alice", mem.embedder.embed(["favourite climbing gym"])[0], 10, model=mem.embedder.name)
    assert {i for i, _ in got} == set(step.added)


def test_update_drops_stale_vector_until_reembedded(tmp_path):
    emb = HashEmbedder(64)
    m = Memory.open(tmp_path / "m.db", embedder=emb)
    rec = m.remember("the blue notebook is in the drawer")
    plain = Memory(m.store, "default")  # no embedder: updates cannot re-embed
    plain.update(rec.id, "the red notebook is on the shelf")
    assert m.store.missing_vectors("default", emb.name) == [(rec.id,
                                                             "the red notebook is on the shelf")]
    assert m.reindex() == 1
    assert m.store.missing_vectors("default", emb.name) == []


def test_export_contains_threads_records_sources_history_snapshots(mem):
    t = mem.thread("t1")
    msg = t.add("user", "Call me Ali.")
    rec = mem.remember("Alice goes by Ali", source_ids=[msg.id], thread_id="t1")
    mem.update(rec.id, "Alice prefers to be called Ali")
    mem.save_snapshot("weather", {"city": "Porto"}, "Porto: 21C, clear")
    data = mem.export()
    assert data["namespace"] == "alice"
    assert [m["content"] for m in data["threads"][0]["messages"]] == ["Call me Ali."]
    (r,) = data["records"]
    assert r["source_ids"] == [msg.id] and [h["op"] for h in r["history"]] == ["add", "update"]
    assert data["snapshots"][0]["args"] == {"city": "Porto"}
    import json
    json.dumps(data)  # JSON-ready


def test_memory_reads_sources_and_the_pinned_set_for_its_namespace(mem):
    """What the server, the tools and the CLI read through `Memory` (never the store with a
    namespace passed by hand): a record's source messages, and the pinned core set."""
    t = mem.thread("t1")
    a, b = t.add("user", "first"), t.add("user", "second")
    other = mem.namespace("bob").thread("t1").add("user", "Bob's message")
    assert [m.content for m in mem.messages_by_id([b.id, a.id, other.id])] == ["first", "second"]
    assert mem.namespace("bob").messages_by_id([a.id]) == []
    pinned = mem.remember("Alice lives in Porto", pinned=True)
    mem.remember("Alice likes tea")
    assert [r.id for r in mem.records(pinned_only=True)] == [pinned.id]
    assert len(mem.records()) == 2
    assert mem.namespace("bob").records(pinned_only=True) == []
