"""A fact's slot read without an attribute list (`step/slots.py`), and the supersede rule
that asks it: the same thing by its noun, a value of one type replaced, never across things."""

from __future__ import annotations

import time

import pytest

from memlane.step import slots
from memlane.step.supersede import NEW, RELATED, SUPERSEDES, decide


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("The standup got pushed to 10:15.", "time", "10:15"),
    ("Our rent is £1,150 a month.", "money", "£1150"),
    ("I'm down to 79 kg.", "qty kg", "79"),
    ("I upgraded my plan to 30GB.", "qty gb", "30"),
    ("I work four days a week.", "qty day", "4"),
    ("My office is on the third floor.", "ordinal", "third"),
    ("Book club is on Tuesdays.", "weekday", "tuesday"),
    ("I switched my energy over to EDF.", "name", "edf"),
    ("My phone contract is with Three.", "name", "three"),  # a name, not a number
    ("My parking space is number 14.", "number", "14"),
])
def test_values_by_type(text: str, kind: str, value: str) -> None:
    assert value in slots.values(text).get(kind, frozenset()), slots.values(text)


def test_a_value_is_read_once_and_the_opening_word_is_no_name() -> None:
    v = slots.values("Dentist moved my check-up to 10:30 on 3 June.")
    assert v["time"] == {"10:30"} and "number" not in v and "name" not in v


@pytest.mark.parametrize(("new", "held", "thing"), [
    ("We're with BT for broadband now.", "Our broadband provider is Virgin Media.", "broadband"),
    ("I upgraded my plan to 30GB this week.", "I'm on a 10GB data plan with Giffgaff.", "plan"),
    ("The standup got pushed to 10:15.", "Our weekly standup is at 9:30.", "standup"),
    ("They moved our team up to the fifth floor.", "My office is on the third floor.", "floor"),
    ("My pottery class moved to Thursdays.", "My yoga class is on Tuesdays.", None),
    ("My phone contract is with Three now.", "My phone is an iPhone 13.", None),
    ("Council tax went up to £160 a month.", "My rent is £900 a month.", None),
    ("The quarterly review moved to 14:00.", "Our standup is at 9:00.", None),
])
def test_the_thing_two_statements_share(new: str, held: str, thing: str | None) -> None:
    assert slots.anchor(new, held) == thing


def test_a_value_belongs_to_the_noun_whose_phrase_holds_it() -> None:
    assert slots.owners("I take the 8:05 bus to the office.") == {"bus"}
    assert slots.owners("My commute takes 40 minutes.") == set()
    assert slots.anchor("The office opens at 7:30 now.", "I take the 8:05 bus to the office.") \
        is None
    assert slots.anchor("I'm on the 7:50 bus now.", "I take the 8:05 bus to the office.") == "bus"


def test_hypotheticals_and_places() -> None:
    assert slots.hypothetical("If prices go up I might switch to Octopus.")
    assert not slots.hypothetical("I upgraded my plan to 30GB.")  # "plan to" is no plan
    assert slots.placed("These days I bank with Monzo.", "name")
    assert not slots.placed("Now I'm learning Italian.", "name")


@pytest.mark.parametrize(("old", "new", "verdict"), [
    # corrections the attribute list names no pattern for
    ("Our broadband provider is Virgin Media.", "We're with BT for broadband now.", SUPERSEDES),
    ("My energy supplier is Octopus.", "I switched my energy over to EDF.", SUPERSEDES),
    ("I bank with Barclays.", "These days I bank with Monzo.", SUPERSEDES),
    ("I take 50mg of sertraline a day.", "My doctor raised my sertraline to 100mg.",
     SUPERSEDES),
    ("I use Chrome on my laptop.", "I've switched to Firefox on the laptop.", SUPERSEDES),
    ("I drink oat milk in my coffee.", "I've swapped the oat milk for soya milk.", SUPERSEDES),
    ("I'm in the sales team.", "I moved from sales into the marketing team.", SUPERSEDES),
    ("My mum lives in Derby.", "Mum has moved to Nottingham.", SUPERSEDES),
    ("Our landlord is a man called Gareth Price.", "Our landlord is Homely Lettings now.",
     SUPERSEDES),
    ("Kofi studies at Durham.", "Kofi transferred to Newcastle last year.", SUPERSEDES),
    ("My insurance excess is £250.", "The renewal bumped my excess to £400.", SUPERSEDES),
    ("Ella's violin teacher is Mrs Okoro.", "Ella has a new violin teacher, Mr Bell.",
     SUPERSEDES),
    ("Our cleaner comes on Thursdays.", "We may ask the cleaner to come on Fridays instead.",
     NEW),
    ("I weigh 70 kg.", "I can lift 80 kg now.", NEW),
    ("I use Chrome on my laptop.", "My work laptop switched to Edge.", NEW),
    ("I take the 8:05 bus to the office.", "The office opens at 7:30 now.", NEW),
    ("My line manager is Kerry Walsh.", "I report to Dev Patel now.", SUPERSEDES),
    ("My office is in Canary Wharf.", "The office opens at 7:30 now.", NEW),
    # never across holders, things or types, never on a maybe
    ("My broadband provider is Sky.", "My neighbour switched to Virgin Media for broadband.",
     NEW),
    ("My energy supplier is British Gas.", "If the price goes up I might switch to Octopus.",
     NEW),
    ("My yoga class is on Tuesdays.", "My pottery class moved to Thursdays.", NEW),
    ("My phone is an iPhone 13.", "My phone contract is with Three.", NEW),
    ("I drive a Skoda Octavia.", "My bike is a Brompton.", NEW),
    ("I use Chrome on my laptop.", "I switched to a Dell laptop.", NEW),
    ("My partner works at Deloitte.", "My partner changed jobs in March.", NEW),
    ("My son goes to Oakfield Primary.", "His sister switched schools, she's at Riverside.",
     NEW),
])
def test_the_rule_with_slots(old: str, new: str, verdict: str) -> None:
    d = decide(new, [old])
    assert d.verdict == verdict or (verdict == NEW and d.verdict == RELATED), d


@pytest.mark.parametrize(("said", "want"), [
    ("My salary is £41,000.", "year"), ("I'm on 31k now.", "year"), ("It's 1.5k.", "year"),
    ("I get £19 an hour.", "hour"), ("I have 12345 stamps.", None)])
def test_period(said: str, want: str | None) -> None:
    assert slots.period(said) == want


def test_period_is_linear_on_a_long_number() -> None:
    # A sum is read from its first digit: 60,000 digits with no "k" after them were one try a
    # digit (quadratic: about 4 s for 10,000 digits).
    start = time.process_time()
    assert slots.period("My pay is " + "1" * 60_000 + " now.") is None
    assert time.process_time() - start < 1.0
