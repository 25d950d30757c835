"""The standing facts shown on every turn: pure selection, no store and no search.

A record is standing when it is pinned or of a kind in `validate.STANDING_KINDS`: the memory
step marks them when it files (constraints and needs, decisions, who people are, stable
preferences). A later request rarely names them ("What should I cook tonight?" after "I'm
allergic to shellfish" 300 messages back), so no search of the new message finds them; they are
shown in the core layer on every turn, whichever thread of the namespace they were said in.

`Thread.context` reads the namespace's standing records (`Store.standing_records`: at most
`STANDING_READ`, pinned first, then by kind, newest first; kept in the read cache) and
`rank_standing` orders them: pinned first, then what a wrong answer would cost most (the kinds'
order), within a kind the ones sharing the most terms with the new message, then the newest;
a need or agreement on a subject one before it already took (a term the message does not say)
after all the others, so a small budget shows one per subject. Needs and agreements are
shown always (`HARD_KINDS`), the others when the new message shares a term.
A value the user changed (a record whose text a correction replaced: `Store.corrected_records`)
is standing whatever its kind and shown like a need: the question that needs it rarely names
it, and the stale value may still stand in a turn in view; it ranks after the needs and the
agreements and before who people are.
A record another one is marked newer than (a correction the writer was not sure of, both kept:
"[newer than #N; may update it]") is left out while the newer one is shown: only the newest
value stands. The assembler shows them in this order while they fit `standing_cap` and says
how many it left out (`search_memory` reaches them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..text import newer_than
from ..types import Record
from ..validate import STANDING_KINDS
from .policy import Policy

__all__ = ["CHANGED_READ", "HARD_KINDS", "STANDING_READ", "Pool", "rank_standing", "standing_cap",
           "standing_pool", "standing_terms", "superseded"]

STANDING_READ = 200
"""Most standing records a turn reads (the costliest kinds first): the layer shows far fewer."""
CHANGED_READ = 40
"""Most changed values a turn reads, the newest records first: behind the needs and agreements
a 4k budget's layer shows a dozen facts in all (older changes are searched for)."""

_COST = {k: i for i, k in enumerate(STANDING_KINDS)}
_CHANGED = _COST["decision"] + 0.5
"""Where a changed value ranks: after the needs and agreements, before the other kinds."""
HARD_KINDS = frozenset({"constraint", "decision"})
"""Shown whatever the new message says: a need or an agreement a request may break without
naming it. The other standing kinds (who people are, preferences) are shown when the
new message shares a term with them: they are many in a long life story, and a turn's budget
spent on every one of them cost reach elsewhere (LoCoMo dev, 2k: docs/RESULTS.md)."""
_SPEAKER = re.compile(r"^[^\s:]{1,40}: ")
"""A named speaker's record begins with the name ("Caroline: I love ..."): every question
about her names her, so the name is no sign that the record bears on the question."""


def standing_terms(r: Record, terms: Callable[[str], frozenset[str]]) -> frozenset[str]:
    """The terms of a standing record that may match a new message (`terms` of its text,
    less a named speaker's "Name: ")."""
    return terms(_SPEAKER.sub("", r.text, count=1))


@dataclass(frozen=True)
class Pool:
    """A namespace's standing records as read (`standing_pool`), what a turn ranks."""

    records: Sequence[Record]
    known: Mapping[int, frozenset[str]]
    """Each record's `standing_terms`, by id."""
    older: frozenset[int]
    """`superseded(records)`."""
    changed: frozenset[int]
    """The ids of the values the user changed (`Store.corrected_records`)."""


def standing_pool(standing: Sequence[Record], corrected: Sequence[Record],
                  terms: Callable[[str], frozenset[str]]) -> Pool:
    """The pool of `Store.standing_records` and `Store.corrected_records` (one copy of a
    record both return), with each record's terms: what the read cache keeps."""
    seen = {r.id for r in standing}
    records = [*standing, *(r for r in corrected if r.id not in seen)]
    return Pool(records, {r.id: standing_terms(r, terms) for r in records},
                superseded(records), frozenset(r.id for r in corrected))


def rank_standing(records: Sequence[Record] | Pool, want: frozenset[str],
                  terms: Callable[[str], frozenset[str]]) -> list[Record]:
    """The standing records (a `Pool`, or a list of standing records none of them changed) in
    the order the core layer shows them; `want` are the new message's terms, `terms` the
    vocabulary that made them."""
    pool = records if isinstance(records, Pool) else standing_pool(records, (), terms)
    ranked = []
    for r in pool.records:
        mine = pool.known[r.id]
        shared = len(mine & want) if want else 0
        changed = r.id in pool.changed
        hard = r.pinned or r.kind in HARD_KINDS or changed
        if r.id in pool.older or not (hard or shared):
            continue
        cost = _CHANGED if changed and r.kind not in HARD_KINDS else _COST.get(r.kind, len(_COST))
        ranked.append(((not r.pinned, cost, -shared, -r.stated, -r.id), r))
    return _one_per_subject([r for _, r in sorted(ranked, key=lambda x: x[0])], want, terms,
                            pool.known)


def _one_per_subject(ranked: list[Record], want: frozenset[str],
                     terms: Callable[[str], frozenset[str]],
                     known: Mapping[int, frozenset[str]] | None) -> list[Record]:
    """`ranked` with each need or agreement that shares a subject (a term the new message
    does not say) with one ranked before it moved after the others: a long thread says the
    same need many ways ("I'm lactose intolerant", "I can't have dairy", "dairy-free for me"),
    and the newest of them is the one to show first; a budget that holds a few facts then holds
    one per subject before a second of any. Pinned records keep their place."""
    first: list[Record] = []
    later: list[Record] = []
    said: set[str] = set()
    for r in ranked:
        if r.pinned or r.kind not in HARD_KINDS:
            first.append(r)
            continue
        mine = (known[r.id] if known is not None else standing_terms(r, terms)) - want
        (later if mine & said else first).append(r)
        said |= mine
    return first + later


def superseded(records: Sequence[Record]) -> frozenset[int]:
    """The ids a record of `records` is marked newer than: left out while it is shown."""
    return frozenset(i for r in records for i in newer_than(r.text))


def standing_cap(budget: int, policy: Policy) -> int:
    """Tokens the core layer (the standing facts) may take: `Policy.standing_share` of the
    budget, at least `Policy.core_tokens`."""
    return max(policy.core_tokens, int(budget * policy.standing_share))
