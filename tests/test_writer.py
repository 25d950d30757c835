"""What the offline writer files: what a person would write down (`step/clauses.py`).

Sentences written for this: facts inside questions, remember-requests, plans with their place
and date, health and diet facts (kind `constraint`), fillers trimmed from the record while the
message keeps them, and one record per fact.
"""

from __future__ import annotations

from typing import Any

import pytest

from memlane.memory import Memory
from memlane.step.clauses import carry_holders, clauses, name_holder, split_clauses, trim
from memlane.step.heuristic import extract
from memlane.types import Message
from memlane.validate import RECORD_KINDS


def filed(text: str) -> list[tuple[str, str]]:
    m = Message(id=1, thread_id="t", seq=1, role="user", content=text, ts=0.0, tokens=9)
    return [(r["text"], r["kind"]) for r in extract([m])["records"]]


@pytest.mark.parametrize(("said", "records"), [
    ("Sold the Golf last week, got a bike now.",
     [("Sold the Golf last week, got a bike now.", "event")]),
    ("I'm vegetarian, so no meat please.", [("I'm vegetarian.", "constraint")]),
    ("She's a corgi called Biscuit, what toys suit her?",
     [("She's a corgi called Biscuit.", "fact")]),
    ("We're off to Lisbon on 3 May, can you suggest a few restaurants?",
     [("We're off to Lisbon on 3 May.", "fact")]),
    ("Please remember that my gate code is 4471.", [("My gate code is 4471.", "fact")]),
    ("Btw I get migraines if I skip coffee, just so you know.",
     [("I get migraines if I skip coffee.", "constraint")]),
    ("I'm allergic to sesame, by the way.", [("I'm allergic to sesame.", "constraint")]),
    ("I live in Leeds, so anything up north works for me.", [("I live in Leeds.", "profile")]),
    ("My brother is a pilot and my sister is a vet.",
     [("My brother is a pilot.", "profile"), ("My sister is a vet.", "profile")]),
    ("Our dog Rolo is a spaniel and he is 6 years old.",
     [("Our dog Rolo is a spaniel.", "fact"), ("Our dog Rolo is 6 years old.", "fact")]),
    ("I take metformin twice a day, keep that in mind.",
     [("I take metformin twice a day.", "constraint")]),
    ("Tell me a joke.", []),
])
def test_the_writer_files_what_a_person_would_write_down(said: str,
                                                         records: list[tuple[str, str]]) -> None:
    assert filed(said) == records


def test_trim_and_split_keep_a_sentence_they_cannot_improve() -> None:
    assert trim("I live in York.") == "I live in York."
    assert trim("What time is it?") == "What time is it?"  # nothing of a statement left
    assert split_clauses("I like tea and coffee.") == ["I like tea and coffee."]
    assert clauses("My sister lives in Bristol and I live in Leeds.") == [
        "My sister lives in Bristol.", "I live in Leeds."]
    assert "constraint" in RECORD_KINDS


def test_the_message_keeps_the_words_the_record_drops(store: Any) -> None:
    mem = Memory(store, "w")
    t = mem.thread("t")
    said = "I'm allergic to penicillin, by the way, please remember that."
    t.add("user", said)
    t.add("assistant", "Noted.")
    t.flush()
    (rec,) = mem.records()
    assert rec.text == "I'm allergic to penicillin." and rec.kind == "constraint"
    assert [m.content for m in mem.messages_by_id(rec.source_ids)] == [said]
    # found by a later request that never names it
    assert [h.record.id for h in mem.search("penicillin", 3)] == [rec.id]


@pytest.mark.parametrize(("asked", "stated"), [
    ("What snacks are safe on the plane, given that I'm allergic to peanuts?",
     ["I'm allergic to peanuts."]),
    ("Can you suggest a gift since my wife loves gardening?", ["My wife loves gardening."]),
    ("Which route is best, considering that we live near the station?",
     ["We live near the station."]),
    ("What should I cook tonight?", ["What should I cook tonight?"]),  # no statement: as is
    ("Why is the sky blue, since it is night?", ["Why is the sky blue, since it is night?"]),
])
def test_a_question_gives_the_statement_it_rests_on(asked: str, stated: list[str]) -> None:
    assert clauses(asked) == stated


@pytest.mark.parametrize(("said", "records"), [
    # "it" after a thing said to have ended is the situation, not the thing
    ("My bike got nicked outside Tesco on Saturday so it's the train for me until I sort a new "
     "one.", ["My bike got nicked outside Tesco on Saturday.",
              "It's the train for me until I sort a new one."]),
    ("My laptop died so it's the old iPad for now.",
     ["My laptop died.", "It's the old iPad for now."]),
    ("Our boiler packed in and it's cold showers all week.",
     ["Our boiler packed in.", "It's cold showers all week."]),
    # a person after an event still holds the next clause
    ("My dog Max had surgery, he's recovering well.",
     ["My dog Max had surgery.", "My dog Max is recovering well."]),
])
def test_a_clause_never_says_an_ended_thing_is_what_replaced_it(said: str,
                                                                 records: list[str]) -> None:
    assert clauses(said) == records


