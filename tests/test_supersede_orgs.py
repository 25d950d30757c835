"""Where one works, what one does, which club, read by the type of the value (`step/orgs.py`,
issue 41): a held employer, job or club and its new value worded with other words ("a tester at
Experian" / "I'm with Rightmove now"), of the speaker, a relation, a name, or the one "she" /
"he" fits by first name; and the near-misses that must replace nothing: a second job, a maybe,
a past job, a client, a shop or bank one uses, a relative's employer, an opponent, a club of
another activity or joined as well, a pronoun two people fit. The near-misses come first."""

from __future__ import annotations

import pytest

from memlane.step import orgs
from memlane.step.marks import marks
from memlane.step.related import held_marked
from memlane.step.supersede import SUPERSEDES
from memlane.types import Record
from supersede_verdicts import message_verdicts

NEAR_MISSES = [
    (["I'm a receptionist at Bupa."], "I've also got a weekend job at Hobbycraft."),
    (["I work for Accenture in Leeds."], "Got a second interview at Capgemini on Friday."),
    (["I'm a planner at Arup."], "I've been offered a role at Atkins, still mulling it over."),
    (["I work at Screwfix."], "I applied to Toolstation last week, no word yet."),
    (["I'm a barber at Ted's."], "Back in uni I worked at Wetherspoons for two years."),
    (["I work at Saatchi."], "We just landed Nike as a client, the whole floor is buzzing."),
    (["I work for Co-op Funeralcare."], "I shop at Lidl now, the Co-op's too dear."),
    (["I work for Lloyds in the branch."], "I bank with Starling now, so much easier."),
    (["I work for Scottish Power as a meter reader."],
     "Our gas and electric are with Octopus now."),
    (["I work at Network Rail."], "My brother just started at Balfour Beatty."),
    (["My wife works at Ocado.", "I work at Tesco."], "Her brother has moved over to Amazon."),
    (["I play for Hackney Wick FC."], "We played Leyton Orient Ladies away on Sunday, lost 2-0."),
    (["I run with Serpentine Running Club."], "I've also joined Tooting Bec Swimming Club."),
    (["I swim with Otter Swimming Club."], "I joined Battersea Chess Club this month."),
    (["I'm a sonographer."], "My friend Chloe just qualified as a paramedic."),
    (["My friend Lucy is a florist.", "My friend Amy is a baker."],
     "She's retrained as a personal trainer."),
    (["I'm a web developer."], "I used to be a postman before I learned to code."),
    (["I'm an actuary."], "I volunteer as a scout leader on Tuesdays now."),
    (["I'm a taxi driver."], "I'd love to retrain as a plumber one day."),
    (["I work at Specsavers."], "I'm at Boots now, want anything?"),
    (["Our energy is with EDF."], "Octopus supply the school next door, apparently."),
    # "made" of no title, a place of study
    (["I'm a care assistant."], "I've been made redundant, gutted."),
    (["I'm a midwife."], "I was made a godmother last month."),
    (["I work at Boots."], "I've started at the Open University, doing a degree."),
    # a service joined or moved to, a past start, a club of another sport, a season only
    (["I work at Morrisons."], "I've joined Spotify now, cancelled Deezer."),
    (["I work at Morrisons."], "We've moved over to Ovo now."),
    (["I work at Morrisons."], "I've started at PureGym now, three times a week."),
    (["I work at Morrisons."], "I started working at Asda in 2012, then Morrisons."),
    (["I play for Hythe Town."], "I've joined Sussex County Cricket Club as a member now."),
    (["I run with Leeds City AC."],
     "I've joined Kirkstall Harriers now for the cross-country season only."),
    # whom one is with, by a first name (main replaced the employer)
    (["I work at Halfords."], "I'm with Sarah now, we've been dating a month."),
    # a colleague by a word of work is someone else, never the speaker
    (["Our apprentice Kai plays for Bury Town."], "I've signed for Radcliffe Town this season."),
]

