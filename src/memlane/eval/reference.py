"""The reference workload: a later message needs an earlier fact without sharing its words.

LoCoMo's questions nearly always share content words with the turn that answers them, so a search
of the question finds the evidence without any index. Users meet the other cases: a constraint
said at message 140 that a request at message 400 depends on, a decision referred to by another
name, a follow-up by reference, a value that changed. This workload is made of those, four kinds
(`REFERENCE_KINDS`, templates in `reference_items`): `constraint`, `decision`, `reference` (the
user's last turn names the subject in passing, the question refers to it) and `update` (a value
stated, later a changed value of the same attribute; the question needs the newest).

**Where the fact is.** A generated thread plants its fact at one position (`DEFAULT_POSITIONS`):
the first exchange (`first`), or 5, 25, 50, 75 or 90% of the way through the thread (exchange
`round(p * n)`, kept off the first and the last exchange). For an `update` the position is where
the newest value is said (the evidence); the stale value is said at an exchange drawn uniformly
before it (for `first`: the stale value at exchange 0, the new one at exchange 1).

**Stale values shown as current** (`update_outcome`). For an update, what the reader saw (every
message of the assembled context, in any layer, plus the records it opened and the search
results it read) is tested for each value's words (`reader.answer_in`): `stale_only` (the stale
value is seen and the newest is not: the stale value is shown as current; a failure, counted in
the report), `both` (seen side by side: counted apart; the context must say which is newer),
`new_only`, `neither`. The test reads words, not marks (a note of the current value is marked as
such, `context.current`), so nothing finer is claimed.

In every item the question shares no content term (`reader.terms`) with the message that holds
the fact (nor with the stale one): that is checked when a thread is made, and for the file format
when it is read (`load_reference` reports the share of items that do share one, it does not
refuse them).

**Filler.** Real dialogue: `--filler PATH` takes a LoCoMo JSON file (the dev split,
`../shared/data/locomo/locomo-dev.json`, read by path at run time, never copied here; see
`load_dialogue`): a thread is a stretch of one conversation (its first speaker as the user, the
other as the assistant), continued into another when it runs out. Without a path: the needle's
small talk (the chitchat-dataset corpus when installed, else the built-in generator). A filler
exchange that says a word of the fact, its topic, the question or the answer is left out, so the
planted messages are the only place the subject comes up; so is one with a word the reader takes
for a value's (`reader.terms`: "marched" is "march", the month a stale value named), which would
count as that value shown (`_without_values`). Threads have 150-249 exchanges
(300-498 messages) unless a length is given.

**Reproducible.** Everything is drawn from `random.Random` seeded by the run's `seed`, the kind,
the position and the thread's number: the same seed, sizes and filler give the same threads
anywhere. The baseline the issue-42 standing-facts layer is measured against:

    memlane eval reference --threads 72 --budgets 2000,4000,8000 --policies memlane,retrieval \\
        --filler ../shared/data/locomo/locomo-dev.json --seed 0

The same command runs on conversations written by others, one JSON object per line:

    {"id": "c1", "kind": "constraint",
     "messages": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}],
     "question": "Suggest a dinner I could cook tonight.",
     "evidence": [0],
     "answer": "shellfish"}

`messages` is the conversation before the question (roles `user` / `assistant`; optional `ts`,
epoch seconds); `evidence` lists the 0-based indices in `messages` of the messages that hold the
fact; `id`, `kind` (any label: results are grouped by it), `answer`, `position` (a label: results
are grouped by it too) and `stale` (for an update: the stale value's words; the report then counts
`update_outcome`s) are optional.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .locomo import load_locomo
from .needle import _clean, _fold, filler_drawer, filler_exchange
from .reader import answer_in, terms
from .reference_items import ITEMS, REFERENCE_KINDS, RefItem

__all__ = [
    "DEFAULT_POSITIONS",
    "ITEMS",
    "REFERENCE_KINDS",
    "UPDATE_OUTCOMES",
    "Dialogue",
    "RefItem",
    "RefThread",
    "check_positions",
    "generate",
    "load_dialogue",
    "load_reference",
    "make_reference_thread",
    "position_label",
    "shares_terms",
    "update_outcome",
]

DEFAULT_POSITIONS = (0.0, 0.05, 0.25, 0.5, 0.75, 0.9)
"""Where facts are planted: the first exchange, then fractions of the thread."""

EXCHANGES = (150, 250)
"""Exchanges of a thread when no length is given: 150 to 249 (300-498 messages)."""

UPDATE_OUTCOMES = ("stale_only", "both", "new_only", "neither")
"""What the reader saw of an update's two values (`update_outcome`); `stale_only` fails."""


