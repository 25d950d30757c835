"""A thing told by its number, a dose, a count or an age, read by the value's shape
(`step/numbered.py`): another number of the same label, drug or thing, or an older age of the
same holder, replaces the held one; another label, drug or holder, a one-off, a plan not yet
true, a maybe, a question, an addition, or a number inside a date, a time or a price replaces
nothing. Pairs written for this class, none copied from a held-out set."""

from __future__ import annotations

import pytest

from memlane.step.heuristic import extract
from memlane.step.numbered import ages, doses, labelled
from memlane.step.related import related_query
from memlane.step.supersede import RELATED, SUPERSEDES, decide
from memlane.types import Message
from supersede_verdicts import message_verdicts as _verdicts

LABELS = [
    (["My locker at the leisure centre is number 12."],
     "They moved me to locker 40 when they redid the changing rooms."),
    (["I sit at desk 9."], "I'm on desk 17 these days."),
    (["My season ticket seat is 214."], "The club moved my seat to 230."),
    (["The gate code for the allotments is 1905."], "The committee changed the gate code to 2210."),
    (["I usually get the number 9 bus to work."], "They cut the 9, so I get the 14 now."),
    (["My shoe size is 6."], "I've gone up to a size 7 shoe."),
    (["I park in bay 40 at the depot."], "Got moved to bay 12 at the depot."),
    (["I catch the 31 to college."], "The 31 doesn't run anymore, I take the 33 instead."),
]
DOSES = [
    (["I take 10mg of ramipril."], "The consultant put my ramipril up to 15mg."),
    (["I take 40mg of simvastatin at night."], "Dr Okafor halved my simvastatin, 20mg now."),
    (["I'm on 200mg of lamotrigine."], "Neurologist put me up to 250mg of lamotrigine."),
    (["I use two puffs of Ventolin twice a day."], "The nurse cut my Ventolin to one puff."),
    (["My daughter takes 5ml of Calpol at bedtime."], "My daughter is on 7.5ml of Calpol now."),
    (["I'm on 100mcg of levothyroxine."], "They've reduced my levothyroxine to 75mcg."),
]
COUNTS = [
    (["I work 3 days a week at the bakery."], "It's 4 days a week at the bakery now."),
    (["There are 24 children in Leo's class."], "Leo's class is up to 27 children now."),
]
AGES = [
    (["My grandad is 89."], "Grandad turned 90 on Friday!"),
    (["Our dog Bramble is 4."], "Bramble had his fifth birthday last week."),
    (["My nephew Oscar is 7."], "Oscar's 8 now."),
    (["My wife is 38."], "My wife was 39 yesterday, we went out for dinner."),
    (["Our cat Mittens is twelve."], "Mittens is 13 now, still going strong."),
    (["My niece is 2."], "She had her third birthday at soft play."),
    (["I'm 49."], "Just had my 50th, the kids threw a party."),
    (["Our parrot Kiwi is 22."], "Kiwi turned 23 over the summer."),
]
NEAR_MISSES = [
    # the lead's review (test_same_facts / test_runner found them): someone else's locker by a
    # possessive, a number naming which locker the sentence is about
    (["My locker at the pool is number 120."], "Ann4's locker number is 37."),
    (["Ann4's locker number is 28."], "Ann5's locker number is 37."),
    (["My locker number 0 is 4400."], "My locker number 1 is 4401."),
    # another label, another drug
    (["My locker at the pool is number 12."], "My seat on the train is 45."),
    (["The door code at work is 1234."], "The alarm code at home is 5678."),
    (["I take 50mg of sertraline."], "I take 100mg of gabapentin for my back."),
    (["I take 50mg of sertraline."], "I take 10mg of propranolol with my sertraline now."),
    (["I wear size 10 shoes."], "I'm a size 12 in jeans these days."),
    # another holder
    (["My son is 9."], "My nephew turned 10 yesterday."),
    (["I sit at desk 9."], "My colleague Dan is at desk 12 now."),
    (["My daughter Isla is 6."], "Her friend Ruby had her seventh birthday on Sunday."),
    (["I'm 49."], "My brother just had his 50th."),
    (["Our parrot Kiwi is 22.", "My uncle Ted is 70."], "Ted turned 23 in his head, bless him."),
    (["I'm on 200mg of lamotrigine."], "Neurologist put my wife up to 250mg of lamotrigine."),
    (["My daughter Ava is 4.", "My niece is 3."], "She had her fifth birthday on Sunday."),
    (["I take 40mg of simvastatin."], "My husband takes 20mg of simvastatin."),
    # a one-off
    (["I take 20mg of omeprazole."], "I took 40mg of omeprazole today because of the heartburn."),
    (["I sit at desk 9."], "I'm at desk 30 today while they fix the lights."),
    # not yet true
    (["My daughter is 7."], "She'll be 8 next month."),
    (["I take 20mg of fluoxetine."], "My fluoxetine is going up to 40mg in June."),
    (["My son Finn is 12."], "Finn is thirteen next week."),
    (["My son Finn is 12."], "Finn turns 13 on Friday."),
    # a past age, a younger one, a place's own number, another of a label
    (["My son is 9."], "My son was 6 when we got the dog."),
    (["My son is 9."], "My son is 8 in this photo."),
    (["I do 16 hours a week at the pharmacy."], "The pharmacy is open 60 hours a week now."),
    (["I park in bay 5."], "Bay 6 next to mine is free now."),
    (["I park in bay 5."], "Bay 6 is free now."),
    (["My locker is 31."], "I'm 32 now, can you believe it."),
    (["I visited the museum number 4 in the old town."], "I visited the museum number 5 too."),
    (["I went to the gallery number 2."], "I went to the gallery number 3 after lunch."),
    (["We stayed in room 12 in Rome."], "We stayed in room 40 in Venice."),
    # a maybe, a question, the past
    (["I'm on locker 12 at the gym."], "I might ask for locker 40 at the gym."),
    (["I get the 42 bus into town."], "Does the 17 go into town?"),
    (["I'm in room 14 at work."], "I used to be in room 9 at work."),
    # an addition
    (["Our allotment is plot 7."], "We got a second plot, number 21."),
    (["I take 50mg of sertraline."], "I also take 10mg of propranolol."),
    # a number inside a date, a time or a price
    (["My locker at the gym is number 12."], "The gym is shut on the 14th for a deep clean."),
    (["I get the 42 bus into town."], "The 42 costs £2.50 now."),
    (["My flat is number 4."], "The plumber's coming at 4:30 on the 12th."),
    # two held facts fit: both kept
    (["My locker at the pool is number 12.", "My locker at work is number 30."],
     "They gave me locker 41."),
]


