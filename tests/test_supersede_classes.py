"""Corrections of the classes the fresh sets missed, read by mechanism, with the near-misses
each must refuse: two predicates of one subject are two records; "no more X-ing" ends a held
fact; shift words; a value named first ("Sky is my broadband now"); a pronoun after someone
named in the clause before; plain words of one scale (alto/soprano, basic/Premium). Pairs
written for these rules, none copied from a held-out set (`test_corrections_heldout.py`)."""

from __future__ import annotations

import pytest

from memlane.step.clauses import clauses
from memlane.step.heuristic import is_fact
from memlane.step.supersede import SUPERSEDES, decide


def _held(*said: str) -> list[str]:
    return [c for s in said for c in clauses(s)]


def _verdicts(new: str, held: list[str]) -> list[tuple[str, str | None]]:
    out = []
    for c in clauses(new):
        d = decide(c, held)
        out.append((d.verdict, held[d.target] if d.target is not None else None))
    return out


@pytest.mark.parametrize(("sentence", "parts"), [
    ("My niece Poppy is 9 and goes to Brownies on Tuesdays.",
     ["My niece Poppy is 9.", "My niece Poppy goes to Brownies on Tuesdays."]),
    ("I live in Hull and work for the NHS.", ["I live in Hull.", "I work for the NHS."]),
    ("Priya teaches piano and lives in Ealing.",
     ["Priya teaches piano.", "Priya lives in Ealing."]),
    # one fact: a list of objects, a sequence, a change the second half gives
    ("I like tea and coffee.", ["I like tea and coffee."]),
    ("My son loves trains and buses.", ["My son loves trains and buses."]),
    ("We went to the beach and then had chips.", ["We went to the beach and then had chips."]),
    ("Maya quit netball and plays hockey now.", ["Maya quit netball and plays hockey now."]),
    # a value named first, as a change, is said as its thing's
    ("Sky is my broadband now, it's cheaper.", ["My broadband is Sky now."]),
    ("Priya is my manager now.", ["Priya is my manager now."]),
    ("Running is my passion.", ["Running is my passion."]),
    # the pronoun after someone named in the clause before
    ("The groomer said Biscuit is too heavy, so he's on Wainwrights food now.",
     ["The groomer said Biscuit is too heavy.", "Biscuit is on Wainwrights food now."]),
])
def test_clauses(sentence: str, parts: list[str]) -> None:
    assert clauses(sentence) == parts


@pytest.mark.parametrize(("held", "new", "target"), [
    # A: one of two facts of one sentence changes; the other stays
    (["My nephew Sami lives in Wigan and plays for the county."],
     "Sami's moved down to Warrington.", "My nephew Sami lives in Wigan."),
    # B: an ending said after the new fact
    (["I drive to the depot."], "I got a season ticket, so no more driving to the depot.",
     "I drive to the depot."),
    # C: shift words, whoever put the speaker on them
    (["I work nights at the bakery."], "They've put me on lates now.",
     "I work nights at the bakery."),
    # D: a value named first
    (["My broadband is BT."], "Sky is my broadband now.", "My broadband is BT."),
    # E: a pet's food, by a pronoun after its name
    (["Our dog Biscuit eats Harringtons kibble."],
     "The groomer said Biscuit is too heavy, so he's on Wainwrights food now.",
     "Our dog Biscuit eats Harringtons kibble."),
    # F: plain words of one scale
    (["I sing tenor in the church choir."], "The choir moved me down to bass.",
     "I sing tenor in the church choir."),
    (["I work in accounts at the depot."], "I got transferred to engineering.",
     "I work in accounts at the depot."),
    # an ending by a name: "let ... lapse"
    (["I'm a member of the Caravan Club."],
     "I let the Caravan Club membership lapse and joined the AA instead.",
     "I'm a member of the Caravan Club."),
    (["I'm in the beginners group at the climbing wall."],
     "The coach moved me up to the intermediate group at the climbing wall.",
     "I'm in the beginners group at the climbing wall."),
])
def test_corrections_by_class(held: list[str], new: str, target: str) -> None:
    facts = _held(*held)
    assert (SUPERSEDES, target) in _verdicts(new, facts)


@pytest.mark.parametrize(("held", "new"), [
    (["My nephew Sami lives in Wigan and plays for the county."],
     "His friend Joe lives in Bolton."),
    (["I drive to the depot."], "The pool closed, so no more swimming on Fridays."),
    (["I work nights at the bakery."], "My husband's been put on lates."),
    (["My broadband is BT."], "Sky is my favourite channel now."),
    (["Our dog Biscuit eats Harringtons kibble."],
     "Our neighbour's cat Tilly is on Whiskas food now."),
    (["I sing tenor in the church choir."], "My brother sings bass in a barbershop group."),
    (["I sing tenor in the church choir."], "I might move down to bass next year."),
    (["I'm on the basic Netflix plan."], "My sister upgraded her Netflix to Premium."),
    (["I pay my gym fees monthly."], "I pay my car insurance yearly now."),
    (["I work in accounts at the depot."], "My brother got transferred to engineering."),
    (["I'm a member of the Caravan Club."], "I let my library books lapse."),
    # once, not a new routine
    (["Our recycling goes out on Monday mornings."],
     "With the strike the recycling went out on Friday this week."),
])
def test_near_misses_replace_nothing(held: list[str], new: str) -> None:
    facts = _held(*held)
    assert all(v != SUPERSEDES for v, _ in _verdicts(new, facts)), _verdicts(new, facts)


@pytest.mark.parametrize(("sentence", "fact"), [
    ("They've put me on earlies from next week.", True),
    ("Biscuit is on Wainwrights food now.", True),
    ("They put me on hold for an hour.", False),
])
def test_filed(sentence: str, fact: bool) -> None:
    assert is_fact(sentence) is fact
