"""Which existing records a memory step is shown (the ones it may update instead of duplicating),
chosen the same way on every engine.

The step used to be shown the first 10 hits of one search for the stretch's user messages
joined. That made what is filed depend on the engine: SQLite ranks with FTS5's BM25 (term
rarity counts), PostgreSQL with `ts_rank` (term frequency over length, no rarity), and the two
break ties in opposite orders, so in a namespace with more than 10 records sharing the
stretch's words ("number", "pool") each engine showed the step different records, and the same
input left one current record on one engine and several on the other. A joined query also
kept only its first 32 terms (`text.MAX_QUERY_TERMS`), so the facts of a stretch's last turns
were searched for with none of their words.

Now each user message is searched for on its own (`Memory.related`, a pool of `POOL` hits
each), and the pool is ranked here, by one pure function of the texts: for each message, the
records sharing its rarest words (rarity counted within the pool: `text.terms`, the
vocabulary the heuristic reads facts with), ties to the newest record. Each message gets its
own best `per_message` records, so one wordy message cannot crowd out another's fact. The
engines then differ only when a message matches more than `POOL` records and they keep
different ones; the pick among what both found is the same.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

from ..text import FACT_STOPWORDS, terms
from ..types import Message, Record
from . import anchored, broad, families, marks, numbered, pastimes, people, places, slots, topics
from .attributes import event_named
from .clauses import clauses
from .sentences import split_sentences
from .supersede import read_claim

POOL = 50
"""Hits drawn per user message before they are ranked here."""
SHOWN = 12
"""About how many records a step is shown in all (at least `MIN_PER_MESSAGE` per message)."""
MIN_PER_MESSAGE = 3


def related_records(stretch: Sequence[Message],
                    search: Callable[[Sequence[Message], int], list[Record]],
                    shown: int = SHOWN,
                    newest: Callable[[int], list[Record]] | None = None) -> list[Record]:
    """The records a step of `stretch` is shown: `search([message], POOL)` for each distinct
    user message, and the held residences among the `newest(n)` records when a message states
    one, and those of the kinds of thing a message names (`held_marked`: a family's member, a
    job, an employer, a club, a value's type), ranked by `pick`."""
    users: list[Message] = []
    seen: set[str] = set()
    for m in stretch:
        if m.role == "user" and m.content.strip() and m.content not in seen:
            seen.add(m.content)
            users.append(m)
    pool: dict[int, Record] = {}
    for m in users:
        for r in search([m], POOL):
            pool.setdefault(r.id, r)
    for r in held_marked([m.content for m in users], newest) if newest else ():
        pool.setdefault(r.id, r)
    # Each message is ranked by its words and by the usual words of the attributes it states
    # (`related_query`, which `search` also asks for): a correction often shares no
    # word with the fact it changes ("We relocated to Glasgow" / "I live in Manchester").
    asked = [f"{m.content} {related_query([m.content])}" for m in users]
    return pick(asked, list(pool.values()), shown)


def pick(messages: Sequence[str], pool: Sequence[Record], shown: int = SHOWN) -> list[Record]:
    """Pure: the records of `pool` most related to `messages`, best first (see the module
    docstring). The same texts and ids give the same answer whatever order `pool` is in."""
    if not pool or not messages:
        return []
    # (and the kinds of thing each names, `marks.marks`: "I'm in Southampton" and "We've moved
    # up to Sheffield", "I use a TCL 40" and "My phone's an Alcatel now" share no word)
    said_marks = [marks.marks(said) for said in messages]
    wanted = frozenset().union(*said_marks)
    words = {r.id: set(terms(r.text)) | marks.marks(r.text, wanted) for r in pool}
    df = Counter(t for ws in words.values() for t in ws)
    per = max(MIN_PER_MESSAGE, shown // len(messages))
    chosen: dict[int, tuple[float, int]] = {}  # id -> (best score, rank it was picked at)
    for said, marked in zip(messages, said_marks, strict=True):
        asked = set(terms(said)) | marked
        scored = sorted(
            ((sum(1.0 / math.log(2 + df[t]) for t in words[r.id] & asked), r.id) for r in pool),
            key=lambda x: (-x[0], -x[1]))
        for rank, (score, rid) in enumerate(s for s in scored if s[0] > 0):
            if rank >= per:
                break
            best = chosen.get(rid)
            if best is None or (-score, rank) < (-best[0], best[1]):
                chosen[rid] = (score, rank)
    by_id = {r.id: r for r in pool}
    order = sorted(chosen, key=lambda i: (chosen[i][1], -chosen[i][0], -i))
    return [by_id[i] for i in order]


# The usual words of an attribute (`supersede.read_claim`'s names), searched for beside the
# statement's own: a correction often shares no word with the fact it changes.
_HINTS = {
    "residence": "live lives living moved based relocated rent renting flat house home address",
    "age": "old years turned age",
    "employer": "work works employer job company",
    "job": "work works job manager leader supervisor assistant",
    "shift": "shift shifts nights days earlies lates rota", "car": "drive drives car",
    "weight": "weigh weight kg kilos kilo stone lbs pounds",
    "diet": "vegetarian vegan pescatarian diet meat keto carb fasting paleo",
    "phone": "phone number",
    "name": "called named name", "salary": "salary earn earns pay year hour",
    "height": "height tall",
    "weekday": "", "rate": "", "team": "plays play team club signed joined",
}


def _generic(attribute: str) -> bool:
    return not attribute or attribute.startswith("the ")


SENTENCE_CHARS = 1000
"""The most of one sentence `related_query` reads: a fact is said in far fewer characters, and
every family's pattern runs over what it reads."""

_EVENT_WORDS = {"trip": ("fly", "flying", "flight", "holiday", "travel"),
                "wedding": ("wedding", "married", "marry")}
"""The words a held date of an event is said with ("flying out to Crete on the 14th" /
"we're heading out on the 21st instead")."""
_PRONOUN_HINTS = {
    "?she": "daughter sister mother mum wife girlfriend niece aunt grandmother auntie stepmum",
    "?he": "son brother father dad husband boyfriend nephew uncle grandfather stepdad",
}


_DOUBLED = re.compile(r"[a-z]*[^aeiou][aeiou][bdgmnpt]")
"""A short verb that doubles its last letter before "-ing" ("run", "swim", "jog")."""


def related_query(texts: Sequence[str]) -> str:
    """Search words for the held facts the statements `texts` could repeat or change: their
    attributes' usual words and their holders (empty when they name none)."""
    words: list[str] = []
    last: list[str] = []  # (searched after the rest: many words, one of them held)
    for text in texts:
        for sentence in split_sentences(text)[:20]:
            sentence = sentence[:SENTENCE_CHARS]  # (a pasted blob is no statement)
            for clause in clauses(sentence):
                c = read_claim(clause)
                attr = c.attribute or ""
                if attr.startswith("who is my "):
                    words += [attr[10:], "boss" if attr.endswith("manager") else ""]
                elif attr.startswith(("appointment ", "date of ", "the ")):
                    event = event_named(clause) or ""
                    words += attr.split(" ", 1)[1].split() + [event, *_EVENT_WORDS.get(event, ())]
                    words += ["appointment"] if attr.startswith("appointment ") else []
                else:
                    words += _HINTS.get(attr, attr).split()
                if attr == "age":  # "I turned 35" / "I'm 34": the age before it
                    words += [str(int(k) - 1) for k in sorted(c.key) if k.isdigit()]
                words += numbered.earlier_ages(clause)  # "had my 30th" / "I'm 29"
                last += numbered.held_strengths(clause)  # "upped me to 50mcg" / "25mcg of ..."
                # What it says was stopped, in the forms a held fact may spell it ("swimming"
                # ended: "swim"; "cycling": "cycle"; "can't run": "running", read "runn").
                words += [f for t in sorted(c.ends) for f in (t, t + "e", t + t[-1])
                          if f != t + t[-1] or _DOUBLED.fullmatch(t)]
                if slots.values(clause).get("weekday") and broad.one_routine_said(clause):
                    words += [d + "day" for d in "mon tues wednes thurs fri satur sun".split()]
                if attr in ("weekday", "rate"):  # the routine's words, singular and plural
                    words += [f for w in re.findall(r"[a-z]{3,}", clause.lower())
                              if w not in FACT_STOPWORDS for f in (w, w.rstrip("s"), w + "s")]
                # A change of something no attribute names: the nouns of the things it names,
                # singular and plural ("our grocery delivery" / "our groceries delivered").
                if c.corrects and _generic(attr):
                    words += [f for p in slots.phrases(clause) for w in p
                              for f in (w, w + "s", w[:-1] + "ies" if w.endswith("y") else "")]
                words += anchored.search_words(clause)  # "running shoes": "run" too
                words += families.search_words(clause, sentence)  # "gas", "electric": energy
                words += topics.search_words(sentence)  # "the scale said 176": a weight
                last += pastimes.search_words(clause)  # "it's padel now": "play" too
                words += people.name_words(clause)  # "I go by Okafor now": "surname"
                if (told := people.event(clause)) is not None:  # "retrained as": a job
                    words += [w for a in sorted(told[0]) for w in _HINTS.get(a, "").split()]
                # Its thing said in other words ("my current account" / "I bank with ...").
                said = set(re.findall(r"[a-z]+", clause.lower()))
                words += [w for f in slots.FAMILIES if f & said for w in sorted(f)]
                # Another value of its scale ("soprano" / "I sing alto", "Premium" / "basic").
                words += [w for f in slots.GRADES if f & said for w in sorted(f)]
                holder = c.holder.rpartition("|")[2]
                if holder not in ("i",) and "?" not in holder:
                    words += holder.replace("named ", "").split()
                words += _PRONOUN_HINTS.get(holder, "").split()
    return " ".join(dict.fromkeys(w for w in words + last if w))


def held_marked(texts: Sequence[str], newest: Callable[[int], list[Record]]) -> list[Record]:
    """The records among the namespace's newest `places.PLACE_SCAN` (`newest(n)`) that name a
    kind of thing one of `texts` (a stretch's user messages) names (`marks.marks`: a family's
    member, a job title, the speaker's residence): a held "I'm in Southampton" or "I use a TCL
    40" shares no word a search could find it by. One bounded read, the same on every engine;
    none when no text names such a thing."""
    asked = frozenset().union(*(marks.marks(t) for t in texts))
    if not asked:
        return []
    return [r for r in newest(places.PLACE_SCAN) if marks.marks(r.text, asked)]


HINT_TERMS = 6
"""At most this many of `related_query`'s words are searched together, in at most
`HINT_QUERIES` searches: a bounded search keeps a query's rarest terms by their counts in the
whole store (`SearchBounds.max_terms`), so once other namespaces filled a store, a longer hint
query lost the very word ("phone") the namespace's held fact is said with."""
HINT_QUERIES = 4


def hint_queries(texts: Sequence[str]) -> list[str]:
    """`related_query(texts)` in searches of at most `HINT_TERMS` words each."""
    words = related_query(texts).split()
    return [" ".join(words[i:i + HINT_TERMS])
            for i in range(0, min(len(words), HINT_TERMS * HINT_QUERIES), HINT_TERMS)]


__all__ = ["HINT_TERMS", "MIN_PER_MESSAGE", "POOL", "SHOWN", "held_marked", "hint_queries",
           "pick", "related_query", "related_records"]
