"""Things of one single-valued category got or taken up (`step/categories.py`, read by
`step/families.py`): "grabbed a Pixel 8" replaces "I've got an iPhone 12", "we're with Octopus
now" the held energy supplier, with no attribute word said. The category of both values
decides; an acquisition or use verb says the change. Never for another holder, a gift, another
thing of the same kind ("a spare", "a work phone", "a second car"), a maybe, a question or an
addition. Pairs written for this mechanism, none copied from a corrections set."""

from __future__ import annotations

import pytest

from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [
    (["I wear a Fitbit Versa."], "Treated myself to a Garmin Forerunner, the battery lasts weeks."),
    (["My watch is an Apple Watch."], "I've got a Coros now, way better for trail runs."),
    (["I use a Dell XPS for work."], "Bought a MacBook Air and I'm loving it."),
    (["I drive a Ford Fiesta."], "Picked up a Toyota Yaris last weekend, only 20k miles on it."),
    (["I drive a Vauxhall Corsa."], "Traded the Corsa in for a Kia Picanto."),
    (["Our electricity is with EDF."], "We're with Octopus now, the app is miles better."),
    (["My phone contract is with O2."], "Went with Three when the contract ended."),
    (["I've got a Samsung Galaxy S21."], "Grabbed a Pixel 8 in the sales, loving it so far."),
    (["I do my weekly shop at Tesco."], "Signed up for Ocado for the weekly shop, so easy."),
]

NEAR_MISSES = [
    # "one" for the other product named before (found by the merge of two rounds)
    (["My laptop is an HP Spectre."], "The old HP monitor died for good, so I ordered a Dell one."),
    (["My laptop is an Asus ZenBook."], "My keyboard broke, so I ordered a Lenovo one."),
    (["I wear an Apple Watch."], "I bought my dad a Garmin for Father's Day."),  # a gift
    (["I wear a Fitbit."], "Got my wife a Garmin Forerunner, she runs more than me."),
    (["I wear a Fitbit."], "I've got a Garmin as well for swimming."),  # an addition
    (["I've got an iPhone 13."], "My brother got a Pixel 8 for his birthday."),  # another holder
    (["I drive a Honda Civic."], "We picked up a second car, a little Toyota Aygo."),
    (["I drive a Ford Focus."], "Picked up a spare Toyota Yaris for the kids."),
    (["My phone is a Samsung Galaxy S22."], "Work gave me an iPhone 15 as a work phone."),
    (["Our broadband is with BT."], "I might go with Virgin Media when the deal ends."),
    (["I bank with Barclays."], "Is Monzo any good for a savings pot?"),
    (["I do my weekly shop at Sainsbury's."], "Grabbed a few bits at Lidl last week."),
    (["I use a MacBook Pro."], "Bought a Dell monitor for the desk."),  # another product
    (["I wear a Fitbit."], "Got a Garmin bike computer for the road bike."),
    (["I drive a Skoda Octavia."], "Hired a Toyota Yaris for the holiday in Crete."),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_a_thing_of_the_category_got_replaces_the_held_one(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_category_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts
