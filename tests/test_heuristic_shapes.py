"""Facts about the user's people and things said without "I" or "my" as the subject
(`step/shapes.py`), and what must still not be filed: pairs written for each rule.

Each case is one user message filed by the offline writer (`extract`, the function every
heuristic step runs); a fact counts as filed when a record holds its key word.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from memlane.memory import Memory
from memlane.step.clauses import clauses
from memlane.step.heuristic import extract
from memlane.step.sentences import is_fact, is_request
from memlane.step.shapes import appositive, is_fragment, owned_named
from memlane.types import Message


def _records(text: str, name: str | None = None) -> list[str]:
    m = Message(id=1, thread_id="t", seq=1, role="user", content=text, ts=0.0, tokens=12,
                name=name)
    return [r["text"] for r in extract([m])["records"]]


def _filed(text: str, key: str) -> bool:
    return any(key.lower() in r.lower() for r in _records(text))


# (message, the key word a record must hold) per shape; then messages that must file nothing.
FILED = {
    "appositive": [
        ("Marek, the man who runs our allotment society, finally sorted the water butts.",
         "allotment society"),
        ("Priyanka, my youngest, wants to be a vet.", "vet"),
        ("Bill's wife, a retired midwife, moved into the flat below.", "midwife"),
        ("Hugo, the electrician, says the fuse box is from 1987.", "electrician"),
    ],
    "who was": [
        ("The surgeon who did my knee was Mr Achebe.", "Achebe"),
        ("Yeah the woman who sold us the house was my old teacher.", "old teacher"),
        ("The plumber we always use is Kev Daly.", "Kev Daly"),
    ],
    "thing named": [
        ("The rabbit is called Sprout.", "Sprout"),
        ("The boat's name is Saltwind, she sleeps four.", "Saltwind"),
        ("The rug came from a market stall in Fez run by a man named Idris.", "Idris"),
    ],
    "the relation": [
        ("The twins go to Harewood Nursery now.", "Harewood"),
        ("The dog is 11, so no long walks.", "11"),
    ],
    "named person": [
        ("Ines from next door is moving to Porto in March.", "Porto"),
        ("Dev got a place at Imperial.", "Imperial"),
        ("Ruth wants to retire to Anglesey.", "Anglesey"),
        ("Tariq has switched from violin to cello.", "cello"),
    ],
    "given me": [
        ("The school gave us a Chromebook for Aisha.", "Chromebook"),
        ("The clinic put me on ramipril last week.", "ramipril"),
    ],
    "speaker topic": [
        ("Me, I've been teetotal for six years.", "teetotal"),
        ("As for me, the hospital moved me to nights.", "nights"),
    ],
    "a thing of mine named": [
        ("The watch was my grandfather's, an Omega from 1962.", "Omega"),
    ],
    "in a question": [
        ("Which tyres suit my Kia Niro?", "Kia Niro"),
        ("My ISA is about 20k, is that too much in cash?", "20k"),
    ],
    "name's": [  # "'s" after a name is "is": no imperative verb
        ("Evie's 13 now, a proper teenager.", "13"),
        ("Rafa's at Screwfix these days.", "Screwfix"),
        ("Bruno's on Royal Canin now, the vet recommended it.", "Royal Canin"),
    ],
    "a named person's milestone": [
        ("Noor passed her theory test at the second attempt.", "theory test"),
        ("Kwame graduated last summer, first in the family to.", "graduated"),
        ("Grandad traded the caravan in for a little motorhome.", "motorhome"),
    ],
    "a clause chain": [
        ("The Fiesta died on the M6 so in the end I sold it and bought a Yaris.", "Yaris"),
        ("The landlord kept putting the rent up so we moved to Hebden Bridge.", "Hebden"),
    ],
    "their thing named": [
        ("The twins' nursery is Little Acorns, two streets away.", "Little Acorns"),
        ("Our son's football coach is Mr Baptiste.", "Baptiste"),
    ],
    "sent me": [
        ("The agency's posting me to Aberdeen from April.", "Aberdeen"),
        ("Head office are relocating us to Swindon next year.", "Swindon"),
    ],
    "a connective first": [  # no command: "Meanwhile" is no verb
        ("Meanwhile my car's failed its MOT on the brakes.", "MOT"),
        ("Plus our landlord is selling the flat in June.", "June"),
    ],
    "kin by a bare family word, then a pronoun": [
        ("Spent the day at A&E with Gran, she's had a bad fall but she's home now.", "fall"),
        ("Grandpa has Alzheimer's, so visits are hard.", "Alzheimer"),
    ],
    "a question after a statement": [
        ("I'm on warfarin, is ibuprofen okay?", "warfarin"),
        ("The van's insurance renews on 3 June, remind me a week before?", "3 June"),
    ],
    "a name's change": [
        ("Wifey's just been made a partner at the firm, so we're celebrating.", "partner"),
        ("Aisha's off to Durham to do medicine in October.", "Durham"),
    ],
    "because": [
        ("Because my husband works Sundays, we eat out on Saturdays.", "husband works Sundays"),
    ],
}

NOT_FILED = [
    "My husband.",  # an answer, no verb
    "For the slow reply.",
    "My bad.",
    "The blue one.",
    "Caroline, my dear, you are amazing.",  # the listener addressed
    "Jon, my friend, you should totally go for it!",
    "The weather has been lovely this week.",
    "The guy at the counter was really rude.",
    "The best part was seeing everyone again.",
    "Which tyres are best for winter?",  # a question of no one's thing
    "What should I get my Mum?",
    "How do I fix my Python code?",
    "Emma, the one with the red coat, what did she say?",
    "Thanks, that sounds lovely.",
    "Mike's a legend.",  # a name's "'s": no fact without a specific
    "The match was tense and we were all shouting at the telly.",  # a chain, nothing specific
]


@pytest.mark.parametrize("shape", sorted(FILED))
def test_each_shape_files_its_fact(shape: str) -> None:
    for text, key in FILED[shape]:
        assert _filed(text, key), (text, _records(text))


@pytest.mark.parametrize("text", NOT_FILED)
def test_fragments_small_talk_and_the_listener_file_nothing(text: str) -> None:
    assert _records(text) == [], text


def test_an_appositive_is_two_facts_each_about_the_person() -> None:
    assert appositive("Nadia, the woman who runs the café, teaches yoga in Frome.") == [
        "Nadia is the woman who runs the café.", "Nadia teaches yoga in Frome."]
    # someone of the speaker's by a relation: one record, held by the name ("Nadia is my
    # sister-in-law" would say who the speaker's sister-in-law is, and another would replace it)
    assert appositive("Nadia, my sister-in-law, teaches yoga in Frome.") == [
        "Nadia, my sister-in-law, teaches yoga in Frome."]
    assert appositive("Colin, my good man, you are a star.") is None  # a vocative
    assert appositive("Sunday, the day after the party, was quiet.") is None  # no one's name
    assert clauses("Oh, Femi, the lad from the bike shop, fixed my gears.") == [
        "Femi is the lad from the bike shop.", "Femi fixed my gears."]
    assert not is_request("Priyanka, my youngest, wants to be a vet.")


def test_a_participants_name_is_no_holder() -> None:
    # "Jon" is the listener: "Jon, my man, ..." addresses him, his name is no fact's holder.
    assert _records("Jon, my man, keeps me going with his Art.", name=None) == []
    assert not is_fact("Jon is the guy who runs the studio.", frozenset({"jon"}))
    assert is_fact("Jon is the guy who runs the studio.")


def test_fragments_are_pieces_without_a_verb() -> None:
    for s in ("My husband.", "For the slow reply.", "The red one!", "My kids."):
        assert is_fragment(s), s
    for s in ("My husband cooks.", "My PIN: 4471.", "The kids are 4 and 7.", "I'm vegan.",
              "My code is 2231."):
        assert not is_fragment(s), s
    # an agreement's clauses are kept for its kind, never the apology before it
    assert _records("Sorry for the slow reply, we've decided to go with the oak table.") == [
        "We've decided to go with the oak table."]


def test_two_people_of_one_relation_named_apart_are_both_kept(store: Any) -> None:
    """Named by a relation in an appositive, an introduction or a question, each person is
    their own record: a second neighbour or sister never replaces the first."""
    pairs = [("Dorothy, my neighbour, waters the plants.", "Bill, my neighbour, has a new car."),
             ("What should I get my sister Ana for her birthday?",
              "Can my sister Beth stay over on a school night?"),
             ("We went to the shelter - meet Rex, my dog.", "Oh and meet Lola, my dog.")]
    for i, (first, second) in enumerate(pairs):
        mem = Memory(store, f"two-{i}")
        t = mem.thread("t")
        for text in (first, second):
            t.add("user", text)
            t.add("assistant", "Lovely.")
            t.maybe_step()
        t.flush()
        texts = " | ".join(r.text for r in mem.records())
        for name in re.findall(r"Dorothy|Bill|Ana|Beth|Rex|Lola", first + " " + second):
            assert name in texts, (name, texts)


def test_a_thing_owned_by_its_name_inside_a_question() -> None:
    assert owned_named("Any case that fits my Pixel 8?") == "I have a Pixel 8."
    assert owned_named("Is my Oyster card valid on trams?") is None  # "Oyster card": no name
    assert owned_named("What can I cook for my Dad?") is None
    assert owned_named("How do I stop my Mac from sleeping?") == "I have a Mac."
    assert owned_named("Should I tell my landlord, Mr Hughes, about the leak?") == \
        "Mr Hughes, my landlord."


def test_talk_that_names_nothing_files_nothing_a_fact_beside_it_does() -> None:
    """A promise or a wish with no thing of its own, a passing state or an opinion about the
    world are talk; the same frames holding a fact of the speaker's are not."""
    talk = ["I'll see how it goes.",
            "I'll definitely check it out at some point.",
            "I'll let you know how it all goes!",
            "Honestly I'm shattered today.",
            "I reckon the traffic will be bad tomorrow.",
            "We can all make a difference together!",
            "We'll definitely check it out at some point.",
            "I totally agree, Priya.",
            "Yeah, I remember you mentioning the roadworks.",
            "I'd love to see a photo!"]
    for text in talk:
        assert _records(text) == [], text
    facts = [("I'll keep you posted about the flat in Hove.", "Hove"),
             ("I reckon we're moving to Stroud next spring.", "Stroud"),
             ("I'm going to try the 6 a.m. spin class.", "spin"),
             ("I'm shattered, the twins were up at 4.", "twins"),
             ("I remember my first car was a Fiat Panda.", "Fiat Panda"),
             ("I'd love to retire to Tenby one day.", "Tenby")]
    for text, key in facts:
        assert _filed(text, key), (text, _records(text))
    # a participant's name is no specific: "..., John" still names nothing
    m = Message(id=1, thread_id="t", seq=1, role="user", content="I'll let you know, Maya!",
                ts=0.0, tokens=6, name="Ravi")
    assert extract([m], include_assistant=False)["records"] == [] or \
        not is_fact("I'll let you know, Maya!", frozenset({"maya", "ravi"}))