CORRECTIONS = [
    # (held facts, the later message, the held fact it replaces)
    (["I'm a claims adjuster at Aviva, been there ages."], "I'm with Zurich now.", None),
    (["I've been at Halfords for nearly nine years."], "I work for Kwik Fit these days.", None),
    (["I work for Asda as a team leader."], "Got headhunted by Morrisons in June.", None),
    (["I work at Penneys on the tills."], "I've started at Dunnes, loving it.", None),
    (["I'm a barista at Starbucks."], "I'm working as a shift manager now, same place.",
     "I'm a barista."),
    (["I'm a staff nurse on a ward."], "I've been made ward manager, finally.", None),
    (["I'm a secondary school teacher."], "I've gone freelance as a copywriter.", None),
    (["I row with Tyne Rowing Club."], "I've joined Durham Amateur Rowing Club since moving.",
     None),
    (["I play for Clifton Rovers."], "I've signed for Bishopston Town this season.", None),
    (["My son works at Argos.", "I work at Boots."], "My son's just started at Currys.",
     "My son works at Argos."),
    (["Freya works for Sky.", "Owen works for BT."], "Owen got poached by Vodafone in May.",
     "Owen works for BT."),
    (["My friend Zara is a paralegal.", "My friend Liam is a chef."],
     "She's retrained as a solicitor.", "My friend Zara is a paralegal."),
    (["My cousin Amelia is a nurse.", "My cousin Ethan is a joiner."],
     "He's gone self-employed as a landscaper.", "My cousin Ethan is a joiner."),
    (["My nephew Harvey plays for Ossett Town."], "Harvey's signed for Emley United.",
     "My nephew Harvey plays for Ossett Town."),
    (["I run with Wesham Road Runners on Thursdays."],
     "I've joined Preston Athletics since the move.", None),
    (["I run with Ilkley Harriers."], "Joined Otley Harriers since moving house.", None),
    # "moved over to" a firm, which the rule alone reads as a home
    (["I work in Centra in Cork."], "I've moved over to SuperValu, better hours.",
     "I work in Centra in Cork."),
    (["Our gas and electric are with E.ON."],
     "We switched in March, so Ovo supply us now.", None),
]


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_near_misses_replace_nothing(held: list[str], new: str) -> None:
    assert [v for v in message_verdicts(new, held) if v[0] == SUPERSEDES] == []


@pytest.mark.parametrize(("held", "new", "replaced"), CORRECTIONS)
def test_the_holders_employer_job_or_club_is_replaced(held: list[str], new: str,
                                                      replaced: str | None) -> None:
    assert {t for v, t in message_verdicts(new, held) if v == SUPERSEDES} == \
        {replaced or held[0]}


def test_values_by_type() -> None:
    assert orgs.held_values("I'm a payroll clerk at Greggs.") == \
        {"employer": "Greggs", "job": "payroll clerk"}
    assert orgs.held_values("I run with Kirkby Harriers.") == {"team:run": "Kirkby Harriers"}
    assert orgs.held_values("I've worked at Primark since 2019.") == {"employer": "Primark"}
    assert orgs.held_values("I worked at Primark in 2019.") == {}  # a past one
    assert orgs.held_values("I work in Leeds.") == {}  # a place, not an employer
    assert orgs.held_values("I had a meeting at Google.") == {}  # no job at it
    assert orgs.said_now("I'm with Rightmove now.", "I'm with Rightmove now.") == \
        ("employer", "Rightmove", True)
    assert orgs.said_now("I work at Aldi.", "I work at Aldi.") is None  # no change, no "now"


def test_a_held_job_is_found_by_its_type() -> None:
    """The related scan finds a held job that shares no word with its new value."""
    rows = [Record(id=1, namespace="n", text="I'm a pharmacy technician in Denver."),
            Record(id=2, namespace="n", text="I live in Denver.")]
    found = held_marked(["I retrained as a radiographer."], lambda n: rows[:n])
    assert [r.id for r in found] == [1]
    assert orgs.MARK + "job" in marks("I retrained as a radiographer.")
