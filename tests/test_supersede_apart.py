"""The last word on a supersede (`step/apart.py`): a statement a rule paired with a held fact
that still says nothing of its state now replaces nothing: the held value named wrong against
another thing ("I buy my bread at Greggs, not Warburtons" / "I work at Warburtons"), one past
occasion ("last time", a clock time yesterday), the listener's or another's, one shift ended.
The true corrections beside them still replace. Pairs written for this mechanism, none copied
from a corrections set."""

from __future__ import annotations

import pytest

from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [
    (["I work at Morrisons."], "Sorry, I actually work at Sainsbury's, not Morrisons."),
    (["I live in Hull."], "My bad, I live in Beverley, not Hull."),
    # a dose put up "last week" holds now ("to 50" is no clock time)
    (["I take 25 mg of amitriptyline at night."],
     "The GP's increased my amitriptyline, it went up to 50 mg last week."),
    (["Our ferry sails at 7:30."], "The ferry's been moved, it sails at 10:15 now."),
    (["I'm on the night shift at the hospital."], "They've switched me to the day shift now."),
    (["Spin class is on Mondays."], "Spin class has moved to Wednesdays for good."),
    (["My bus goes at 8:05."], "The timetable changed yesterday, my bus goes at 8:20 now."),
    (["Pilates is on Wednesdays."], "Sorry, pilates is on Fridays, not Wednesdays."),  # misstated
    (["I work at Morrisons."], "I work at Aldi instead of Morrisons now."),
    (["I'm in the Bristol office on Mondays."], "My office day is Thursday now, not Monday."),
    (["Our recycling goes out on Mondays."], "The council moved recycling to Fridays last week."),
]

NEAR_MISSES = [
    (["I work at Morrisons."], "Oops, I buy my bread at Sainsbury's, not Morrisons."),
    (["I live in Hull."], "Sorry, I meant the Beverley depot, not Hull."),
    (["I live in Durham."], "My mistake, I meant the Sunderland store, not Durham."),
    (["Our ferry sails at 7:30."], "The ferry sailed at 11 last time we went over."),
    (["My bus goes at 8:05."], "My bus came at 8:40 yesterday, the driver was off sick."),
    (["I'm on the night shift at the hospital."], "Finished my shift, heading to bed now."),
    (["I work at Primark."], "No, it was my sister who got the job at Next, not me."),
    (["I live in Crewe."], "You live in Nantwich, don't you?"),
    (["Spin class is on Mondays."], "Did your spin class move to Wednesdays in the end?"),
    (["Pilates is on Wednesdays."], "Sorry, it's still Wednesdays, not Fridays."),
    (["Our recycling goes out on Mondays."], "Recycling was picked up on Friday last week."),
    (["I live in Hull."], "Sorry, I'm visiting Beverley, not Hull."),
    (["I work at Morrisons."], "Aldi had offers on, so I shopped there instead of Morrisons."),
    (["Our ferry sails at 7:30."], "Our ferry back last summer sailed at 13:00."),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_a_true_correction_beside_them_replaces(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_statement_of_nothing_held_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts
