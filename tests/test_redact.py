"""Forgetting a fact takes it out of what the model sees: records, messages, buffer lines."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from memlane import Memory
from memlane.cli import main
from memlane.redact import MARK, redact_line, redact_text

PASSPORT = "My passport number is X9981234."


def _thread(mem):
    t = mem.thread("t")
    t.add("user", f"Hi, I'm off to Oslo next week. {PASSPORT} Can you check the visa rules?")
    t.add("assistant", "Noted X9981234. Norway is in Schengen, so no visa for you.")
    t.add("user", "Good. Should the passport number be on the ferry booking, passport and all?")
    t.add("assistant", "Yes, ferries to Bergen ask for it.")
    for i in range(13):
        t.add("user", f"Question {i}: what is the weather in Bergen in week {i}?")
        t.add("assistant", f"Week {i} in Bergen is rainy and mild.")
    t.maybe_step()
    t.step()
    return t


def _passport_record(mem):
    return next(r for r in mem.records() if "X9981234" in r.text)


def test_redact_text_keeps_the_rest_of_the_message():
    text, n = redact_text(f"Hi, I'm off to Oslo. {PASSPORT} Can you check the visa rules?",
                          PASSPORT, source=True)
    assert n == 1
    assert text == f"Hi, I'm off to Oslo. {MARK} Can you check the visa rules?"
    # Elsewhere in the thread only the fact's specific tokens count.
    assert redact_text("Noted X9981234. Anything else?", PASSPORT, source=False) == \
        (f"{MARK} Anything else?", 1)
    assert redact_text("My passport is blue.", PASSPORT, source=False) == \
        ("My passport is blue.", 0)


def test_redact_line_takes_the_records_words():
    line, words = redact_line("Talked about passport, number, Oslo, visa; ended: user said Hi",
                              "Ravi: My passport number is X9981234.")
    assert words == ["passport", "number"]
    assert "passport" not in line and "number" not in line
    # The list loses its items that named the fact and is listed again; the rest stays whole.
    assert line == "Talked about Oslo and visa; ended: user said Hi."
    # A part that names the fact goes whole, and what stays is still a sentence.
    line, _ = redact_line("The user shared their passport number; it ended with thanks.",
                          "Ravi: My passport number is X9981234.")
    assert line == "It ended with thanks."
    assert redact_line("Passport X9981234 noted.", "My passport number is X9981234.")[0] == MARK


def test_forget_redacts_sources_and_context_no_longer_shows_it(store):
    mem = Memory(store)
    t = _thread(mem)
    rec = _passport_record(mem)
    ctx = t.context(budget=3000)
    assert any("X9981234" in m.content for m in ctx.messages)
    report = mem.forget_record(rec.id)
    assert report.found and report.redacted_messages == (("t", 1), ("t", 2))
    assert report.redacted_sentences == 2 and "passport" in report.removed_words
    assert "redacted 2 sentences in 2 messages" in report.summary()
    for budget in (700, 1200, 3000):
        ctx = t.context(budget=budget)
        seen = " ".join(m.content for m in ctx.messages)
        assert "X9981234" not in seen and "passport number is" not in seen, budget
        # The line that pointed at the record no longer carries its words.
        assert all("passport" not in x.line for x in ctx.trace.buffer_lines)
    msgs = t.messages()
    assert msgs[0].content.startswith("Hi, I'm off to Oslo next week. [forgotten] Can you")
    assert msgs[0].tokens == mem.tokenizer.count([msgs[0].content])[0]
    assert all("passport" not in e.line.lower() for e in t.episodes())
    assert mem.search("passport X9981234") == []


def test_keep_sources_leaves_the_messages(tmp_path):
    mem = Memory.open(tmp_path / "m.db")
    t = _thread(mem)
    assert mem.forget(_passport_record(mem).id, redact_sources=False)
    assert PASSPORT in t.messages()[0].content


def test_cli_forget_says_what_it_removed(tmp_path, capsys):
    db = tmp_path / "m.db"
    with Memory.open(db) as mem:
        _thread(mem)
        rid = _passport_record(mem).id
    assert main(["--db", str(db), "forget", "--record", str(rid), "--yes"]) == 0
    out = capsys.readouterr().out
    assert f"erased record #{rid}; redacted 2 sentences in 2 messages (t#1, t#2)" in out
    assert "'passport'" in out and "buffer line" in out
    assert main(["--db", str(db), "context", "t", "--budget", "3000", "--json"]) == 0
    ctx = json.loads(capsys.readouterr().out)
    assert "X9981234" not in json.dumps(ctx)
    with Memory.open(db) as mem:
        mem.thread("u").add("user", PASSPORT)
        mem.thread("u").step()
        rid = next(r.id for r in mem.records() if r.thread_id == "u")
    assert main(["--db", str(db), "forget", "--record", str(rid), "--keep-sources", "--yes",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["redacted"]["messages"] == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([PASSPORT, "Hello there.", " ", "\n", "What?", "ab", "!",
                                  "It is X9981234 now", "...", "passport"]), max_size=12)
       .map("".join))
def test_redaction_only_replaces_sentences(text):
    """Whatever the text, redaction keeps every character outside the replaced sentences, and
    never leaves the fact's number behind."""
    new, n = redact_text(text, PASSPORT, source=True)
    assert "X9981234" not in new
    if n == 0:
        assert new == text
    else:
        kept = [p for p in new.split(MARK)]
        pos = 0
        for part in kept:  # the kept parts appear in the original, in order
            i = text.find(part, pos)
            assert i >= 0, (text, new)
            pos = i + len(part)


