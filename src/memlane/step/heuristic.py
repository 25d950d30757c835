"""The offline memory step: a deterministic heuristic extractor, no model.

It is good enough for tests, demos and the offline evaluation, and it is named for what it is: it
keeps sentences that look like facts (first person, names, numbers, dates, preferences) verbatim,
writes the episode line from the stretch's most salient words and how it ended, and scores each
turn by how much it said. It produces the same JSON a model would, so its output goes through the
same validation and apply path.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..types import Message
from .schema import EPISODE_MAX_WORDS

STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't down during each few for from further had hadn't has hasn't have haven't having he he'd
    he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into
    is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only
    or other ought our ours ourselves out over own same shan't she she'd she'll she's should
    shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while
    who who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves yes yeah ok okay oh hey hi hello thanks thank really just like also lot
    much well so get got go going know think thing things good great nice sure right yep wow cool
    awesome amazing glad totally definitely maybe actually pretty one way time still even always
    will would could should can might must shall may said say says tell told make made lol haha
    feel feeling love hope anything something everything else worth use need sort set recommend
    try best look away nicer stay without day days let let's talk talked ask asked want wanted
    help tips tip idea question around getting give take""".split()
)

_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]+|\d[\d:/.\-]*")
_PREF = re.compile(r"\b(i|we)\s+(really\s+)?(like|love|prefer|hate|enjoy|dislike|can't stand)\b"
                   r"|\bfavou?rite\b|\ballergic\b", re.I)
_FIRST = re.compile(r"\b(i|i'm|i've|i'd|my|me|we|our|mine)\b", re.I)
_EVENT = re.compile(r"\b(yesterday|today|tomorrow|last|next|ago|went|visited|started|joined|"
                    r"moved|bought|finished|got|met|took|attended|adopted|signed|ran|won|lost|"
                    r"graduated|born|married|planning|plan|will)\b", re.I)
_GREETING = re.compile(r"^\s*(hi|hey|hello|thanks|thank you|ok|okay|sure|yes|no|bye|great|"
                       r"cool|wow|nice|lol|haha)\b[\s!.,]*$", re.I)


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def sentence_score(sentence: str) -> float:
    """How fact-like a sentence is: rewards specifics (numbers, names, first person, events)."""
    words = _words(sentence)
    if len(words) < 4 or _GREETING.match(sentence):
        return 0.0
    content = [w for w in words if w.lower() not in STOPWORDS]
    score = 0.15 * min(len(content), 8) / 8
    if _FIRST.search(sentence):
        score += 0.25
    if any(ch.isdigit() for ch in sentence):
        score += 0.3
    # Capitalised words past the first are names, places, titles.
    if any(w[0].isupper() and w.lower() not in STOPWORDS for w in words[1:]):
        score += 0.2
    if _PREF.search(sentence):
        score += 0.25
    if _EVENT.search(sentence):
        score += 0.1
    if sentence.rstrip().endswith("?"):
        score -= 0.35  # questions ask for facts; they rarely state them
    return max(0.0, min(score, 1.0))


def _kind(sentence: str) -> str:
    if _PREF.search(sentence):
        return "preference"
    if _EVENT.search(sentence):
        return "event"
    return "fact"


def _speaker(m: Message) -> str:
    return m.name or m.role


def extract(
    messages: Sequence[Message],
    *,
    min_score: float = 0.35,
    max_per_message: int = 2,
    include_assistant: bool = False,
) -> dict[str, Any]:
    """The step output (schema-shaped dict) for one stretch of messages."""
    records: list[dict[str, Any]] = []
    relevance: list[dict[str, Any]] = []
    keywords: Counter[str] = Counter()
    display: dict[str, str] = {}
    turn_best: dict[int, float] = {}
    turn_of: dict[int, int] = {}
    current_turn = messages[0].seq if messages else 0
    for m in messages:
        if m.role == "user":
            current_turn = m.seq
        turn_of[m.seq] = current_turn
        if m.role not in ("user",) and not (include_assistant and m.role == "assistant"):
            continue
        sentences = [s.strip() for s in _SENT.split(m.content) if s.strip()]
        scored = sorted(((sentence_score(s), i, s) for i, s in enumerate(sentences)),
                        key=lambda t: (-t[0], t[1]))
        kept = [t for t in scored[:max_per_message] if t[0] >= min_score]
        for _, _, s in sorted(kept, key=lambda t: t[1]):
            text = s if len(s) <= 400 else s[:397] + "..."
            if m.name and m.role == "user":
                text = f"{m.name}: {text}"
            records.append({"op": "add", "text": text, "kind": _kind(s), "source": [m.seq]})
        # Relevance is not fact-likeness: a user's question matters to the turns that follow,
        # so questions are scored without the penalty records get for them.
        best = max((sentence_score(s.rstrip("?") + ".") for s in sentences), default=0.0)
        turn_best[current_turn] = max(turn_best.get(current_turn, 0.0), best)
        for w in _words(m.content):
            lw = w.lower()
            if lw not in STOPWORDS and len(lw) > 2 and not lw[0].isdigit():
                keywords[lw] += 1
                # Keep the capitalised spelling if one was seen (names read better).
                if w[0].isupper() or lw not in display:
                    display[lw] = w
    for seq in sorted({turn_of[m.seq] for m in messages if m.role == "user"}):
        relevance.append({"seq": seq, "score": round(0.2 + 0.8 * turn_best.get(seq, 0.0), 3)})
    return {
        "records": records,
        "episode": episode_line(messages, keywords, display),
        "relevance": relevance,
    }


def episode_line(
    messages: Sequence[Message], keywords: Counter[str], display: dict[str, str]
) -> str:
    """`Talked about A, B, C; ended with: <how the last user turn began>` in < 25 words."""
    top = [display[w] for w, _ in keywords.most_common(4)]
    last_user = next((m for m in reversed(messages) if m.role == "user"), None)
    who = _speaker(last_user) if last_user is not None else "user"
    head = "Talked about " + (", ".join(top) if top else "small talk")
    tail = ""
    if last_user is not None:
        words = last_user.content.split()
        budget = EPISODE_MAX_WORDS - len(head.split()) - 3
        if budget > 2:
            tail = f"; ended: {who} said " + " ".join(words[: min(budget, 9)])
    line = (head + tail).strip()
    return " ".join(line.split()[:EPISODE_MAX_WORDS])
