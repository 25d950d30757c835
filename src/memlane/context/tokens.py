"""Token counting with a real BPE tokenizer that works offline.

`toktok-rs` carries the OpenAI vocabularies compiled in, so nothing is downloaded (tiktoken fetches
its encodings on first use and fails offline). `Tokenizer` is the seam: anything with `count`,
`head` and `tail` fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

# Chat formats wrap each message in a few tokens of framing (role, separators); counting them keeps
# the budget honest against what the provider bills.
MESSAGE_OVERHEAD = 4


class Tokenizer(Protocol):
    name: str

    def count(self, texts: Sequence[str]) -> list[int]: ...

    def head(self, text: str, n: int) -> str:
        """The longest prefix of `text` with at most `n` tokens."""
        ...

    def tail(self, text: str, n: int) -> str:
        """The longest suffix of `text` with at most `n` tokens."""
        ...


class BPETokenizer:
    """An OpenAI encoding (`cl100k_base` by default, or `o200k_base`) through toktok-rs."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        import toktok  # type: ignore[import-untyped]

        self._tk = toktok
        self.name = encoding
        toktok.batch_count([""], encoding)  # unknown encodings fail here, not mid-turn

    def count(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        return list(self._tk.batch_count(list(texts), self.name, threads=1))

    def count_one(self, text: str) -> int:
        return self.count([text])[0]

    def head(self, text: str, n: int) -> str:
        if n <= 0:
            return ""
        return str(self._tk.truncate(text, n, self.name)[0])

    def tail(self, text: str, n: int) -> str:
        if n <= 0:
            return ""
        if self.count_one(text) <= n:
            return text
        # Binary search for the earliest start whose suffix fits: O(log len) counts.
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.count_one(text[mid:]) <= n:
                hi = mid
            else:
                lo = mid + 1
        return text[lo:]


_default: BPETokenizer | None = None


def default_tokenizer() -> BPETokenizer:
    global _default
    if _default is None:
        _default = BPETokenizer()
    return _default
