"""Oversize turns: keep the head and the tail, mark the middle as cut.

The opening of a long message says what it is; the end is the most recent content. The middle is
the part least likely to matter, and the marker says exactly how much is gone, so the model knows
to open the full message rather than assume it saw everything.
"""

from __future__ import annotations

from .tokens import Tokenizer


def head_tail(text: str, max_tokens: int, tokenizer: Tokenizer, total: int | None = None) -> str:
    """`text` cut to at most `max_tokens` tokens as head + marker + tail (unchanged if it fits)."""
    if total is None:
        total = tokenizer.count([text])[0]
    if total <= max_tokens:
        return text
    marker_tokens = 16
    room = max(0, max_tokens - marker_tokens)
    head_n = (room * 2) // 3  # openings carry more of what a message is about
    tail_n = room - head_n
    head = tokenizer.head(text, head_n)
    tail = tokenizer.tail(text, tail_n)
    cut = max(0, total - tokenizer.count([head])[0] - tokenizer.count([tail])[0])
    out = f"{head}\n[... {cut} tokens truncated ...]\n{tail}"
    # BPE merges at the seams can add a token or two: trim the tail until it fits.
    while tokenizer.count([out])[0] > max_tokens and tail:
        tail = tail[max(1, len(tail) // 10):]
        out = f"{head}\n[... {cut} tokens truncated ...]\n{tail}"
    if tokenizer.count([out])[0] > max_tokens:
        out = tokenizer.head(out, max_tokens)
    return out
