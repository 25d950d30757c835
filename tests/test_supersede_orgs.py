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
    # an organisation one uses, not works for (`uses.py`): a provider, an app, a gym, study
    (["I work for Kestrel Freight Ltd."], "I'm with EE now for my phone, the Vodafone deal ended."),
    (["I'm a buyer at Halden Group."], "Just joined Komoot now, logging all my rides."),
    (["I work for Ferris Logistics."], "Just joined Duolingo now."),  # an app by its name
    (["I work for Barratt Homes."], "I've joined PureGym by the station, the classes are good."),
    (["I work for Orbit Housing Trust."], "I've started at Sheffield Hallam, doing an MBA."),
    (["I'm a cashier at Nationwide."], "We're with Virgin now for broadband, switched from BT."),
    # a job by what one does: a second one, as well, a past one, someone else's, two she's
    (["I'm a dental nurse."], "I also drive for a courier firm on the side now."),
    (["I volunteer at the Oxfam shop."], "I'm volunteering at the hospice now too."),
    # a time one volunteered, and another's (LoCoMo conv-44 chained these two)
    (["My GF and I had a great time volunteering at a pet shelter on Monday."],
     "That's why we went volunteering with animals."),
    (["That's why we went volunteering with animals."],
     "It's inspiring how dedicated you are, even though you can't volunteer at the shelter "
     "anymore."),
    (["I teach at a primary school in Perth."], "Before teaching I drove for a courier firm."),
    (["I'm a paramedic."], "My mate Dev's moved into recruitment now."),
    (["My sister Maeve is a vet.", "My friend Cara is a nurse."],
     "She lectures at the university now."),
    (["I'm a nurse."], "I'm teaching my son to swim now."),
    (["I work for Tarmac Group."], "Might have a job with Breedon lined up, fingers crossed."),
    (["I work for Tarmac Group."], "Aggregate Industries offered me a job, not sure yet."),
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
    # an employer held by what one does for it or by its ending, and a new one by other frames
    (["I do the books for a builders' merchant called Jewson Ltd."],
     "I'm with Travis Perkins now, same sort of work.", None),
    (["Northgate Housing Trust pay my wages."], "Started at Bolton Council last week.", None),
    (["I'm at Fairhurst Group, in their legal team."],
     "I moved over to Brennan Partners last month, same job.", None),
    (["I drive for Palmer Logistics."], "I've taken a job with DHL, better runs.", None),
    (["I've been with Carver Solicitors since 2018."], "Hartley Legal took me on in May.", None),
    (["I'm an RN at Mercy Hospital."], "Got hired on at Kaiser last month.", None),
    (["My partner Jo works for the hospital trust.", "I work for the council."],
     "Jo's taken a job with the ambulance service.", "My partner Jo works for the hospital trust."),
    # a job by what one does now, of the speaker, a name, or the one "she" / "he" fits
    (["I'm a chemist in Slough."], "I teach science at a secondary school now.", None),
    (["I'm a primary teacher."], "I've moved into marketing now, better pay.", None),
    (["My aunt Bernie is a district nurse."], "She's gone into health visiting now.", None),
    (["My son Ben is a barista.", "My daughter Ava is a vet."],
     "Ben drives for a courier firm now.", "My son Ben is a barista."),
    (["My friend Noreen is a midwife.", "Her husband Phil is a joiner."],
     "She's left the hospital and lectures at the university now.",
     "My friend Noreen is a midwife."),
    (["My cousin Aidan is a chef.", "My cousin Hannah is a pharmacist."],
     "He's in logistics now, got sick of the kitchens.", "My cousin Aidan is a chef."),
    (["I volunteer at the Oxfam shop on Saturdays."],
     "I'm volunteering at the hospice shop now instead.", None),
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
    assert orgs.held_values("I'm at Thornbury Group, on the sales team.") == \
        {"employer": "Thornbury Group"}  # by its ending
    assert orgs.held_values("I'm at Thornbury now.") == {}  # (where one is, maybe)
    assert orgs.held_values("I volunteer at the food bank on Fridays.") == \
        {"volunteer": "food bank"}
    said = "I've moved into recruitment now."
    assert orgs.said_now(said, said) == ("job", "recruitment", False)
    said = "We've moved into a new flat now."
    assert orgs.said_now(said, said) is None  # no line of work


def test_a_held_job_is_found_by_its_type() -> None:
    """The related scan finds a held job that shares no word with its new value."""
    rows = [Record(id=1, namespace="n", text="I'm a pharmacy technician in Denver."),
            Record(id=2, namespace="n", text="I live in Denver.")]
    found = held_marked(["I retrained as a radiographer."], lambda n: rows[:n])
    assert [r.id for r in found] == [1]
    assert orgs.MARK + "job" in marks("I retrained as a radiographer.")
