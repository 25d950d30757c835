"""Values of one single-valued family (`step/families.py`): a new member of a family a person
holds one value of (how they get to work, where the food shop is done, diet, bank, network,
energy supplier, broadband, phone platform, work pattern, shift, a practice by its suffix)
replaces the one held fact of that family, whatever the wording around it. With the
near-misses it must refuse: an addition, a one-off, a maybe, a conditional, a question,
another holder, a negation, a family one holds several of, two held facts of the family.
Pairs written for this mechanism, none copied from a held-out set."""

from __future__ import annotations

import pytest

from memlane.step import families
from memlane.step.supersede import RELATED, SUPERSEDES, decide, read_claim
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [
    # the lead's review: a becoming verb names the change; the family's own word is no name
    (["My partner Jess is vegetarian."], "Jess has gone vegan since the new year."),
    (["My dad eats meat."], "Dad went veggie last year, he says he feels great."),
    (["Our broadband is with Virgin Media."], "Internet's with BT now, it came with the flat."),
    (["I work full-time at the bank."], "I've dropped to part-time hours since the baby."),
    (["I walk to work, it's twenty minutes."], "My knee's been bad so I get the tram in now."),
    (["I take the tube to work."], "I cycle into work these days, it beats the Central line."),
    (["My daughter cycles to school."], "My daughter gets the school bus now, since she moved up."),
    (["We get our groceries from Asda."], "It's Morrisons for the weekly shop now, it's nearer."),
    (["We buy our food at Waitrose."], "Money's tight so we do the food shop at Aldi these days."),
    (["I'm pescatarian."], "I've gone fully vegetarian now, no more fish."),
    (["I bank with HSBC."], "Moved my current account over to Starling, the app is brilliant."),
    (["My phone is on O2."], "I ported my number to Smarty, so my phone's on Smarty now."),
    (["Our energy supplier is EDF."], "We've switched our gas and electric to OVO."),
    (["Our internet is with Sky."], "We get our broadband from Hyperoptic now, way faster."),
    (["I've got a Pixel phone."], "I caved and got an iPhone now, the whole family has one."),
    (["I'm fully remote in my job."], "I'm back in the office full time now, new manager."),
    (["I work on days at the hospital."], "I've gone onto nights at the hospital since March."),
    (["Our dentist is Castle Dental."], "We changed dentists, the kids see Bridge Street Dental."),
    (["Our cat Luna goes to Meadow Vets."], "We moved vets, Luna is with Oak Tree Vets now."),
    (["I'm a member at David Lloyd."], "I cancelled David Lloyd, I go to Better Fitness now."),
    (["I eat meat but not much."], "I've been vegetarian since January."),
    (["I take the train into London every day."],
     "I've started driving in, the trains are a joke."),
    (["My bank is NatWest."], "I moved everything over to Monzo last month."),  # no bank word
    (["Octopus is our energy supplier."], "We changed energy supplier to EDF in the autumn."),
    (["I'm on EE for my mobile."], "Switched networks to Voxi, it's only £10 a month."),
    (["I'm a member of The Gym Group."], "I joined Virgin Active in January, the pool is great."),
    (["I go to Specsavers for my eyes."], "I see Leighton Opticians now, they're independent."),
    (["We get our prescriptions from Boots."],
     "We've moved our prescriptions to Rowlands Pharmacy instead."),
    # a maybe in another clause of the sentence is another statement
    (["My dad drives a Nissan Qashqai.", "My mum drives an Audi A3."],
     "Dad part-exchanged his for a Mitsubishi Outlander, he wants to tow a caravan."),
    # a thing one has, lost or broken: the stand-in is the one in hand, "until" or not
    (["I've got an iPhone 12."],
     "Mine got pinched on the bus, so I'm using a Pixel 6a until my upgrade."),
    (["My laptop's a Lenovo ThinkPad."],
     "Spilt tea on the ThinkPad and it died, so I'm using a Chromebook till work sends one."),
    # a phone by its model code ("Samsung A35": no phone word), a maker of phones only
    (["My lodger Piotr has a Samsung A35."], "Piotr's switched to a Motorola, cheaper contract."),
    (["My nan uses an HMD flip phone."], "Nan's been won over, she bought a Samsung S21 off eBay."),
    (["I have a Galaxy Z Fold."], "I smashed it, so I've gone over to a Cubot rugged phone."),
    # a gym chain by its name alone
    (["My gym membership is with Snap Fitness."], "I've joined F45 by the station, more classes."),
]

