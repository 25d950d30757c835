"""Forgetting: a record, a thread, a namespace; and the canary: no bytes left in the file."""

import gc
import sys
from types import ModuleType

import pytest

from memlane import Memory
from memlane.search.embed import HashEmbedder

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
    assert OTHER in keeper.search(OTHER)[0].record.text
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


def _holds(obj: object, needle: str, depth: int = 0, seen: set[int] | None = None) -> bool:
    """Whether `needle` is in a string anywhere inside `obj` (containers and plain objects)."""
    if isinstance(obj, str):
        return needle in obj
    seen = set() if seen is None else seen
    if depth > 6 or id(obj) in seen or isinstance(obj, (int, float, bytes, type, ModuleType)):
        return False
    seen.add(id(obj))
    if isinstance(obj, dict):
        return any(_holds(k, needle, depth + 1, seen) or _holds(v, needle, depth + 1, seen)
                   for k, v in list(obj.items()))
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_holds(x, needle, depth + 1, seen) for x in list(obj))
    d = getattr(obj, "__dict__", None)
    return isinstance(d, dict) and _holds(d, needle, depth + 1, seen)


def _process_caches() -> list[tuple[str, object]]:
    """Every cache of the process memlane could keep a text in: each memory's `Caches`, each
    tokenizer's memo, and every module-level container or functools cache of memlane."""
    from memlane.caches import Caches
    from memlane.context.tokens import BPETokenizer

    out: list[tuple[str, object]] = []
    for obj in gc.get_objects():
        if isinstance(obj, Caches):
            out.extend((f"Caches.{name}", memo) for name, memo in obj.memos().items())
        elif isinstance(obj, BPETokenizer):
            out.append(("BPETokenizer._memo", obj._memo))
    for name, module in list(sys.modules.items()):
        if name != "memlane" and not name.startswith("memlane."):
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, (dict, list, set)):
                out.append((f"{name}.{attr}", value))
            elif (hasattr(value, "cache_info") and hasattr(value, "cache_clear")
                  and str(getattr(value, "__module__", "")).startswith("memlane")):
                # Only memlane's own: a stdlib function imported by name (urlsplit) has a cache
                # memlane neither fills with user text nor owns.
                out.append((f"{name}.{attr} (functools cache)", value))
    return out


@pytest.mark.parametrize("how", ["record", "thread", "namespace"])
def test_forget_empties_every_cache_of_the_process(tmp_path, how) -> None:  # type: ignore[no-untyped-def]
    """Context assembly memoises token counts, scan results and rendered lines; every forget
    path empties them, so a forgotten text stays in no cache of the process (all of them are
    walked, not only the ones known to have held it)."""
    from memlane import Memory

    canary = "the vault code is zebra-4417-canary"
    with Memory.open(str(tmp_path / "m.db")) as mem:
        th = mem.thread("t")
        for i in range(30):
            th.add("user", f"{canary} turn {i}")
            th.add("assistant", "noted")
        # A line that holds the text (a model's may; the heuristic's lines name kinds of
        # fact, never the user's words), so the rendered-lines cache has it to forget.
        th.step({"records": [], "episode": f"The user said {canary}.", "relevance": []},
                start=1, end=8)
        rec = mem.remember(f"pinned: {canary}", pinned=True, thread_id="t")
        th.context(budget=900, new_message=f"what was {canary}?")  # the read cache keeps some
        view = mem.namespace("other")  # a view shares its memory's caches
        assert view.caches is mem.caches
        memo = mem.tokenizer._memo  # type: ignore[attr-defined]
        assert any(canary in k for k in memo)
        assert any(canary in k for k in mem.caches.scans)  # the pinned record was scanned
        assert mem.caches.memos()["reads"]
        if how == "record":
            for r in mem.records(limit=10_000):
                mem.forget(r.id)
            assert rec.id not in {r.id for r in mem.records()}
            mem.forget_thread("t")
        elif how == "thread":
            mem.forget_thread("t")
        else:
            mem.forget_namespace()
        assert not any(canary in k for k in memo)
        assert not mem.caches.memos()["reads"]
        # A module-level functools cache cannot be emptied per memory, so the library has none.
        # (memlane.eval, the offline evaluation harness, memoises its own question terms; it is
        # never on a memory's path.)
        functools_caches = [n for n, c in _process_caches() if n.endswith("(functools cache)")
                            and not n.startswith("memlane.eval.")]
        assert functools_caches == []
        holding = [n for n, c in _process_caches() if _holds(c, "zebra-4417-canary")]
        assert holding == []
