"""The buffer's opened turns, pure: which evicted messages the new message matches.

The buffer stands for the evicted part of the conversation: its lines say what each stretch was
about, and it also opens a few evicted messages the new message matches, shown verbatim under
their stretch's line (`Policy.buffer_turns`). About one question in six of LoCoMo's has no
record citing its evidence (docs/RESULTS.md, issue 21): only a turn reaches it.

Bounded by k and the query, never by the thread: `Thread._opened` reads only the messages
of a few candidate stretches (the ones the notes search's best records were filed from,
`STRETCHES` at most, the ones the line index matched, and the newest evicted ones,
`Policy.reach_stretches`; each read up to `STRETCH_READ` messages), and this module ranks
them. The term weights are the pool's own (BM25 over the candidate messages):
no index over the message log, so appending a message costs nothing more.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence

from ..text import BM25_B, BM25_K1
from ..types import ContextRows, Episode, Message, Record
from .policy import Policy

STRETCHES = 4
"""At most this many of the stretches the best records cite are read per turn (the line index's
come on top: `Policy.index_lines` and `Policy.dated_lines` bound them, and the newest evicted
ones: `Policy.reach_stretches`)."""

STRETCH_READ = 40
"""At most this many messages are read of one candidate stretch (a stretch is a few turns; the
cap holds for a store filed with long stretches)."""

CITED_RECORDS = 10
"""The notes search's best this many records vote for the stretches they were filed from."""

CITED_PER_RECORD = 3
"""Of each voting record, at most this many cited messages are looked up (a record filed from a
whole stretch can cite dozens; its first few place it)."""

CITED_IDS = 24
"""At most this many cited messages are looked up in all (one bounded read of their seqs)."""

UNFILED_SPAN = 4
"""A cited message whose stretch is not known (not filed yet, older than the line index, or
longer than `STRETCH_READ`) stands for the messages this far either side of it."""

K1, B = BM25_K1, BM25_B
"""BM25's constants (`memlane.text`)."""

NAMED_BOOST = 1.0
"""A message said by a speaker the new message names ("What is Nate's favourite film?") scores
`1 + NAMED_BOOST` times its BM25: of two messages sharing "film", the one Nate said is likelier
what is asked (LoCoMo annotations: +8 / +7 questions at 2k / 4k, none lost; `rank_pieces`)."""


def stretch_votes(
    cited: Sequence[tuple[int, int]], matched: Sequence[Episode], ends: Sequence[int],
    before: int, near: Sequence[Episode] = (),
) -> list[tuple[int, int]]:
    """The candidate stretches as (start, end) seq ranges that end before seq `before` (the
    window's start: what is in view needs no opening): the ones the best records cite, best
    first, at most `STRETCHES`, then the line index's not among them, in their order, then
    the `near` ones (the newest evicted stretches, `Policy.reach_stretches`) not among them,
    each cut at `before` (the one the window starts in holds its evicted part only).

    `cited`: (rank of the record among the search's results, seq of a message it cites); a
    record ranked r gives 1 / (r + 1) to the stretch holding its message. `matched`: the line
    index's stretches, best first (`Policy.index_lines` and `Policy.dated_lines` bound them).
    `ends`: the ends of the filed stretches, ascending (a stretch runs from the end before it,
    exclusive, to its end).

    A matched line takes no cited stretch's place: a line is shown and points at its records
    already, and when the lines outvoted the records the turn a lower-ranked record cites was
    never a candidate (LoCoMo annotations, 2k to 8k: "When did John meet with his teammates
    after returning from Chicago?" matched two lines whose stretches pushed out the one
    holding the answer; `retrieval+turns`, which matches no lines, opened it)."""
    votes: dict[tuple[int, int], float] = {}
    for rank, seq in cited:
        if seq >= before:
            continue
        i = bisect.bisect_left(ends, seq)
        if i < len(ends):
            span = ((ends[i - 1] + 1) if i > 0 else 1, ends[i])
        else:
            span = (seq - UNFILED_SPAN, seq + UNFILED_SPAN)  # not filed yet
        if span[1] - span[0] >= STRETCH_READ:
            # Longer than a read, or older than the line index (which then has no end before
            # it): the messages around the cited one.
            span = (seq - UNFILED_SPAN, seq + UNFILED_SPAN)
        key = (max(1, span[0]), min(span[1], before - 1))
        votes[key] = votes.get(key, 0.0) + 1.0 / (rank + 1)
    best = sorted(votes.items(), key=lambda kv: (-kv[1], -kv[0][1]))
    out: list[tuple[int, int]] = []
    for (s, e), _ in best:
        if len(out) >= STRETCHES:
            break
        _add(out, s, e)
    for ep in [*matched, *near]:
        if ep.start < before:
            _add(out, ep.start, min(ep.end, before - 1))
    return out


