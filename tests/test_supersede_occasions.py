"""An event moved, named by a word of its kind (`step/occasions.py`), "it" moved the sentence
before names, a new home named on the sentence after the move (`measures.home_named`), and a
name one goes by now (`people.name_taken`). Pairs written for these mechanisms (none copied
from a data file), then their near-misses: another event of the kind, someone else's, a
question, a maybe, an event gone by, another kind, and two held facts that fit."""

from __future__ import annotations

import pytest

from memlane.step.clauses import carry_holders
from memlane.step.occasions import kin, marks, thing_moved
from memlane.step.related import related_query
from memlane.step.supersede import RELATED, SUPERSEDES
from supersede_verdicts import message_verdicts

CORRECTIONS = [  # (held, new, the held fact replaced)
    (["Our flight to Oslo departs at 10:25."], "Boarding has been pushed back to 11:40.", 0),
    (["The ferry to Rosslare leaves at 8pm on Friday."], "The crossing is now at 11pm.", 0),
    (["My dental check-up is on the 4th."], "They've rescheduled the appointment to the 9th.", 0),
    (["Our cup game against Millbrook is on Sunday at 11."], "Kick-off's moved to 1pm.", 0),
    (["My hip operation is on 3 March."], "The hospital bumped the op to 17 March.", 0),
    (["I'm on the late shift on Friday, starting at 2pm."], "The shift now starts at 4pm.", 0),
    (["My flight home is at 6:10 on Sunday.", "My physio appointment is on Monday at 9."],
     "Take-off has been put back to 8:30.", 0),
    (["The train to Carlisle leaves at 7:50."], "Checked again and it now leaves at 8:20.", 0),
    (["My smear test is on the 14th at 10am."], "Surgery rang. They've moved it to the 21st.", 0),
    (["Our table at Marlowe's is booked for 8pm."], "Marlowe's rang, the booking is now for 9.",
     0),
    (["My surname is Gallagher."], "I go by Osei now since the wedding.", 0),
    (["My spin class is at the Arc gym on Mondays."], "The session's been moved to Studio Nine.",
     0),
]

NEAR_MISSES = [  # (held, new): nothing replaced
    (["My dentist appointment is on the 4th."], "My other appointment got moved to the 9th."),
    (["My physio session is on Tuesday."], "My husband's physio session was moved to Friday."),
    (["My dentist appointment is on Monday."], "The kids' dentist appointment moved to Friday."),
    (["Our flight leaves at 7:10."], "Could take-off be pushed back to 9, do you think?"),
    (["The match is on Saturday at 3pm."], "Kick-off might be moved to 5pm."),
    (["My driving lesson is at 4pm on Wednesday."], "Last week's lesson was moved to 6pm."),
    (["My flight is at 7:10 on Friday."], "The meeting got shifted to 9:30."),
    (["My train leaves at 7:40."], "My colleague's train has been pushed back to 9:10."),
    (["My surname is Gallagher."], "My daughter goes by Osei now."),
    (["My surname is Gallagher."], "Should I go by Osei after the wedding?"),
    (["My spin class is at the Arc gym on Mondays."], "My friend's session moved to Studio Nine."),
]


def _replaced(held: list[str], new: str) -> list[str | None]:
    return [target for verdict, target in message_verdicts(new, held) if verdict == SUPERSEDES]


@pytest.mark.parametrize(("held", "new", "index"), CORRECTIONS)
def test_an_event_moved_by_a_word_of_its_kind_replaces_the_held_one(
        held: list[str], new: str, index: int) -> None:
    assert _replaced(held, new) == [held[index]]


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    assert _replaced(held, new) == []


def test_two_held_events_of_the_kind_are_both_kept_and_linked() -> None:
    held = ["My flight out is at 7:10 on Friday.", "My train home is at 9:15 on Sunday."]
    assert [v for v, _ in message_verdicts("Departure has been pushed back to 10:05.", held)] \
        == [RELATED]


def test_the_thing_moved_is_read_as_subject_or_object() -> None:
    assert thing_moved("Take-off has been pushed back to 9:50.") == ("take-off",)
    assert thing_moved("They've moved the physio session to Thursday.") == ("physio", "session")
    assert thing_moved("We moved the sofa to the other wall.") is None  # (no event)
    assert "flight" in kin("boarding") and "flight" not in kin("session")


def test_a_move_with_no_shared_word_is_searched_for_among_dated_facts() -> None:
    assert marks("They've moved it to the 19th.")
    assert marks("My smear test is on the 14th.", held=True)
    assert not marks("My smear test is on the 14th.")  # (asks for nothing: no move)
    assert "surname" in related_query(["I go by Osei these days."]).split()


def test_a_new_home_named_on_the_next_sentence_is_the_speakers() -> None:
    said = ["Finally got the keys to the new place!", "It's 12 Larch Grove."]
    assert carry_holders(said)[1] == "The new place is 12 Larch Grove."
    for before in ("Tamsin got the keys to her new place!", "Went to a viewing of the new place.",
                   "Booked the holiday let for August.", "Is this the new place?"):
        assert carry_holders([before, "It's 12 Larch Grove."])[1] == "It's 12 Larch Grove."
    assert _replaced(["We rent a flat on Kelso Street."],
                     "The new place is 12 Larch Grove, we moved last week.") == \
        ["We rent a flat on Kelso Street."]
