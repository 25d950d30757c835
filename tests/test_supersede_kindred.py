"""One thing by another word, a thing moved by an outside doer, a service by its time, a
person in a role and a helper named by role (`step/kindred.py`, read by `step/anchored.py`):
"My morning service is now the 8:05" replaces "My train into work is the 7:42", "The club moved
netball training to Tuesdays" a child's netball practice, "I catch the 8:05 instead" the held
7:40 train, "I've swapped races, I'm doing Berlin instead" the held marathon, "My daughter's
teacher is now Mr Obi" "My daughter is in Year 3 with Miss Hughes", "Bogdana can only do
Mondays from now on" "Our cleaner, Bogdana, comes on Thursdays". Never another person's
routine, the speaker's own ("moved my training"), a one-off, a question, a race entered beside
the held one, a film's showing, the helper's own pastime, or a teacher of another kind or
person. Pairs written for these mechanisms, none copied from a corrections set."""

from __future__ import annotations

import pytest

from memlane.step import kindred
from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [
    (["My daughter's hockey practice is on Monday evenings."],
     "The club moved hockey training to Thursday evenings."),
    (["My son's rugby training is on Saturday mornings."],
     "The coach shifted rugby practice to Sunday mornings."),
    (["My kids' judo lessons are on Tuesdays."], "The dojo changed the judo class to Fridays."),
    (["My train to the office is the 8:12."], "My usual service is the 7:58 these days."),
    (["I take the 6:30 ferry over to the island for work."], "I'm getting the 6:10 sailing now."),
    (["I'm running the Leeds marathon in May."],
     "I've switched races, I'm doing the York one instead."),
    (["Our cleaner, Dagmar, comes on Tuesdays."], "Dagmar can only do Fridays from now on."),
    (["Our gardener, Teodor, comes on Mondays."], "Teodor's had to switch us to Thursdays."),
    (["I take the 7:12 train home."], "The train I get back is the 7:40 these days."),
    (["I get the 6:52 bus most mornings."], "The roadworks are endless, I take the 7:20 instead."),
    (["My son is in Year 5 with Mr Dlamini."], "My son's teacher is now Mrs Kowalczyk."),
    (["My cello lessons are with Mrs Ferreira on Mondays."],
     "I've changed teachers, I'm learning with a woman called Anouk now."),
    (["Our daughter's maths tutor is Mr Halloran."],
     "The agency swapped our daughter's maths tutor, it's Ms Quist now."),
]

NEAR_MISSES = [
    (["My son's rugby training is on Saturday mornings."],
     "The coach moved my training to Sunday mornings."),  # the speaker's own
    (["My son's rugby training is on Saturdays."], "My nephew's rugby practice is on Sundays."),
    (["My son's rugby training is on Saturdays."],
     "Has the club moved rugby practice to Sundays?"),
    (["My son's swimming lessons are on Mondays."], "The pool moved her lessons to Fridays."),
    (["My boss plays golf on Fridays."], "The club moved golf to Saturdays."),
    (["My pilates class is on Mondays."],
     "The instructor moved this week's class to Tuesday for the bank holiday."),
    (["I did the London marathon last year."], "I've entered the Berlin marathon now."),
    (["I'm running the Leeds marathon in May."], "I've also entered the Hull 10k in June."),
    (["Our cleaner, Dagmar, comes on Tuesdays."], "Dagmar has started doing yoga on Mondays now."),
    (["Our cleaner, Dagmar, comes on Fridays."], "Dagmar is coming on Thursday this week instead."),
    (["Our gardener, Teodor, does Mondays."], "Teodor's had to switch his yoga to Thursdays."),
    (["I take the 7:12 train home."], "The meeting is the 7:40 slot now."),
    (["My train to the office is the 8:12."], "My husband's usual service is the 7:58."),
    (["I get the 6:52 bus most mornings."], "We're booked on the 7:20 showing instead."),
    (["I get the 6:52 bus most mornings."], "I took the 7:20 today instead, I overslept."),
    (["I get the 6:52 bus most mornings."], "My flatmate gets the 7:20 now."),
    (["My cello teacher is Mrs Ferreira."], "My brother's cello teacher is Mr Aziz now."),
    (["My cello teacher is Mrs Ferreira."], "My new teacher at the wall, Mr Aziz, is great."),
    (["My cello teacher is Mrs Ferreira."], "Had lunch with my old teacher Mr Aziz now and then."),
    (["My cello teacher is Mrs Ferreira."], "I might switch teachers to Mr Aziz."),
    (["My son's tutor is Mr Halloran."], "My daughter's tutor is Ms Quist now."),
    (["My son does judo with Mr Halloran."], "My son's teacher is now Ms Quist."),  # another role
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_the_same_thing_by_another_word_or_doer_replaces_the_held_one(held: list[str],
                                                                       new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_kindred_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def test_the_doer_is_cut_from_what_was_moved() -> None:
    assert kindred.moved_by_other("The pool changed the class to Thursdays.") == \
        "the class to Thursdays."
    assert kindred.moved_by_other("The bakery moved to Pine Street.") is None  # its own move
    assert kindred.moved_by_other("The coach moved my training to Fridays.") is None
    assert kindred.moved_by_other("I moved the class to Thursdays.") is None
    assert kindred.same_thing("training") == kindred.same_thing("lessons") == "practice"
    assert kindred.same_thing("train") != kindred.same_thing("training")