@dataclass(frozen=True)
class RefThread:
    """One conversation and its question."""

    id: str
    kind: str
    messages: tuple[tuple[str, str], ...]
    """(role, content), oldest first; the question is not among them."""
    question: str
    evidence: tuple[int, ...]
    """Indices in `messages` of the messages that hold the fact."""
    answer: str = ""
    ts: tuple[float, ...] = ()
    """Per-message timestamps when the source gave them (a file), else empty."""
    filler_source: str = ""
    position: str = ""
    """Where the fact was planted (`position_label`), or the file's label; "" if unknown."""
    stale: str = ""
    """For an update: the stale value's words ("" otherwise)."""


@dataclass(frozen=True)
class Dialogue:
    """Real conversations as filler: each a list of (user line, assistant line) exchanges."""

    name: str
    conversations: tuple[tuple[tuple[str, str], ...], ...]


def shares_terms(a: str, b: str) -> bool:
    """Whether two texts share a content term (the reader's `terms`)."""
    return bool(set(terms(a)) & set(terms(b)))


def position_label(p: float) -> str:
    """"first" for the first exchange, else the percentage ("5%", "90%")."""
    return "first" if p == 0 else f"{round(p * 100, 1):g}%"


def check_positions(positions: Iterable[float]) -> tuple[float, ...]:
    """The positions, each checked to be a fraction in [0, 1); a `UsageError` otherwise."""
    out = tuple(dict.fromkeys(float(p) for p in positions))
    if not out or any(not 0 <= p < 1 for p in out):
        raise UsageError(f"positions {list(out)}: give fractions of the thread from 0 (the first "
                         "exchange) to below 1, e.g. 0,0.05,0.25,0.5,0.75,0.9")
    return out


def update_outcome(seen: Iterable[str], answer: str, stale: str) -> str:
    """What texts the reader saw (`seen`) show of an update (one of `UPDATE_OUTCOMES`):
    `stale_only` when the stale value's words are there and the newest value's are not."""
    text = "\n".join(seen)
    new, old = answer_in(text, answer), answer_in(text, stale)
    if old:
        return "both" if new else "stale_only"
    return "new_only" if new else "neither"


# --- filler -------------------------------------------------------------------------------------


def load_dialogue(path: str | Path) -> Dialogue:
    """The conversations of a LoCoMo JSON file as filler exchanges: consecutive turns of one
    speaker joined, the conversation's first speaker (`speaker_a`) as the user, the other as the
    assistant. A `UsageError` (from `load_locomo`) names the fix for a bad path or file."""
    convs = []
    for conv in load_locomo(path):
        msgs: list[tuple[str, str]] = []  # (speaker, text), one speaker's run joined
        for t in conv.turns:
            if msgs and msgs[-1][0] == t.speaker:
                msgs[-1] = (t.speaker, f"{msgs[-1][1]} {t.text}")
            else:
                msgs.append((t.speaker, t.text))
        user = conv.speaker_a
        pairs = tuple((a, b) for (sa, a), (_, b) in zip(msgs, msgs[1:], strict=False)
                      if sa == user)
        if pairs:
            convs.append(pairs)
    if not convs:
        raise UsageError(f"{path}: no two-speaker conversations in it to use as filler")
    return Dialogue(Path(path).name, tuple(convs))


def _dialogue_stream(rng: random.Random, dlg: Dialogue) -> Iterator[tuple[str, str]]:
    """Exchanges from a random point of a random conversation, on into random others."""
    conv = rng.randrange(len(dlg.conversations))
    start = rng.randrange(len(dlg.conversations[conv]))
    while True:
        yield from dlg.conversations[conv][start:]
        conv, start = rng.randrange(len(dlg.conversations)), 0


Filler = str | Dialogue
"""A filler source: "auto", "chitchat", "builtin", or real dialogue (`load_dialogue`)."""


def _exchange_drawer(rng: random.Random, filler: Filler
                     ) -> tuple[str, Callable[[list[str]], list[tuple[str, str]]]]:
    """(the source's name, a function giving the next filler exchange that says none of the
    forbidden words). Real dialogue leaves an unclean exchange out rather than redraw a line, so
    each line keeps the one it answers."""
    if isinstance(filler, Dialogue):
        stream = _dialogue_stream(rng, filler)
        # Past this many exchanges left out in a row, no exchange may be clean: say so.
        limit = 2 * sum(len(c) for c in filler.conversations)

        def nxt(forbidden: list[str]) -> list[tuple[str, str]]:
            for _, (u, a) in zip(range(limit), stream, strict=False):
                if _clean(u, forbidden) and _clean(a, forbidden):
                    return [("user", u), ("assistant", a)]
            raise UsageError(f"{filler.name}: no exchange of its conversations is free of the "
                             f"planted fact's words ({', '.join(forbidden)}) and short enough; "
                             "give a longer file of conversations as --filler")

        return filler.name, nxt
    if filler not in ("auto", "chitchat", "builtin"):
        raise UsageError(f"filler {filler!r}: use auto, chitchat, builtin, or the path of a "
                         "LoCoMo JSON file")
    source, draw = filler_drawer(rng, filler)
    return source, lambda forbidden: filler_exchange(draw, forbidden)


# --- generation ---------------------------------------------------------------------------------

_ACKS = ("Got it, thanks for telling me.", "Good to know!", "Okay, noted.",
         "Thanks, that helps.", "Understood.")
_CUE_ACKS = ("I hear you.", "That makes sense.", "Hang in there.", "Fingers crossed.")


def _placement(rng: random.Random, kind: str, n: int, position: float | None
               ) -> tuple[int, int | None]:
    """(the exchange of the fact, the exchange of the stale value for an update, else None).

    Without a position, the first workload's placement: constraints and decisions in the first
    two exchanges, a follow-up's fact (an update's newest value) between an eighth and a third of
    the thread, an update's stale value in the first two exchanges."""
    if position is None:
        early = kind in ("constraint", "decision")
        at = rng.randrange(0, 2) if early else rng.randrange(n // 8, n // 3)
        return at, (rng.randrange(0, 2) if kind == "update" else None)
    if position == 0:
        return (1, 0) if kind == "update" else (0, None)
    at = min(max(round(position * n), 1), n - 2)
    return at, (rng.randrange(0, at) if kind == "update" else None)


def make_reference_thread(seed: int, n_turns: int | None, kind: str,
                          filler_source: Filler = "auto", *, position: float | None = None,
                          template: int | None = None) -> RefThread:
    """A reproducible thread of `n_turns` exchanges (None: 150-249, drawn) with one item of
    `kind` planted at `position` (a fraction of the thread, 0 the first exchange; None: the
    kind's first-workload placement, see `_placement`).

    `template`: which of the kind's templates (by index, wrapping); by default the seed's, so
    seeds 0, 1, 2... use every template once before any twice. A follow-up's cue goes in the last
    exchange."""
    if kind not in REFERENCE_KINDS:
        raise UsageError(f"unknown kind {kind!r}: use {', '.join(REFERENCE_KINDS)}")
    rng = random.Random(f"{seed}-{kind}" if position is None else f"{seed}-{kind}-{position}")
    n = rng.randrange(*EXCHANGES) if n_turns is None else n_turns
    if n < 8:
        raise UsageError(f"n_turns={n}: a reference thread needs at least 8 exchanges")
    if position is not None:
        check_positions([position])
    of_kind = [i for i in ITEMS if i.kind == kind]
    item = of_kind[(seed if template is None else template) % len(of_kind)]
    at, stale_at = _placement(rng, kind, n, position)
    source, nxt = _exchange_drawer(rng, filler_source)
    messages = _messages(rng, item, n, at, stale_at, nxt)
    return RefThread(id=f"{kind}-{seed}" + ("" if position is None else
                                            f"@{position_label(position)}"),
                     kind=kind, messages=tuple(messages), question=item.question,
                     evidence=(2 * at,), answer=item.answer, filler_source=source,
                     position="" if position is None else position_label(position),
                     stale=item.stale_answer)


def _messages(rng: random.Random, item: RefItem, n: int, at: int, stale_at: int | None,
              nxt: Callable[[list[str]], list[tuple[str, str]]]) -> list[tuple[str, str]]:
    # Filler never says the fact's words, its topic's, or the question's: the planted messages
    # (and the cue) are the only places the subject comes up.
    # Each content word as written and as the reader stems it ("promised", "promis"); stop
    # words ("the" of "end of the month") would leave out most real dialogue for nothing.
    said = (item.fact, item.stale, item.question, item.answer, item.stale_answer)
    words = {w for s in said for w in _fold(s).split() if terms(w)}
    forbidden = sorted({w for w in (*words, *(t for w in words for t in terms(w)),
                                    *(_fold(t) for t in item.topic)) if len(w) >= 3})
    values = frozenset(t for s in (item.answer, item.stale_answer) for t in terms(s))
    planted = {at: item.fact}
    if stale_at is not None:
        planted[stale_at] = item.stale
    messages: list[tuple[str, str]] = []
    for ex in range(n):
        if ex in planted:
            messages += [("user", planted[ex]), ("assistant", rng.choice(_ACKS))]
        elif item.cue and ex == n - 1:
            messages += [("user", item.cue), ("assistant", rng.choice(_CUE_ACKS))]
        else:
            messages += _without_values(nxt, forbidden, values)
    return messages


_VALUE_REDRAWS = 1000
"""Filler exchanges drawn at most for one free of the values' terms."""


def _without_values(nxt: Callable[[list[str]], list[tuple[str, str]]], forbidden: list[str],
                    values: frozenset[str]) -> list[tuple[str, str]]:
    """The next filler exchange (`nxt`) none of whose messages has a term of `values` (the
    answer's and the stale answer's, as the reader splits them): the words as written are
    `forbidden` already, an inflection the reader stems to one ("marched") is left out here."""
    for _ in range(_VALUE_REDRAWS):
        ex = nxt(forbidden)
        if not any(values.intersection(terms(text)) for _, text in ex):
            return ex
    raise UsageError(f"no filler exchange free of the values' terms ({', '.join(sorted(values))})"
                     f" in {_VALUE_REDRAWS} draws; give a longer file of conversations as --filler")


def generate(threads: int, seed: int, kinds: Sequence[str], positions: Sequence[float],
             n_turns: int | None, filler: Filler) -> list[RefThread]:
    """`threads` threads spread evenly over kinds, then positions: thread j is of kind
    `kinds[j % K]`; each kind's i-th thread takes the next template of a seeded shuffle (every
    template once before any twice) and a position from a seeded shuffle of the positions per
    round (every position once per round), so templates and positions vary independently."""
    for k in kinds:
        if k not in REFERENCE_KINDS:
            raise UsageError(f"unknown kind {k!r}: use {', '.join(REFERENCE_KINDS)}")
    ps = check_positions(positions)
    out = []
    for j in range(threads):
        kind = kinds[j % len(kinds)]
        i = j // len(kinds)
        n_items = sum(1 for it in ITEMS if it.kind == kind)
        order = list(range(n_items))
        random.Random(f"{seed}-{kind}-templates-{i // n_items}").shuffle(order)
        rounds = list(ps)
        random.Random(f"{seed}-{kind}-positions-{i // len(ps)}").shuffle(rounds)
        out.append(make_reference_thread(seed * 100_003 + i, n_turns, kind, filler,
                                         position=rounds[i % len(ps)],
                                         template=order[i % n_items]))
    return out


# --- conversations written by others ----------------------------------------------------------


def load_reference(path: str | Path) -> list[RefThread]:
    """Threads from a JSONL file in the format of the module docstring; a bad line is a
    `UsageError` naming the line and the fix."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot read {p}: {e.strerror or e}; give the path of a JSONL "
                         "file") from None
    out: list[RefThread] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{p}:{n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise UsageError(f"{where}: not JSON ({e.msg}); write one JSON object per "
                             "line") from None
        if not isinstance(row, dict):
            raise UsageError(f"{where}: expected a JSON object with messages, question and "
                             "evidence")
        msgs = row.get("messages")
        if not isinstance(msgs, list) or not msgs:
            raise UsageError(f"{where}: 'messages' must be a non-empty list of "
                             '{"role", "content"} objects')
        pairs: list[tuple[str, str]] = []
        ts: list[float] = []
        for j, m in enumerate(msgs):
            if not isinstance(m, dict) or m.get("role") not in ("user", "assistant") or \
                    not isinstance(m.get("content"), str) or not m["content"].strip():
                raise UsageError(f"{where}: message {j} needs a role of 'user' or 'assistant' "
                                 "and a non-empty string content")
            pairs.append((m["role"], m["content"]))
            if "ts" in m:
                t = m["ts"]
                if isinstance(t, bool) or not isinstance(t, int | float):
                    raise UsageError(f"{where}: message {j} 'ts' must be epoch seconds")
                ts.append(float(t))
        if ts and len(ts) != len(pairs):
            raise UsageError(f"{where}: give 'ts' on every message or on none")
        q = row.get("question")
        if not isinstance(q, str) or not q.strip():
            raise UsageError(f"{where}: 'question' must be a non-empty string")
        ev = row.get("evidence")
        if not isinstance(ev, list) or not ev or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(pairs)
                for i in ev):
            raise UsageError(f"{where}: 'evidence' must be a non-empty list of 0-based indices "
                             f"into messages (0 to {len(pairs) - 1})")
        stale = row.get("stale", "")
        if not isinstance(stale, str):
            raise UsageError(f"{where}: 'stale' must be a string: the stale value's words")
        out.append(RefThread(id=str(row.get("id", f"line-{n}")),
                             kind=str(row.get("kind", "file")), messages=tuple(pairs),
                             question=q, evidence=tuple(ev), answer=str(row.get("answer", "")),
                             ts=tuple(ts), filler_source=str(p.name),
                             position=str(row.get("position", "")), stale=stale))
    if not out:
        raise UsageError(f"{p}: no conversations in it; write one JSON object per line")
    return out