NEAR_MISSES = [
    (["I'm vegetarian."], "I went vegan for a week in January, never again."),
    (["I'm vegetarian."], "I tried going vegan, it lasted three days."),
    (["I work full-time at the bank."], "I might go part-time next year."),
    (["I bank with Barclays."], "We've got a joint account with Nationwide now."),  # (older rule)
    (["I work part-time at Boots."], "I'm a full-time mum now, Boots let me go."),
    (["My partner Jess is vegetarian."], "Jess's brother has gone vegan."),
    (["Our broadband is with Virgin Media."], "Internet's been down all day, Virgin Media again."),
    (["I walk to work."], "When it's icy I'll get the bus instead."),  # a conditional
    (["I walk to work."], "I also take the bus when it rains."),  # an addition
    (["I cycle to work."], "Drove in today because of the rain."),  # a one-off
    (["I cycle to work."], "My husband drives to work now."),  # another holder
    (["We shop at Tesco."], "We top up at Aldi during the week now."),  # an addition
    (["We shop at Tesco."], "Got a takeaway from Lidl now, couldn't be bothered to cook."),
    (["I work at Tesco."], "We do the big shop at Aldi now."),  # an employer is no food shop
    (["I bank with Barclays."], "I've opened a second account with Monzo now."),
    (["I bank with Barclays."], "My sister banks with Monzo now."),
    (["I bank with Barclays."], "Should I switch to Monzo now?"),  # a question
    (["Our energy is with EDF."], "Thinking of switching to Octopus now the fix is ending."),
    (["Our energy is with EDF."], "We might move to Octopus when the deal ends."),
    (["I'm vegetarian."], "I'm not going vegan, I love cheese too much."),
    (["I'm vegetarian."], "I'm not going vegan now, I love cheese too much."),  # (main: replaced)
    (["We have Netflix."], "We've got Disney+ now for the kids."),  # not single-valued
    (["I play tennis on Saturdays."], "I play badminton now."),  # hobbies: several
    (["I speak French."], "I'm learning Spanish now."),
    (["I've got an Android phone."], "I've got a Samsung now."),  # the same platform
    (["I drive to work."], "I drive in now but get the bus when it snows."),
    (["I walk to school with the kids."], "I drive to work these days."),  # another journey
    (["We do our food shop at Asda."], "I've moved over to Tesco, better hours."),  # a job?
    (["I bank with Barclays."], "Dave switched to Monzo last year."),  # a person by name
    (["I cycle to work."], "My bike got nicked, so I'm getting the bus in until I get a new one."),
    (["I drive to work."], "Since the clocks went back I cycle in on Fridays."),
    (["I bank with Barclays."], "Barclays moved my account to the Leeds branch."),  # the same
    (["My dentist is Bright Dental."], "My wife switched dentists, she goes to Smile Dental now."),
    (["I use PureGym."], "My mate from PureGym has joined Anytime Fitness now."),
    (["I'm on an iPhone."], "I've bought my son a Samsung for his birthday now he's 12."),
    (["I drive to work."], "My car's in the garage so I'm walking in this week."),
    (["I bank with Barclays."], "My brother moved his account over to Monzo."),
    (["I've got a Pixel."], "My daughter's got an iPhone now."),
    (["My phone is an iPhone."], "My work phone is a Samsung now."),  # another phone
    (["I work in the office."], "I work from home on Fridays now."),  # hybrid, not home
    (["I bank with Lloyds."], "If the rates stay this good, I'll move everything over to Monzo."),
    (["I'm with EE."], "We're thinking of it, Three would save us a tenner."),
    (["I've got an iPhone 13."], "Smashed my screen, so I'm on an old Nokia till it's fixed."),
    (["I've got an iPhone 13."], "I'm borrowing my sister's Samsung until payday."),  # no loss
    (["I have a Samsung A35."], "My brother's switched to a Cubot, he's always on building sites."),
    (["I have a Samsung TV in the lounge."], "I've switched to a Nokia for my phone."),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_a_new_member_of_a_family_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_family_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["I get the train to work."], "Since the car park opened I drive in instead."),
    (["Our GP is at Elm Tree Surgery."],
     "We've got a new GP since the move, Northgate Medical Centre."),
    (["Our broadband is with TalkTalk."], "We went over to Virgin Media for the internet."),
])
def test_the_family_decides_it(held: list[str], new: str) -> None:
    """The mechanism itself names the family, the held and the new member in its reasons."""
    got = families.one_value(read_claim(new), read_claim(new).holder, [read_claim(held[0])])
    assert got is not None and got[0] == SUPERSEDES, got
    assert any("the only held fact of this holder in the family" in r for r in got[2]), got


def test_two_held_facts_of_the_family_are_kept_linked() -> None:
    """"I cycle to work" and "I get the bus to work when it rains" both held: "I drive in
    now" replaces neither (which one is meant is a guess); it is linked to the newest."""
    d = decide("I drive in now.", ["I cycle to work.", "I get the bus to work when it rains."])
    assert d.verdict == RELATED and d.target == 1, d


def test_a_models_replace_across_holders_is_refused() -> None:
    """The vet of a model's "this replaces #0": my sister's bank is not mine."""
    d = decide("My sister banks with Monzo now.", ["I bank with Barclays."], claimed=0)
    assert d.verdict == RELATED, d
    d = decide("I moved my account over to Monzo.", ["I bank with Barclays."], claimed=0)
    assert d.verdict == SUPERSEDES, d


def test_every_family_is_single_valued() -> None:
    """Families one holds several of are left out: no sport, streaming service or language."""
    names = {f.name for f in families.FAMILIES}
    assert not names & {"sport", "streaming", "language", "hobby"}
    for text in ("I play squash.", "We have Netflix.", "I speak Italian."):
        assert not any(families.members(text, f) for f in families.FAMILIES), text
