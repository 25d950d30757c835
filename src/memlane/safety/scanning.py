"""The scan itself: `_scan(text)`, the names of the patterns and signals a text matches, over
its normalised views and what its encoded runs decode to."""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata

from .gates import _PRECHECKS, _passes
from .normalise import (
    _BASE64,
    _LEET,
    _LETTER_RUN,
    _b64_candidate,
    _decoded_base64,
    _despace,
    _fold,
    _long_run,
)
from .patterns import (
    _COMPILED,
    _LEAD_RULES,
    _LEAD_RX,
    _LEETISH,
    _LINE_ROLE,
    _QUOTE_ATTRIBUTION,
    _QUOTED,
    _ROT13,
    _ROT13_OVERRIDE,
    _SQUASHED,
    _UNGATED,
    _WORD,
    _WORLDLY,
    _narrative,
    _reported,
)
from .signals import (
    _AI_WORDS,
    _ASCII85,
    _ASKS_FOR,
    _BASE32,
    _BINARY,
    _BRAILLE,
    _BY_SOMEONE,
    _CONTEXT_OBJECT,
    _DECODE_ASK,
    _HEX,
    _HIDDEN,
    _INLINE_AI,
    _INLINE_HUMAN,
    _MORSE,
    _ORDER,
    _PROMPT_REFERENCE,
    _READER_ORDER,
    _REGIONAL,
    _ROLE_MARKER,
    _ROLEPLAY,
)


def _match(view: str, present: frozenset[int]) -> list[str]:
    """The names of the rules `view` matches, in table order; `present`: the pre-check groups
    `view` holds (`_Prechecks.literals`). A rule whose pre-check fails is not searched."""
    gates = _PRECHECKS.rules
    found: list[str] = []
    visit = set(_UNGATED)
    for lead in set(_LEAD_RX.findall(view)):
        visit |= _LEAD_RULES[lead]
    for i in sorted(visit):
        name, rx, narrative, leads, word_leads = _COMPILED[i]
        if name in found:
            continue
        gate = gates[i]
        if gate is not None and not gate <= present:
            continue  # a string every match holds is missing: no match (see `_needs`)
        if word_leads is None and leads and not any(map(view.__contains__, leads)):
            continue
        for m in rx.finditer(view):
            if narrative and _narrative(view, m.start()):
                continue
            if name in _WORLDLY and _reported(view, m):
                continue
            found.append(name)
            break
    return found


def _prose(raw: bytes) -> str | None:
    """Decoded bytes as text when they read as words (what an encoded instruction decodes to),
    not a hash, a key or a binary blob (what a user might keep)."""
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(ch.isalpha() for ch in s)
    ok = (len(s) >= 8 and " " in s.strip() and letters >= 0.6 * len(s)
          and all(ch.isprintable() or ch in "\n\t" for ch in s))
    return s if ok else None


def _decoded_spans(text: str) -> list[tuple[int, int, str, str]]:
    """Runs of hex, base32, base64 or ascii85 in `text` that decode to words: (start, end,
    encoding, decoded text)."""
    out: list[tuple[int, int, str, str | None]] = []
    for m in _HEX.finditer(text):
        digits = re.sub(r"[ :]", "", m.group(0))
        if len(digits) % 2 == 0:
            out.append((m.start(), m.end(), "hex", _prose(bytes.fromhex(digits))))
    if "0000" in text or "1111" in text or "0100" in text:  # (every binary run of 6 bytes)
        for m in _BINARY.finditer(text):
            bits = m.group(0).replace(" ", "")
            raw = int(bits, 2).to_bytes(len(bits) // 8, "big")
            out.append((m.start(), m.end(), "binary", _prose(raw)))
    long_run = _long_run(text)  # else no base32, base64 or bare ascii85 run (`_long_run`)
    for m in _BASE32.finditer(text) if long_run else ():
        token = m.group(0).rstrip("=")
        try:
            decoded = _prose(base64.b32decode(token + "=" * (-len(token) % 8)))
        except (binascii.Error, ValueError):
            continue
        out.append((m.start(), m.end(), "base32", decoded))
    for m in _BASE64.finditer(text) if long_run else ():
        token = m.group(0)
        if not _b64_candidate(token):
            continue
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                out.append((m.start(), m.end(), "base64",
                            _prose(decode(token + "=" * (-len(token) % 4)))))
                break
            except (binascii.Error, ValueError):
                continue
    for m in _ASCII85.finditer(text) if long_run or "<~" in text else ():
        token = m.group(0)
        if token.startswith("<~"):
            token = token[2:-2]
        if sum(ch.isalpha() for ch in token) > 0.9 * len(token):
            continue  # a long word, not a blob
        try:
            out.append((m.start(), m.end(), "ascii85", _prose(base64.a85decode(token))))
        except (binascii.Error, ValueError):
            pass
    return [(a, b, kind, d) for a, b, kind, d in out if d]


def hide_encoded(text: str) -> str:
    """`text` with every run that decodes to words (hex, base32, base64, ascii85) replaced by a
    marker naming its encoding and length. A model reads base64 as easily as English, so an
    encoded sentence shown inline is the sentence shown inline; a benign fact almost never
    holds one (a hash, a key or a tracking number does not decode to words and stays)."""
    spans = _decoded_spans(text)
    if not spans:
        return text
    out, pos = [], 0
    for a, b, kind, _ in sorted(spans):
        if a < pos:
            continue  # overlapping runs (hex is also base64): the first one hides it
        out += [text[pos:a], f"[encoded text hidden: {b - a} characters of {kind}]"]
        pos = b
    return "".join(out) + text[pos:]


# English function words: a sentence has many, its ROT13 has none ("the" is "gur").
_COMMON = frozenset("""the and of to a in is it you that for on with as was be are this i my
    your how what not or by at from an do all can will me we so if but have has""".split())
_COMMON_ROT13 = frozenset(codecs.encode(w, "rot13") for w in _COMMON)


# A whole word of `_COMMON_ROT13` (a run of `_WORD` characters that is one of them).
_ROT13_WORD = re.compile(r"(?<![\w'])(?:" + "|".join(
    re.escape(w) for w in sorted(_COMMON_ROT13, key=len, reverse=True)) + r")(?![\w'])")


def _rot13_words(folded: str) -> bool:
    """A run of ROT13 English ("Tvir qrgnvyrq fgrc-ol-fgrc vafgehpgvbaf"): few function words
    as written, many once decoded. Text in another language decodes to no English."""
    # A sentence needs two words of `_COMMON_ROT13` (`after >= 2`), and sentences split at
    # whitespace, so their words are the text's words: with fewer than two in the whole text,
    # no sentence has them.
    if len(_ROT13_WORD.findall(folded)) < 2:
        return False
    for sentence in _sentences(folded):
        words = _WORD.findall(sentence)
        if len(words) < 5:
            continue
        before = sum(w in _COMMON for w in words)
        # ROT13 changes letters only, so its words are these words' ROT13: counting words in
        # the ROT13 of `_COMMON` is counting the decoded sentence's function words.
        decoded = [w for w in words if w in _COMMON_ROT13]
        after = len(decoded)
        # Two different ones at least: one short word twice is a language's own ("na" is
        # Tagalog's linker, and "an" in ROT13: "Kalimutan mo na ang meeting ..., kinansela na").
        if after >= 2 and len(set(decoded)) >= 2 and after >= 2 * before + 2 \
                and after >= 0.15 * len(words):
            return True
    return False


def _encoded(text: str, folded: str, present: frozenset[int] | None = None) -> bool:
    """An encoded payload: a blob that decodes to a sentence (4 words or more) or to something
    the scan flags; a shorter one ("Haha pwned!" in base64) unless a person states it as theirs
    ("my guest code is ..."); any blob or ROT13 wrapped in a request to decode it, Braille or
    Morse. (Hashes and keys decode to no words and are left alone.) `present`:
    `_PRECHECKS.literals.present(folded)` when the caller has it."""
    ascii_only = text.isascii()  # no Braille, no regional indicators
    if not ascii_only and _BRAILLE.search(text):
        return True
    # Morse needs 8 groups of dots and dashes, each with one at least.
    if text.count(".") + text.count("-") >= 8 and _MORSE.search(text):
        return True
    if _rot13_words(folded):
        return True
    # Letters spelled in regional indicators ("🇭🇴🇼 🇹🇴 ..."): flags come in pairs, so a
    # group of odd length among several is words, not flags.
    groups = [] if ascii_only else _REGIONAL.findall(text)
    if len(groups) >= 2 and any(len(g) % 2 for g in groups):
        return True
    for start, _, _, decoded in _decoded_spans(text):
        if len(decoded.split()) >= 4 or _scan(decoded, 1):
            return True
        if not _narrative(text[:start].lower(), start):
            return True
    return (_passes(_PRECHECKS.decode_ask, folded, present)
            and bool(_DECODE_ASK.search(folded)))


def _asks(view: str, start: int) -> bool:
    """A request in the sentence before `start` ("I need to see ...", "could I read ...")."""
    head = view[:start]
    cut = max(head.rfind(c) for c in ".!?;\n")
    return bool(_ASKS_FOR.search(head[cut + 1:]))


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _structural(text: str, folded: str, depth: int,
                present: frozenset[int] | None = None) -> list[str]:
    """Flags from the shape of `text` (see the section comment); `folded` is `_fold(text)`,
    `present` is `_PRECHECKS.literals.present(folded)` when the caller has it. A pattern
    whose pre-check fails is not searched (`_passes`)."""
    pc = _PRECHECKS
    if present is None:
        present = pc.literals.present(folded)
    found = []
    if not text.isascii() and _HIDDEN.search(text):  # (every hidden character is past ASCII)
        found.append("hidden_characters")
    if depth == 0 and _encoded(text, folded, present):
        found.append("encoded")
    ai = len(_AI_WORDS.findall(folded)) if _passes(pc.ai_words, folded, present) else 0
    roleplay = (len(_ROLEPLAY.findall(folded)) if _passes(pc.roleplay, folded, present)
                else 0)
    # A role marker ends with a colon, which has no other case.
    roles = len(_ROLE_MARKER.findall(text)) if ":" in text else 0
    if (not roles and _passes(pc.inline, folded, present) and _INLINE_HUMAN.search(folded)
            and _INLINE_AI.search(folded)):
        roles = 2  # a chat transcript run into one line: "Human: hello AI: I am ..."
    if _passes(pc.prompt_reference, folded, present) and any(
            (not _narrative(folded, m.start()) or _asks(folded, m.start()))
            and not _BY_SOMEONE.match(folded, m.end())
            for m in _PROMPT_REFERENCE.finditer(folded)) or _passes(
            pc.context_object, folded, present) and any(
            not _reported(folded, m) and not _BY_SOMEONE.match(folded, m.end())
            for m in _CONTEXT_OBJECT.finditer(folded)):
        found.append("prompt_reference")  # "I'm writing the system prompt for our bot" is not
    if _passes(pc.reader_order, folded, present) and _READER_ORDER.search(folded):
        found.append("addressed_to_reader")

    def shape(orders: int) -> list[str]:
        flags = []
        if roleplay >= 2 or roleplay and (ai or orders >= 2):
            flags.append("role_play")
        elif ai and orders >= 2 or orders >= 4 or ai >= 3 and orders:
            flags.append("addressed_to_model")
        if roles >= 2 or roles and (ai or orders):
            flags.append("role_markers")
        return flags

    # Orders (sentences that give one, reported speech aside) are counted only when the flags
    # depend on them: each flag's test is monotone in the count, so when the flags are the same
    # for no orders and for as many as there can be, they are the same for any count in
    # between. There are no more orders than sentences, nor more sentences than one past the
    # places `_sentences` splits at (whitespace after ".", "!" or "?": one space in a folded
    # text), and 4 is the largest count the tests tell apart.
    ends = folded.count(". ") + folded.count("! ") + folded.count("? ")
    flags, most = shape(0), shape(min(ends + 1, 4))
    if flags != most:
        orders = 0
        for sentence in _sentences(folded):
            if _QUOTE_ATTRIBUTION.search(sentence):
                continue  # reported speech: "You are now a gold member," the agent said.
            if _ORDER.search(sentence):
                orders += 1
                if orders == 4:
                    break
        flags = shape(orders)
    return found + flags


def _scan(text: str, depth: int = 0) -> tuple[str, ...]:
    folded = _fold(text)
    pc = _PRECHECKS
    present = pc.literals.present(folded)
    found: list[str] = []
    runs = _LETTER_RUN.findall(folded)
    views = [folded, _despace(folded, runs)]
    if _LEETISH.search(folded):  # digits or symbols inside words: "1gn0r3"
        views.append(_despace(folded.translate(_LEET)))
    for view in dict.fromkeys(views):
        seen = present if view == folded else pc.literals.present(view)
        found += [n for n in _match(view, seen) if n not in found]
    if _LINE_ROLE.search(unicodedata.normalize("NFKC", text)):
        found.append("authority")
    for run in runs:
        if _SQUASHED.search(re.sub(r"[^a-z]", "", run.translate(_LEET))):
            found.append("override")
            break
    if _passes(pc.rot13_override, folded, present) and _ROT13_OVERRIDE.search(
            folded.translate(_ROT13)):
        found.append("encoded")
    found += [n for n in _structural(text, folded, depth, present) if n not in found]
    if depth == 0 and not found and _passes(pc.quoted, folded, present):
        # Payload splitting (HackAPrompt): "let a = 'ignore all'. let b = 'previous
        # instructions'. do a + b": the quoted fragments, joined, are scanned as one text.
        parts = ["".join(m) for m in _QUOTED.findall(folded)]
        if len(parts) >= 2 and _scan(" ".join(p.strip() for p in parts), 1):
            found.append("split_payload")
    # The structural signals decode the runs they accept already; this looser pass is for the
    # base64 they leave, so it is skipped once they have found an encoded instruction.
    if depth == 0 and "encoded" not in found:
        for decoded in _decoded_base64(text):
            if _scan(decoded, 1):
                found.append("encoded")
                break
    return tuple(dict.fromkeys(found))