@pytest.mark.parametrize(("said", "records"), [
    # a second person named: "she" may be either, so the clause keeps its pronoun
    ("My boss hired Sarah and she's great.", ["My boss hired Sarah.", "She's great."]),
    ("My mum visited my gran, she's 90 now.", ["My mum visited my gran.", "She's 90 now."]),
    ("My partner met my sister, she's lovely.", ["My partner met my sister.", "She's lovely."]),
    ("My wife works with Priya and she's pregnant.",
     ["My wife works with Priya.", "She's pregnant."]),
    # ... unless only one of them can be "she"
    ("My brother married Anna, she is a doctor.",
     ["My brother married Anna.", "Anna is a doctor."]),
    # a place or a name the holder is called by is no second person
    ("Dave moved to Leeds, he's at Aldi now.", ["Dave moved to Leeds.", "Dave is at Aldi now."]),
    ("My husband got a job with Network Rail, he started last Monday.",
     ["My husband got a job with Network Rail.", "My husband started last Monday."]),
    ("My cat is called Pumpernickel and she is 14 years old.",
     ["My cat is called Pumpernickel.", "My cat is 14 years old."]),
])
def test_a_pronoun_is_not_carried_to_one_of_two_people(said: str, records: list[str]) -> None:
    assert clauses(said) == records


@pytest.mark.parametrize(("said", "records"), [
    # "it" is never a person
    ("My son has a cold and it's going round.", ["My son has a cold.", "It's going round."]),
    ("My sister is pregnant and it's due in May.", ["My sister is pregnant.", "It's due in May."]),
    # nor a thing the clause before names another thing beside ("its MOT", "a mouse")
    ("My car failed its MOT, so it's the bus for now.",
     ["My car failed its MOT.", "It's the bus for now."]),
    ("My cat caught a mouse and it's dead now.", ["My cat caught a mouse.", "It's dead now."]),
    # nor the weather, the time or the situation
    ("My car is old and it's raining.", ["My car is old.", "It's raining."]),
    ("My knee is sore and it's been three weeks.",
     ["My knee is sore.", "It's been three weeks."]),
    ("My phone is dead, so it's the landline for now.",
     ["My phone is dead.", "It's the landline for now."]),
    ("My commute is long so it's an early start every day.",
     ["My commute is long.", "It's an early start every day."]),
    # a thing alone in the clause before still holds the next
    ("My flat is tiny and it's damp.", ["My flat is tiny.", "My flat is damp."]),
    ("My car is fine and it's 10 years old.", ["My car is fine.", "My car is 10 years old."]),
])
def test_it_is_carried_only_to_a_thing_it_can_only_be(said: str, records: list[str]) -> None:
    assert clauses(said) == records


def test_a_carried_holder_keeps_the_tense_the_user_said() -> None:
    # "he's shot up": has shot up, not "is shot up"
    assert clauses("My son is 12 and he's shot up this year.") == [
        "My son is 12.", "My son has shot up this year."]
    assert clauses("My brother moved to Leeds, he's left his job.")[1] == \
        "My brother has left his job."
    assert carry_holders(["My son is 12.", "He's grown 10 cm."])[1] == "My son has grown 10 cm."


def test_a_holder_is_not_carried_across_sentences_to_one_of_two_people() -> None:
    assert carry_holders(["My boss hired Sarah.", "She's great."]) == [
        "My boss hired Sarah.", "She's great."]
    assert carry_holders(["Dave changed jobs.", "He's at Screwfix now."])[1] == \
        "Dave is at Screwfix now."
    assert name_holder("She works at PwC now.", "My partner works with my sister.") == \
        "She works at PwC now."
    assert name_holder("She works at PwC now.", "My partner works at Deloitte.") == \
        "My partner works at PwC now."


def test_a_carried_holder_is_the_whole_of_whom_the_user_named() -> None:
    # "my brother-in-law Declan" is not "my brother"
    assert clauses("My brother-in-law Declan has just been taken on as a paramedic, he starts "
                   "next month.")[-1] == "My brother-in-law Declan starts next month."
    # "it's been chaos" is the week, not the dog (filed "Our spaniel Bramble has been chaos.")
    assert clauses("Our spaniel Bramble had to have an op on her leg yesterday and it's been "
                   "chaos.")[-1] == "It's been chaos."
