"""A number told by its topic word (`step/topics.py`): "the scale said 176" replaces "I weigh
182 lbs", "the bill's gone up to 64 quid" the held phone bill, "they bumped me up to 100 a
week" the held allowance; and a street address by its shape (`step/attributes.py`): "We're at
42 Marsh Lane now" replaces "I live at 7 Elm Road". Never another unit, another person's
number, another bill, a maybe, a question, or where one is for an afternoon. Pairs written
for these mechanisms, none copied from a corrections set."""

from __future__ import annotations

import pytest

from memlane.step import topics
from memlane.step.supersede import RELATED, SUPERSEDES, decide, read_claim
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [
    (["I weigh 182 lbs."], "The scale said 176 this morning, the diet's working!"),
    (["I'm about 95 kg at the moment."], "Weighed myself at the gym, 91 kg, finally moving."),
    (["I weigh 12 stone."], "Weighed in at 11 stone at slimming club!"),
    (["My allowance is 80 a week."], "They bumped me up to 100 a week."),
    (["I get 15 a week pocket money."], "Dad put me up to 20 a week for doing the bins."),
    (["My phone bill is £58 a month."], "The bill's gone up to 64 quid, annoyingly."),
    (["Our broadband bill is £35 a month."], "The direct debit went up to £42 this spring."),
    (["I take 10mg of sertraline."], "The doctor upped my dose to 20mg."),
    (["I live at 7 Elm Road in Harrogate."], "We're at 42 Marsh Lane now, the move went fine."),
    (["I live on Mill Street."], "Our new place is on Kingsway, right by the park."),
]

NEAR_MISSES = [
    (["I weigh 80 kg."], "The scale at the post office said the parcel was 3 kg."),
    (["I weigh 80 kg."], "My son weighed 40 kg at the check-up."),
    (["I weigh 80 kg."], "Weighed the suitcase, 23 kg exactly."),  # a parcel's number
    (["I weigh 182 lbs."], "Does the scale ever say under 180?"),
    (["My phone bill is £58 a month."], "The water bill's gone up to £64."),
    (["My phone bill is £58 a month."], "The bill might go up to £64 next year."),
    (["My phone bill is £58 a month."], "The bill was £61 this month with the roaming."),
    (["My rent is £900 a month."], "They bumped me up to £950 a month."),  # not paid to me
    (["My pocket money is 20 a week."], "Mum bumped my brother up to 25 a week."),
    (["I take 50mg of sertraline."], "The vet upped the dog's dose to 100mg."),
    (["I take 50mg of sertraline and 5mg of amlodipine."], "My dose went up to 100mg."),
    (["I live at 12 Park Avenue."], "My sister's new flat is on Kingsway, near the station."),
    (["I live at 12 Park Avenue."], "I'm at 3 Church Street till five if you need me."),
    (["I live at 12 Park Avenue."], "We're at 14 Park Avenue for the party tonight."),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_a_value_by_its_topic_or_shape_replaces_the_held_one(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_topic_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def test_two_held_numbers_of_the_topic_are_kept_linked() -> None:
    """A phone bill and a gas bill held: "the bill's gone up to 64" is one of them, which is a
    guess: linked to the newest, both kept."""
    new = read_claim("The bill's gone up to £64 a month.")
    got = topics.by_topic(new, new.holder, [read_claim("My phone bill is £58 a month."),
                                            read_claim("Our gas bill is £70 a month.")])
    assert got is not None and got[0] == RELATED and got[1] == 1, got


def test_a_models_replace_by_topic_stands_across_the_subject() -> None:
    """The vet of a model's replace: "Mum bumped me up" is the speaker's allowance, though the
    sentence's subject is Mum; "Mum bumped my brother up" is not."""
    held = ["My pocket money is 20 a week."]
    assert decide("Mum bumped me up to 25 a week.", held, claimed=0).verdict == SUPERSEDES
    assert decide("Mum bumped my brother up to 25 a week.", held).verdict != SUPERSEDES
