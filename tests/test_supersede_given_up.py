"""An activity, a membership, a habit or a role given up (`endings._ended`, the vocabulary
`endings.GIVEN_UP` shared with `step/ended.py`): "dropped out of the ...", "done with ...",
"stepped down as ...", "retired from ...", "left the choir", "cancelled the gym membership",
"can't ... anymore" end the speaker's held fact that states every word of what ended; a
replacement said in the next sentence with its subject dropped ("Doing padel now.") is filed.
Near-misses it must refuse: a pause ("for the summer", "until after ..."), a task finished
("done with the ironing"), one session of a routine ("cancelled ... on Monday"), one way of doing
it ("stopped cycling with ..."), another person's, a maybe, a question, a night out ("left the
club"). Pairs written for this rule, none copied from a data set."""

from __future__ import annotations

import pytest

from memlane.step.heuristic import extract
from memlane.step.related import pick, related_query
from memlane.step.supersede import SUPERSEDES
from memlane.types import Message, Record
from supersede_verdicts import message_verdicts

GIVEN_UP = [
    # (held facts, the new message, the held fact it must end)
    (["I'm doing a pottery course at the Arts Centre on Wednesdays."],
     "I dropped out of the pottery course, the kiln was always broken.",
     "I'm doing a pottery course at the Arts Centre on Wednesdays."),
    (["I do the Bushy parkrun on Saturday mornings."],
     "I'm done with parkrun now, my ankles hate it.",
     "I do the Bushy parkrun on Saturday mornings."),
    (["I'm secretary of the Elm Road allotment society."],
     "I stepped down as secretary at the AGM, Harriet's doing it now.",
     "I'm secretary of the Elm Road allotment society."),
    (["I umpire cricket for the county league."],
     "I retired from umpiring last season.",
     "I umpire cricket for the county league."),
    (["I sing alto in the Holmfirth choir."], "I left the choir in the spring.",
     "I sing alto in the Holmfirth choir."),
    (["I'm in a walking club that meets at the Swan."],
     "I've left the walking club, too many hills.",
     "I'm in a walking club that meets at the Swan."),
    (["I go to the gym at Anytime Fitness."], "I cancelled the gym membership last month.",
     "I go to the gym at Anytime Fitness."),
    (["We're English Heritage members."], "We cancelled our English Heritage membership.",
     "We're English Heritage members."),
    (["I go jogging round the reservoir before work."],
     "I can't jog anymore since my knee op.",
     "I go jogging round the reservoir before work."),
    (["I go to a knitting circle at the library on Tuesdays."],
     "Not going to the knitting circle any more, it clashes with work.",
     "I go to a knitting circle at the library on Tuesdays."),
    (["I cycle with the Harrogate Wheelers on Sundays."],
     "I've stopped cycling with the Wheelers, I ride on my own now.",
     "I cycle with the Harrogate Wheelers on Sundays."),
]

REFUSED = [
    # (held facts, a new message that ends none of them)
    # a pause
    (["I sing in the church choir."], "I've stopped going to choir for the summer."),
    (["I go to a French class on Thursdays."],
     "I've stopped the French class until after the wedding."),
    (["I play netball on Mondays."], "I've quit netball for a few weeks while my wrist heals."),
    # a task finished, not a pastime given up
    (["I do the ironing on Sunday nights."], "I'm done with the ironing, time for bed."),
    (["I work the late shift at the warehouse."], "I'm done with my shift, I'm shattered."),
    (["I work at the garden centre."], "I'm done with work for the day."),
    # one session of the routine
    (["I do spin at the leisure centre on Fridays."],
     "Cancelled spin on Friday, the instructor was ill."),
    # one way of doing it
    (["I cycle with the Harrogate Wheelers on Sundays."],
     "I've stopped cycling with earbuds in, it's not safe."),
    # another person's, a maybe, a question
    (["I'm doing a degree at Salford."], "My flatmate dropped out of her course."),
    (["I'm treasurer of the bowls club."], "I might step down as treasurer next year."),
    (["I'm treasurer of the bowls club."], "Should I resign as treasurer?"),
    # the listener's, or another's said after the speaker
    (["I volunteer at the dog shelter on Mondays."],
     "It's lovely how much you care, even though you can't volunteer at the shelter anymore."),
    (["I sing in the Holmfirth choir."], "I heard she quit the choir."),
    # a night out, not a membership
    (["I'm in the Elm Road social club."], "I left the club at midnight."),
]


@pytest.mark.parametrize(("held", "new", "ended"), GIVEN_UP)
def test_a_pastime_membership_or_role_given_up_ends_the_held_fact(
        held: list[str], new: str, ended: str) -> None:
    verdicts = message_verdicts(new, held)
    assert (SUPERSEDES, ended) in verdicts, verdicts


@pytest.mark.parametrize(("held", "new"), REFUSED)
def test_a_pause_a_task_a_session_or_another_persons_ends_nothing(held: list[str],
                                                                  new: str) -> None:
    verdicts = message_verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def _ops(message: str, held: list[str]) -> list[dict[str, object]]:
    records = [Record(id=10 + i, namespace="n", text=t) for i, t in enumerate(held)]
    out = extract([Message(id=1, thread_id="t", role="user", content=message, ts=0.0, tokens=9,
                           seq=5)], records)
    return list(out["records"])


def test_the_replacement_said_with_its_subject_dropped_is_filed() -> None:
    ops = _ops("I've given up the squash, my back can't take it. Doing padel now.",
               ["I play squash at the Y on Tuesdays."])
    assert [op["id"] for op in ops if op["op"] == "update"] == [10]
    assert any(op["op"] == "add" and "padel" in str(op["text"]) for op in ops), ops
    # (asked, or watched, it is no news of the speaker's)
    for asked in ("Doing padel now?", "Watching padel now."):
        assert not any("padel" in str(op["text"]) for op in _ops(asked, [])), asked


def test_an_ending_with_no_subject_is_filed_as_the_update() -> None:
    ops = _ops("Not going to the knitting circle any more, it clashes with work.",
               ["I go to a knitting circle at the library on Tuesdays."])
    assert [op["id"] for op in ops if op["op"] == "update"] == [10]
    # (the same words with nothing of it held file nothing)
    assert _ops("Not going to the knitting circle any more, it clashes with work.",
                ["I work at the garden centre."]) == []


def test_an_activity_ended_finds_the_held_fact_spelt_with_a_doubled_letter() -> None:
    said = "I can't swim anymore, my shoulder's gone."
    pool = [Record(id=1, namespace="n", text="I go swimming at Tollcross on Sundays."),
            Record(id=2, namespace="n", text="I work at the garden centre.")]
    assert [r.id for r in pick([f"{said} {related_query([said])}"], pool)] == [1]
