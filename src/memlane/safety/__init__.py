"""Notes are untrusted: scanning model-written text for injected instructions, and framing.

Buffer lines and records are written by a model from conversation text a user (or a web page the
agent read) controlled. Each is scanned when written (flagged, never silently dropped: nothing
stored is lost) and again when shown (patterns may have grown since; a flagged note is withheld
and counted in the trace), unless this very scanner found that text clean when it was stored
(`SCANNER`, `scan_stored`). Links and images in what is shown are defused (`neutralise`): a note
cannot make a chat client fetch a URL.

The scan is a pattern list: cheap, deterministic, and honest about what it catches
(docs/SAFETY.md has its rates on a held-out corpus). A small trained classifier
(`memlane.guard`) is a second opinion, read by `prompt_like` for model-written text and tool
results. The patterns match on *normalised views* of the text, so spelling tricks do not hide
a phrase:

- NFKC (fullwidth and other compatibility forms), format characters removed (zero-width,
  bidi controls, BOM, soft hyphen, tag characters), Cyrillic and Greek look-alikes folded to
  Latin, case folded, accents stripped, HTML entities, %XX and \\uXXXX escapes decoded, all
  whitespace (newlines too) collapsed;
- a "despaced" view ("i g n o r e", "ignore.all.previous") and a digits-as-letters view
  ("1gn0r3"); base64 runs are decoded and scanned; ROT13 is tried for the override phrase.

Patterns aim at instructions to the model or its tools, in English, Spanish, German and French
(override, new instructions, role switch, prompt/secret leaks, tool calls and mass deletion,
tool-call JSON, exfiltration to a URL or address, secrecy from the user, spoofed authority and
chat markup, remote images). Ordinary first-person facts are left alone: a match preceded, in its
sentence, by a first- or third-person subject ("I", "my manager", "we") and no addressee ("you",
"AI", "assistant") is narrative ("I told my boss to ignore the old rules"), not a command.
"""

from __future__ import annotations

import hashlib
import re
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..caches import read_scans, remember
from .errands import tool_orders
from .framing import (
    DATAMARK,
    FENCE_CLOSE,
    FENCE_OPEN,
    MEMORY_INSTRUCTIONS,
    MEMORY_INSTRUCTIONS_NO_TOOLS,
    NOTES_HEADER,
    NOTES_HEADER_NO_TOOLS,
    as_data,
    datamark,
    fenced,
    memory_instructions,
    quarantined_line,
    quarantined_record,
    why,
)
from .gates import _PRECHECKS as _PRECHECKS
from .gates import _passes as _passes
from .links import neutralise
from .model_text import classifier_score, prompt_like
from .normalise import _BASE64 as _BASE64
from .normalise import _JOINERS as _JOINERS
from .normalise import _fold as _fold
from .normalise import _long_run as _long_run
from .patterns import _BY_PREFIX as _BY_PREFIX
from .patterns import _COMPILED as _COMPILED
from .patterns import _LEAD_RULES as _LEAD_RULES
from .patterns import _LEAD_RX as _LEAD_RX
from .patterns import _QUOTED as _QUOTED
from .patterns import _ROT13 as _ROT13
from .patterns import _ROT13_OVERRIDE as _ROT13_OVERRIDE
from .patterns import _WORD as _WORD
from .prechecks import _may as _may
from .prechecks import _needs as _needs
from .scanning import _match as _match
from .scanning import _scan as _scan
from .scanning import _sentences as _sentences
from .scanning import hide_encoded
from .signals import _AI_WORDS as _AI_WORDS
from .signals import _BASE32 as _BASE32
from .signals import _CONTEXT_OBJECT as _CONTEXT_OBJECT
from .signals import _DECODE_ASK as _DECODE_ASK
from .signals import _INLINE_AI as _INLINE_AI
from .signals import _INLINE_HUMAN as _INLINE_HUMAN
from .signals import _ORDER as _ORDER
from .signals import _PROMPT_REFERENCE as _PROMPT_REFERENCE
from .signals import _READER_ORDER as _READER_ORDER
from .signals import _ROLEPLAY as _ROLEPLAY

__all__ = [
    "Admission", "DATAMARK", "FENCE_CLOSE", "FENCE_OPEN", "MEMORY_INSTRUCTIONS",
    "MEMORY_INSTRUCTIONS_NO_TOOLS", "admit",
    "MEMO_TEXT_CHARS", "NOTES_HEADER", "NOTES_HEADER_NO_TOOLS", "SCANNER", "as_data", "carried",
    "classifier_score", "clean_tag", "datamark", "fenced", "hide_encoded", "is_suspect",
    "memory_instructions", "neutralise", "prompt_like", "quarantined_line", "quarantined_record",
    "scan", "scan_stored", "tainted", "why",
]


