"""The reference workload: a later message needs an earlier fact without sharing its words.

LoCoMo's questions nearly always share content words with the turn that answers them, so a search
of the question finds the evidence without any index. The episodic buffer's claim is about the
other cases, which this workload is made of (three kinds, `REFERENCE_KINDS`):

- `constraint`: a task that depends on a preference or constraint the user stated at the start
  ("I'm allergic to shellfish" ... "Suggest a dinner I could cook tonight");
- `decision`: a question about the conversation's own course ("Okay, settled: the offsite goes
  to Lisbon" ... "What did we agree on at the very beginning?");
- `reference`: a follow-up by reference: the fact is stated mid-thread, the user's last turn
  mentions its subject in passing ("Still nervous about the loan."), and the new message refers
  to it without naming it ("Any news on it? Remind me how much I asked for.").

In every item the question shares no content term (`reader.terms`) with the message that holds
the fact: that is checked when a thread is made, and for the file format when it is read
(`load_reference` reports the share of items that do share one, it does not refuse them).

Generated threads are small talk (the needle's filler: the chitchat-dataset corpus when installed,
else the built-in generator) with the fact planted, drawn from `random.Random(seed)`: the same
seed and sizes give the same thread anywhere.

The same command runs on conversations written by others, one JSON object per line:

    {"id": "c1", "kind": "constraint",
     "messages": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}],
     "question": "Suggest a dinner I could cook tonight.",
     "evidence": [0],
     "answer": "shellfish"}

`messages` is the conversation before the question (roles `user` / `assistant`; optional `ts`,
epoch seconds); `evidence` lists the 0-based indices in `messages` of the messages that hold the
fact; `id`, `kind` (any label: results are grouped by it) and `answer` are optional.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .needle import _fold, filler_drawer, filler_exchange
from .reader import terms

__all__ = [
    "REFERENCE_KINDS",
    "RefItem",
    "RefThread",
    "load_reference",
    "make_reference_thread",
    "shares_terms",
]


@dataclass(frozen=True)
class RefItem:
    """A template: the fact, the user's passing mention of its subject (follow-ups only), the
    later message, and the words that answer it."""

    kind: str
    fact: str
    question: str
    answer: str
    cue: str = ""
    """For `reference`: the user's last turn before the question, naming the fact's subject."""
    topic: tuple[str, ...] = ()
    """Words no filler message may contain (besides the fact's own content terms)."""


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


ITEMS: tuple[RefItem, ...] = (
    # constraint: stated at the start, needed by a task that does not name it
    RefItem("constraint", "I'm allergic to shellfish, so no prawns or crab for me ever.",
            "Suggest a dinner I could cook tonight.", "shellfish", topic=("allergy",)),
    RefItem("constraint", "I'm vegetarian and have been for ten years.",
            "What should I order at the steakhouse on Friday?", "vegetarian",
            topic=("meat", "vegan")),
    RefItem("constraint", "I don't drive, so I get around by bus and train.",
            "Plan a day trip for me this Saturday.", "bus and train",
            topic=("car", "driving", "licence", "license")),
    RefItem("constraint", "Money is tight: fifty dollars at most on anything new this month.",
            "Recommend a good pair of headphones.", "fifty dollars",
            topic=("budget", "cheap", "price")),
    RefItem("constraint", "My daughter is two, so everything we do has to work with a toddler.",
            "Where should we go on holiday this summer?", "toddler",
            topic=("kid", "kids", "child", "baby")),
    RefItem("constraint", "No caffeine after noon for me, doctor's orders.",
            "What should I get at the café this afternoon?", "no caffeine",
            topic=("coffee", "tea", "espresso")),
    RefItem("constraint", "I'm training for a marathon in April, so early nights for me.",
            "Any ideas for a fun Friday evening?", "marathon",
            topic=("run", "running", "race")),
    RefItem("constraint", "I use a wheelchair, so step-free access matters everywhere I go.",
            "Which museum should I visit when I'm in Rome?", "step-free access",
            topic=("stairs", "accessible")),
    # decision: settled at the start, asked about as the conversation's course
    RefItem("decision", "Okay, settled: the team offsite goes to Lisbon in May.",
            "What did we agree on at the very beginning?", "Lisbon",
            topic=("portugal",)),
    RefItem("decision", "Final call: the kitchen gets painted sage green.",
            "Remind me what we decided first thing.", "sage green",
            topic=("paint", "colour", "color")),
    RefItem("decision", "Let's lock it in: the launch date is the third of March.",
            "What was the plan we settled on earlier?", "third of March",
            topic=("release",)),
    RefItem("decision", "Done deal: we're adopting the rescue greyhound called Pilot.",
            "So what did we choose back when we started talking?", "greyhound Pilot",
            topic=("dog", "dogs", "puppy")),
    RefItem("decision", "Agreed, the wedding will be in Marta's garden, forty guests.",
            "What was the first thing we sorted out today?", "Marta's garden",
            topic=("venue", "marriage")),
    # reference: stated mid-thread, its subject named in passing just before the question
    RefItem("reference", "I applied for a loan of forty thousand at Harbor Bank for the bakery.",
            "Any news on it? Remind me how much I asked for.", "forty thousand",
            cue="Still nervous about the loan, honestly.", topic=("mortgage", "credit")),
    RefItem("reference", "My mother's surgery is booked at St. Luke's on the 14th.",
            "Which hospital was it again?", "St. Luke's",
            cue="Mum's surgery is on my mind again.", topic=("operation", "doctor")),
    RefItem("reference", "I ordered a walnut desk from Oakline, it ships in three weeks.",
            "Who did I buy it from?", "Oakline",
            cue="Still no sign of the desk.", topic=("furniture", "delivery")),
    RefItem("reference", "At Luigi's I always get the mushroom risotto with extra parmesan.",
            "Order my regular dish for me, what was it?", "mushroom risotto",
            cue="Thinking of going to Luigi's tonight.", topic=("italian", "pasta")),
    RefItem("reference", "The landlord promised to fix the boiler by the end of the month.",
            "When did they say it would be sorted?", "end of the month",
            cue="The boiler is making that noise again.", topic=("heating", "repair")),
    RefItem("reference", "My passport renewal went in on Monday; it takes six weeks.",
            "How long did they tell me it would take?", "six weeks",
            cue="I keep checking the mail for the passport.", topic=("visa", "travel")),
)
"""The templates the generator draws from."""

REFERENCE_KINDS = ("constraint", "decision", "reference")

_ACKS = ("Got it, thanks for telling me.", "Good to know!", "Okay, noted.",
         "Thanks, that helps.", "Understood.")
_CUE_ACKS = ("I hear you.", "That makes sense.", "Hang in there.", "Fingers crossed.")


def shares_terms(a: str, b: str) -> bool:
    """Whether two texts share a content term (the reader's `terms`)."""
    return bool(set(terms(a)) & set(terms(b)))


def make_reference_thread(seed: int, n_turns: int, kind: str,
                          filler_source: str = "auto") -> RefThread:
    """A reproducible thread of `n_turns` exchanges with one item of `kind` planted.

    `constraint` and `decision` facts go in the user message of exchange 0 or 1 (the first
    stretch the memory step files); a `reference` fact at an exchange between an eighth and a
    third of the thread, and its cue in the last exchange."""
    if kind not in REFERENCE_KINDS:
        raise UsageError(f"unknown kind {kind!r}: use {', '.join(REFERENCE_KINDS)}")
    if n_turns < 8:
        raise UsageError(f"n_turns={n_turns}: a reference thread needs at least 8 exchanges")
    rng = random.Random(f"{seed}-{kind}")
    of_kind = [i for i in ITEMS if i.kind == kind]
    item = of_kind[seed % len(of_kind)]  # every template once before any twice
    if kind == "reference":
        at = rng.randrange(n_turns // 8, n_turns // 3)
    else:
        at = rng.randrange(0, 2)
    source, draw = filler_drawer(rng, filler_source)

    # Filler never says the fact's words, its topic's, or the question's: the planted message
    # (and the cue) are the only places the subject comes up.
    forbidden = sorted({_fold(w) for w in (*terms(item.fact), *item.topic, *terms(item.question),
                                           *_fold(item.answer).split()) if len(w) >= 3})
    messages: list[tuple[str, str]] = []
    for ex in range(n_turns):
        if ex == at:
            messages += [("user", item.fact), ("assistant", rng.choice(_ACKS))]
            continue
        if item.cue and ex == n_turns - 1:
            messages += [("user", item.cue), ("assistant", rng.choice(_CUE_ACKS))]
            continue
        messages += filler_exchange(draw, forbidden)
    return RefThread(id=f"{kind}-{seed}", kind=kind, messages=tuple(messages),
                     question=item.question, evidence=(2 * at,), answer=item.answer,
                     filler_source=source)


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
        out.append(RefThread(id=str(row.get("id", f"line-{n}")),
                             kind=str(row.get("kind", "file")), messages=tuple(pairs),
                             question=q, evidence=tuple(ev), answer=str(row.get("answer", "")),
                             ts=tuple(ts), filler_source=str(p.name)))
    if not out:
        raise UsageError(f"{p}: no conversations in it; write one JSON object per line")
    return out
