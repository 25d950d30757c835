"""The vocabulary of text: how memlane cuts text into words and terms, which words carry no
content, and how a word is stemmed. Every room that compares words (search queries, the offline
extractor, forgetting, the ledger's signals, the evaluation's reader) takes them from here, so a
change to how text becomes terms is made once.

Two stopword lists, on purpose, and each defined once:

- `QUERY_STOPWORDS`: English function words only. A search query drops them because they match
  most rows, add nothing to BM25 and make a query slow on a big namespace; content words a person
  types ("like", "time", "help") stay searchable.
- `FACT_STOPWORDS`: the function words plus chat filler ("yeah", "thanks", "really", "help"). It
  decides which words of a sentence are the *content* of a fact: the offline extractor's scoring
  and fact comparison, forgetting's "does this line name the fact", and the reader's term overlap
  (the measured numbers in docs/RESULTS.md were taken with it).

`ASK_STOPWORDS` is the ledger's: the words around the noun phrase a question asks for ("your
*full* name *please*"), which are not what was asked for.

Imports nothing of memlane: it is the ground floor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# --- tokenisers -------------------------------------------------------------------------------

SEARCH_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
"""Letters and digits, as FTS5's unicode61 tokenizer splits them (underscore is a separator)."""

FACT_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]+|\d[\d:/.\-]*")
"""A word of two letters or more (apostrophes and hyphens inside), or a number with its
separators ("9:30", "2024-05-01"): the extractor's words."""

CODE_WORD = re.compile(r"[^\W_](?:[^\W_]|['\-])*")
"""A word that may mix letters and digits ("X9981234", "A-113"), in any script ("Zürich"):
forgetting must see a code or a name as one token to find it again in a line."""

ANY_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d[\d:/.\-]*")
"""`FACT_WORD` without its two-letter floor, so "I" counts: how the extractor counts a
sentence's words and reads its first one."""

LETTER_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
"""A word of letters only (apostrophes and hyphens inside): the extractor's names and the
words around a fact's holder ("my friend Boris")."""

TYPED_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\u2019\-]*")
"""`CODE_WORD` that also keeps a typographic apostrophe inside ("Jon\u2019s"): a buffer line's
candidate words, read from the user's text as typed."""

ALNUM_WORD = re.compile(r"[a-z0-9]+")
"""A run of lower-case letters and digits (callers lower-case first): the plainest terms, used
where punctuation never matters (the ledger's signals, the reader's overlap)."""

_POSSESSIVE = re.compile(r"['\u2019]s\b")

# --- stopwords --------------------------------------------------------------------------------

QUERY_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves s t d ll m re ve
    """.split()
)

FACT_STOPWORDS = frozenset(
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

ASK_STOPWORDS = frozenset("""a an the your my our please again so that this it is are was be one
    name kindly exactly exact full current""".split())

# --- stemming ---------------------------------------------------------------------------------


def listing(items: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c": items named in a sentence."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def stem(w: str) -> str:
    """A few English suffixes off, enough that "painting" meets "paint" and "dogs" meets "dog".
    Light on purpose: both sides of a comparison go through it, so it only has to be consistent."""
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def singular(w: str) -> str:
    """A plural "s" off ("numbers" -> "number", not "address"), nothing else. The ledger's
    asked-again signal reports the key words it matched back to people ("email address", "order
    number"), so they must stay words; `stem` would write "addres"."""
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


# --- terms ------------------------------------------------------------------------------------

BM25_K1, BM25_B = 1.2, 0.75
"""BM25's constants, FTS5's own: the bounded search's candidates (both engines' SQL,
`memlane.store.common.plan.bm25_tf1`) and the opened turns' ranking (`context.turns`)."""

MAX_QUERY_TERMS = 32
"""Longer queries keep their first 32 distinct terms (a pasted paragraph is not a query)."""


def query_terms(text: str) -> list[str]:
    """Distinct lower-cased search terms of `text`, function words dropped (unless nothing else
    is left), at most `MAX_QUERY_TERMS`."""
    words = [w.lower() for w in SEARCH_TOKEN.findall(text or "")]
    content = [w for w in words if w not in QUERY_STOPWORDS]
    out: list[str] = []
    for w in content or words:
        if w not in out:
            out.append(w)
            if len(out) == MAX_QUERY_TERMS:
                break
    return out


def terms(text: str) -> list[str]:
    """Lower-cased, stop-worded, lightly stemmed word terms of `text`, in order (repeats kept),
    possessive 's dropped, one-letter words dropped (digits kept). Not memoised: a module-level
    cache would keep texts a memory has forgotten (the evaluation caches its own)."""
    out = []
    for w in ALNUM_WORD.findall(_POSSESSIVE.sub("", text.lower())):
        if w in FACT_STOPWORDS or (len(w) < 2 and not w.isdigit()):
            continue
        out.append(stem(w))
    return out


def fact_terms(text: str) -> frozenset[str]:
    """Content terms of a fact: its `FACT_WORD`s lower-cased, stripped of edge punctuation and a
    possessive 's, stop-worded (`FACT_STOPWORDS`) and lightly stemmed, as a set. How the offline
    extractor compares facts and how the read path matches a new message to lines and turns.
    A typographic apostrophe counts as a plain one ("o\u2019clock" is "o'clock").

    Not memoised here: a module-level memo would keep the words of a memory that forgot them.
    A caller that repeats texts keeps its own memo with a lifetime (a `Memory`'s caches)."""
    out = set()
    for w in FACT_WORD.findall(text.replace("\u2019", "'")):
        lw = w.lower().strip("'-.")
        if lw.endswith("'s"):
            lw = lw[:-2]
        if lw and lw not in FACT_STOPWORDS:
            out.add(stem(lw))
    return frozenset(out)


# --- the "newer than" mark ---------------------------------------------------------------------
# A record kept beside one it may update carries this mark (the memory step writes it when it is
# not sure a statement supersedes: `step.supersede`); the standing facts read it to show only the
# newest (`context.standing`). Written and read here, so the two cannot drift apart.

_NEWER_MARK = re.compile(r"\s*\[newer than #\d+[^\]]*\]$")
_NEWER_ID = re.compile(r"\[newer than #(\d+)")


def mark_newer(text: str, older_id: int) -> str:
    """The text of a new record kept beside held record `older_id` it may update: both stay
    current, and every surface that shows the new one says it is the newer (notes are dated
    too). The link is this mark, so it is exported, forgotten and searched with the text."""
    return f"{unmark_newer(text)} [newer than #{older_id}; may update it]"


def unmark_newer(text: str) -> str:
    """`text` without the mark `mark_newer` adds."""
    return _NEWER_MARK.sub("", text)


def newer_than(text: str) -> list[int]:
    """The ids of the records `text` is marked newer than (`mark_newer`)."""
    return [int(i) for i in _NEWER_ID.findall(text)]
