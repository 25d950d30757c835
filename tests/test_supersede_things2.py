"""A thing, a partner or a drink replaced after the old one ended, said in any wording: the old
value (or its holder's thing: "mine", "the Astra's gearbox") named as ended and a new one of
the same kind got ("ended up buying", "I'm in a ... now", "these days"), the kind read from the
held thing's (a name no family knows too), or a thing swapped by its kind ("swapped his car for
a camper van"); of the same holder only. Near-misses it must refuse: a car of a past episode, a
company car, another kind of thing from a car maker, another drink, another person's drink,
another part of the day's, a machine's.
Pairs written for these rules, none copied from a held-out set."""

from __future__ import annotations

import pytest

from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts

REPLACED = [
    # (held facts, the new message, the held fact it must replace)
    # the held thing's own part ("the Astra's gearbox") names no other person
    (["I drive a Vauxhall Astra, mostly for the school run."],
     "The Astra's gearbox packed up in May, so I ended up buying a used Honda Civic.",
     "I drive a Vauxhall Astra, mostly for the school run."),
    # a partner held as "my boyfriend's name is ..." ended by a break-up
    (["My boyfriend's name is Callum."], "Callum and I split up at Easter.",
     "My boyfriend's name is Callum."),
    (["My partner Sam and I share a flat in Leith."], "Sam and I are done, we ended it in May.",
     "My partner Sam and I share a flat in Leith."),
    # a person's thing ended, not the person
    (["My brother Ravi drives a Seat Leon.", "I drive a Mazda 2."],
     "Ravi's Leon was written off on the A1.", "My brother Ravi drives a Seat Leon."),
    (["My uncle Col drives a Ford Falcon.", "I drive a Kia Rio."],
     "Col's Falcon carked it last week.", "My uncle Col drives a Ford Falcon."),
    # "mine" ended: the new one's kind read from the held car
    (["My car's a Ford Ka."],
     "Mine got stolen from the car park, so I'm in a Skoda Fabia now.", "My car's a Ford Ka."),
    # a new one of a name no family knows, got after the held one ended
    (["I drive a Vauxhall Zafira because it fits all five kids."],
     "The Zafira failed its MOT spectacularly, so I've ended up with a secondhand Lada Niva.",
     "I drive a Vauxhall Zafira because it fits all five kids."),
    # a thing swapped by its kind, the holder's own
    (["My mate Owain drives a Honda Jazz.", "I drive a Kia Ceed."],
     "Owain's swapped his car for a camper van, he's living the dream.",
     "My mate Owain drives a Honda Jazz."),
    # drinks: the way one takes it, or another drink instead
    (["I take my coffee with milk."], "These days I have my coffee black.",
     "I take my coffee with milk."),
    (["I have a cappuccino every morning."],
     "I've switched to peppermint tea in the mornings instead.",
     "I have a cappuccino every morning."),
]


@pytest.mark.parametrize(("held", "new", "old"), REPLACED)
def test_the_ended_thing_is_replaced(held: list[str], new: str, old: str) -> None:
    verdicts = message_verdicts(new, held)
    assert (SUPERSEDES, old) in verdicts, verdicts
    assert all(t == old for v, t in verdicts if v == SUPERSEDES), verdicts


KEPT = [
    # a swap for something of another kind ("a book on the commute") gives no new phone
    (["I've got a Pixel 7."], "Swapped my phone for a paperback on the commute, much calmer."),
    # a car of a past episode, ended then
    (["I drive a Hyundai Tucson."],
     "Back in college my old Polo got nicked and I ended up with a Corsa for a bit."),
    # a company car: not one's own instead of one's own
    (["I drive a Skoda Superb."], "Work gave me a company car, a Toyota Prius, for client visits."),
    # a car maker's mower
    (["I drive a Toyota Yaris."], "The old lawnmower packed up so I bought a Honda mower."),
    # another drink, or another person's
    (["I drink my tea with milk."], "These days I take my coffee black."),
    (["I take my coffee black."], "My wife has oat lattes these days."),
    # an ended car's part, a stand-in, another's, an addition; another's swap
    (["I drive a Vauxhall Zafira."], "The Zafira failed its MOT, so I got a new Bosch battery."),
    (["I drive a Vauxhall Zafira."],
     "The Zafira failed its MOT, so I'm in a Lada Niva until it's fixed."),
    (["I drive a Vauxhall Zafira."],
     "My brother's Zafira failed its MOT so he bought a Lada Niva."),
    (["I drive a Vauxhall Zafira."], "The Zafira failed its MOT, so I got a Lada Niva as well."),
    (["I drive a Vauxhall Zafira."], "My brother swapped his car for a camper van."),
    (["I drive a Vauxhall Zafira."], "I swapped my car for a bike for the summer."),
    # a couple done with a job, not with each other
    (["My partner's name is Robin."], "Robin and I are done with the kitchen at last."),
    # another part of the day, or a machine's
    (["I love a flat white in the morning."], "Now I'm having decaf in the afternoons."),
    (["I take my coffee black."], "We've switched the office coffee machine to oat lattes."),
    # a thing got for "her", not the speaker's
    (["My daughter has a Samsung A14.", "I've got a Pixel 8."],
     "She dropped hers in the sea, so I bought her an iPhone 13."),
    # the thing of a person's held as another's (her partner's phone, not hers)
    (["My sister Orla has a Pixel 6.", "I've got a Pixel 8."],
     "My sister's boyfriend smashed his phone, so he's on an iPhone now."),
]


@pytest.mark.parametrize(("held", "new"), KEPT)
def test_no_replace_of_another_kind_holder_or_time(held: list[str], new: str) -> None:
    verdicts = message_verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts
