"""Forgetting removes exactly what was asked: the sentences that stated the forgotten fact and
every copy of its value, in every role; never another record's statement; buffer lines lose
whole parts, never words out of a sentence. Both stores (the `store` fixture)."""

from __future__ import annotations

from typing import Any

from memlane.memory import Memory
from memlane.redact import MARK

COPENHAGEN = [
    ("user", "I'm moving to Copenhagen for work. My new job as a data analyst starts on "
             "15 September."),
    ("assistant", "Congratulations! So 15 September is your first day in Copenhagen."),
    ("user", "I have a dentist appointment with Dr. Okafor on 12 May at 9:30."),
    ("assistant", "Noted: Dr. Okafor, 12 May at 9:30."),
    ("user", "Actually, correction: my new job as a data analyst moved to 1 October."),
    ("assistant", "Got it, 1 October then, not 15 September."),
    ("user", "Thanks!"),
    ("assistant", "You're welcome."),
]


def _thread(mem: Memory) -> Any:
    t = mem.thread("cph")
    t.extend([{"role": r, "content": c, "ts": 1693000000 + i * 60}
              for i, (r, c) in enumerate(COPENHAGEN)])
    return t


def test_forgetting_one_record_leaves_another_records_statement(store: Any) -> None:
    """Model-written records: the start date (#a, message 1) and the user's correction (#b,
    message 5, a different record that survives). Forgetting #a must not touch message 5."""
    mem = Memory(store, "cph")
    t = _thread(mem)
    res = t.step({"records": [
        {"op": "add", "text": "The user's data analyst job in Copenhagen starts on 15 September.",
         "source": [1]},
        {"op": "add", "text": "Dentist appointment with Dr. Okafor on 12 May at 9:30.",
         "source": [3]},
        {"op": "add", "text": "The user corrected: the data analyst job moved to 1 October.",
         "source": [5]}],
        "episode": "The user gave their job start date and a dentist appointment; it ended "
                   "with thanks.", "relevance": []}, start=1, end=8)
    start, dentist, correction = res.added
    report = mem.forget_record(start)
    msgs = {m.seq: m.content for m in t.messages()}
    # The surviving correction's source is untouched.
    assert msgs[5] == COPENHAGEN[4][1]
    assert mem.records([correction])[0].source_ids
    # The forgotten statement is gone, and so is the place it names (no other record holds
    # Copenhagen): that sentence was the fact's too.
    assert msgs[1] == MARK
    # Every copy of the value, in every role: the assistant's echoes too.
    assert all("15 September" not in c for c in msgs.values()), msgs
    assert "1 October" in msgs[6]  # the surviving value's echo stays
    assert msgs[3] == COPENHAGEN[2][1] and msgs[4] == COPENHAGEN[3][1]
    # The line loses the part naming the forgotten fact, and reads as a sentence.
    line = t.episodes()[0].line
    assert line == "The user gave a dentist appointment; it ended with thanks.", line
    assert report.redacted_sentences >= 3
    assert {r.id for r in mem.records()} == {dentist, correction}


def test_forgetting_a_superseded_fact_forgets_every_version(store: Any) -> None:
    """The heuristic holds the start date once (the correction superseded it); forgetting it
    removes both statements and both values, and keeps the dentist appointment whole."""
    mem = Memory(store, "cph2")
    t = _thread(mem)
    t.flush()
    jobs = [r for r in mem.records() if "data analyst" in r.text]
    assert len(jobs) == 1 and "1 October" in jobs[0].text
    assert len([h for h in mem.record_history(jobs[0].id) if h["op"] != "delete"]) == 2
    mem.forget_record(jobs[0].id)
    msgs = {m.seq: m.content for m in t.messages()}
    seen = " ".join(msgs.values())
    assert "15 September" not in seen and "1 October" not in seen
    assert "data analyst" not in seen
    assert msgs[3] == COPENHAGEN[2][1]  # another fact's statement, whole
    assert any("Okafor" in r.text for r in mem.records())
    assert mem.record_history(jobs[0].id) == []
    for e in t.episodes():
        assert "my is" not in e.line.lower() and not e.line.lower().startswith("also,")
        assert e.line.endswith(".") or e.line == MARK