def near_stretches(rows: ContextRows, policy: Policy) -> tuple[Episode, ...]:
    """The newest evicted stretches whose turns are candidates for opening, newest first
    (`Policy.reach_stretches`, with `Policy.use_working`): of the ones `rows` holds for the
    block (the newest that start before the window, `ContextRows.recent_episodes`)."""
    if not policy.use_working or policy.reach_stretches <= 0:
        return ()
    return rows.recent_episodes[:policy.reach_stretches]


def _add(out: list[tuple[int, int]], s: int, e: int) -> None:
    """Add (s, e) to `out` unless it overlaps one there: overlapping ranges (an unfiled span
    inside a stretch) are read once."""
    if not any(s <= e2 and s2 <= e for s2, e2 in out):
        out.append((s, e))


def cited_ids(records: Sequence[Record]) -> list[int]:
    """The message ids the best `CITED_RECORDS` records cite, at most `CITED_PER_RECORD` of
    each and `CITED_IDS` in all, best record first: what `cited_seqs` needs looked up."""
    out: dict[int, None] = {}
    for rec in records[:CITED_RECORDS]:
        for m in rec.source_ids[:CITED_PER_RECORD]:
            out[m] = None
            if len(out) >= CITED_IDS:
                return list(out)
    return list(out)


def cited_seqs(records: Sequence[Record], seq_of: dict[int, int]) -> list[tuple[int, int]]:
    """(rank, seq) of each message the best `CITED_RECORDS` records cite (`stretch_votes`);
    `seq_of` maps this thread's message ids to seqs (other threads' are absent)."""
    return [(r, seq_of[m]) for r, rec in enumerate(records[:CITED_RECORDS])
            for m in rec.source_ids[:CITED_PER_RECORD] if m in seq_of]


class Piece:
    """Candidate messages ready for `rank_pieces`: the user and assistant messages of a part of
    the pool, each seq once (the first), in order. Their terms are made once a piece, by the
    same `terms_of` the query's terms came from (`index`), and kept with it: the same
    stretches are candidates turn after turn (`Thread._turn_pool` keeps their pieces), and
    splitting the messages is most of the cost of ranking them."""

    __slots__ = ("_index", "chars", "messages", "names", "seqs")

    def __init__(self, pool: Sequence[Message]) -> None:
        seen: set[int] = set()
        cands: list[Message] = []
        chars = 0
        for m in pool:
            if m.seq in seen or m.role not in ("user", "assistant"):
                continue
            seen.add(m.seq)
            chars += len(m.content)
            cands.append(m)
        self.messages: list[Message] = cands
        self.seqs: frozenset[int] = frozenset(seen)
        self.chars: int = chars
        self.names: frozenset[str] = frozenset(m.name for m in cands if m.name)
        """The speakers' names (`Message.name`): a term of one is no match (`rank_pieces`)."""
        self._index: tuple[Callable[[str], frozenset[str]], list[frozenset[str]],
                           dict[str, list[int]]] | None = None

    def index(self, terms_of: Callable[[str], frozenset[str]]
              ) -> tuple[list[frozenset[str]], dict[str, list[int]]]:
        """The terms of each message (`terms_of` of its text) and, for each term, the
        positions of the messages holding it, ascending. Made on the first call and kept for
        the calls with an equal `terms_of` (another one makes it again)."""
        got = self._index
        if got is None or got[0] != terms_of:
            bags = [terms_of(m.content) for m in self.messages]
            where: dict[str, list[int]] = {}
            for j, bag in enumerate(bags):
                for t in bag:
                    where.setdefault(t, []).append(j)
            self._index = got = (terms_of, bags, where)
        return got[1], got[2]

    def holding(self, want: frozenset[str], terms_of: Callable[[str], frozenset[str]]
                ) -> list[tuple[Message, frozenset[str]]]:
        """The messages whose terms (`terms_of`, as `index`) meet `want`, in order, each with
        the terms it shares: exactly the messages the ranking scores, found by term, so the
        query's words and the messages' are made by one function and cannot disagree."""
        bags, where = self.index(terms_of)
        hits = sorted({j for t in want for j in where.get(t, ())})
        return [(self.messages[j], bags[j] & want) for j in hits]


def rank_turns(pool: Sequence[Message], want: frozenset[str],
               terms_of: Callable[[str], frozenset[str]], k: int) -> list[Message]:
    """The `k` messages of `pool` that best match the terms `want`, best first (BM25 over the
    pool, lengths in characters; ties to the older message). A message sharing no term is
    never chosen. `rank_pieces` of the pool as one piece."""
    if not pool or not want or k <= 0:
        return []
    return rank_pieces([Piece(pool)], want, terms_of, k)


def rank_pieces(pieces: Sequence[Piece], want: frozenset[str],
                terms_of: Callable[[str], frozenset[str]], k: int) -> list[Message]:
    """`rank_turns` of the pool the `pieces` make, in order (a seq in two pieces counts once,
    the first).

    `want` are `terms_of` terms: a message is a candidate when `terms_of` of its text meets
    them (`Piece.holding`, by the piece's term index), and is scored on what it shares; the
    terms of the pool's speakers' names (`Piece.names`) do not count, and a message by a
    speaker the new message names scores `1 + NAMED_BOOST` times as much."""
    if not pieces or not want or k <= 0:
        return []
    if len(pieces) > 1:
        seqs: set[int] = set()
        for p in pieces:
            if not seqs.isdisjoint(p.seqs):  # only hand-made pools repeat a seq
                return rank_pieces([Piece([m for q in pieces for m in q.messages])], want,
                                   terms_of, k)
            seqs |= p.seqs
    n = sum(len(p.messages) for p in pieces)
    if not n:
        return []
    # A speaker's name is in the messages addressed to them ("Thanks, Melanie!"), not a sign a
    # message is about what the new message asks: a message sharing only a name is no match.
    # A speaker the new message names (every term of the name in it) is who it asks about: what
    # they said weighs more (`NAMED_BOOST`).
    name_terms = {name: terms_of(name) for p in pieces for name in p.names}
    named = {name for name, ts in name_terms.items() if ts and ts <= want}
    want = want - frozenset(t for ts in name_terms.values() for t in ts)
    if not want:
        return []
    docs = [hit for p in pieces for hit in p.holding(want, terms_of)]
    df: dict[str, int] = {}
    for _, hit in docs:
        for t in hit:
            df[t] = df.get(t, 0) + 1
    if not df:
        return []
    idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
    avg = sum(p.chars for p in pieces) / n or 1.0
    scored = []
    for m, hit in docs:
        # Terms are a set per message (tf 1): the length norm still favours a short, on-topic
        # message over a long one that mentions the word once.
        norm = K1 * (1 - B + B * len(m.content) / avg)
        s = sum(idf[t] for t in hit) * (K1 + 1) / (1 + norm)
        if m.name in named:
            s *= 1.0 + NAMED_BOOST
        scored.append((-s, m.seq, m))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [m for _, _, m in scored[:k]]
