"""Which records the context shows as notes: pure selection, no store and no search.

`Thread.context` reads (the namespace's records when they may fit, the searches) and calls these
functions for every decision: how many records to read or ask for (`NotesPlan`), whether the
namespace is shown whole (`fits_whole`), what the second query is (`recent_query`), and the order
the notes go in (`select_notes`). The standing facts, shown before the notes on every turn, are
chosen in `memlane.context.standing`. The assembler then shows them in that order while
they fit `Policy.notes_share` (`memlane.context.assemble`).

Split this way so that the selection can be tested and changed without a store, and so that a
surface reading the same rows some other way (another store, a cache) selects the same notes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..text import fact_terms
from ..types import ContextRows, Record
from .buffer import note_line
from .policy import Policy

__all__ = [
    "MAX_NOTES",
    "NOTES_HEADER_TOKENS",
    "NOTE_MIN_TOKENS",
    "NOTE_TYPICAL_TOKENS",
    "LEAN_TERMS",
    "RECENT_NOTES",
    "NotesPlan",
    "by_overlap",
    "fits_whole",
    "last_user_turn",
    "leans_on_last_turn",
    "notes_plan",
    "recent_query",
    "select_notes",
]

NOTE_MIN_TOKENS = 16
"""Tokens a shown note is taken to need at least ("- #123 " and one short sentence): a namespace
with more records than the notes share holds at this size is not read whole, only searched."""
NOTES_HEADER_TOKENS = 40
"""Tokens kept for the notes block's header and framing when deciding whether all records fit."""
NOTE_TYPICAL_TOKENS = 32
"""Tokens of a typical note (one sentence with its id): the search asks for the share over this,
so the notes about fill their share; what they leave goes to working memory."""
MAX_NOTES = 100
"""Most records a notes search asks for, whatever the budget (the search's own limit)."""
RECENT_NOTES = 3
"""Results of that second search shown (after the new message's own best three)."""

@dataclass(frozen=True)
class NotesPlan:
    """How much to read for the notes of one context (all bounded by the budget)."""

    cap: int
    """Tokens of the notes share."""
    most: int
    """Most records the share could hold: a namespace with more is searched, not read whole."""
    k: int
    """Results the search of the new message asks for."""

    @property
    def recent_k(self) -> int:
        """Results the second search (the user's last turn) asks for: the first search's `k`,
        so the search that turn ran for its own new message answers it (the memory's read
        cache keeps searches under the store's revision, `memlane.caches`)."""
        return self.k


def notes_plan(budget: int, policy: Policy) -> NotesPlan | None:
    """The reads for `budget` under `policy`, or None when the notes layer is off."""
    cap = int(budget * policy.notes_share)
    if cap <= 0:
        return None
    k = max(1, min(cap // NOTE_TYPICAL_TOKENS, MAX_NOTES))
    # Within the search's own limit (MAX_NOTES): asking for more is an error.
    return NotesPlan(cap=cap, most=max(1, cap // NOTE_MIN_TOKENS), k=k)


def fits_whole(records: Sequence[Record], plan: NotesPlan,
               count: Callable[[list[str]], list[int]]) -> bool:
    """Whether every one of `records` (the whole namespace) fits the notes share, so they are
    shown without a search. `count` is the tokenizer's `count`."""
    lines = [note_line(r, r.text) for r in records]
    room = plan.cap - NOTES_HEADER_TOKENS
    # A token is at least one character: a cheap yes first, the exact count if close.
    return sum(len(x) + 1 for x in lines) <= room or sum(count(lines)) + len(lines) <= room


def last_user_turn(rows: ContextRows | None, new_message: str) -> str:
    """The user's last message in `rows` that is not the new message itself (a proxy stores the
    new message before it asks for the context), or ""."""
    if rows is None:
        return ""
    for m in reversed(rows.window):
        if m.role == "user" and m.content.strip() and m.content != new_message:
            return m.content
    return ""


def recent_query(new_message: str, rows: ContextRows | None, policy: Policy) -> str | None:
    """The second notes search's query (`Policy.notes_recent`): the user's last turn before the
    new message, whole; None when there is none to run. The new message's own terms are the
    first search's; a follow-up ("Any news on it?") needs what the turn it follows named. That
    turn's text is the query its own context searched for, so under an unchanged store the
    second search is a read-cache hit, not a second search a turn (the search keeps the query's
    rarest terms, so a long turn is a bounded query too)."""
    if not policy.notes_recent:
        return None
    return last_user_turn(rows, new_message) or None


LEAN_TERMS = 2
"""A new message with at most this many content terms of its own leans on the turn before
(`select_notes`)."""


def leans_on_last_turn(terms: frozenset[str] | set[str]) -> bool:
    """Whether a new message with these content terms is a follow-up that leans on the turn
    before ("Any news on it?", "And the second one?") rather than a subject of its own."""
    return len(terms) <= LEAN_TERMS


def by_overlap(records: Sequence[Record], want: frozenset[str],
               every: bool = False) -> list[Record]:
    """`records` sharing a term with `want`, the most shared first (a stable sort): what stands
    for a search's results where the records were read without one (a namespace shown whole).
    `every`: the ones sharing none too, last (the stretches a date points at: what was said
    that day need share no word with the question)."""
    if not want and not every:
        return []
    scored = [(len(fact_terms(r.text) & want), i) for i, r in enumerate(records)]
    return [records[i] for n, i in sorted(scored, key=lambda x: (-x[0], x[1])) if n or every]


def select_notes(searched: Sequence[Record], recent: Sequence[Record] = (),
                 lean: bool = False, dated: Sequence[Record] = ()) -> list[Record]:
    """The notes in the order they are shown: the first search's results (the new
    message's), then the second search's (the user's last turn) best `RECENT_NOTES`
    not already there; each record once. With `lean` (a new message with few words of its
    own, `leans_on_last_turn`) the second search's go right after the first search's best
    `RECENT_NOTES`: "Any news on it?" is about what the turn before named, and the first
    search's tail is its weakest part. A message with a subject of its own keeps its own
    results first: the turn before only fills what room they leave.

    `dated`: records of the stretches the new message's date points at (`context.when`),
    best first; they go right after the first search's best `RECENT_NOTES` (a question about
    a day asks what was said that day, in words a search of it need not share)."""
    seen = {r.id for r in searched}
    extra = [r for r in recent if r.id not in seen][:RECENT_NOTES]
    out = ([*searched[:RECENT_NOTES], *extra, *searched[RECENT_NOTES:]] if lean
           else [*searched, *extra])
    if not dated:
        return out
    head = out[:RECENT_NOTES]
    ids = {r.id for r in head}
    mid = [r for r in dict((r.id, r) for r in dated).values() if r.id not in ids]
    ids.update(r.id for r in mid)
    return [*head, *mid, *(r for r in out[RECENT_NOTES:] if r.id not in ids)]