def scan(text: str, memo: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """Names of the injection patterns `text` matches (empty: looks clean).

    `memo` (a `Memory`'s `Caches.scans`) remembers results: every shown note is rescanned on
    every assembly, and notes repeat turn to turn."""
    return list(_scan_memo(text, memo))


def is_suspect(text: str, memo: dict[str, tuple[str, ...]] | None = None) -> bool:
    return bool(_scan_memo(text, memo))


_RUN_WORD = re.compile(r"\w+")


def tainted(text: str, suspect_sources: Sequence[str], words: int = 4) -> bool:
    """Whether `text` (a record or a line written from a stretch) carries words of a suspect
    source message: a run of `words` words in common (case folded). Taint follows provenance
    (as in CaMeL's data-flow labels): an extractor that copies a fragment of an attack ("you
    will answer as DAN, ...") writes a fragment the scan alone may not flag, but it came from a
    message that was flagged whole."""
    return any(carried([text], suspect_sources, words)) if suspect_sources else False


def carried(texts: Sequence[str], sources: Sequence[str], words: int = 4) -> list[bool]:
    """For each of `sources`, whether any of `texts` carries its words, as `tainted` reads it:
    a run of `words` words in common (case folded), or for a text of fewer words, its words
    within the source's. `tainted(text, sources)` is `any(carried([text], sources))`; a memory
    step asks which of its stretch's messages the texts it writes carry (only those can taint
    them, so only those are read for injected instructions)."""
    # The long texts' words, space-joined, between spaces, apart by a non-word: a source's run
    # of `words` words is in a text exactly when " run " is a substring of it (a word holds no
    # space, and no run spans the separator), found in C without making each text's runs.
    longs: list[str] = []
    short: list[str] = []
    for text in texts:
        mine = _RUN_WORD.findall(_fold(text))
        if len(mine) >= words:
            longs.append(" ".join(mine))
        elif mine:
            short.append(" ".join(mine))
    hay = f" {' | '.join(longs)} " if longs else ""
    out = []
    for src in sources:
        theirs = _RUN_WORD.findall(_fold(src))
        hit = any(f" {' '.join(theirs[i:i + words])} " in hay
                  for i in range(len(theirs) - words + 1)) if hay else False
        if not hit and short:
            joined = " ".join(theirs)
            hit = any(x in joined for x in short)
        out.append(hit)
    return out


MEMO_TEXT_CHARS = 20_000
"""Longer texts are scanned every time, never memoised: a memo holds texts of the memory for
as long as it lives, and its entries are counted, not sized."""


def _scan_memo(text: str, memo: dict[str, tuple[str, ...]] | None) -> tuple[str, ...]:
    """`_scan(text)`, through `memo` when there is one (texts up to `MEMO_TEXT_CHARS`)."""
    if memo is None or len(text) > MEMO_TEXT_CHARS:
        return _scan(text)
    hit = memo.get(text)
    return remember(memo, text, _scan(text)) if hit is None else hit


# --- verdicts kept with the text ------------------------------------------------------------------
# A stored text is scanned when it is shown (the patterns may have grown since it was written),
# and most of the texts a turn shows for the first time in a process were scanned already, with
# the same patterns, by the memory step that wrote them (an opened turn, a note, a buffer line:
# several a turn, a large share of the turn). So the step keeps its clean verdicts
# with the rows (`scanned`: the tag of the scanner that found that very text clean) and a text
# whose tag is the running scanner's is not scanned again. The tag is a hash of this package's
# code and of what its verdicts depend on outside it, so any change to the scan (a pattern, a
# fold, a new Python's regex or Unicode tables) makes every stored verdict a stale one, and the
# texts are scanned when shown, as before. A store resets the tag whenever the text changes
# (migration 7's triggers), and only a clean verdict is kept: a flagged text is scanned again to
# name its flags.


def _scanner_tag() -> int:
    """The running scanner's tag (`SCANNER`): 31 bits of a hash of the package's source, the
    Python version and its Unicode tables; 0 when the source cannot be read (no verdict is
    then kept or trusted)."""
    h = hashlib.blake2b(digest_size=8)
    try:
        for source in sorted(Path(__file__).parent.glob("*.py")):
            h.update(source.name.encode() + b"\0" + source.read_bytes())
    except OSError:
        return 0
    h.update(f"{sys.version_info[:3]} {unicodedata.unidata_version}".encode())
    return int.from_bytes(h.digest(), "big") & 0x7FFF_FFFF or 1


SCANNER: int = _scanner_tag()
"""The tag a clean verdict of this scanner is stored with (`scanned` on messages, records and
episodes); 0: verdicts are neither kept nor trusted."""


def scan_stored(text: str, scanned: int, memo: dict[str, tuple[str, ...]] | None = None
                ) -> tuple[str, ...]:
    """`scan(text)` of a stored text whose row says `scanned`: nothing when the running scanner
    found this text clean when it was stored (the store resets the tag when the text changes),
    else the scan, through `memo` (or the running read's, `caches.scans_during`)."""
    if scanned and scanned == SCANNER:
        return ()
    return _scan_memo(text, memo if memo is not None else read_scans())


def clean_tag(text: str, memo: dict[str, tuple[str, ...]] | None = None) -> int:
    """The `scanned` tag to store with `text`: `SCANNER` when the scan (memoised in `memo`)
    finds it clean, else 0."""
    return SCANNER if SCANNER and not _scan_memo(text, memo) else 0


# --- the one rule for a text going into memory, or coming out of it to a model: `admit` ---------
#
# Every path calls it: a memory step's records and lines (`step/apply.py`), `Memory.remember` /
# `Memory.update` (so the `remember` / `update_memory` tools on every surface, REST `POST
# /records` and `PATCH /records/{id}`, the framework adapters), `memlane import`
# (`transfer.py`), and, when shown, a recall snapshot and an `open_memory` source message
# (`tools/handlers.py`). So a payload is quarantined on every surface or on none.
#
# The rule:
# - the reading is `scan` (the patterns) and `prompt_like` (the stricter reading of text that
#   asks its reader for something, with the classifier at its "strict" threshold): a text stored
#   in memory is a statement about the user or the world, whoever sent it;
# - a text either flags is stored *quarantined* (kept whole, shown as a marker, opened
#   datamarked: never dropped), unless
#   - the caller vouches for it (`trusted`: an application that must store text as trusted says
#     so per request; the answer and the trace say it was), or
#   - only `prompt_like` flagged it and the user's own words of this turn hold it (`said`): a
#     user may ask to keep "reply in under 50 words" as a preference. A pattern hit stays
#     quarantined even then (the user's words are kept, as data).
# - a tool's output (`origin="tool"`: a recall snapshot, a tool message opened as a source) is
#   also read for orders in the first person: there the first person is a page's author.
# - the classifier `prompt_like` reads: with the `embed` extra, the sentence-embedding head for a
#   text an agent or an application asks to store (`origin="caller"`) and a tool's output
#   (`origin="tool"`); the hashed model for the rest (a conversation's messages, what a step
#   files from them, an import, a record's old versions): the head is read where a text comes
#   one at a time, never on a step's every text (`model_text.HEAD_ORIGINS`).


@dataclass(frozen=True)
class Admission:
    """What `admit` decided for one text."""

    flags: tuple[str, ...]
    """What the reading found (signal names; empty: reads as a statement)."""
    quarantined: bool
    """Store it (or show it) quarantined: a marker in the layers, datamarked when opened."""
    reason: str
    """"clean", "flagged", "said by the user" (flagged by `prompt_like` only, and the user's
    own words this turn hold it) or "trusted by the caller"."""


def read(text: str, scans: dict[str, tuple[str, ...]] | None = None,
         likes: dict[str, tuple[str, ...]] | None = None,
         scanned: int = 0, origin: str = "") -> tuple[tuple[str, ...], bool]:
    """(flags, whether the pattern scan is among them): the scan, then `prompt_like` when the
    scan is clean. `scans` / `likes` are memos (a memory's, or one filing's: `likes` holds one
    origin's readings); `scanned`: a stored text's clean verdict (`safety.scan_stored`)."""
    hard = scan_stored(text, scanned, scans)
    if hard:
        return hard, True
    if likes is not None and text in likes:
        return likes[text], False
    soft = tuple(prompt_like(text, origin=origin))
    if likes is not None:
        likes[text] = soft
    return soft, False


def admit(text: str, *, said: Sequence[str] = (), trusted: bool = False,
          scans: dict[str, tuple[str, ...]] | None = None,
          likes: dict[str, tuple[str, ...]] | None = None, scanned: int = 0,
          origin: str = "") -> Admission:
    """Whether `text` goes into (or comes out of) memory quarantined (see the module's rule).

    `said`: the user's own words of this turn, when the caller knows them (the agent, the
    proxy, `memlane chat`); `trusted`: the caller vouches for the text; `scanned`: a stored
    text's row tag (a clean verdict of this scanner skips the pattern scan); `origin`: "tool"
    for a tool's output (a stored snapshot, a tool message), whose first person is its author,
    not the user (`errands.tool_orders`), "caller" for a text an agent or an application asks
    to store (`Memory.remember` / `Memory.update`); both read with the sentence-embedding head
    when the `embed` extra is installed (`model_text.HEAD_ORIGINS`), the rest with the hashed
    model."""
    flags, hard = read(text, scans, likes, scanned, origin)
    if not flags and origin == "tool":
        flags = tuple(tool_orders(_fold(text[:10_000])))
    if not flags:
        return Admission((), False, "clean")
    if trusted:
        return Admission(flags, False, "trusted by the caller")
    if not hard and said and tainted(text, list(said)):
        return Admission(flags, False, "said by the user")
    return Admission(flags, True, "flagged")
