"""Corrections in everyday wording read by mechanism, with the near-misses each must refuse: a
number said as a word ("three days a week" / "four days a week"); a job ended by naming its
workplace ("handed in my notice at the practice"); a product replaced, the held one named as
gone; a person in a role replaced by another at the same place; an event entered "instead"; a
bedtime said as staying up; a holder after "Can't believe"; a correction sharing no word with
what it corrects ("I'm 41" / "I turned 42", a promotion). Near-misses: a service used over a
held provider, an hourly rate beside a salary, a second person of one relation, a one-off.
Pairs written for these rules, none copied from a held-out set (`test_corrections_heldout.py`)."""

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
    (["I volunteer two days a week at the food bank."],
     "I'm doing three days a week at the food bank now."),
    (["I go to the office two days a week."], "I'm going to the office three days a week now."),
    (["I'm a receptionist at a dental practice."],
     "I handed in my notice at the practice, I'm training as a plumber now."),
    (["I'm a chef at a hotel in Bath."],
     "I jacked in the hotel job, I'm driving for a delivery firm now."),
    (["My watch is a Garmin Forerunner."],
     "Lost the Garmin on a hike, so I wear an Apple Watch now."),
    (["My hairdresser is a lad called Josh at Snips."],
     "Josh moved to a salon in town, so Kerry does my hair at Snips now."),
    (["I'm entered in the sprint triathlon in July."],
     "I'm doing the olympic triathlon in August instead."),
    (["Our toddler is in bed by 6:30."], "Our toddler stays up until 7:30 now."),
    (["My nephew is 9."], "Can't believe my nephew is 10 already, he had a party at the bowling alley."),
    (["I'm an assistant manager."], "I got promoted to branch manager in the spring."),
])
def test_an_everyday_correction_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert (SUPERSEDES, held[0]) in verdicts, verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["Our broadband is with BT."], "I watch Netflix over the broadband now."),
    (["My salary is £32,000 a year."], "They pay £25 an hour for weekend shifts now."),
    (["Sam is my brother."], "Joe is my brother."),
    (["My phone is a Samsung Galaxy."], "My daughter dropped her iPhone, so she's on a Pixel now."),
    (["My physio is Tom at Riverside."],
     "Tom was off last week, so I saw Aisha at Riverside just the once."),
    (["My son goes to bed at 7."], "My son stayed up till 9 on Saturday for the fireworks."),
])
def test_an_everyday_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts
