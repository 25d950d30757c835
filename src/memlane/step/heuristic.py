"""The offline memory step: a deterministic heuristic extractor, no model.

It is good enough for tests, demos and the offline evaluation, and it is named for what it is: it
keeps sentences that look like facts (first person, names, numbers, dates, preferences) verbatim,
writes the episode line (`step/lines.py`: what the stretch was about and how it ended), and
scores each turn by how much it said. It produces the same JSON a model would, so its output
goes through the same validation and apply path.

Records worth pointing at:
- sentences are split by `split_sentences`, which knows abbreviations ("Dr. Okafor", "St. Mary's",
  "e.g."), initials and decimals ("3.5"), so a fact is not cut in two;
- each sentence is cut into what a person would write down (`step/clauses.py`): one record per
  fact, fillers, remember-requests and a trailing question off (the message keeps them);
- questions and requests ("Tell me more about...", "Can you...", "Please...") are not facts;
- one copy of each fact per namespace, and facts over time: given the related records a model
  step is shown (`Memory.related`, any thread of the namespace), the supersede rule
  (`step/supersede.decide`) says whether a fact repeats one (the record gains the turn as a
  source; the episode points at the existing id), supersedes one (same holder and attribute,
  a new value: an update, the old text kept as history), may update one (both kept, the new one
  marked newer), or is new.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from ..caches import remember
from ..text import FACT_STOPWORDS, mark_newer
from ..types import Message, Record
from ..validate import STANDING_KINDS
from . import anchored, misstated, numbered, occupations, orgs, pastimes
from .asides import dislike_by_effect
from .clauses import TAG_WORDS, asked_to_keep, carry_holders, clauses, name_holder
from .holders import held_names, held_news, holder_attribute
from .kinds import HELD_KINDS, held_kind, kind_of, standing_rule
from .lines import episode_line
from .numbered import _WORD_N as _NUMBER_WORDS
from .people import told
from .sentences import (
    _EVENT,
    _FIRST,
    _FIRST_PERSON,
    _GREETING,
    _PREF,
    _words,
    dropped_subject,
    gone_from,
    is_fact,
    is_request,
    routine_changed,
    split_sentences,
    standing,
)
from .shapes import arrangement, is_fragment, kin_fact, name_news, names_holder, names_role
from .slots import counted
from .supersede import DUPLICATE as DUPLICATE  # the repeat threshold, read by eval/replay.py
from .supersede import (
    RELATED,
    SAME,
    SUPERSEDES,
    Claim,
    Decision,
    decide,
    read_claim,
    strip_lead,
)


def sentence_score(sentence: str, names: frozenset[str] = frozenset()) -> float:
    """How fact-like a sentence is: rewards specifics (numbers, names, first person, events).
    `names` (lower case) are the participants': addressing someone ("Glad I could help, John")
    is not a fact about anyone, so their names count neither as content nor as names."""
    words = _words(sentence)
    # "I'm vegan." and "Luna turned 5." say a lot
    short = 2 if _FIRST_PERSON.match(sentence.strip()) or any(ch.isdigit() for ch in sentence) \
        or names_role(sentence) or kin_fact(sentence) or name_news(sentence) \
        else 4  # "Toby, my puppy.", "Dad's got gout.", "Becky's pregnant again."
    if len(words) < short or _GREETING.match(sentence):
        return 0.0
    if names:
        words = [w for w in words if w.lower() not in names]
    content = [w for w in words if w.lower() not in FACT_STOPWORDS]
    score = 0.15 * min(len(content), 8) / 8
    if _FIRST.search(sentence) or dropped_subject(sentence) or gone_from(sentence) or \
            routine_changed(sentence) or names_holder(sentence) or kin_fact(sentence) or \
            arrangement(sentence) or name_news(sentence):
        # the speaker's, said or with the subject dropped ("Just started ..."), or their
        # people's by name or a family word ("Mia's started at Kings Norton Girls now"), or
        # how their household runs ("The new rota means two late shifts a week for everyone")
        score += 0.25
    if any(ch.isdigit() for ch in counted(sentence)):  # ("four days a week": a number too)
        score += 0.3
    # Capitalised words past the first are names, places, titles; so is the first when it
    # names whose fact the sentence states ("Jo got a job at the council").
    if any(w[0].isupper() and w.lower() not in FACT_STOPWORDS for w in words[1:]) or \
            names_holder(sentence) or kin_fact(sentence):
        score += 0.2
    if _PREF.search(sentence):
        score += 0.25
    if _EVENT.search(sentence):
        score += 0.1
    if sentence.rstrip().endswith("?"):
        score -= 0.35  # questions ask for facts; they rarely state them (relevance uses this)
    return max(0.0, min(score, 1.0))


def extract(
    messages: Sequence[Message],
    existing: Sequence[Record] = (),
    *,
    min_score: float = 0.2,
    max_per_message: int = 3,
    include_assistant: bool = False,
) -> dict[str, Any]:
    """The step output (schema-shaped dict) for one stretch of messages.

    `existing` are the namespace's records related to the stretch (`Memory.related`, what a
    model step is shown): a near-duplicate of one is not added again, and a correction of one
    updates it (see the module docstring)."""
    ops: list[dict[str, Any]] = []
    # Facts this step knows of: the related records, then what it writes.
    thread = messages[0].thread_id if messages else None
    known = [_Fact(r.text, None, r.id, _said_here(r, thread))
             for r in sorted(existing, key=lambda r: r.id)]
    updates: dict[int, dict[str, Any]] = {}
    relevance: list[dict[str, Any]] = []
    turn_best: dict[int, float] = {}
    turn_of: dict[int, int] = {}
    current_turn = messages[0].seq if messages else 0
    names = frozenset(n for m in messages if m.name for n in m.name.lower().split())
    # "my flatmate Ravi": his news is filed (not the participants': they talk all the time)
    held = held_names(k.claim.said for k in known) - names
    named: set[str] = set()  # who the stretch's user messages so far are about (`_in_view`)
    last_said: tuple[str | None, str | None] = (None, None)  # the last user, their last sentence
    for m in messages:
        if m.role == "user":
            current_turn = m.seq
        turn_of[m.seq] = current_turn
        if m.role not in ("user",) and not (include_assistant and m.role == "assistant"):
            continue
        sentences, last_said = _sentences(m, last_said)
        # A thread's first user message has no conversation before it: its "she" may be
        # anyone the memory holds (the rule decides); later, only someone named recently.
        opening = not named and messages[0].seq == 1
        named |= {holder_attribute(strip_lead(s))[0] for s in sentences}
        # What is kept is decided by the clause's shape (`is_fact`); the score only ranks
        # the facts of a long message, of which the best `max_per_message` are kept. A clause
        # is what a person would write down of a sentence (`clauses`): one fact, no filler.
        # An agreement is kept whatever its shape ("Final call: the kitchen gets painted sage
        # green.", "Let's go with Nordvik"), a need unless it is asked for ("Find me a recipe
        # without gluten"), and their clauses keep the sentence's kind (`held_kind`).
        units = [(c, dropped, asked_to_keep(s) or k == "decision"
                  or (k == "constraint" and (not is_request(c) or standing_rule(c))), k, s)
                 for s in sentences for k in (kind_of(s),) for c, dropped in _with_dropped(s)
                 if not misstated.owned_only(c, s)]  # ("I said Rhiannon": no fact to file)
        fits = None if opening else named
        scored = []
        for i, (c, dropped, keep, k, s) in enumerate(units):
            # A part the clauses left out is filed only when it corrects a held fact.
            fact = not dropped and is_fact(c, names)
            news = _corrects(c, s, m, known, fits) if dropped else (
                held_news(c, held) or told(c) or dislike_by_effect(c) or standing(c) or
                pastimes.taken_now(c) or  # ("Doing padel now.": the speaker's, however short)
                (not fact and (_corrects(c, s, m, known, fits) or
                               "employer" in orgs.held_values(c))))  # ("X pay my wages")
            if news or fact or (not dropped and keep and _substance(c, names)):
                score = max(sentence_score(c, names), 0.3 if keep or news else 0.0)
                scored.append((score, i, c, k, s))
        scored.sort(key=lambda t: (-t[0], t[1]))
        kept = [t for t in scored[:max_per_message] if t[0] >= min_score]
        for _, _, c, k, s in sorted(kept, key=lambda t: t[1]):
            _file(c, m, ops, known, updates, held_kind(c, k), s,
                  None if opening else named)
        # Relevance is not fact-likeness: a user's question matters to the turns that follow,
        # so questions are scored without the penalty records get for them.
        best = max((sentence_score(s.rstrip("?") + ".") for s in sentences), default=0.0)
        turn_best[current_turn] = max(turn_best.get(current_turn, 0.0), best)
    for seq in sorted({turn_of[m.seq] for m in messages if m.role == "user"}):
        relevance.append({"seq": seq, "score": round(0.2 + 0.8 * turn_best.get(seq, 0.0), 3)})
    return {
        "records": finish_ops(ops, existing),
        "episode": episode_line(messages, names),
        "relevance": relevance,
    }


_READINGS: ContextVar[dict[str, tuple[Any, ...]] | None] = ContextVar(
    "memlane_fact_readings", default=None)
"""The memo `_Fact` reads texts through, while `fact_readings` holds one (else none)."""


@contextmanager
def fact_readings(memo: dict[str, tuple[Any, ...]] | None) -> Iterator[None]:
    """Within it, on this thread, the steps' readings of texts as facts (`_Fact`: terms,
    holder, values, subject, head; a pure function of the text) are memoised in `memo`: the
    memory's `Caches.facts`, which a forget empties. A conversation's related records come
    back stretch after stretch, and reading each again was a quarter of the heuristic step.
    `None`: computed every time, as without it."""
    token = _READINGS.set(memo)
    try:
        yield
    finally:
        _READINGS.reset(token)


class _Fact:
    """A fact this step knows of: a related record (`rid`) or one this step writes (`op`), as
    the supersede rule reads it (`supersede.read_claim`)."""

    __slots__ = ("claim", "last", "op", "rid")
    claim: Claim

    def __init__(self, text: str, op: dict[str, Any] | None, rid: int | None,
                 last: int | None = None) -> None:
        self.op = op
        self.rid = rid
        self.last = last
        """The newest id of its source messages in this stretch's thread (None: none there)."""
        self._read(text)

    def _read(self, text: str) -> None:
        memo = _READINGS.get()
        hit = memo.get(text) if memo is not None else None
        if hit is None:
            self.claim = read_claim(text)
            if memo is not None:
                remember(memo, text, (self.claim,))
        else:
            self.claim = hit[0]


_PART = re.compile(r",\s*(?:(?:and|but|so)\s+)?")


def _with_dropped(sentence: str) -> list[tuple[str, bool]]:
    """The sentence's clauses, then (marked True) the comma-parts of it they left out,
    which a person would still write down when they change a held fact ("We had a party for
    Biscuit yesterday, can't believe he's turned five"; "..., so from next week my sessions
    are on Thursdays")."""
    kept = clauses(sentence)
    parts = [p.strip(" .!") for p in _PART.split(sentence)]
    seen = set(re.findall(r"[a-z']{3,}", " ".join(kept).lower()))
    return [(c, False) for c in kept] + [
        (p[0].upper() + p[1:] + ".", True) for p in (parts if len(parts) > 1 else [])
        if len(p.split()) >= 3 and "?" not in p and
        len(set(re.findall(r"[a-z']{3,}", p.lower())) - seen) >= 2]


def _corrects(clause: str, sentence: str, m: Message, known: list[_Fact],
              named: set[str] | None) -> bool:
    """Whether a clause not shaped as a fact gives a held fact a new value, as the supersede
    rule reads it when filing ("It was Mango's birthday yesterday, she's four now",
    "Everything's with Starling now"): a correction is worth filing whatever its shape."""
    if not known or "?" in clause or not (_VALUE.search(clause[1:]) or pastimes.named(clause) or
                                          occupations.role(clause) or
                                          occupations.RETIRED.search(clause) or
                                          orgs.said_now(clause, sentence) or
                                          read_claim(clause).ends or
                                          misstated.wrong_value(sentence)):
        return False  # (a new value is a number, a name, a pastime or a job: "moved on to judo
        # now", "she's moved into a product owner role", "he's retired from the library", "she
        # teaches at the secondary school now": `orgs.said_now`; what ended: "Not going to the
        # knitting group any more"; a value named as wrong: "I said fourth floor, but it's
        # actually the fifth", `misstated`)
    said, d, target = _decided(clause, m, known, sentence, named)
    if d.verdict != SUPERSEDES or target is None:
        return False
    # A pronoun stands for whom the sentence names, if it names anyone ("It was Mango's
    # birthday, she's four now" is Mango's age, not the one other cat held).
    first = [w for w in _NAME.findall(sentence)[:1]
             if sentence.startswith((w + "'s", w + "\u2019s"))]
    # (not a place or a firm after a preposition: "She's gone into a care home in Folkestone")
    named = ({m.group(0).lower() for m in _NAME.finditer(sentence)
              if m.start() and not _PLACED.search(sentence, 0, m.start())}
             | {w.lower() for w in first}) - _PRONOUNS  # ("She's eight now!", "Can't believe
    # she's 8!" name no one)
    held = {w.lower() for w in _NAME.findall(target.claim.said)}
    return not said.holder.rpartition("|")[2].startswith("?") or not named or bool(named & held)


_VALUE = re.compile(rf"\d|(?-i:\b[A-Z][a-z])|\b(?:{_NUMBER_WORDS})\b", re.I)
_NAME = re.compile(r"(?-i:\b[A-Z][a-z]+)(?=['\u2019]s\b|\b)")
_PLACED = re.compile(r"\b(?:(?:in|at|to|from|near|into)\s+(?:the\s+)?|an?\s+)$", re.I)
"""A place, a firm or a thing ("he's on a Motorola now"), not a person, is named next."""
_PRONOUNS = frozenset("she he it they we you i god lord christ".split())
"""Words no person is named by: pronouns, and an oath's ("..., God help us")."""


RECENT_MESSAGES = 24
"""How near (in message ids) a held fact must have been said in this thread for "she" or "he" to
stand for its holder: about the turns a model sees verbatim (short-term and working memory).
Ids are store-wide, so another thread's messages between only widen the gap: never a person
from further back. A pronoun whose person was named hundreds of messages ago ("His name is
Kyle!" long after "My landlord's called Steve.") is someone new, not a held one."""


def _said_here(r: Record, thread: str | None) -> int | None:
    """The newest source message id of the held record `r` when it was filed in `thread`."""
    return max(r.source_ids) if r.source_ids and r.thread_id == thread else None


def _in_view(said: Claim, m: Message, known: list[_Fact], named: set[str]) -> list[int]:
    """The indices of the facts in `known` that the statement `said` (of message `m`) may be
    about: all of them, unless its holder is "she" or "he"; then only the facts of the people
    named recently (`named`: the holders the stretch's messages so far open with; the holders
    of the facts this step wrote or touched, or said within `RECENT_MESSAGES` in this thread).
    A person of a held fact matches by the holder or by the first name ("named ruby" for
    "daughter ruby"), or by a name its own sentence says."""
    if said.holder.rpartition("|")[2] not in ("?she", "?he"):
        return list(range(len(known)))
    recent = {k.claim.holder.rpartition("|")[2] for k in known if k.op is not None or
              (k.last is not None and 0 <= m.id - k.last <= RECENT_MESSAGES)}
    recent |= named
    names = {h[6:] for h in recent if h.startswith("named ")} | \
        {w.lower() for w in _NAME.findall(said.context or said.said)}  # ("Mango's birthday, she")
    return [i for i, k in enumerate(known)
            if (who := k.claim.holder.rpartition("|")[2]) in recent or
            (" " in who and who.rpartition(" ")[2] in names)]


def _substance(clause: str, names: frozenset[str]) -> bool:
    """Whether a clause kept for its sentence's kind says something of its own: two content
    words besides the speakers' names, or one under a negation. "Hey Nate", "Speaking of
    which" and "For now" are the lead-ins of a need or an agreement, not records of it."""
    if is_fragment(clause) or is_fragment(strip_lead(clause)):
        return False  # "My husband.", "Sorry for the slow reply." (filed as "For the ...")
    words = [w.lower() for w in _words(clause)]
    content = sum(1 for w in words if w not in FACT_STOPWORDS and w not in names)
    return content >= 2 or (content == 1 and not _NEGATION.isdisjoint(words))


_NEGATION = frozenset("no not never without nothing can't cannot don't won't".split())
"""A need may be one word under a negation: "so no nuts"."""


def _sentences(m: Message, last: tuple[str | None, str | None]
               ) -> tuple[list[str], tuple[str | None, str | None]]:
    """The sentences of `m` as filed (`carry_holders`, `_untagged`), and the last user and
    their last sentence after it. The user's message before, with only the assistant's reply
    between, may open the person: "My friend Lorcan is a roofer." / "Cool!" / "His girlfriend
    Aoife is a vet." is Lorcan's; never across another speaker's turn."""
    said = [_untagged(s) for s in split_sentences(m.content)]
    before = last[1] if m.role == "user" and last[0] == m.name else None
    sentences = carry_holders([before, *said])[1:] if before and said else carry_holders(said)
    return sentences, ((m.name, said[-1] if said else None) if m.role == "user" else last)


_TAG = re.compile(rf",?\s+(?:{TAG_WORDS}|yes|ok|okay|yep|agreed)\?\s*$", re.I)
"""A question tag: "So we agreed the colours will be sage and ivory, yeah?" says it."""


def _untagged(sentence: str) -> str:
    """`sentence` without its question tag when it states a need or an agreement (asked only
    for assent); else as said."""
    m = _TAG.search(sentence)
    if m is None:
        return sentence
    said = sentence[:m.start()] + "."
    return said if kind_of(said) in HELD_KINDS else sentence


def _file(
    sentence: str,
    m: Message,
    ops: list[dict[str, Any]],
    known: list[_Fact],
    updates: dict[int, dict[str, Any]],
    kind: str = "fact",
    whole: str = "",
    named: set[str] | None = None,
) -> None:
    """Add `sentence` (a clause said in `m`) as a record of `kind`, or fold it into the
    fact it repeats or supersedes: the supersede rule (`supersede.decide`) decides, over every
    fact this step knows of (the related records of the namespace, any thread, and what it
    wrote). `whole`: the sentence the clause was cut from (its cue and what it says was
    replaced are the rule's signals too). `named`: who the stretch has named so far: "she" or
    "he" stands only for a person named recently (`_in_view`)."""
    clean = strip_lead(sentence)
    text = clean if len(clean) <= 400 else clean[:397] + "..."
    if m.name and m.role == "user":
        text = f"{m.name}: {text}"
    fact = _Fact(text, None, None)
    if not fact.claim.terms:
        return
    said, d, target = _decided(sentence, m, known, whole, named)
    if d.verdict == SAME:
        assert target is not None
        _point_at(target, m.seq, updates, ops)
        return
    if d.verdict == SUPERSEDES:
        assert target is not None
        if not m.name:  # "She works at PwC now." corrects "My partner ...": say whom
            text = name_holder(text, target.claim.said)
            text = anchored.naming(text, said.context, target.claim.holder)
            text = numbered.with_drug(text, said.context, target.claim.said)
            text = misstated.whole(text, said)  # ("It's actually the fifth": of what)
        _replace(target, text, m.seq, updates, ops, kind)
        return
    if d.verdict == RELATED:
        assert target is not None
        rid = target.rid
        if rid is not None:  # a record held: the new one is marked newer than it
            text = mark_newer(text, rid)
    op = {"op": "add", "text": text, "kind": kind, "source": [m.seq]}
    ops.append(op)
    fact.op = op
    known.append(fact)


def _decided(sentence: str, m: Message, known: list[_Fact], whole: str,
             named: set[str] | None) -> tuple[Claim, Decision, _Fact | None]:
    """The clause `sentence` of `m` read as said, the rule's verdict over the facts it may be
    about (`_in_view`), and the held fact the verdict is about: one reading for filing
    (`_file`) and for asking whether a clause corrects anything (`_corrects`)."""
    # Read as said: the lead-in the record drops ("Actually, correction: ...") is its cue.
    said = read_claim(f"{m.name}: {sentence}" if m.name and m.role == "user" else sentence)
    if whole and whole.strip() != sentence.strip():
        said = replace(said, context=strip_lead(whole))
    pool = list(range(len(known))) if named is None else _in_view(said, m, known, named)
    d = decide(said, [known[i].claim for i in pool])
    return said, d, known[pool[d.target]] if d.target is not None else None


def _point_at(entry: _Fact, seq: int, updates: dict[int, dict[str, Any]],
              ops: list[dict[str, Any]]) -> None:
    """A repeat: the fact it repeats gains this turn as a source; nothing new is written."""
    # Rewriting the record with its own text (None: filled in by `finish_ops`) is how a step
    # says "this stretch points here": the episode then lists the existing id (apply keeps ids
    # the step wrote).
    op = _op_for(entry, None, updates, ops)
    if seq not in op["source"]:
        op["source"].append(seq)


def _op_for(entry: _Fact, text: str | None, updates: dict[int, dict[str, Any]],
            ops: list[dict[str, Any]]) -> dict[str, Any]:
    """The operation of this step that writes `entry`'s fact: the add that wrote it, or the
    one update of an existing record (made on first use)."""
    op = entry.op
    if op is None:
        assert entry.rid is not None
        op = updates.get(entry.rid)
        if op is None:
            op = updates[entry.rid] = {"op": "update", "id": entry.rid, "text": text,
                                       "source": []}
            ops.append(op)
    return op


def _replace(entry: _Fact, text: str, seq: int, updates: dict[int, dict[str, Any]],
             ops: list[dict[str, Any]], kind: str = "fact") -> None:
    """A correction: the fact it corrects now reads as the corrected sentence (the store keeps
    the old text as an earlier version, dated). A correction read as a standing kind ("I'm
    vegan now") gives the record that kind; otherwise the record keeps its own
    (`step/apply.carried_kind`)."""
    op = _op_for(entry, text, updates, ops)
    if op["op"] == "update" and op["text"] is not None and op["text"] != text and \
            entry.rid is not None:
        # Superseded twice in one stretch: each version is kept (the step's ops apply in
        # order), so the history misses none of them.
        op = {"op": "update", "id": entry.rid, "text": text, "source": []}
        updates[entry.rid] = op
        ops.append(op)
    if op["op"] == "add":
        # Said and corrected in this same stretch: the earlier text goes with the add as a
        # superseded version (the record keeps it as history), not lost.
        op.setdefault("supersedes", []).append({"text": op["text"], "source": op["source"]})
    op["text"] = text
    if kind in STANDING_KINDS:
        op["kind"] = kind
    # A correction is stated in its own turn: its sources say when the new text was said.
    op["source"] = [seq]
    entry._read(text)
    entry.op = op


def finish_ops(ops: list[dict[str, Any]], existing: Sequence[Record]) -> list[dict[str, Any]]:
    """Updates that only add a source keep the record's own text."""
    text_of = {r.id: r.text for r in existing}
    for op in ops:
        if op["op"] == "update" and op["text"] is None:
            op["text"] = text_of[op["id"]]
    return ops
