"""The services a person holds one of beside the brands of `test_families_brands.py`
(`step/categories.py`, read by `step/families.py`): where one's music is (a paid music
service), what one's telly comes through (a TV provider), who one's mortgage is with (a
lender), where one has one's hair cut (a hairdresser or barber, by name or by the suffix of
its name), who insures one's car, home and pet, and one's breakdown cover. A change to another
member replaces the held one. The near misses are the families' own: a podcast or a gift is no
music service, a channel watched at the pub is no TV provider, a second property's mortgage or
a savings account is no new lender, a blow-dry once is no new hairdresser, the house's insurer
is not the car's; another holder, a maybe ("looking at remortgaging"), a quote, a job there.
Pairs written for this change, none copied from a corrections set; each pair failed before it
(a music service, a TV provider, a lender, a hairdresser and an insurer were no family), and
so did the separate mortgage (it replaced the held one) and the last three near misses."""

from __future__ import annotations

import pytest

from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [
    # music services
    (["We have YouTube Music on the family plan."], "We're on Deezer now, it came free."),
    # TV providers
    (["Our TV comes through Freesat."], "We're on Freeview now, the dish blew down."),
    # mortgage lenders
    (["Our mortgage is with Barclays."], "We remortgaged with Nationwide in June."),
    (["Our home loan is with ANZ."], "We refinanced with CommBank when the rate jumped."),
    # hairdressers and barbers
    (["I get my hair done at Headmasters."], "I've switched to Toni & Guy, the colour's better."),
    (["My barber is at Sharps Barbers."], "I go to Ruffians now for my trim."),
    (["I get my haircut at Great Clips."], "Moved over to Supercuts, it's nearer the office."),
    # insurers, one of each thing insured, and breakdown cover
    (["My car's insured with Churchill."], "I went with Hastings Direct at renewal."),
    (["Our home insurance is with Liberty Mutual."], "The house is insured with Lemonade now."),
    (["The dog's insurance is with Petplan."], "We moved the dog over to ManyPets for his cover."),
    (["We're with Green Flag for breakdown."], "We're with the AA now, they came quickly."),
    (["My car insurance is with Aviva."],  # (an xfail of test_supersede_broad before)
     "Aviva's renewal quote was silly so I dropped them. Went with Admiral instead."),
]

NEAR_MISSES = [
    (["My music is on Apple Music."], "I've started listening to podcasts on Spotify on my runs."),
    (["I use Spotify for music."], "Got my niece an Apple Music voucher, she loved it."),
    (["We've got Freeview."], "Watched the derby on Sky Sports at the pub last night."),
    (["We've got Sky Q for the telly."], "Our broadband is with BT now, Sky broadband was poor."),
    (["Our mortgage is with Halifax."], "We took a separate mortgage with Santander for the flat."),
    (["Our mortgage is with Lloyds."], "We're looking at remortgaging with Nationwide in spring."),
    (["The mortgage is with Skipton."], "My brother's mortgage is with Coventry now."),
    (["Our mortgage is with Santander."], "I opened a savings account with Chase, 4% interest."),
    (["I get my hair cut at Regis."], "Had a blow-dry at Headmasters before the party on Friday."),
    (["My barber is at Kutz Barbers."], "My son gets his fade at Ruffians now."),
    (["I go to Supercuts."], "My sister got a job at Great Clips as a stylist."),
    (["Our car insurance is with Admiral."], "The house is insured with Aviva now."),
    (["Our home insurance is with Aviva."], "Got breakdown cover with the AA now."),
    (["The car is insured with Direct Line."], "Got a quote from Esure today, twenty quid less."),
    # a brand switched to, said with another family's words, is that family's (the last three
    # replaced the held TV or broadband before; the first, with the lenders but without this)
    (["Our mortgage is with Nationwide."], "I moved my current account over to Halifax."),
    (["We've got Sky for the TV."], "We switched the broadband over to Virgin."),
    (["Our broadband is with BT."], "We switched the TV over to Virgin."),
    (["We've got Sky for the TV."], "I switched my phone network to Virgin."),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_another_service_of_the_family_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_service_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts
