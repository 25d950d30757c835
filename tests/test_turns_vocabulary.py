"""The opened turns find a message by the terms the query uses (`context.turns.Piece.holding`):
one function makes the new message's terms and the messages', so a word written with a
typographic apostrophe, or a stemmer whose term is not a prefix of its word, cannot make the
prefilter drop a message the ranking would choose. Pure parts and `Thread.context` on both
stores."""

from __future__ import annotations

from typing import Any

from memlane import Policy
from memlane.context.turns import Piece, rank_pieces, rank_turns
from memlane.memory import Memory
from memlane.text import fact_terms  # the read path's vocabulary
from memlane.types import Message

OPEN = Policy(dedupe_lines=False)


def _msg(seq: int, text: str, role: str = "user") -> Message:
    return Message(id=seq, thread_id="t", seq=seq, role=role, content=text, ts=1.7e9, tokens=5)


def test_a_typographic_apostrophe_finds_its_turn() -> None:
    pool = [_msg(1, "The weather was grey."), _msg(2, "We meet at nine o\u2019clock"),
            _msg(3, "Lunch was soup.")]
    for q in ("What time o\u2019clock?", "What time o'clock?"):
        assert [m.seq for m in rank_turns(pool, fact_terms(q), fact_terms, 3)] == [2]
    pool[1] = _msg(2, "We meet at nine o'clock")
    assert [m.seq for m in rank_turns(pool, fact_terms("What time o\u2019clock?"), fact_terms,
                                      3)] == [2]


def _story(text: str) -> frozenset[str]:
    """A vocabulary whose term is not a prefix of its word ("stories" -> "story")."""
    return frozenset(t[:-3] + "y" if t.endswith("ies") else t
                     for t in (w.lower().strip("?.,!") for w in text.split()))


def test_a_term_that_is_not_a_prefix_of_its_word_is_found() -> None:
    pool = [_msg(1, "I love bedtime stories"), _msg(2, "The weather was grey.")]
    want = _story("Any story?")
    assert "story" in want
    assert [m.seq for m in rank_turns(pool, want, _story, 2)] == [1]
    # A piece keeps the index of the function it was asked with; another one makes its own.
    piece = Piece(pool)
    assert [m.seq for m in rank_pieces([piece], want, _story, 2)] == [1]
    assert rank_pieces([piece], fact_terms("Any story?"), fact_terms, 2) == []
    assert [m.seq for m in rank_pieces([piece], want, _story, 2)] == [1]


def test_thread_context_opens_the_apostrophe_turn(store: Any) -> None:
    mem = Memory(store, "ns")
    t = mem.thread("t")
    for i in range(40):
        if i == 3:
            t.add("user", "We meet at nine o\u2019clock by the harbour crane.")
            t.add("assistant", "Noted.")
        t.add("user", f"The weather turned grey again this afternoon, so I stayed in ({i}).")
        t.add("assistant", f"A quiet afternoon with a book sounds nice ({i}).")
    t.flush()
    for q in ("What time o\u2019clock?", "What time o'clock?"):
        tr = t.context(1500, q, policy=OPEN).trace
        assert tr.window_start is not None and tr.window_start > 10  # it is evicted
        assert any("o\u2019clock" in b.text for b in tr.buffer_turns), q
    mem.close()
