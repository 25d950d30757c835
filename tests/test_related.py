"""`Memory.related` stays bounded on a namespace whose records share common words, and still
finds what a stretch repeats or corrects (`Store.selective_query` and the term counts it
plans with, on both engines)."""

from __future__ import annotations

from typing import Any

import pytest

import memlane.memory as memory_mod
from memlane.memory import Memory
from memlane.text import fact_terms
from test_heuristic import CONVERSATION, REPLY


def test_term_counts_are_capped_per_term_in_order(store: Any) -> None:
    for i in range(6):
        store.add_record("a", f"Locker {i} is on floor {i % 2}.")
    store.add_record("b", "Locker code is 4417.")  # store-wide: other namespaces count too
    assert store.term_counts(["4417", "locker", "floor", "zebra"], 100) == [1, 7, 6, 0]
    assert store.term_counts(["locker", "4417"], 3) == [3, 1]
    assert store.term_counts([], 3) == []


def test_selective_query_keeps_the_rare_terms_past_the_bound(store: Any) -> None:
    for i in range(6):
        store.add_record("a", f"Locker {i} is on floor {i % 2}.")
    store.add_record("a", "Locker code is 4417.")
    # 7 records, within a bound of 100: the query as given
    assert store.selective_query("a", "locker 4417", 100) == "locker 4417"
    # past a bound of 3: "locker" (in 7 records) is common, "4417" (in 1) retrieves alone
    assert store.selective_query("a", "locker 4417", 3) == "4417"
    # every term common: kept whole (an empty plan is not a query)
    assert store.selective_query("a", "locker floor", 3) == "locker floor"


def test_related_searches_the_rarest_terms_past_the_bound(
        store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_mod, "RELATED_DOCS", 5)
    mem = Memory(store, "u")
    for i in range(12):
        mem.remember(f"The weekly plan {i} is about the garden.")
    target = mem.remember("The garden plan for Zanzibar is about mangoes.")
    asked: list[str] = []
    search = mem.search

    def spy(query: str, k: int = 5, **kw: Any) -> Any:
        asked.append(query)
        return search(query, k, **kw)

    monkeypatch.setattr(mem, "search", spy)
    t = mem.thread("t")
    t.add("user", "About the garden plan for Zanzibar: mangoes.")
    got = mem.related(t.messages())
    assert got and got[0].id == target.id
    # "garden" and "plan" are in 13 records, over the bound: only the rare terms retrieved
    assert asked and "garden" not in asked[-1].split() and "zanzibar" in asked[-1].split()
    monkeypatch.setattr(memory_mod, "RELATED_DOCS", 10**6)
    assert mem.related(t.messages())[0].id == target.id
    assert asked[-1] == "About the garden plan for Zanzibar: mangoes."  # every term: unplanned


