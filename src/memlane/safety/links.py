"""Links and images defused: a note cannot make a chat client fetch a URL."""

from __future__ import annotations

import re

# --- defusing links and images -------------------------------------------------------------------

_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_MD_LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_MD_REF = re.compile(r"(?m)^\s*\[([^\]]+)\]:\s*\S+")
_HTML_TAG = re.compile(r"<\s*(?:img|a|iframe|script|link|meta|object|embed|source|video|audio)"
                       r"\b[^>]*>|<\s*/\s*(?:a|iframe|script|object|video|audio)\s*>", re.I)
_HOST = re.compile(r"^(?:[a-z][a-z0-9+.\-]*:)?//([^/?#\s]+)", re.I)


def _host(url: str) -> str:
    m = _HOST.match(url.strip())
    return m.group(1) if m else "a link"


def neutralise(text: str) -> str:
    """`text` with markdown images and links, reference links and HTML tags that fetch or link
    replaced by plain words: a chat client that renders markdown cannot be made to load a URL
    from a note (an image's query string is the classic exfiltration channel). Bare URLs stay:
    they are text the user may have meant to keep ("my blog is https://...")."""
    if "](" not in text and "<" not in text and "]:" not in text:
        return text
    t = _MD_IMAGE.sub(lambda m: f"[image removed: {m.group(1) or _host(m.group(2))}]", text)
    t = _MD_LINK.sub(lambda m: f"{m.group(1)} (link to {_host(m.group(2))} removed)", t)
    t = _MD_REF.sub(lambda m: f"[{m.group(1)}]: (link removed)", t)
    return _HTML_TAG.sub("", t)