PETS = [
    ("user", "My cat is called Crumbworth."),
    ("assistant", "Crumbworth sounds delicious! Cats are great."),
    ("user", "My dog is called Biscuit and my cat sleeps all day."),
    ("assistant", "A sleepy cat and a dog called Biscuit."),
    ("user", "We live in Harrogate, near the Valley Gardens."),
    ("assistant", "Harrogate is lovely in spring."),
]


def _pets(mem: Memory, also: str = "") -> tuple[Any, list[int]]:
    t = mem.thread("pets")
    t.extend([{"role": r, "content": c} for r, c in PETS])
    recs = [{"op": "add", "text": "The user's cat is called Crumbworth.", "source": [1]},
            {"op": "add", "text": "The user's dog is called Biscuit.", "source": [3]},
            {"op": "add", "text": "The user's cat sleeps all day.", "source": [3]},
            {"op": "add", "text": "The user lives in Harrogate.", "source": [5]}]
    if also:
        recs.append({"op": "add", "text": also, "source": [5]})
    res = t.step({"records": recs, "episode": "The user named their cat Crumbworth and dog "
                  "Biscuit; they live in Harrogate.", "relevance": []}, start=1, end=6)
    assert res is not None
    return t, list(res.added)


def test_a_forgotten_name_leaves_every_role_and_nothing_else_goes(store: Any) -> None:
    """The assistant's echo of a forgotten name is redacted; the common words the fact shares
    with other records ("cat", "called") take nothing with them."""
    mem = Memory(store, "pets")
    t, (name, *kept) = _pets(mem)
    texts = {r.id: r.text for r in mem.records()}
    mem.forget_record(name)
    msgs = {m.seq: m.content for m in t.messages()}
    assert all("crumbworth" not in c.lower() for c in msgs.values()), msgs
    # The echo loses the name only: the rest of what it says was never the fact.
    assert msgs[1] == MARK and msgs[2] == f"{MARK} sounds delicious! Cats are great."
    assert [msgs[i] for i in range(3, 7)] == [c for _, c in PETS[2:]]
    line = t.episodes()[0].line
    assert "Crumbworth" not in line and "Harrogate" in line, line
    assert {r.id: r.text for r in mem.records()} == {k: texts[k] for k in kept}
    assert "crumbworth" not in repr(mem.export()).lower()


def test_a_name_another_current_record_holds_stays(store: Any) -> None:
    """"Crumbworth" is also in a record that stays: it is not the forgotten fact's own, so the
    echo that only names it stays (the sentence stating the forgotten fact still goes)."""
    mem = Memory(store, "pets2")
    t, (name, *_) = _pets(mem, also="Crumbworth's vet is Dr Patel in Harrogate.")
    mem.forget_record(name)
    msgs = {m.seq: m.content for m in t.messages()}
    assert msgs[1] == MARK  # the forgotten statement itself
    assert msgs[2] == PETS[1][1]
    assert any("Crumbworth" in r.text for r in mem.records())


def test_an_echo_of_two_names_keeps_the_one_not_forgotten(store: Any) -> None:
    """The heuristic files one record per child; forgetting one takes its name out of the
    assistant's echo and leaves the other child's name, record and words."""
    mem = Memory(store, "kids")
    t = mem.thread("kids")
    t.add("user", "My son is called Zacharias and my daughter is called Moss.")
    t.add("assistant", "Zacharias and Moss, lovely names! How old are they?")
    t.add("user", "Thanks. What is a good birthday cake?")
    t.add("assistant", "Lemon drizzle never fails.")
    t.flush()
    son = next(r for r in mem.records() if "Zacharias" in r.text)
    mem.forget_record(son.id)
    msgs = [m.content for m in t.messages()]
    assert msgs[0] == f"My son is called {MARK} and my daughter is called Moss."
    assert msgs[1] == f"{MARK} and Moss, lovely names! How old are they?"
    assert msgs[2:] == ["Thanks. What is a good birthday cake?", "Lemon drizzle never fails."]
    assert [r.text for r in mem.records()] == ["My daughter is called Moss."]
    assert "zacharias" not in repr(mem.export()).lower()
