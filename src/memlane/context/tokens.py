"""Token counting with a real BPE tokenizer that works offline.

`toktok-rs` carries the OpenAI vocabularies compiled in, so nothing is downloaded (tiktoken fetches
its encodings on first use and fails offline). `Tokenizer` is the seam: anything with `count`,
`head` and `tail` fits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

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
    """An OpenAI encoding (`cl100k_base` by default, or `o200k_base`) through toktok-rs.

    Counts are memoised: every `context()` recounts the window it replays, the system prompt, the
    tool schemas and the buffer lines, nearly all of them the same texts as on the previous turn
    (and the messages were counted once already when they were appended). A count is a pure
    function of the text, so the memo cannot change a result; it is bounded by the characters it
    holds (`MEMO_CHARS`) and simply emptied when full.
    """

    MEMO_CHARS = 4_000_000
    """Upper bound on the characters of the memoised texts (keys), all entries together."""
    MEMO_TEXT_CHARS = 100_000
    """Longer texts are counted every time, not memoised."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        import toktok  # type: ignore[import-untyped]

        self._tk = toktok
        self.name = encoding
        toktok.batch_count([""], encoding)  # unknown encodings fail here, not mid-turn
        self._memo: dict[str, int] = {}
        self._memo_chars = 0
        self._one = _single_counter(toktok, encoding)

    def count(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        memo = self._memo
        get = memo.get
        out = [get(t) for t in texts]
        if None not in out:
            return out  # type: ignore[return-value]
        todo = list(dict.fromkeys(t for t, n in zip(texts, out, strict=True) if n is None))
        counted = dict(zip(todo, self._count(todo), strict=True))
        self._remember(counted)
        return [counted[t] if n is None else n for t, n in zip(texts, out, strict=True)]

    def _count(self, texts: list[str]) -> list[int]:
        """Counted, not memoised: a few texts one by one (a batch call costs ~40 us before it
        counts anything, a single text ~1 us), many in one batch."""
        one = self._one
        if one is not None and len(texts) <= SINGLE_TEXTS:
            return [one(t) for t in texts]
        return list(self._tk.batch_count(texts, self.name, threads=1))

    def _remember(self, counted: dict[str, int]) -> None:
        memo = self._memo
        for t, n in counted.items():
            size = len(t)
            if size > self.MEMO_TEXT_CHARS:
                continue
            if self._memo_chars + size > self.MEMO_CHARS:
                memo.clear()  # one atomic step: safe with other threads reading the memo
                self._memo_chars = 0
            memo[t] = int(n)
            self._memo_chars += size

    def forget_memo(self) -> None:
        """Drop the memoised texts (called when a memory forgets: no forgotten text stays in
        the process's memory through this cache)."""
        self._memo.clear()
        self._memo_chars = 0

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
        # Binary search for the earliest start whose suffix fits: O(log len) counts, not
        # memoised (the suffixes tried would only crowd the memo).
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._count([text[mid:]])[0] <= n:
                hi = mid
            else:
                lo = mid + 1
        return text[lo:]


SINGLE_TEXTS = 32
"""Up to this many texts missing from the memo are counted one by one, more in one batch."""


def _single_counter(toktok: Any, encoding: str) -> Callable[[str], int] | None:
    """toktok's one-text count for `encoding` (its loaded tokenizer's `count`), or None when
    this toktok has none: its public `batch_count` pays a fixed ~40 us a call (its worker
    setup), which a turn's handful of new texts paid on each count. The two agree on every
    text, special-token strings as ordinary text included (tests/test_context_equivalence.py);
    `batch_count` stays the path for batches and the fallback."""
    get = getattr(toktok, "_encoding", None)
    try:
        one = get(encoding).count if get is not None else None
        if one is None or one("hello world") != toktok.batch_count(["hello world"], encoding)[0]:
            return None
        return one  # type: ignore[no-any-return]
    except Exception:  # a toktok without it, or with another shape: the batch path
        return None


_default: BPETokenizer | None = None


def default_tokenizer() -> BPETokenizer:
    global _default
    if _default is None:
        _default = BPETokenizer()
    return _default