def test_a_facts_names_are_its_names_places_and_codes() -> None:
    from memlane.redact import names

    assert names(["The user's appointment with Dr. Okafor is on Monday 12 May at the Leeds "
                  "clinic, code A-113."]) == {"okafor", "leeds", "a-113"}
    # An opening capital may be any word; a name inside a sentence is one (possessive off).
    assert names(["Yesterday the user adopted a kitten.", "Ravi: Our Crumbworth's bowl is blue."]
                 ) == {"crumbworth"}
    assert names(["my cat is called crumbworth"]) == set()  # no capital, no digit: not sure
    # A name opening the record counts when the message it came from has it inside a sentence.
    assert names(["Crumbworth is the user's cat."]) == set()
    assert names(["Crumbworth is the user's cat."], ["My cat is called Crumbworth."]) == {
        "crumbworth"}
    assert names(["Yesterday the user adopted a cat."], ["Yesterday I adopted a cat."]) == set()


def test_redaction_compiles_no_pattern_from_a_users_words() -> None:
    """Python's `re` caches every pattern it compiles: a value written into one would stay in
    the process after the forget. (The cache is emptied first: other tests' harnesses compile
    their own values.)"""
    import re

    re.purge()
    text, n = redact_text("Your code is QZ77812, and 14 March at 9:30 suits.",
                          "My code is QZ77812; the visit is 14 March at 9:30.", source=False,
                          names={"qz77812"})
    assert n == 1 and text == MARK
    held = [k for k in re._cache if any(v in str(k).lower()  # type: ignore[attr-defined]
                                        for v in ("qz77812", "14 march", "9:30"))]
    assert held == []


def test_the_supersede_rule_compiles_no_pattern_from_a_users_words() -> None:
    """The rule reads held values and names against new statements (`slots.search_user`): none
    of them may stay in `re`'s module cache, where a forget would not reach them."""
    import re

    from memlane.step.supersede import decide

    re.purge()
    held = ["My therapist is Dr Quillfeather.", "I bank with Zorbank.", "Our cat Mabsy is 4."]
    for new in ("Dr Quillfeather retired, so I see Dr Ng now.", "I moved from Zorbank to Monzo.",
                "Mabsy turned 5.", "Mabsy's gone to live with my sister.",
                "Zorbank kept closing branches, so I'm with Monzo now."):
        decide(new, held)
    held_words = [k for k in re._cache if any(v in str(k).lower()  # type: ignore[attr-defined]
                                              for v in ("quillfeather", "zorbank", "mabsy"))]
    assert held_words == []