def test_repeats_and_corrections_are_caught_in_a_large_namespace(
        store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The heuristic's one-copy-of-each-fact rule with the bound far below the namespace's size
    (filler records sharing the conversation's common words)."""
    monkeypatch.setattr(memory_mod, "RELATED_DOCS", 4)
    mem = Memory(store, "user-1")
    for i in range(20):
        mem.remember(f"My appointment {i} is about a new job on a day in May.")
    t = mem.thread("t")
    for text in CONVERSATION:
        t.add("user", text)
        t.add("assistant", REPLY)
        t.maybe_step()
    t.flush()
    texts = [r.text for r in mem.records(limit=1000)][20:]
    assert texts.count("I have a dentist appointment with Dr. Okafor on 12 May at 9:30.") == 1
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            ta, tb = fact_terms(a), fact_terms(b)
            assert len(ta & tb) / len(ta | tb) < 0.75, (a, b)
    jobs = [x for x in texts if "data analyst" in x]
    assert jobs == ["My new job as a data analyst moved to 1 October."]



def _said_then_corrected(mem: Memory, fact: str, correction: str) -> list[str]:
    """The current record texts after `fact` and, in a later stretch, `correction`."""
    t = mem.thread("t")
    for said in (fact, correction):
        t.add("user", said)
        t.add("assistant", REPLY)
        t.flush()
    return [r.text for r in mem.records(limit=100)]


def _among_others(store: Any) -> Memory:
    """A namespace holding 30 other records for the search to choose among."""
    mem = Memory(store, "user-1")
    for i in range(30):
        mem.remember(f"Filler fact number {i} about the garden shed and the hedge.")
    return mem


# (held, the correction in a later stretch, a word of the held value, a word of the new one):
# the correction shares no word with the held fact, so the step is shown it only when the
# hint words are searched for too.
ACROSS_STRETCHES = [
    # a brand's family words ("We switched over to Hyperoptic" / "Our broadband is with ...")
    ("Our broadband is with Virgin Media.",
     "We switched over to Hyperoptic in March, much faster.", "Virgin Media", "Hyperoptic"),
    # a dose with no drug named: the usual strengths of the unit ("25mcg" is one term)
    ("I take 75mcg of levothyroxine every morning.",
     "My bloods came back low, so the GP has bumped me up to 100mcg.", "75mcg", "100mcg"),
    # a trip's usual words ("heading out on the 21st instead" / "flying out to Crete ...")
    ("We're flying out to Menorca on the 9th of August.",
     "The airline cancelled our flight, so we're heading out on the 16th instead.",
     "9th of August", "16th"),
    # a weight's units ("weighed" is no "weigh")
    ("I'm currently 101 kilos and trying to get under 90.",
     "Weighed in at 95 this morning, the diet is working.", "101", "95"),
    # the start time, replaced in a later stretch among other records
    ("I start work at seven each morning.",
     "They've changed the rota again, I don't clock on till ten now.", "seven", "ten now"),
    # a pastime's kind words (`step/pastimes.py`: "viola" is an instrument, one "plays" it)
    ("I play the cello in a string quartet.",
     "I've swapped to viola, it suits my hands better.", "cello", "viola"),
    ("I'm learning Spanish with an app every evening.",
     "I switched to Mandarin instead, for the new job.", "Spanish", "Mandarin"),
    # a residence said by its place alone ("I'm in Southampton": no word of it is searched
    # for; the newest records are read for a held residence, `step/places.py`)
    ("I'm in Southampton, right by the water.",
     "We've moved up to Sheffield for my wife's job.", "Southampton", "Sheffield"),
    ("We're a Bristol family, born and bred.", "We relocated to Cardiff in the spring.",
     "Bristol", "Cardiff"),
    # a kind of thing named by its member or its title alone (`step/marks.py`: the newest
    # records are read for a held phone, car, bank ... or job)
    ("I use a Honor X6, nothing fancy.",
     "My phone's a Nokia G42 these days, the old one's screen went.", "Honor", "Nokia"),
    ("I'm a dental nurse at a practice in town.",
     "I work as a veterinary receptionist now, much happier.", "dental nurse", "veterinary"),
]


@pytest.mark.parametrize(("held", "correction", "old", "new"), ACROSS_STRETCHES)
def test_a_correction_sharing_no_word_finds_the_fact_it_changes(
        store: Any, held: str, correction: str, old: str, new: str) -> None:
    """Among 30 other records, in a later stretch: the held fact is shown to the step and the
    rule replaces it (before each hint, both stayed current)."""
    texts = _said_then_corrected(_among_others(store), held, correction)
    assert not any(old in x for x in texts), texts
    assert any(new in x for x in texts), texts


@pytest.mark.parametrize("later", [
    "I'm in Rome for the weekend, the food is unreal.",
    "My brother moved to Hull last month.",
    "We might move to York next year if the job comes through.",
    "We've also got a little flat in Edinburgh now.",
])
def test_a_stay_or_anothers_move_leaves_the_held_residence(store: Any, later: str) -> None:
    """The held residence is shown to the step (the scan) and stays current."""
    texts = _said_then_corrected(_among_others(store), "I'm in Southampton, by the water.", later)
    assert "I'm in Southampton, by the water." in texts, texts


@pytest.mark.parametrize(("held", "later"), [
    ("I use a Honor X6, nothing fancy.", "My brother's just got a Nokia G42, he loves it."),
    ("I use a Honor X6, nothing fancy.", "I've also got a Nokia G42 for work calls now."),
    ("I'm a dental nurse at a practice in town.",
     "My flatmate works as a veterinary receptionist now."),
    ("I'm a dental nurse at a practice in town.",
     "Would I make a decent veterinary receptionist, do you think?"),
])
def test_a_thing_of_the_kind_that_is_not_the_held_ones_change(
        store: Any, held: str, later: str) -> None:
    """The held phone or job is shown to the step (`step/marks.py`) and stays current when the
    new statement is someone else's, a second one or a question."""
    assert held in _said_then_corrected(_among_others(store), held, later)


def test_the_newest_records_first(store: Any) -> None:
    """`Store.records(newest=True)`: the page counted from the newest, on both engines."""
    ids = [store.add_record("a", f"Fact {i}.").id for i in range(5)]
    store.add_record("b", "Another namespace's fact.")
    assert [r.id for r in store.records("a", limit=3, newest=True)] == ids[:1:-1]
    assert [r.id for r in store.records("a", limit=3)] == ids[:3]


def test_every_member_of_a_family_is_searched_for(store: Any) -> None:
    """A diet the hint words did not name ("paleo") was never shown to the step when the
    user switched to another: the family's hints hold each member's word."""
    mem = Memory(store, "user-1")
    texts = _said_then_corrected(mem, "I'm doing paleo at the moment.",
                                 "I've switched over to intermittent fasting these days.")
    assert not any("paleo" in x for x in texts), texts
    assert any("intermittent fasting" in x for x in texts), texts


def test_another_namespace_filling_the_store_hides_no_held_fact(store: Any) -> None:
    """The hint words are searched a few at a time: a bounded search keeps a query's rarest
    terms by their counts in the whole store, so when another namespace said "phone" often and
    the hint query's other words rarely, one long query left out "phone" and the step was never
    shown this namespace's held phone (two current phones)."""
    other = Memory(store, "other-tenant")
    for i in range(40):
        other.remember(f"Phone note {i}: call the phone company about the phone bill.")
    for w in ("accounts engineering finance hr legal marketing operations sales support "
              "number").split():
        other.remember(f"The {w} team meets on Mondays.")
    texts = _said_then_corrected(Memory(store, "user-1"),
                                 "My phone's a Samsung Galaxy A52, it does the job.",
                                 "Finally caved and bought an iPhone 15 in the January sales.")
    assert not any("Samsung" in x for x in texts), texts
    assert any("iPhone 15" in x for x in texts), texts
