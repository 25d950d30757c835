"""A medicine in place of another (`step/medicines.py`): a person takes several at once, so a
new medicine replaces the one held only when the sentence says it is in its place; medicines
are read by name or by the stem their international name is built on. Pairs and near-misses
written for the mechanism."""

from __future__ import annotations

import pytest

from memlane.step import medicines
from memlane.step.supersede import RELATED, SUPERSEDES, decide, read_claim

PAIRS = [
    (["My mum takes bisoprolol for her heart."],
     "Mum's cardiologist has moved her onto nebivolol instead, she was too tired."),
    (["I take 20mg of citalopram."],
     "The GP switched me to sertraline, the citalopram wasn't working."),
    (["I'm on lansoprazole for reflux."],
     "They've put me on famotidine since the old tablets gave me headaches."),
    (["My husband takes losartan."],
     "My husband's consultant took him off losartan, he's on ramipril now."),
]
NEAR_MISSES = [
    (["I take amlodipine."], "The GP has added ramipril as well."),
    (["I take amlodipine."], "I also take omeprazole now."),
    (["I take ramipril."], "Might switch to losartan instead, we'll see."),
    (["I take amlodipine."], "My mum is on ramipril instead now."),
    (["I take loratadine."], "I had cetirizine today instead because I ran out."),
    (["I take amlodipine."], "Is ramipril any better instead?"),
    (["I take amlodipine."], "On top of the amlodipine I'm on atorvastatin now."),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_a_medicine_in_place_of_the_held_one_supersedes(held: list[str], new: str) -> None:
    d = decide(new, held)
    assert (d.verdict, d.target) == (SUPERSEDES, 0), d.reasons


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_medicine_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    assert decide(new, held).verdict != SUPERSEDES


def test_two_held_medicines_are_kept_linked() -> None:
    held = [read_claim("I take simvastatin."), read_claim("I take amlodipine.")]
    new = read_claim("I take atorvastatin instead now.")
    assert medicines.in_place(new, new.holder, held) is not None
    assert medicines.in_place(new, new.holder, held)[0] == RELATED  # type: ignore[index]


def test_medicines_by_stem() -> None:
    assert medicines.medicines("on perindopril and candesartan, not aspirin") == \
        {"perindopril", "candesartan"}
    assert not medicines.medicines("the spine and the airline, a sardine")
