"""Corrections read by a class, in wording the rules were not written for, each with near-misses
it must refuse: a value said with any word for "now" ("these days", "nowadays") in place of a
held name the sentence names first; a thing moved by any verb to a named place, the thing said
("relocated our team to the Canary Wharf office"; never a visit, "popped into Costa"); a
routine's day moved, said with an auxiliary ("Yoga has moved to Wednesdays"); "it" after a held
value said to have ended; a pet's food by its brand alone ("Bruno is on Royal Canin now", "the vet
put Luna on Hill's"); a job given in the last clause of a sentence that ends the old one; a job
one qualified as; the doer of a service named by its verb ("Agnieszka cleans for us now": our
cleaner); a school started at, its year said between; "I'm with Dr X now": a person in a role,
no employer. Pairs written
for these rules, none copied from a held-out set (`test_corrections_heldout.py`)."""

from __future__ import annotations

import pytest

from memlane.step.clauses import clauses
from memlane.step.related import related_query
from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import verdicts as _verdicts


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
    # a pet's food by a brand, no food word; someone put the pet on it
    (["Our dog Rolo eats Pedigree."], "Rolo is on Burns now, it suits his skin better."),
    (["Our cat Mochi eats Whiskas."], "The breeder put Mochi on Applaws last month."),
    # a job said in the last clause of a sentence that says the old one ended
    (["I'm a chef at the Crown Hotel."], "I quit the hotel in May, I'm a postman now."),
    (["My brother works as a plumber."],
     "My brother gave up the plumbing, he's an electrician now."),
    # a job by "qualified as" / "retrained as"
    (["My son is a trainee accountant."], "My son qualified as an accountant in June."),
    # the doer of a service named by its verb ("cleans for us": our cleaner)
    (["Our gardener is Pete."], "Pete hurt his back, so Lorna gardens for us now."),
    # a school started at, the year said between ("started Year 7 at ...")
    (["My son goes to Oakwood Primary."], "My son started Year 7 at Castle Academy."),
    # a child by their place among the children; a school named by its pupils
    (["My youngest goes to Bluebell Primary.", "My eldest goes to Harborne Academy."],
     "My youngest started at Harborne Girls in September."),
    # a job said on a shift ("work nights as a ..."): a new job replaces it
    (["I work lates as a hospital porter."], "I left the hospital, I'm a bus driver now."),
    (["I work lates as a hospital porter."], "I switched to earlies last month."),
    # the held name opens the sentence that says it ended
    (["Our dog Rolo sees the vet at Parkside Veterinary."],
     "Parkside shut down, so Rolo is registered at Hollybank Vets now."),
    # a new employer by the job got there, the old one in lower case
    (["My wife works for the council."], "My wife got a job with Severn Trent, she starts soon."),
    # a held thing ended as "it" in the clause after the one naming it
    (["My car is a silver Vauxhall Astra."],
     "The Astra failed its MOT so badly I scrapped it and got a Toyota Yaris."),
    (["I drive a Ford Fiesta."],
     "The Fiesta was a money pit, so we sold it and bought a Kia Picanto."),
    # a provider in lower case, switched over to
    (["I'm with Vodafone for my phone."], "I ported my number over to smarty in March."),
    (["Our broadband is with Sky."], "We moved the broadband over to zen last month."),
    # a person in a role: "I'm with Dr X now" is no employer
    (["My physio is Dr Kaur."], "Dr Kaur has moved to another practice, so I'm with Dr Novak now."),
])
def test_a_correction_in_other_words_supersedes(held: list[str], new: str) -> None:
    """The first held fact, or the clause of it the correction is about ("I'm a chef." of
    "I'm a chef at the Crown Hotel.": a job and an employer are two facts), is replaced."""
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES and t in clauses(held[0]) for v, t in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["My partner works at Greggs."], "My partner popped into Costa after work."),
    (["My kettle is a Breville."], "The toaster broke, so it's a Dualit nowadays."),
    (["My kettle is a Breville."], "My mum's kettle broke, so she's got a Russell Hobbs now."),
    (["I live in Leeds."], "I travelled to Paris for a wedding."),
    (["I work at the Bolton depot."], "I drove my brother to the Wigan depot on Sunday."),
    (["I do pilates on Monday mornings."], "The gym has moved to a new building."),
    (["My laptop is a Dell XPS."], "My son uses a Lenovo these days."),
    (["I do pilates on Monday mornings."], "My sister's pilates has moved to Tuesdays."),
    (["Our dog Rolo eats Pedigree."], "Rolo is on Metacam tablets for his hips now."),
    (["Our dog Rolo eats Pedigree."], "Our neighbour's dog is on Burns now."),
    (["Choir practice is on Monday nights."], "Choir is on Tuesday nights this week only."),
    (["I'm a chef at the Crown Hotel."], "My sister left the bank, she's a teacher now."),
    (["Our gardener is Pete."], "Lorna works for us on Saturdays."),
    (["Our gardener is Pete."], "Lorna cleans for us now."),
    (["My son goes to Oakwood Primary."], "My daughter started Year 7 at Castle Academy."),
    (["I work at Tesco."], "I'm with Dr Novak now for my knee."),
    (["My eldest goes to Harborne Academy."], "My youngest started at Harborne Girls."),
    (["Our dog Rolo sees the vet at Parkside Veterinary."],
     "Parkside was shut today, so we took Rolo to Hollybank Vets."),
    (["My wife works for the council."], "My son got a job with Severn Trent."),
    (["I work at Tesco."], "I got a second job with Deliveroo for the evenings."),
    (["I live in Leeds."], "The signal was rubbish so I moved over to voxi."),
    (["My car is a silver Vauxhall Astra."],
     "My neighbour's Astra was written off, so she sold it and got a Toyota Yaris."),
    (["I drive a Ford Fiesta."], "The Fiesta needed new tyres, so we took it to Kwik Fit."),
    (["My car is a silver Vauxhall Astra."],
     "The Astra failed its MOT, so I'm borrowing my dad's Toyota Yaris for now."),
    (["I'm with Vodafone for my phone."], "My son ported his number over to smarty."),
    (["I'm with Vodafone for my phone."], "I moved my savings over to chip last week."),
    (["My physio is Dr Kaur."], "Dr Kaur is on holiday, so I'm seeing Dr Novak this week."),
])
def test_a_near_miss_in_other_words_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def test_a_home_is_searched_for_by_its_words() -> None:
    """"We rent a flat in Headingley" shares no word with "We bought a house in Chapel
    Allerton": the residence's search words name the home too."""
    words = related_query(["We bought a house in Chapel Allerton and moved in on Friday."]).split()
    assert {"flat", "rent", "live"} <= set(words)