@pytest.mark.parametrize(("held", "new"), LABELS + DOSES + COUNTS + AGES)
def test_another_number_of_the_same_thing_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES and h == held[0] for v, h in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["The door code at work is 4471."], "Facilities changed the door code to 9032."),
    (["My mum is 67."], "Mum was 68 on Tuesday."),
    (["I take 10mg of ramipril."], "My ramipril's gone up to 15mg."),
])
def test_a_replace_the_rule_makes_is_not_refused_when_vetted(held: list[str], new: str) -> None:
    """The writer's replace is vetted again on the texts alone (`step/apply.py`): the rule's
    own reading stands there too."""
    assert decide(new, held, claimed=0).verdict == SUPERSEDES


@pytest.mark.parametrize(("held", "new"), [
    (["My son is 9."], "My nephew turned 10 yesterday."),
    (["My son Finn is 12."], "Finn turns 13 on Friday."),
    (["I take 20mg of fluoxetine."], "My fluoxetine is going up to 40mg in June."),
    (["I'm on 200mg of lamotrigine."], "Neurologist put my wife up to 250mg of lamotrigine."),
])
def test_a_model_replace_of_another_holder_or_not_yet_true_is_refused(held: list[str],
                                                                       new: str) -> None:
    """A model step's "this replaces #N" is vetted by the same rule: refused (both kept)."""
    assert decide(new, held, claimed=0).verdict == RELATED


def test_the_values_read() -> None:
    none: frozenset[str] = frozenset()
    assert labelled("My locker at the pool is number 31.") == {"locker": {(none, "31")}}
    assert labelled("Facilities changed the door code to 9032.") == \
        {"code": {(frozenset({"door"}), "9032")}}
    assert labelled("I get the 42 bus into town.") == {"route": {(none, "42")}}
    assert labelled("The train leaves at 7:15 from platform 4.") == {"platform": {(none, "4")}}
    assert labelled("I'm a size 12 in jeans.") == {"size": {(frozenset({"jean"}), "12")}}
    assert labelled("I wear size 10 shoes.") == {"size": {(frozenset({"sho"}), "10")}}
    assert labelled("My locker number is 31.") == {"locker": {(none, "31")}}
    assert doses("The GP cut my omeprazole to 10mg.") == {("omeprazole", "mg", "10")}
    assert doses("I take two puffs of Clenil.") == {("clenil", "puff", "2")}
    assert ages("Jamie's 12 now.") == {12}
    assert ages("Poppy had her seventh birthday on Saturday.") == {7}
    assert ages("She's 5 minutes away.") == set()
    assert ages("I'm 34.") == {34}


def test_a_count_in_words_and_a_named_birthday_are_filed() -> None:
    """"It's four days in the office now" (a count in words, no digit) and "Biscuit had her
    tenth birthday" (an ordinal) are facts the offline writer files."""
    for said in ("It's four days in the office now, new policy from head office.",
                 "Biscuit had her tenth birthday yesterday."):
        out = extract([Message(id=1, thread_id="t", seq=1, role="user", content=said, ts=0.0,
                               tokens=12)])
        assert [op["text"] for op in out["records"] if op["op"] == "add"], said


def test_an_age_by_an_ordinal_searches_for_the_age_before_it() -> None:
    """"Just had my 50th" shares no word with "I'm 49": the search for the held facts a step
    is shown asks for the ages before it."""
    assert "49" in related_query(["Just had my 50th."]).split()
    assert "nine" in related_query(["Biscuit had her tenth birthday."]).split()
