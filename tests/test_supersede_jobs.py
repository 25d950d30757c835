"""What someone does, and the football club they follow, read the way people say it: a job
title by the packaged lexicon of titles (`step/occupations.py`: "a paralegal", "a dinner
lady", "a product owner"), not only by its ending; a job said as a role taken ("moved into a
product owner role", "took a job as a receptionist"), as qualified into ("so I'm a solicitor
now") or as ended by retiring ("she's retired from the library now": its value is
"retired"); the club one supports by its name or nickname ("supports Spurs", "a Toffees fan",
"gone over to Hibs", a season ticket). Near-misses keep both facts: a flat moved into, a role
or a retirement of another holder, a thing retired, a hobby noun ("a keen runner", "a season
ticket holder"), a match seen, another holder's club, a maybe, an addition. Pairs written for
the readings (none from a data file); the supersede rule alone, as the writer files a message
(`supersede_verdicts.message_verdicts`)."""

from __future__ import annotations

import pytest

from memlane.step.occupations import trade
from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts

CORRECTIONS = [  # (held, new, the held fact replaced)
    # a title the lexicon holds, not told by its ending
    (["I'm a paralegal at a small firm in town."],
     "Qualified last month, so I'm a solicitor now, same firm.", 0),
    (["I'm an actuary at an insurer in Norwich."],
     "I'm a data scientist now, left the insurer in March.", 0),
    (["My nan is a dinner lady at the primary school."], "My nan's a lollipop lady now.", 0),
    (["My brother Kwame is a cashier at Asda."],
     "Kwame's a temp at the council now, he loves it.", 0),
    # a role taken, by its title (not a home moved into)
    (["My colleague Nadia is a UX designer."],
     "She's moved into a product owner role, about time too.", 0),
    (["I'm a business analyst at a bank in Leeds."],
     "I've moved into a product owner role, same bank.", 0),
    (["I'm a teaching assistant at the village school."],
     "I took a job as a receptionist at the health centre.", 0),
    # retired: the held job (or employer) of that holder ends, "retired" its value
    (["My mum is a librarian."],
     "She's retired from the library now and volunteers at the hospice instead.", 0),
    (["My uncle Femi is a GP in Croydon."], "Femi's retired now.", 0),
    (["My dad is a postman."], "Dad's retired now and spends every day at the allotment.", 0),
    (["My dad works at the Nissan plant."], "My dad retired from Nissan in June.", 0),
    # the football club one supports: one a person, by its name or nickname
    (["My daughter supports Spurs."],
     "She's gone over to Chelsea because of her new best friend.", 0),
    (["I'm a Toffees fan, have been since I was a kid."], "I'm a Liverpool fan these days.", 0),
    (["My husband supports West Brom."],
     "My husband's a Wolves fan now, if you can believe it.", 0),
    (["I support the Gunners."], "I'm a Spurs fan these days, long story.", 0),
    (["My son follows Celtic."], "My son has switched to Rangers, of all teams.", 0),
    (["I support Villa."], "I'm a Birmingham City fan these days, don't tell my brother.", 0),
    # the job reading leaves an age alone ("a proper teenager" is no job)
    (["My daughter Evie is 12."], "Evie's 13 now, a proper teenager.", 0),
]

NEAR_MISSES = [  # (held, new): nothing replaced
    (["I'm a product designer at a fintech."],
     "We've moved into a new flat near the canal, finally some space."),
    (["My mum is a librarian."], "My dad retired from the council last month."),
    (["My dad is a bus driver."],
     "Dad's best mate retired in June and keeps dragging him to the golf club."),
    (["I'm a mechanic at a garage in Hull."], "I retired my old van last month."),
    (["I'm a staff nurse on the cardiac ward."], "I'm a keen runner these days."),
    (["I'm a staff nurse on the cardiac ward."], "I'm a season ticket holder at Villa now."),
    (["I'm a paralegal at a firm in Leeds."], "My sister's just qualified as a solicitor."),
    (["I'm a sous chef at a hotel."], "I'm thinking about retraining as a plumber next year."),
    (["My friend Priya is a graphic designer."],
     "Her boyfriend has moved into a project manager role at the bank."),
    (["I'm a pharmacist at Boots."],
     "I've been offered a locum pharmacist role in Bristol but haven't decided."),
    (["I'm a dental nurse."], "I was a waitress for years before that."),
    (["My son supports Arsenal."], "My son went to see Chelsea with his mates on Saturday."),
    (["I support Leeds United."], "My husband's a Sheffield Wednesday fan."),
    (["I support Leeds United."], "We moved to Brighton last year."),
    (["I support Celtic."], "I also have a soft spot for Hibs."),
    (["My brother follows Aston Villa."], "My brother's girlfriend follows Everton."),
    (["I'm a Newcastle fan."], "I'm thinking of switching to Sunderland, don't laugh."),
    (["I live in Chelsea."], "I'm a Fulham fan these days."),
    (["I support Villa."], "My brother's a Birmingham City fan these days, don't tell my dad."),
]


def _replaced(held: list[str], new: str) -> list[str | None]:
    return [target for verdict, target in message_verdicts(new, held) if verdict == SUPERSEDES]


@pytest.mark.parametrize(("held", "new", "target"), CORRECTIONS)
def test_a_new_job_or_club_replaces_the_held_one(held: list[str], new: str, target: int) -> None:
    assert _replaced(held, new) == [held[target]]


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    assert _replaced(held, new) == []


@pytest.mark.parametrize(("phrase", "job"), [
    ("paralegal", True), ("product owner", True), ("dinner lady", True), ("hgv driver", True),
    ("ux designer", True), ("senior staff nurse", True), ("gp", True), ("actuary", True),
    ("stay-at-home dad", True), ("member", False), ("keen runner", False), ("big fan", False),
    ("season ticket holder", False), ("proper teenager", False), ("owner", False),
    ("night owl", False)])
def test_a_title_is_read_by_the_lexicon_or_its_ending(phrase: str, job: bool) -> None:
    assert trade(phrase) is job
