"""A pronoun stands for a person only when that person was named recently in the conversation
(issue 41, part B): "His name is Kyle!" said hundreds of messages after "My landlord's called
Steve." is about someone just met, not the landlord, so it replaces nothing; the same words
right after the landlord was talked of (a record said a few messages back in this thread, or a
sentence of this stretch naming them) replace his name.

Filed by the offline writer (`extract`) with the related records as the runner gives them
(their thread and source message ids).
"""

from __future__ import annotations

from typing import Any

from memlane.step.heuristic import RECENT_MESSAGES, extract
from memlane.types import Message, Record


def _ops(said: list[str], held: dict[int, tuple[str, str, int]], first_id: int = 900) \
        -> list[dict[str, Any]]:
    """The step's record operations for the user messages `said` (ids from `first_id`), given
    held records {id: (text, thread, newest source id)}."""
    existing = [Record(id=i, namespace="n", text=t, thread_id=thread, source_ids=(src,))
                for i, (t, thread, src) in held.items()]
    msgs = [Message(id=first_id + 2 * n, thread_id="t", seq=400 + 2 * n, role="user",
                    content=s, ts=0.0, tokens=12) for n, s in enumerate(said)]
    return list(extract(msgs, existing)["records"])


def _updated(ops: list[dict[str, Any]]) -> set[int]:
    return {op["id"] for op in ops if op["op"] == "update" and op["text"] is not None}


LANDLORD = "My landlord's called Steve."


def test_a_pronoun_far_from_anyone_named_replaces_nothing() -> None:
    ops = _ops(["His name is Kyle!"], {1: (LANDLORD, "t", 12)})
    assert _updated(ops) == set()
    assert any("Kyle" in op["text"] for op in ops if op["op"] == "add")


def test_a_pronoun_right_after_the_person_was_named_stands_for_them() -> None:
    assert _updated(_ops(["His name is Kyle!"], {1: (LANDLORD, "t", 896)})) == {1}


def test_recent_is_counted_in_messages_of_this_thread() -> None:
    far = 900 - RECENT_MESSAGES - 1
    assert _updated(_ops(["His name is Kyle!"], {1: (LANDLORD, "t", far)})) == set()
    # said a moment ago, but in another conversation: not in view here
    assert _updated(_ops(["His name is Kyle!"], {1: (LANDLORD, "other", 899)})) == set()


def test_a_person_named_earlier_in_the_stretch_is_in_view() -> None:
    held = {1: ("My mum lives in Swansea.", "t", 3), 2: ("My dad lives in Cardiff.", "t", 5)}
    said = ["Mum came round for Sunday lunch with the dog.", "She's moved to Tenby now."]
    assert _updated(_ops(said, held)) == {1}
    assert _updated(_ops(said[1:], held)) == set()


def test_a_threads_first_message_has_only_the_memory_before_it() -> None:
    """A new conversation that opens with "She's moved to Tenby now" has no one named before
    it: the memory is its context, and the rule decides as for any held fact."""
    held = {1: ("My mum lives in Swansea.", "old", 3), 2: ("My dad lives in Cardiff.", "old", 5)}
    existing = [Record(id=i, namespace="n", text=t, thread_id=thread, source_ids=(src,))
                for i, (t, thread, src) in held.items()]
    msg = Message(id=900, thread_id="t", seq=1, role="user", content="She's moved to Tenby now.",
                  ts=0.0, tokens=12)
    assert _updated(list(extract([msg], existing)["records"])) == {1}


def test_a_pronoun_after_a_name_in_its_sentence_stands_for_that_person() -> None:
    """"Lucy wrote off the Jazz and she's got a Ford Puma now": "she" is Lucy, never Kate, the
    one other woman whose car the lexicon reads (on main Kate's Polo was replaced)."""
    from supersede_verdicts import message_verdicts

    held = ["My friend Lucy drives a Honda Jazz.", "My friend Kate drives a VW Polo."]
    said = "Lucy wrote off the Jazz in the snow and she's got a Ford Puma now."
    assert "My friend Kate drives a VW Polo." not in {t for _, t in message_verdicts(said, held)}
    held = ["My friend Lucy lives in Leeds.", "My friend Kate drives a VW Polo."]
    said = "Lucy finally passed her test and she drives a Ford Fiesta now."
    assert "My friend Kate drives a VW Polo." not in {t for _, t in message_verdicts(said, held)}
    # a name of the other sex says nothing of "she": the held facts decide, as before
    held = ["My sister lives in Leeds.", "My brother lives in York."]
    assert ("supersedes", "My sister lives in Leeds.") in \
        message_verdicts("Tom rang last night, and she's moved to Harrogate now.", held)


def test_a_persons_thing_is_no_one_a_pronoun_stands_for() -> None:
    """"Dad's Focus is in the garage so he's been driving Mum's Panda all week": "he" is Dad,
    never "Focus" (on main the clause was filed as "Focus has been driving ..." and replaced
    Dad's car), and a car used while one's own is away replaces nothing."""
    from memlane.step.clauses import clauses
    from memlane.step.supersede import SUPERSEDES
    from supersede_verdicts import message_verdicts

    said = "Dad's Focus is in the garage so he's been driving Mum's Panda all week."
    assert not clauses(said)[-1].startswith("Focus")
    held = ["My dad drives a Ford Focus.", "My mum drives a Fiat Panda."]
    assert [v for v in message_verdicts(said, held) if v[0] == SUPERSEDES] == []
