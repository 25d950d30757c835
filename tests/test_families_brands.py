"""The brands users name for the things they hold one of (`step/categories.py`, read by
`step/families.py`): UK, Irish, US, Canadian and Australian phones, gyms, energy suppliers,
banks and building societies, mobile networks, broadband, supermarkets, car makes and models,
pharmacies, opticians, vets and dentist chains. A change to another brand of the family replaces
the held one; a brand no other thing is called ("E.ON") needs no "gas" word when the held fact
said one. The near misses are the families' own: another holder, a job there, a maybe, an
addition, a one-off, a hire car, a brand's other product, news of a brand. Pairs written for
this change, none copied from a corrections set."""

from __future__ import annotations

import re

import pytest

from memlane.step import families
from memlane.step.categories import FAMILIES
from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [  # (each kept only when it failed before the brands were widened)
    # phones
    (["My phone is a Samsung Galaxy S21."], "I went for a Honor Magic 6 when the contract ended."),
    (["My phone's an iPhone 13."], "I've got a Nothing Phone 2 now, the lights are daft."),
    (["My phone's a Pixel 7."], "I've got a Vivo V30 now, half the price."),
    (["I use a Motorola phone."], "Upgraded to an Asus Zenfone 10, it fits my pocket."),
    # gyms
    (["I'm a member at PureGym."], "I'm with JD Gyms now, it's open all night."),
    (["I go to the gym at Virgin Active."], "I joined Gymbox in March, the classes are mad."),
    (["I go to the gym at Virgin Active."], "I'm with Third Space now, the pool is lovely."),
    # energy: no "gas" or "electric" said, the held fact said it
    (["Our electric is with EDF."], "We've been with Utilita since the move."),
    (["Our electric is with National Grid."], "We've been with Eversource since we moved."),
    (["Our power is with Origin Energy."], "We switched to AGL last month."),
    # banks and building societies
    (["I bank with Lloyds."], "My salary goes into Kroo now, the interest is decent."),
    (["My bank is RBC."], "My pay goes into Scotiabank now."),
    (["I bank with Commonwealth Bank."], "I've moved everything to Westpac since the move."),
    # mobile networks (MVNOs too)
    (["My mobile is on Vodafone."], "My phone's on Spusu now, a fiver a month."),
    (["My phone plan is with Rogers."], "My phone's on Koodo now, way cheaper."),
    # broadband
    (["Our internet is with Comcast."], "We've been with Astound since the spring."),
    # supermarkets
    (["We do our weekly shop at Tesco."], "It's Centra for the food shop now, it's on the corner."),
    # cars: makes and models
    (["I drive a Nissan Qashqai."], "I part-exchanged it for a Kia Sorento last week."),
    (["I drive a Ford Focus."], "Got myself a Toyota Hilux now, for the farm."),
    (["I drive a VW Golf."], "Picked up a Honda Jazz last weekend, only 30k miles."),
    # pharmacies, opticians, vets, dentists
    (["We get our prescriptions from Boots."], "Our meds come from Priceline now, it's closer."),
    (["I get my glasses from Specsavers."], "I'm with Leightons now for my eyes."),
    (["We take the cat to Vets4Pets."], "We moved vets, the cat is with Medivet now."),
    (["Our dentist is Castle Dental."], "We switched dentists to mydentist in town."),
]

NEAR_MISSES = [
    (["I've got a Samsung Galaxy S22."], "My wife went for a Honor 90 when her contract ended."),
    (["My phone is an iPhone 14."], "Nothing beats my phone for photos now."),  # a word
    (["My phone is a Pixel 8."], "Bought an Asus ROG laptop for gaming now."),  # a laptop
    (["My laptop is a Dell XPS."], "I've got an Asus Zenfone now."),  # a phone, not a laptop
    (["I'm a member at PureGym."], "Might join Fitness First when the contract ends."),
    (["I'm a member at David Lloyd."], "My sister's with Anytime Fitness now."),
    (["I'm a member at PureGym."], "Better get to the gym now before it rains."),  # a word
    (["Our electricity is with Octopus."], "I've started a new job at E.ON in Nottingham."),
    (["Our electricity is with Octopus."], "My parents have been with E.ON since the switch."),
    (["Our gas is with EDF."], "Utilita are in the news now for price rises."),
    (["I bank with HSBC."], "I've bought a few shares in Barclays now."),
    (["I bank with HSBC."], "I complained to Monzo about my mate's card now."),
    (["Our electricity is with Octopus."], "Had a letter from E.ON now about Mum's meter."),
    (["I bank with Lloyds."], "I've opened an ISA with Coventry Building Society too."),
    (["I bank with TD."], "My husband banks with Scotiabank now."),
    (["My mobile is on EE."], "Thinking of moving my phone to Talkmobile."),
    (["My mobile is with EE."], "Three of us share the phone contract now."),  # a number
    (["Our broadband is with BT."], "YouFibre have been digging up the road outside now."),
    (["Our broadband is with BT."], "Three of us work from home now, so the broadband is slow."),
    (["We do our food shop at Aldi."], "My son's got a Saturday job at SuperValu now."),
    (["I drive a Toyota Yaris."], "We hired a Chevy Malibu for the road trip now."),
    (["I drive a Skoda Octavia."], "Borrowed my dad's Kia Sorento today for the tip run."),
    (["I drive a Honda Civic."], "My brother bought a Mitsubishi Outlander now."),
    (["I get my glasses from Specsavers."], "My mum goes to Leightons for her glasses now."),
    (["We take the dog to Medivet."], "I've got a job at Vets4Pets now, on reception."),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_another_brand_of_the_family_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_brand_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def _written(alternative: str) -> str:
    """A member's alternative as a person writes it ("Bank\\s+of\\s+Ireland": "Bank of Ireland")."""
    return re.sub(r"\\(.)", r"\1", alternative.replace(r"\s+", " "))


def test_a_family_is_read_in_every_text_that_names_a_member() -> None:
    """The gate that spares the step the long gazetteers (`families._may_name`) lets through
    every member as written, alone and inside a sentence; and it does spare a plain one."""
    gated = 0
    for family in FAMILIES:
        if families._FIRST_WORDS[family.name] is None:
            continue
        gated += 1
        for _, rx in family.members:
            m = families._LITERAL.match(rx)
            assert m is not None, rx
            for alt in m.group(1).split("|"):
                said = _written(alt)
                for text in (said, f"We're with {said}'s lot now.", f"({said})"):
                    assert families._may_name(text, family), (family.name, text)
    assert gated >= 10
    bank = next(f for f in FAMILIES if f.name == "bank")
    assert not families._may_name("We went camping by the lake last month, so lovely.", bank)
