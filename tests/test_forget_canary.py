"""The forget test that cannot be fooled: a one-token canary (letters only, so no word pattern of
`memlane.text` splits it into harmless pieces) said by the user, echoed by the assistant, filed
as a record with a history, written into a buffer line and read through every read path; then
forgotten (a record, a thread, a namespace). Afterwards it is in no module of memlane, in nothing
the `Memory` holds (caches, store, tokenizer), in no stored row or export, and, after the
post-forget cleanup (`compact`), in no byte of the database files, on both engines."""

from __future__ import annotations

import functools
import re
import sys
from collections import deque
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

import pytest

from memlane import text
from memlane.memory import Memory

CANARY = "Zqvorblax"
KEPT = "The user keeps bees in the garden."


def _plant(mem: Memory, canary: str, thread: str = "t") -> tuple[int, int]:
    """The canary in a user message, the assistant's echo, a record (updated: a history row),
    a buffer line, and the read paths' caches. Returns (canary record id, kept record id)."""
    t = mem.thread(thread)
    t.add("user", f"My new kitten is called {canary}, she is tiny.")
    t.add("assistant", f"{canary} sounds adorable! How old is she?")
    t.add("user", "Ten weeks. I also keep bees in the garden.")
    t.add("assistant", "A kitten and bees, a busy garden.")
    res = t.step({"records": [
        {"op": "add", "text": f"The user's kitten is called {canary}.", "source": [1]},
        {"op": "add", "text": KEPT, "source": [3]}],
        "episode": f"The user named their kitten {canary}; they keep bees.", "relevance": []},
        start=1, end=4)
    assert res is not None and len(res.added) == 2
    rid, kept = res.added
    mem.update(rid, f"The user's kitten is called {canary}, a ten-week-old tabby.")
    for _ in range(2):  # cold, then warm: every read memo has it
        t.context(budget=2000, new_message=f"What should {canary} eat?")
        assert mem.search(canary.lower())
    return rid, kept


def _holds(obj: object, needle: str, depth: int, seen: set[int]) -> bool:
    """Whether a string (or bytes) holding `needle` (any case) is reachable from `obj` through
    containers, objects' attributes, functions' defaults and closures, and context variables."""
    if isinstance(obj, str):
        return needle in obj.lower()
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return needle.encode() in bytes(obj).lower()
    if depth > 10 or id(obj) in seen or obj is None or isinstance(obj, (int, float, ModuleType)):
        return False
    seen.add(id(obj))

    def walk(items: Iterator[object] | list[object]) -> bool:
        return any(_holds(x, needle, depth + 1, seen) for x in items)

    if isinstance(obj, ContextVar):
        return walk([obj.get(None)])
    if isinstance(obj, Mapping):
        try:
            return walk([x for kv in list(obj.items()) for x in kv])
        except Exception:  # a mapping that cannot be listed (a proxy of a closed resource)
            return False
    if isinstance(obj, (list, tuple, set, frozenset, deque)):
        return walk(list(obj))
    if isinstance(obj, type):  # a class's own attributes (a class-level memo), memlane's only
        return obj.__module__.startswith("memlane") and walk(
            [v for k, v in vars(obj).items() if k != "__doc__"])
    if isinstance(obj, FunctionType):
        cells = [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
        return walk([obj.__defaults__, obj.__kwdefaults__, *cells])
    found = [getattr(obj, "__dict__", None)]
    found += [getattr(obj, s, None) for c in type(obj).__mro__ for s in getattr(c, "__slots__", ())
              if isinstance(s, str)]
    return walk(found)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _holders(mem: Memory, needle: str) -> list[str]:
    """Where in the process `needle` still is: every memlane module's globals, the Memory with
    all it holds, and the regular-expression cache (a pattern compiled from a user's word)."""
    needle = needle.lower()
    out: list[str] = []
    seen: set[int] = set()
    for name, module in sorted(sys.modules.items()):
        if name == "memlane" or name.startswith("memlane."):
            for attr, value in list(vars(module).items()):
                if attr != "__doc__" and _holds(value, needle, 0, seen):  # docs name examples
                    out.append(f"{name}.{attr}")
                # memlane's own functools caches (a stdlib function imported by name, urlsplit,
                # has one memlane does not fill with user text); the offline evaluation's aside.
                if (isinstance(value, functools._lru_cache_wrapper)  # type: ignore[attr-defined]
                        and str(getattr(value, "__module__", "")).startswith("memlane")
                        and value.cache_info().currsize and not name.startswith("memlane.eval")):
                    out.append(f"{name}.{attr} (a functools cache: its keys cannot be read)")
    for attr, value in vars(mem).items():
        if _holds(value, needle, 0, set()):
            out.append(f"Memory.{attr}")
    if _holds(re._cache, needle, 0, set()):  # type: ignore[attr-defined]
        out.append("re._cache")
    return out


def _rows(mem: Memory) -> str:
    """Every stored text of the namespace, through the export (messages of every role, records
    with their histories, buffer lines, snapshots)."""
    return repr(mem.export()).lower()


def _db_bytes(store: Any, url: str) -> tuple[str, bytes]:
    """The engine's files: the SQLite file and its WAL, or the PostgreSQL database's folder
    (tables, indexes, TOAST and the catalogs, `pg_statistic` among them) after a checkpoint."""
    from memlane.store.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        files = [p for p in Path(store.path).parent.iterdir()
                 if p.name.startswith(Path(store.path).name)]
        return "sqlite", b"".join(p.read_bytes() for p in files)
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        row = c.execute("SELECT current_setting('data_directory'), d.oid FROM pg_database d"
                        " WHERE d.datname = current_database()").fetchone()
        assert row is not None
        c.execute("CHECKPOINT")
    folder = Path(row[0]) / "base" / str(row[1])
    try:
        return "postgres", b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())
    except PermissionError:
        pytest.skip("the PostgreSQL data folder is not readable by the tests")


def _pg_stats_hold(url: str, needle: str) -> bool:
    """Whether the planner's statistics (sampled column values, a tsvector's common lexemes) of
    any table hold `needle`."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        rows = c.execute("SELECT tablename, attname FROM pg_stats WHERE schemaname = 'public'"
                         " AND (lower(most_common_vals::text) LIKE %(n)s"
                         " OR lower(histogram_bounds::text) LIKE %(n)s"
                         " OR lower(most_common_elems::text) LIKE %(n)s)",
                         {"n": f"%{needle.lower()}%"}).fetchall()
    return bool(rows)


def test_the_canary_is_one_token_of_every_word_pattern() -> None:
    for pattern in (text.FACT_WORD, text.SEARCH_TOKEN, text.CODE_WORD, text.LETTER_WORD,
                    text.TYPED_WORD):
        assert pattern.findall(f"called {CANARY}, she")[1:2] == [CANARY], pattern
    assert CANARY.lower() in text.fact_terms(f"called {CANARY}")
    assert CANARY.lower() in text.terms(f"called {CANARY}")


@pytest.mark.parametrize("how", ["record", "thread", "namespace"])
def test_a_forgotten_canary_is_nowhere(store: Any, store_kind: str, how: str,
                                       request: pytest.FixtureRequest) -> None:
    pg = store_kind == "postgres"
    url = request.getfixturevalue("pg_url") if pg else ""
    mem = Memory(store, "victim")
    keeper = mem.namespace("keeper")
    keeper.thread("k").add("user", "I keep a kitten and bees too, and my dog is called Rufus.")
    keeper.remember("The keeper's dog is called Rufus.")
    rid, kept = _plant(mem, CANARY)
    # The checks can fail: before the forget, the canary is everywhere they look.
    assert CANARY.lower() in _rows(mem)
    assert "Memory.caches" in _holders(mem, CANARY)
    mem.compact()
    assert CANARY.lower().encode() in _db_bytes(store, url)[1].lower()
    if pg:
        import psycopg

        with psycopg.connect(url, autocommit=True) as c:
            c.execute("ANALYZE")
        assert _pg_stats_hold(url, CANARY)

    if how == "record":
        assert mem.forget_record(rid).found
    elif how == "thread":
        mem.forget_thread("t")
    else:
        mem.forget_namespace()

    holders = _holders(mem, CANARY)
    assert holders == [], holders
    assert CANARY.lower() not in _rows(mem)
    assert mem.search(CANARY.lower()) == []
    if pg:
        assert not _pg_stats_hold(url, CANARY)  # refreshed by the forget itself
    mem.compact()  # the post-forget cleanup (`forget_to_disk`, the server's compaction)
    engine, data = _db_bytes(store, url)
    left = CANARY.lower().encode() in data.lower()
    assert not left, f"the canary is in the {engine} files"
    # Nothing else went: the other namespace, and (forgetting one record) the other fact.
    assert [r.text for r in keeper.records()] == ["The keeper's dog is called Rufus."]
    assert b"rufus" in data.lower()
    if how == "record":
        assert [r.id for r in mem.records()] == [kept]
        said = " ".join(m.content for m in mem.thread("t").messages())
        assert "bees in the garden" in said and "Ten weeks" in said
        assert "bees" in mem.thread("t").episodes()[0].line
