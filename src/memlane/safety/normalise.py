"""Normalised views of a text: what the injection patterns match on, so spelling tricks
(look-alike letters, escapes, spaced-out or dotted letters, digits for letters, base64) do not
hide a phrase."""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from urllib.parse import unquote

# --- normalising ---------------------------------------------------------------------------------

# Look-alikes that NFKC leaves alone: Cyrillic and Greek letters drawn like Latin ones.
_CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "ɡ": "g", "ո": "n", "ս": "u", "ց": "g", "һ": "h", "ӏ": "l",
    "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c",
    "Т": "t", "У": "y", "Х": "x", "Ѕ": "s", "І": "i", "Ј": "j",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "Α": "a", "Β": "b", "Ε": "e", "Η": "h", "Ι": "i",
    "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x", "Ζ": "z",
})
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a",
                       "$": "s", "!": "i", "|": "l"})
_ESCAPE_U = re.compile(r"\\u([0-9a-fA-F]{4})")
# Single characters joined by separators ("i g n o r e", "i.g.n.o.r.e") and words joined by
# dots, dashes or underscores ("ignore.all.previous").
_LETTER_RUN = re.compile(r"\b(?:\w[ ._*\-]{1,3}){3,}\w\b")
# A run of joiners between letters. (Written joiner first, then the letter before it, so that the
# search skips to the joiners: `(?<=[a-z])[._*\-]+(?=[a-z])` matches the same spans, the
# lookbehind reading the same character, the one before the run.)
_JOINERS = re.compile(r"[._*\-](?<=[a-z][._*\-])[._*\-]*(?=[a-z])")
_BASE64 = re.compile(r"[A-Za-z0-9+/_\-]{12,}={0,2}")


def _fold(text: str) -> str:
    """The text as the patterns see it (see the module docstring)."""
    t = html.unescape(text)
    if "%" in t:
        t = unquote(t)
    if "\\u" in t:
        t = _ESCAPE_U.sub(lambda m: chr(int(m.group(1), 16)), t)
    if not t.isascii():
        t = unicodedata.normalize("NFKC", t)
        t = "".join(ch for ch in t if unicodedata.category(ch) != "Cf")
        t = t.translate(_CONFUSABLES).casefold()
        t = "".join(ch for ch in unicodedata.normalize("NFKD", t)
                    if not unicodedata.combining(ch))
    else:
        t = t.lower()
    if not t.isascii():  # (the curly quotes are not ASCII: nothing to replace otherwise)
        t = t.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace(
            "\u201d", '"')
    # Whitespace runs collapsed to one space, ends stripped: `str.split()` and `\s` (and
    # `str.strip()`) use the same test of a whitespace character (Py_UNICODE_ISSPACE), so this
    # is `re.sub(r"\s+", " ", t).strip()` without a regex (tests/test_safety_fast.py checks it).
    return " ".join(t.split())


def _despace(folded: str, runs: list[str] | None = None) -> str:
    """`folded` with spaced-out letters joined and joined words spaced; `runs`:
    `_LETTER_RUN.findall(folded)` when the caller has it (empty: that pass has nothing to do)."""
    t = folded
    if runs is None or runs:
        t = _LETTER_RUN.sub(lambda m: re.sub(r"[ ._*\-]+", "", m.group(0))
                            if all(len(w) == 1 for w in re.split(r"[ ._*\-]+", m.group(0)))
                            else m.group(0), folded)
    # `_JOINERS` matches a run of these characters only.
    if "." in t or "-" in t or "_" in t or "*" in t:
        t = _JOINERS.sub(" ", t)
    return t


def _long_run(text: str) -> bool:
    """Whether `text` has 12 characters in a row that are not whitespace: `_BASE64`, `_BASE32`
    and `_ASCII85`'s bare runs need that many (12, 16, 24) of characters that are not."""
    return max(map(len, text.split()), default=0) >= 12


def _decoded_base64(text: str) -> list[str]:
    out: list[str] = []
    if not _long_run(text):
        return out
    for m in _BASE64.finditer(text):
        token = m.group(0)
        if not _b64_candidate(token):
            continue
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                raw = decode(token + "=" * (-len(token) % 4))
                s = raw.decode("utf-8")
            except (binascii.Error, ValueError):
                continue
            if " " in s and sum(ch.isprintable() for ch in s) >= 0.9 * len(s):
                out.append(s)
                break
    return out


def _b64_candidate(token: str) -> bool:
    """A run that may be base64 of text: an upper-case letter, a digit or a symbol past its
    first character (base64 of English always has some; a long lower-case word has none)."""
    return any(ch.isupper() or ch.isdigit() or ch in "+/=" for ch in token[1:])
