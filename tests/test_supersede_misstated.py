"""A misstatement put right by naming the held value as wrong (`step/misstated.py`): "I'm 58, not
38", "it's Harcourt Avenue, not Harcourt Road", "I said Rhiannon but it's Rhian", "the 14th
rather than the 12th", "Dr Okafor was wrong". When exactly one held fact of the same holder says
the value named as wrong, and another value of its type is given, that fact is superseded.
Near-misses it must refuse: a contrast or a preference, a value no held fact of that holder says
("we're going to Porto, not Lisbon this year"), another person's value, two held facts with the
value, a question, a wish, another one's belief and a one-off. Pairs written for this rule (the
first four are the brief's); none copied from a held-out set."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlane.ingest import ingest
from memlane.memory import Memory
from memlane.step import misstated
from memlane.step.supersede import SUPERSEDES, decide
from memlane.store.sqlite import SQLiteStore
from supersede_verdicts import message_verdicts

CORRECTED = [
    # (held facts, the new message, the held fact it must replace)
    (["I'm 38 and I've just started running."], "Sorry, typo earlier - I'm 58, not 38.",
     "I'm 38."),
    (["We live on Harcourt Road, near the park."],
     "Oops, it's Harcourt Avenue, not Harcourt Road.",
     "We live on Harcourt Road, near the park."),
    (["My sister's called Rhiannon."],
     "I got that wrong before, my sister is Rhian, not Rhiannon.", "My sister's called Rhiannon."),
    (["My dentist appointment is on 12 March."],
     "Correction: the dentist is the 14th of March, not the 12th.",
     "My dentist appointment is on 12 March."),
    (["My nephew Callum is 9.", "I'm 44."], "Callum's 11 rather than 9, I always forget.",
     "My nephew Callum is 9."),
    (["My allotment is plot 14."], "Sorry, it's plot 41, not 14 - I had the digits backwards.",
     "My allotment is plot 14."),
    (["We bank with Nationwide."], "My mistake, we bank with Monzo, not Nationwide.",
     "We bank with Nationwide."),
    (["My boss is called Ingrid."], "My boss is Sigrid, not Ingrid - sorry, I misheard her.",
     "My boss is called Ingrid."),
    (["My son's school is Westfield Academy."],
     "Westfield was wrong, my son goes to Eastfield Academy.",
     "My son's school is Westfield Academy."),
    (["My locker at the pool is 221."], "Scratch that - my locker's 212, not 221.",
     "My locker at the pool is 221."),
]

REFUSED = [
    # a contrast or a preference: nothing held says the value, or it is no correction
    (["I drive a red Mazda."], "I want the blue one, not the red one."),
    (["I drive a red Mazda."], "Sorry, for the bathroom I want the blue tiles, not the red."),
    (["I work as a nurse."], "Actually it's a cold, not flu."),
    (["I live in Bristol."], "We're going to Porto, not Lisbon this year."),
    (["We holiday in Tenby every summer."], "This year we're off to Whitby, not Tenby."),
    # another person's value
    (["I live in Harrogate."], "Sorry, my brother lives in Ripon, not Harrogate."),
    (["I'm a vet."], "My wife's a pharmacist, not a vet like me."),
    (["I live in Aberaeron."], "Sorry, Ffion's in Aberporth, not Aberaeron."),
    (["My partner is called Sam."], "Sorry, Sam's sister, not Sam, is coming round."),
    # "it" said to be another thing
    (["I swim on Mondays."], "Sorry, it's Tuesday, not Monday, the party."),
    (["My rent is £900 a month."], "Sorry, it was £90, not £900, the electric bill."),
    (["I swim on Mondays."], "Oops, I meant Tuesday for the dentist, not Monday."),
    # two held facts say it
    (["I work in Leeds.", "I live in Leeds as well."], "Sorry, it's Wakefield, not Leeds."),
    # a question, a wish, a belief, a negated plan
    (["My sister is 34."], "Is my sister 36, not 34?"),
    (["I drive a silver Yaris."], "For the next car I'd like a hybrid, not a Yaris again."),
    (["My dad is 70."], "People think Dad's 60, not 70."),
    (["I go to Pilates on Wednesdays."], "I'm not moving Pilates to Fridays, sorry."),
]


@pytest.mark.parametrize(("held", "new", "replaced"), CORRECTED)
def test_the_value_named_as_wrong_is_corrected(held: list[str], new: str,
                                               replaced: str) -> None:
    verdicts = message_verdicts(new, held)
    assert (SUPERSEDES, replaced) in verdicts, verdicts
    assert all(t == replaced for v, t in verdicts if v == SUPERSEDES), verdicts


@pytest.mark.parametrize(("held", "new"), REFUSED)
def test_a_contrast_or_another_ones_value_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = message_verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("text", "wrong"), [
    ("I'm 58, not 38.", {"38"}),
    ("It's Harcourt Avenue, not Harcourt Road.", {"harcourt", "road"}),
    ("the 14th of March, not the 12th", {"12"}),
    ("Pickle's 7 rather than 6", {"6"}),
    ("not Brightwell but Brightmoor", {"brightwell"}),
    ("I said Rhiannon but it's Rhian", {"rhiannon"}),
    ("Mill Road was wrong, it's on Mill Lane", {"mill", "road"}),
    ("I want the blue one, not the red one", {"red"}),
    ("I'm not sure yet", None),
    ("That was wrong of me", None),
])
def test_the_value_named_as_wrong(text: str, wrong: set[str] | None) -> None:
    assert misstated.wrong_value(text) == (frozenset(wrong) if wrong else None)


def test_a_replace_vetted_again_stands_without_its_lead_in() -> None:
    """The record keeps no "Sorry," or "Correction:" (`strip_lead`); the writer's replace is
    vetted again on the text alone (`step/apply.py`), so the same fact read two ways counts as
    certain: a relation as holder or as attribute, a thing as holder or as "the <thing>"."""
    assert decide("My sister is Rhian, not Rhiannon.", ["My sister's called Rhiannon."],
                  claimed=0).verdict == SUPERSEDES
    assert decide("The dentist is the 14th of March, not the 12th.",
                  ["My dentist appointment is on 12 March."], claimed=0).verdict == SUPERSEDES
    assert decide("I'm 61, not 41.", ["I'm 41."], claimed=0).verdict == SUPERSEDES


def _filed(tmp_path: Path, first: str, second: str) -> list[str]:
    store = SQLiteStore(tmp_path / "m.db")
    try:
        mem = Memory(store, "ns")
        ingest(mem, "a", [{"role": "user", "content": first, "ts": 1767225600.0},
                          {"role": "assistant", "content": "Noted.", "ts": 1767225630.0}])
        ingest(mem, "a", [{"role": "user", "content": second, "ts": 1770000000.0},
                          {"role": "assistant", "content": "Thanks.", "ts": 1770000030.0}])
        return sorted(r.text for r in mem.records())
    finally:
        store.close()


def test_the_writer_files_the_correction_not_the_owned_mistake(tmp_path: Path) -> None:
    """ "I said Y" is no fact of its own (else two held facts would say Y); a correction said
    with "it" keeps its sentence, so the record still says what it is about."""
    assert _filed(tmp_path, "My flat is on the fourth floor.",
                  "I said fourth floor but it's actually the fifth.") == [
        "I said fourth floor but it's actually the fifth."]


def test_the_writer_keeps_a_value_named_of_another_holder(tmp_path: Path) -> None:
    """ "not Harrogate like me" names the speaker's own value, of another holder's fact."""
    texts = _filed(tmp_path, "I live in Harrogate.",
                   "My brother lives in Ripon, not Harrogate like me.")
    assert texts == ["I live in Harrogate.", "My brother lives in Ripon, not Harrogate like me."]
