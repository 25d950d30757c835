"""Facts told in passing that no statement shape carries (issue 41, part B; `step/asides.py`):
a condition a question rests on ("with my asthma, is it okay ...?") and a dislike told by its
effect ("Coriander tastes like soap to me"). Someone else's condition, a question about a
taste, and talk to the listener give none."""

from __future__ import annotations

from memlane.step.asides import condition_asked, dislike_by_effect
from memlane.step.heuristic import extract
from memlane.types import Message


def _texts(said: str) -> list[str]:
    msg = Message(id=1, thread_id="t", seq=1, role="user", content=said, ts=0.0, tokens=20)
    return [op.get("text") or "" for op in extract([msg])["records"]]


def test_a_condition_a_question_rests_on() -> None:
    assert condition_asked("Quick one: with my asthma, is it okay to run in the cold?") == \
        "I have asthma."
    assert condition_asked("Given my dodgy knee, is rowing better?") == "I have a dodgy knee."
    assert condition_asked("Can I take ibuprofen with my coeliac disease?") == \
        "I have coeliac disease."
    assert condition_asked("Any stretches for someone with sciatica like me?") == \
        "I have sciatica."


def test_no_condition_of_someone_else_or_outside_a_question() -> None:
    assert condition_asked("What helps my son with his asthma?") is None
    assert condition_asked("Any tips for my mum's arthritis?") is None
    assert condition_asked("With my asthma I never run in the cold.") is None
    assert condition_asked("Is it okay to run with my new trainers?") is None


def test_a_dislike_by_its_effect() -> None:
    for said in ("Coriander tastes like soap to me, always has.", "Mushrooms make me gag.",
                 "Blue cheese turns my stomach every time.", "Olives are vile to me, honestly."):
        assert dislike_by_effect(said), said
    for said in ("Does coriander taste like soap to you?", "You make me sick.",
                 "It makes me sick how much rent is.", "The film made me cry.",
                 "Coriander tastes like soap to some people?"):
        assert not dislike_by_effect(said), said


def test_both_are_filed_by_the_writer() -> None:
    assert _texts("Quick one: with my asthma, is it okay to do interval runs when it's "
                  "freezing out?") == ["I have asthma."]
    assert any("Coriander" in t for t in _texts(
        "Coriander tastes like soap to me, always has. What could I use instead in a curry?"))
    assert _texts("What helps my son with his asthma?") == []
