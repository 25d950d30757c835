"""Facts about the user's people said in shapes the offline writer missed (issue 41): a name or
a relation with two verbs joined by "and", advice reported about someone, something an
organisation did to the speaker, a leading "Since ..." clause, a health fact of someone's, the
speaker's age inside a question, a second clause after "so"; and what must still not be filed.

Each case is one user message (or a message after an earlier one) filed by the offline writer
(`extract`); a fact counts as filed when a record holds its key word.
"""

from __future__ import annotations

import pytest

from memlane.step.clauses import clauses
from memlane.step.heuristic import extract
from memlane.step.shapes import age_asked, kin_fact
from memlane.types import Message


def _records(*texts: str) -> list[str]:
    msgs = [Message(id=i, thread_id="t", seq=i, role="user", content=t, ts=0.0, tokens=12)
            for i, t in enumerate(texts, start=1)]
    return [r["text"] for r in extract(msgs)["records"]]


# (messages, the key word a record must hold): the last message states the fact.
FILED = [
    (("Priya left the bank and she's training to be a paramedic.",), "paramedic"),
    (("Grandad sold the caravan and bought a narrowboat.",), "narrowboat"),
    (("Gran gave up driving and moved into sheltered housing in Ely.",), "Ely"),
    (("Dad retired in June and took up bowls.",), "bowls"),
    (("The vet said Pepper needs to lose a kilo, so she's on diet food now.",), "Pepper"),
    (("The doctor told Dad to cut out salt completely.",), "salt"),
    (("The practice registered me with a new dentist, Mr Osei.",), "Osei"),
    (("The agency has put me with a new carer called Marta.",), "Marta"),
    (("Since the divorce I've been renting a flat in Hove.",), "Hove"),
    (("Since the op on my hip I can't kneel.",), "kneel"),
    (("My cousin Will is a chef.", "Will cooks at a Thai place in Bath."), "Bath"),
    (("Is 44 too old to go back to uni? Asking for myself.",), "44"),
    (("Dad's got shingles.",), "shingles"),
    (("Ugh, Zara's got glandular fever so I'm working from home.",), "glandular fever"),
    (("The eldest is allergic to kiwi.",), "kiwi"),
    (("Kofi changed jobs, so he's not at the depot anymore.",), "depot"),
]

NOT_FILED = [
    "The vet said it was nothing to worry about.",  # others' opinions, no fact of anyone's
    "Mum said the film was rubbish.",
    "Dad thinks the new manager is useless.",
    "He laughed and walked off.",
    "The weather turned and it rained all day.",
    "Since when is it this cold?",  # questions
    "Is it too late to call?",
    "Is that too much?",
    "Is it normal for cats to sleep so much?",
    "Since you asked, fine.",  # small talk, fragments
    "So that's that.",
    "Since then, nothing much.",
    "Olly's got a point.",
    "That's got to hurt.",
    "Lovely to hear from you!",
    "The doctor said to rest, so that's what you should do.",  # said to the listener
]


@pytest.mark.parametrize(("texts", "key"), FILED)
def test_each_shape_files_its_fact(texts: tuple[str, ...], key: str) -> None:
    records = _records(*texts)
    assert any(key.lower() in r.lower() for r in records), (texts, records)


@pytest.mark.parametrize("text", NOT_FILED)
def test_small_talk_questions_and_opinions_file_nothing(text: str) -> None:
    assert _records(text) == [], text


# Found by correction checks written by others, then shapes of the same classes.
MORE_FILED = [
    (("Mum's on a waiting list for a hip replacement at St Richard's.",), "hip replacement"),
    (("Since The Crown closed, book club meets at the library.",), "library"),
    (("Since the Tuesday group folded, choir is at the church hall.",), "church hall"),
    (("Jess has packed it in, so Ollie walks the dog now.",), "Ollie"),
    (("She left the bakery, so she's not at Greggs anymore.",), "Greggs"),
    (("He's no longer at the council.",), "council"),
    (("Pottery class has moved to the village hall.",), "village hall"),
    (("The vet put Bramble on a grain-free diet, so she's on Lily's Kitchen now.",), "Lily"),
]

MORE_NOT_FILED = [
    "Mum's in a mood today.",
    "Dad's got a point there.",
    "Mum's got to be joking.",
    "Dad's on his way.",
    "He's not in the mood anymore.",
    "He's no longer in a hurry.",
    "The vet says he's fine.",
    "The doctor said Mum is doing well.",
    "Is it too old to be worth fixing?",
    "Will this work?",
    "Netflix has changed everything.",
]


@pytest.mark.parametrize(("texts", "key"), MORE_FILED)
def test_more_shapes_file_their_fact(texts: tuple[str, ...], key: str) -> None:
    records = _records(*texts)
    assert any(key.lower() in r.lower() for r in records), (texts, records)


@pytest.mark.parametrize("text", MORE_NOT_FILED)
def test_moods_whereabouts_and_reassurance_file_nothing(text: str) -> None:
    assert _records(text) == [], text


def test_the_readings_behind_the_records() -> None:
    # the asker's age, only from a question about being too old
    assert age_asked("Is 38 too old to retrain as a nurse?") == "I'm 38."
    assert age_asked("Am I too old at 52 to start running?") == "I'm 52."
    assert age_asked("Is 38 a good age for a first marathon?") is None
    assert clauses("Is 41 too late to learn to swim?") == ["I'm 41."]
    # a family word said bare, or a child's rank, and what changed or what they have
    assert kin_fact("Grandad sold the caravan and bought a narrowboat.")
    assert kin_fact("The youngest is allergic to kiwi.")
    assert kin_fact("Olly's got chickenpox.")
    assert not kin_fact("Olly's got a point.")
    assert not kin_fact("Dad laughed and walked off.")
    # a professional's advice about someone named, never about "it"
    assert kin_fact("The vet said Miso should have wet food.")
    assert not kin_fact("The vet said it was nothing.")


def _chat(*turns: tuple[str, str | None, str]) -> list[str]:
    msgs = [Message(id=i, thread_id="t", seq=i, role=role, name=name, content=text, ts=0.0,
                    tokens=12) for i, (role, name, text) in enumerate(turns, start=1)]
    return [r["text"] for r in extract(msgs)["records"]]


def test_his_or_her_opening_a_message_is_the_person_the_users_last_message_named() -> None:
    # with the assistant's reply between: Declan's girlfriend, filed as his
    assert "My friend Declan's girlfriend Sinead is a vet." in _chat(
        ("user", None, "My friend Declan is a roofer."), ("assistant", None, "Nice!"),
        ("user", None, "His girlfriend Sinead is a vet."))
    # "her" cannot be Declan's
    assert not any("Declan's" in r for r in _chat(
        ("user", None, "My friend Declan is a roofer."), ("assistant", None, "Nice!"),
        ("user", None, "Her bakery in Cobh is doing well.")))
    # another speaker's turn between: not carried (a LoCoMo-like talk between two people)
    assert not any("Declan's" in r for r in _chat(
        ("user", "Ana", "My friend Declan is a roofer."), ("user", "Bo", "Cool."),
        ("user", "Ana", "His girlfriend Sinead is a vet.")))
