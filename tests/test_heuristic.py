"""The offline memory step's records, tried as a new user would: conversations written for it.

Repeated requests, an abbreviation ("Dr. Okafor"), decimals and a correction go through
`Thread.maybe_step` on a real store (SQLite and PostgreSQL), as an agent files them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlane.memory import Memory
from memlane.step.heuristic import (
    extract,
    is_fact,
    is_request,
    split_sentences,
)
from memlane.step.lines import episode_line
from memlane.step.schema import EPISODE_MAX_WORDS
from memlane.text import fact_terms
from memlane.types import Message

REPLY = "Sure, happy to help with that."
DATA = Path(__file__).parent / "data" / "fact_conversations.jsonl"

CONVERSATION = [
    # stretch 1 (the default cadence files every 4 user turns)
    "Tell me more about planning a relaxed day in Lisbon.",
    "I have a dentist appointment with Dr. Okafor on 12 May at 9:30.",
    "My new job as a data analyst starts on 15 September.",
    "The rent went up to 1,250.50 euros and the deposit is 2.5 months.",
    # stretch 2: the same request again, the same fact again, a question
    "Tell me more about planning a relaxed day in Lisbon.",
    "Can you suggest a quiet cafe near the river?",
    "I have a dentist appointment with Dr. Okafor on 12 May at 9:30.",
    "What time does the museum open on Sundays?",
    # stretch 3: a correction of the start date, and the request once more
    "Actually, correction: my new job as a data analyst moved to 1 October.",
    "Please tell me more about planning a relaxed day in Lisbon.",
    "I work as a night-shift nurse at St. Mary's, e.g. on weekends.",
    "Thanks!",
]


@pytest.fixture()
def filed(store: Any) -> tuple[Memory, list[Any]]:
    mem = Memory(store, "user-1")
    t = mem.thread("t")
    results = []
    for text in CONVERSATION:
        t.add("user", text)
        t.add("assistant", REPLY)
        results.extend(t.maybe_step())
    results.extend(t.flush())  # the conversation ends: its last turns are filed too
    return mem, results


def test_no_duplicates_no_requests_corrected_once(filed: tuple[Memory, list[Any]]) -> None:
    mem, results = filed
    assert len(results) == 3
    texts = [r.text for r in mem.records()]
    # One copy of each fact: no two records are near-duplicates.
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            ta, tb = fact_terms(a), fact_terms(b)
            assert len(ta & tb) / len(ta | tb) < 0.75, (a, b)
    # No record is one of the user's requests or questions.
    assert not [t for t in texts if is_request(t)]
    assert not [t for t in texts if "relaxed day" in t or "cafe" in t or "museum" in t]
    # The abbreviation did not cut the fact in two, and the decimals survived.
    assert "I have a dentist appointment with Dr. Okafor on 12 May at 9:30." in texts
    assert not [t for t in texts if t.endswith("Dr.") or t.startswith("Okafor")]
    assert any("1,250.50 euros" in t and "2.5 months" in t for t in texts)
    assert any("St. Mary's, e.g. on weekends" in t for t in texts)
    # The corrected fact is held once, in its corrected form.
    jobs = [t for t in texts if "data analyst" in t]
    assert jobs == ["My new job as a data analyst moved to 1 October."]


def test_a_repeat_points_at_the_existing_record(filed: tuple[Memory, list[Any]]) -> None:
    mem, results = filed
    dentist = next(r for r in mem.records() if "Okafor" in r.text)
    second = results[1]
    assert not second.added or dentist.id not in second.added
    assert dentist.id in second.updated
    # The stretch's line points at the existing record, and the record now also comes from the
    # second stretch's turn.
    assert dentist.id in second.episode.record_ids
    assert len(dentist.source_ids) == 2
    # The correction updated the record the first stretch wrote (same id, new text).
    job_id = next(i for i in results[0].added
                  if "data analyst" in mem.records([i])[0].text)
    assert job_id in results[2].updated and job_id in results[2].episode.record_ids


def test_episode_lines_are_one_sentence_within_24_words(
        filed: tuple[Memory, list[Any]]) -> None:
    _, results = filed
    for r in results:
        line = r.episode.line
        assert 0 < len(line.split()) <= EPISODE_MAX_WORDS
        assert line.endswith(".") and line.count(";") <= 1
        # In the memory system's words: no number, and no run of four of the user's words.
        assert not any(ch.isdigit() for ch in line), line
        for said in CONVERSATION:
            w = said.rstrip(".!?").split()
            for i in range(len(w) - 3):
                assert " ".join(w[i:i + 4]) not in line, (line, said)
    # What it was about and how it ended: stretch 2 ended on a question, 3 with thanks.
    assert "question" in results[1].episode.line
    assert results[2].episode.line.endswith("thanks.")


def test_split_sentences_knows_abbreviations_initials_and_decimals() -> None:
    assert split_sentences("I saw Dr. Okafor at 9.30 today. Then J. R. Smith called! Ok?") == [
        "I saw Dr. Okafor at 9.30 today.", "Then J. R. Smith called!", "Ok?"]
    assert split_sentences("Prices rose 3.5% in Jan. last year.\nNew line here") == [
        "Prices rose 3.5% in Jan. last year.", "New line here"]
    assert split_sentences("We met at St. Mary's. It was late... 2 hours late.") == [
        "We met at St. Mary's.", "It was late...", "2 hours late."]
    assert split_sentences("") == []


def test_split_sentences_reads_chat_typed_in_lower_case() -> None:
    # a statement's opening word ("my", "we", "anyway") starts a sentence after an end
    assert split_sentences("lol same. my brother Kev is a roofer now. anyway how was it?") == [
        "lol same.", "my brother Kev is a roofer now.", "anyway how was it?"]
    # not after an abbreviation or an initialism, nor before any other lower-case word
    assert split_sentences("We left at 5 p.m. we were late.") == ["We left at 5 p.m. we were late."]
    assert split_sentences("I live in the U.K. my sister doesn't.") == [
        "I live in the U.K. my sister doesn't."]
    assert split_sentences("It cost approx. ten pounds.") == ["It cost approx. ten pounds."]
    # so the fact in the middle of a lower-case message is no part of its question
    m = Message(id=1, thread_id="t", seq=1, role="user", tokens=20, ts=0.0,
                content="haha yes. my sister Nell is a vet in Ripon. what do you think?")
    assert [r["text"] for r in extract([m])["records"]] == ["My sister Nell is a vet in Ripon."]


def test_a_fact_about_the_speakers_people_outranks_passing_events_in_a_long_message() -> None:
    m = Message(id=1, thread_id="t", seq=1, role="user", tokens=80, ts=0.0, content=(
        "Mad week. Drove to Derby on Monday for a course, then the train home was cancelled at "
        "Stoke. Took four hours for the replacement bus to come. Anyway, Tom's started at "
        "Bramcote College now, so that's sorted. Also booked a table at Zizzi for Friday."))
    texts = [r["text"] for r in extract([m])["records"]]
    assert any("Bramcote" in t for t in texts), texts


def test_requests_and_questions_are_not_facts() -> None:
    for s in ("Tell me more about planning a relaxed day.", "Can you book a table?",
              "Please remind me tomorrow.", "Let's plan the trip.", "What is my dentist's name?",
              "I'd like you to write a poem."):
        assert is_request(s), s
    for s in ("I live in apartment 14D.", "My sister Ana lives in Lisbon.",
              "Planning the trip took me three weeks."):
        assert not is_request(s), s


def test_a_line_never_quotes_a_secret_or_a_code() -> None:
    texts = ["The wifi password at the cabin is X2144R.", "My locker code is 4471.",
             "Thanks, see you!"]
    msgs = [Message(id=i, thread_id="t", seq=i, role="user", content=x, ts=0.0, tokens=9)
            for i, x in enumerate(texts, 1)]
    line = extract(msgs)["episode"]
    # It names what was given (the index), never the value (the record holds it).
    assert "X2144R" not in line and "4471" not in line and "cabin" not in line
    assert line == ("The user shared their wifi password and their locker code; it ended "
                    "with thanks.")
    assert episode_line([]).startswith("The user made small talk")

def test_a_new_fact_with_a_cue_word_does_not_overwrite_another_subject(store: Any) -> None:
    """"moved" is a correction cue, but two people's moves are two facts: a sentence that shares
    only a word or two with a record ("friend", "day") adds a record beside it."""
    mem = Memory(store, "user-2")
    t = mem.thread("t")
    for text in ["My friend Ana moved to Lisbon on day 4.", "I like green tea a lot.",
                 "My sister works at the harbour office.", "My bike is a blue Gazelle.",
                 "My friend Goran moved to Denver on day 2996.", "I play chess on Tuesdays.",
                 "Actually, correction: my sister works at the harbour office in Porto.",
                 "My cat is called Miso."]:
        t.add("user", text)
        t.add("assistant", REPLY)
        t.maybe_step()
    t.flush()
    texts = [r.text for r in mem.records()]
    assert "My friend Ana moved to Lisbon on day 4." in texts
    assert "My friend Goran moved to Denver on day 2996." in texts
    # ...while a correction of the same subject still updates it, held once.
    sister = [x for x in texts if "sister" in x]
    assert sister == ["My sister works at the harbour office in Porto."], texts


def test_first_person_facts_are_kept_and_requests_and_pleasantries_are_not() -> None:
    names = frozenset({"john"})
    for s in ("Hi! I'm Marta.", "I'm vegan.", "I live in Utrecht.", "I'm allergic to shellfish.",
              "My daughter Lies is 7.", "Planning a trip to Porto next month.",
              "Last year I moved to Lyon.", "The rent went up to 1,250.50 euros."):
        assert any(is_fact(x, names) for x in split_sentences(s)), s
    for s in ("Convert 250 grams to ounces.", "SLOW3 tell me", "Write a haiku about autumn.",
              "I'm sure you'll find the right spot, John.", "Okay, let's do that.",
              "Hey John, something awesome happened since we talked.", "Sounds good to me.",
              "Wow, I can't believe it.", "What time is it?", "Thanks!"):
        assert not is_fact(s, names), s


def test_the_written_conversations_keep_every_fact_and_file_no_request(store: Any) -> None:
    """tests/data/fact_conversations.jsonl: every user message marked fact or not (names,
    identity, diet, health, places, plans, numbers and codes; requests, questions,
    pleasantries). Filed by the heuristic as an agent would."""
    rows = [json.loads(x) for x in DATA.read_text().splitlines() if x.strip()]
    mem = Memory(store, "written")
    fact_of: dict[int, bool] = {}
    for tid in dict.fromkeys(r["thread"] for r in rows):
        t = mem.thread(tid)
        for r in (r for r in rows if r["thread"] == tid):
            fact_of[t.add("user", r["text"]).id] = r["fact"]
            t.add("assistant", REPLY)
            t.maybe_step()
        t.flush()
    sourced = {s for r in mem.records() for s in r.source_ids}
    facts = [i for i, f in fact_of.items() if f]
    assert sum(i in sourced for i in facts) == len(facts) == 24
    assert [i for i, f in fact_of.items() if not f and i in sourced] == []


def test_a_line_names_what_the_stretch_was_about_without_quoting() -> None:
    texts = ["I went to the adoption agency in Lisbon with Ana yesterday.",
             "The agency said the adoption takes a year, so we joined a support group.",
             "My wifi password is hunter2 and the router key is Bluebird.",
             "Thanks, see you!"]
    msgs = [Message(id=i, thread_id="t", seq=i, role="user", content=x, ts=0.0, tokens=9)
            for i, x in enumerate(texts, 1)]
    line = extract(msgs)["episode"]
    # The index needs the subjects: a later "how is the adoption going?" matches the line.
    assert "adoption" in line and "Lisbon" in line and "agency" in line, line
    # Never a credential's sentence (only its kind), a number or a run of the user's words.
    assert "hunter" not in line and "Bluebird" not in line and "router" not in line, line
    assert "their wifi password" in line and line.endswith("it ended with thanks."), line
    assert len(line.split()) <= EPISODE_MAX_WORDS and not any(c.isdigit() for c in line)
    for said in texts:
        w = said.rstrip(".!?").split()
        for i in range(len(w) - 3):
            assert " ".join(w[i:i + 4]) not in line, (line, said)


def test_fact_readings_memo_gives_the_same_steps_and_is_emptied_by_a_forget(
        tmp_path: Path) -> None:
    """The heuristic step reads its related records through the memory's `Caches.facts`
    (`fact_readings`): the written conversations filed with it give the same step, cold and
    warm, as read afresh; the memo holds record texts, so a forget empties it."""
    from memlane.step.heuristic import fact_readings

    rows = [json.loads(x) for x in DATA.read_text().splitlines() if x.strip()]
    rows += [{"thread": "lisbon", "text": x} for x in CONVERSATION * 2]  # facts said again
    seen: list[tuple[list[Message], list[Any]]] = []

    class Watching:
        name = "heuristic"

        def __call__(self, messages: Any, existing: Any) -> Any:
            seen.append((list(messages), list(existing)))
            return extract(messages, existing)

    mem = Memory.open(str(tmp_path / "m.db"), extractor=Watching())
    for tid in dict.fromkeys(r["thread"] for r in rows):
        t = mem.thread(tid)
        for r in (r for r in rows if r["thread"] == tid):
            t.add("user", r["text"])
            t.add("assistant", REPLY)
            t.maybe_step()
        t.flush()
    assert len(seen) >= 8 and sum(bool(e) for _, e in seen) >= 4  # related records shown
    assert mem.caches.facts  # filed through the memory's memo
    memo: dict[str, tuple[Any, ...]] = {}
    for messages, existing in seen:
        fresh = extract(messages, existing)
        for _ in range(2):  # cold, then warm
            with fact_readings(memo):
                assert extract(messages, existing) == fresh
    assert {r.text for _, e in seen for r in e} <= set(memo)
    mem.forget(mem.records()[0].id)
    assert not mem.caches.facts
    mem.close()
