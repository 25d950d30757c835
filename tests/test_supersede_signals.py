"""Corrections decided by several weak signals that agree (`supersede._by_signals`,
`slots.topic`, `slots.fresh_type`), the near-misses each signal must refuse, and the shapes
the writer now files (`sentences.is_fact`). Pairs written for these rules, none copied from a
held-out set (`test_corrections_heldout.py`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memlane.step import slots
from memlane.step.heuristic import is_fact
from memlane.step.supersede import NEW, RELATED, SUPERSEDES, decide, read_claim

PEOPLE = frozenset("son daughter mother father sister brother".split())


@pytest.mark.parametrize(("old", "new", "whole"), [
    # an amount of the same thing, the thing said once as the subject
    ("Our council tax is £140 a month.", "Council tax has gone up to £152 a month.", ""),
    # the old value named again in a clause that says it ended
    ("I catch the 8:10 bus to college.", "I'm on the 7:55 now.",
     "They cancelled the 8:10, so I'm on the 7:55 now."),
    ("My glasses come from Specsavers.", "my glasses come from Vision Express now.",
     "Since Specsavers closed, my glasses come from Vision Express now."),
    # a product's tier: its name in both, another name moved to
    ("We're on the Disney Basic plan.", "We switched to Disney Premium.", ""),
    # one thing in other words (a family of words)
    ("I bank with Halifax.", "I moved my current account to Monzo.", ""),
    ("I'm a member at Gymbox.", "I train at The Gym Group now.", ""),
    # a relation's thing changed by the speaker is the relation's
    ("Our son's bedtime is 7:30.", "We've moved our son's bedtime to 8pm.", ""),
    # a value by its label ("row F" / "row K"), whoever moved the speaker there
    ("My seat at the theatre is in row D.", "The theatre moved me to row H this year.", ""),
    ("Our plot at the allotments is plot 8.", "The committee gave us plot 19 instead.", ""),
    # a reason clause is not what the fact is about
    ("I usually have dinner at 6:30.", "I have dinner at 7:15 these days because of the gym.",
     ""),
])
def test_signals_that_agree_supersede(old: str, new: str, whole: str) -> None:
    said = replace(read_claim(new), context=whole) if whole else read_claim(new)
    d = decide(said, [old])
    assert d.verdict == SUPERSEDES, (d, read_claim(old), said)
    assert d.reasons


@pytest.mark.parametrize(("old", "new", "whole"), [
    # two things of one noun (each with a modifier the other lacks), or of one subject
    ("My pilates class is at 6pm on Mondays.", "My Monday spin class moved to 7pm.", ""),
    ("My chess club meets on Tuesdays.", "My walking club meets on Thursdays now.", ""),
    ("Our gardener comes on Mondays.", "The window cleaner comes on Fridays now.", ""),
    ("Our cleaner comes on Mondays.", "The window cleaner comes on Fridays now.", ""),
    ("The kids' swimming lessons are on Sundays.",
     "The kids' guitar lessons moved to Sundays now.", ""),
    ("Our gas bill is £60 a month.", "Our water bill went up to £48 a month.", ""),
    ("My swim class is at 7pm.", "The pool's opening time moved to 6am.", ""),
    ("I catch the 8:10 bus to the office.", "The office opens at 8:00 now.", ""),
    ("Our water bill is £42 a month.", "Water prices nationally went up to £50 on average.", ""),
    # a name after another word: another role, not another provider
    ("I climb at The Arch.", "I climb with Coach Dana now.", ""),
    # a word that only qualifies one of them
    ("I work at Boots.", "My work phone switched to Vodafone.", ""),
    # the thing named as what changed itself, not replaced
    ("My vet is Dr Shah at Riverside Vets.", "Riverside Vets has moved to Canal Street now.", ""),
    # the old value kept, or each value a thing's of its own
    ("Our water bill is £42 a month.", "the council tax went up to £160 a month.",
     "Water is still £42 but the council tax went up to £160 a month."),
    ("I catch the 7:42 train to work.", "my boss moved my meeting to 10:15.",
     "The 7:42 was late so my boss moved my meeting to 10:15."),
    # a label of another thing, or a thing's own move
    ("I wear size 10 shoes.", "I've gone up to size 12 jeans now.", ""),
    ("My office is room 204.", "The meeting moved to room 310 now.", ""),
    ("I sit at desk 14.", "The printer moved to desk 20 now.", ""),
    ("Our allotment is plot 12.", "We also rent plot 14 now.", ""),
    # one-offs, maybes, additions, other holders
    ("I catch the 8:10 bus to college.", "The 8:10 was cancelled this morning so I got the 8:40.",
     ""),
    ("My home insurance is with Aviva.", "I might move to LV when it renews.", ""),
    ("Our dog walker is Sam.", "We've got a second walker, Priya, as well.", ""),
    ("I bank with Halifax.", "My husband moved his account to Monzo.", ""),
    # words of another family
    ("My ISA is with Halifax.", "My pension moved to Aviva last year.", ""),
])
def test_a_signal_that_does_not_agree_keeps_both(old: str, new: str, whole: str) -> None:
    said = replace(read_claim(new), context=whole) if whole else read_claim(new)
    d = decide(said, [old])
    assert d.verdict in (NEW, RELATED), (d, read_claim(old), said)


def test_only_one_held_fact_may_fit() -> None:
    """Two held facts of the holder fit every signal: neither is replaced."""
    new = "Water's gone up to £47 a month."
    held = ["Our water bill is £42 a month.", "Our water softener salt costs £8 a month."]
    assert decide(new, held[:1]).verdict == SUPERSEDES
    assert decide(new, held).verdict != SUPERSEDES


def test_the_readings_behind_the_signals() -> None:
    assert slots.fresh_type("Water's gone up to £47 a month.", "Our water bill is £42.") == "money"
    assert slots.fresh_type("I'm learning Italian on Duolingo.",
                            "I'm learning Spanish on Duolingo.") is None  # what is done
    assert slots.topic("Water's gone up to £47 a month.", "Our water bill is £42.") == "water"
    assert slots.topic("Our gas bill went up to £90.", "Our water bill is £42.") is None
    assert slots.two_subjects("My yoga class moved.", "My pottery class is on Mondays.")
    assert not slots.two_subjects("The standup got pushed.", "Our weekly standup is at 9.")
    assert slots.two_subjects("The window cleaner comes on Fridays.", "Our cleaner comes on "
                              "Tuesdays.", routine=True)
    assert not slots.two_subjects("His football training moved.", "My son's football "
                                  "training is on Tuesdays.", PEOPLE, routine=True)
    assert slots.same_place("I train at Anytime.", "I train at PureGym.", "name")
    assert not slots.same_place("I train with Coach Mike.", "I train at PureGym.", "name")
    assert slots.same_place("We switched to EDF.", "We're with Octopus.", "name")


@pytest.mark.parametrize(("sentence", "holder"), [
    ("Grandad's been moved to Hazel Court.", "grandfather"),
    ("My nan lives in Ripon.", "grandmother"),
    ("Gran turned 90 in May.", "grandmother"),
    ("We've pushed our daughter's bedtime back to 8pm.", "daughter"),
    ("I've moved my son's dentist appointment to Friday.", "son"),
])
def test_holders(sentence: str, holder: str) -> None:
    assert read_claim(sentence).holder == holder


def test_grandparents_are_two_people() -> None:
    held = ["My nan lives at Elm House care home."]
    assert decide("My grandad lives at Birch Court.", held).verdict == NEW


@pytest.mark.parametrize(("sentence", "fact"), [
    ("Dad's physio visits on Thursdays.", True),  # a routine day, no I/my
    ("The window cleaner comes on Fridays these days.", True),
    ("The optician switched me to daily lenses.", True),  # someone changed the speaker's
    ("The club moved me to block C this season.", True),
    ("Choir practice has moved online.", True),  # a routine thing's change
    ("Book club meets at 7 now.", True),
    ("The film moved me to tears.", False),  # no "to" a value: "moved me" is a feeling
    ("Painting has changed my life.", True),  # (the speaker's: "my")
    ("Send the photos on Monday.", False),  # an imperative stays a request
])
def test_filed_without_a_first_person_subject(sentence: str, fact: bool) -> None:
    assert is_fact(sentence) is fact


HELD = ["I live at 22 Rowan Drive.", "I work at Sainsbury's.", "I bank with Halifax.",
        "My gym is Gymbox.", "I catch the 8:10 bus to work.", "Our water bill is £38 a month.",
        "My son plays for Ashby Colts.", "My rent is £870 a month.",
        "I pay £25 a month for my phone.", "My seat at the theatre is in row D.",
        "Our bin collection is on Wednesdays.", "My daughter's bedtime is 7:30.",
        "I'm with Three for my mobile.", "My pilates class is at 7pm on Tuesdays.",
        "Our cleaner comes on Mondays."]


@pytest.mark.parametrize(("new", "target"), [
    ("Water's gone up to £41 a month.", 5),
    ("The rent went up to £910 a month.", 7),
    ("I moved my current account over to Monzo.", 2),
    ("I ported my number to EE.", 12),
    ("The theatre moved me to row H this year.", 9),
    ("The council moved bin day to Fridays.", 10),
    ("We've pushed our daughter's bedtime back to 8pm.", 11),
    ("The pilates class is at 7:30 now.", 13),
    ("The cleaner comes on Thursdays these days.", 14),
    ("We've moved round the corner to 9 Birch Lane.", 0),
    ("My phone bill went up to £28 a month.", 8),
    # near-misses: nothing of the namespace is replaced
    ("Our gas bill went up to £70 a month.", None),
    ("The council tax went up to £150 a month.", None),
    ("My spin class is at 6am now.", None),
    ("The window cleaner comes on Fridays now.", None),
    ("My brother moved to 4 Ash Close.", None),
    ("My son's friend joined Lutterworth Town.", None),
    ("The 8:10 was cancelled this morning so I got the 8:40.", None),
    ("I might switch to Monzo next year.", None),
    ("My partner moved her account to Starling.", None),
    ("The gym moved its opening time to 6am.", None),
    ("Sainsbury's moved my shifts to Mondays now.", None),
    ("Our recycling is collected on Fridays now.", None),
    ("My work phone is on Vodafone now.", None),
])
def test_in_a_namespace_of_many_facts_only_the_one_corrected_moves(new: str,
                                                                    target: int | None) -> None:
    d = decide(new, HELD)
    got = d.target if d.verdict == SUPERSEDES else None
    assert got == target, (d, HELD[got] if got is not None else None)
