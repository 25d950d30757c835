"""A correction is filed whatever its shape: a clause the writer would not keep on its own ("she's
four now" after a birthday, "Everything's with Starling now") or a part of the sentence its
clauses leave out ("..., can't believe he's turned five") is filed when the supersede rule reads
it as a new value of a held fact, and only then: the same words with nothing held, or held facts
of another holder or thing, file nothing new from them. Each case runs the offline writer
(`extract`, the function every heuristic step runs) over one user message with the held records
as its related records."""

from __future__ import annotations

import pytest

from memlane.step.heuristic import extract
from memlane.types import Message, Record


def _ops(message: str, held: list[str]) -> list[dict[str, object]]:
    records = [Record(id=10 + i, namespace="n", text=t) for i, t in enumerate(held)]
    out = extract([Message(id=1, thread_id="t", role="user", content=message, ts=0.0, tokens=9,
                           seq=5)], records)
    return list(out["records"])


CORRECTED = [  # (held, message, a word the update's text must hold)
    # the pronoun in a sentence of its own, after the one naming the pet; "She's" and "Can't"
    # name no one
    (["Our hamster Nibbles is two."],
     "Nibbles had her birthday at the weekend. She's three now!", "three"),
    (["Our hamster Nibbles is two."],
     "Nibbles had her birthday at the weekend, we got her a new wheel. Can't believe she's 3!",
     "3"),
    (["Our cat Mango is three."],
     "It was Mango's birthday yesterday, she's four now and still acts like a kitten.", "four"),
    (["Our dog Biscuit is four, still acts like a puppy though."],
     "We had a little party for Biscuit yesterday, can't believe he's turned five.", "five"),
    (["I bank with Monzo for all my day-to-day stuff."],
     "Everything's with Starling now, I closed the old account in the summer.", "Starling"),
    (["My rabbit Clover is two."],
     "Took Clover to the vet for her jabs, she's three now, where does the time go.", "three"),
    (["I bank with Barclays."], "Everything's with Nationwide now, I moved my account over.",
     "Nationwide"),
    (["Our tortoise Shelby is forty-two."],
     "It was Shelby's birthday on Sunday, he's forty-three now and still eats like a horse.",
     "forty-three"),
    # a place after "in" names no one: "she" is Nan, named before it
    (["My nan lives in Hastings."],
     "Nan hasn't been well. She's gone into a care home in Folkestone, near my aunt.",
     "Folkestone"),
    # a job ended by retiring, said in lower case, is a new value too
    (["My mum is a librarian.", "My dad's an accountant."],
     "Mum's doing well. She's retired from the library now and volunteers at the hospice.",
     "retired"),
]


@pytest.mark.parametrize(("held", "message", "word"), CORRECTED)
def test_a_correction_of_any_shape_updates_the_held_record(
        held: list[str], message: str, word: str) -> None:
    updates = [op for op in _ops(message, held) if op["op"] == "update"]
    assert len(updates) == 1 and updates[0]["id"] == 10
    assert word in str(updates[0]["text"])


NOT_CORRECTED = [  # (held, message, a word no record may hold)
    ([], "It was Mango's birthday yesterday, she's four now and still acts like a kitten.",
     "four"),
    (["My neighbour's cat is three."],
     "It was Mango's birthday yesterday, she's four now and still acts like a kitten.", "four"),
    (["I live in Leeds."], "I live in Leeds, so anything up north works for me.", "anything"),
    (["Our cat Mango is three."], "We had a party for my nephew yesterday, he's five now.",
     "Mango"),
    # a name after "with" may be the "she" (not a place): the held sister keeps her age
    (["My sister Ana is 28."], "Had lunch with Priya, she's 30 now.", "30"),
]


@pytest.mark.parametrize(("held", "message", "word"), NOT_CORRECTED)
def test_a_part_left_out_that_corrects_nothing_files_nothing(
        held: list[str], message: str, word: str) -> None:
    ops = _ops(message, held)
    assert all(op["text"] in held for op in ops if op["op"] == "update")  # (a source, at most)
    assert not any(word in str(op.get("text", "")) for op in ops)
