"""Corrections read by a class, in wording the rules were not written for, each with near-misses
it must refuse: a value said with any word for "now" ("these days", "nowadays") in place of a
held name the sentence names first; a thing moved by any verb to a named place, the thing said
("relocated our team to the Canary Wharf office"; never a visit, "popped into Costa"); a
routine's day moved, said with an auxiliary ("Yoga has moved to Wednesdays"). Pairs written
for these rules, none copied from a held-out set (`test_corrections_heldout.py`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memlane.step.clauses import clauses
from memlane.step.supersede import SUPERSEDES, decide, read_claim


def _verdicts(new: str, held: list[str]) -> list[tuple[str, str | None]]:
    facts = [c for h in held for c in clauses(h)]
    out = []
    for clause in clauses(new):
        said = read_claim(clause)
        if clause.strip() != new.strip():
            said = replace(said, context=new)
        d = decide(said, facts)
        out.append((d.verdict, facts[d.target] if d.target is not None else None))
    return out


@pytest.mark.parametrize(("held", "new"), [
    # "now" by other words
    (["My laptop is a Dell XPS."],
     "The Dell finally broke, so I'm using a Lenovo these days."),
    (["My kettle is a Breville."], "The Breville broke, so it's a Russell Hobbs nowadays."),
    # a thing moved by any verb to a named place
    (["I work at the Bolton depot."], "They've transferred my whole crew to the Wigan depot."),
    (["Our allotment is at the Parkway site."],
     "The council has moved our allotment to the Riverside site."),
    # a routine's day, said with an auxiliary
    (["I do pilates on Monday mornings."], "Pilates has moved to Tuesday mornings."),
    (["I go swimming on Fridays."], "Swimming has changed to Saturdays this term."),
])
def test_a_correction_in_other_words_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert (SUPERSEDES, held[0]) in verdicts, verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["My partner works at Greggs."], "My partner popped into Costa after work."),
    (["My kettle is a Breville."], "The toaster broke, so it's a Dualit nowadays."),
    (["My kettle is a Breville."], "My mum's kettle broke, so she's got a Russell Hobbs now."),
    (["I live in Leeds."], "I travelled to Paris for a wedding."),
    (["I work at the Bolton depot."], "I drove my brother to the Wigan depot on Sunday."),
    (["I do pilates on Monday mornings."], "The gym has moved to a new building."),
    (["My laptop is a Dell XPS."], "My son uses a Lenovo these days."),
    (["I do pilates on Monday mornings."], "My sister's pilates has moved to Tuesdays."),
])
def test_a_near_miss_in_other_words_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts
