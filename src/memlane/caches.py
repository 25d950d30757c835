"""The memos of one `Memory`: what the read path remembers between calls, in one object.

Every `context()` shows nearly the same notes, tool schemas and episode lines as the call before,
and scanning, rendering and serialising them again costs more than the rest of an assembly. The
memos hold texts of the memory (record texts, buffer lines), so they belong to the `Memory` that
read them, live as long as it does, and are emptied by one call, `Caches.clear()`, on every
forget path: a forgotten fact must not outlive `forget` in this process's memory either. Nothing
in memlane keeps such a memo at module level; the pure functions take one as an argument and,
without it, simply compute.

Each memo is a plain dict emptied when it reaches its bound (one atomic step, safe with other
threads reading it). A hit is exact: the keys are the full inputs (texts, frozen values), or
an object's identity with the object kept in the entry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_ENTRIES = 4096
"""Entries per memo before it is emptied."""
STRETCH_ENTRIES = 512
"""Evicted stretches memoised (`Caches.stretches`) before the memo is emptied."""
WINDOW_ENTRIES = 64
"""Windows memoised (`Caches.windows`) before the memo is emptied."""
FENCE_ENTRIES = 64
"""Layer texts memoised (`Caches.fences`) before the memo is emptied: a turn renders a
handful."""
STRETCH_CHARS = 64_000
"""A stretch whose messages hold more characters is read every time, not memoised."""


class Caches:
    """The memos of one memory (shared by its `namespace()` views, which share its store)."""

    def __init__(self, on_clear: Callable[[], None] | None = None) -> None:
        """`on_clear`: also called by `clear()` (the memory's tokenizer memo, when it has one)."""
        self.scans: dict[str, tuple[str, ...]] = {}
        """Injection-scan results by text (`memlane.safety.scan`)."""
        self.lines: dict[int, tuple[Any, str]] = {}
        """Rendered buffer lines: `id(episode) -> (episode, text)`
        (`memlane.context.buffer.render_line`)."""
        self.buffer_lines: dict[int, tuple[Any, Any]] = {}
        """`BufferLine`s of the trace: `id(episode) -> (episode, line)`."""
        self.tools_json: dict[bytes, str] = {}
        """Compact JSON of tool schemas, keyed by their `marshal` serialization."""
        self.rounded: dict[float, float] = {}
        """`round(s, 4)` of working-memory scores."""
        self.line_terms: dict[str, frozenset[str]] = {}
        """Content terms of a buffer line's text (the line index, `Thread.matched_lines`)."""
        self.notes: dict[int, tuple[Any, tuple[str, bool, Any, int]]] = {}
        """A record's note line, whether it is quarantined and the line's tokens: `id(record)
        -> (record, (line, quarantined, the tokenizer that counted it, tokens))`
        (`memlane.context.assemble._note`)."""
        self.turns: dict[int, tuple[Any, tuple[str, bool]]] = {}
        """An opened message's quoted text and whether it is quarantined: `id(message) ->
        (message, (text, quarantined))` (`memlane.context.buffer.select_turns`)."""
        self.policies: dict[tuple[int, int], tuple[Any, Any]] = {}
        """A policy with another `working_turns`: `(id(policy), turns) -> (policy, the other)`
        (`memlane.context.fill`)."""
        self.line_index: dict[tuple[str, str], tuple[Any, Any, Any]] = {}
        """A thread's line index (`Thread.matched_lines`): `(namespace, thread) -> (store
        revision, ((lines, their terms, lines by term), the winners' rows by end, the
        indexed stretches' ends))`."""
        self.searches: dict[tuple[str, str, int], tuple[Any, list[Any]]] = {}
        """The notes searches' results (`Thread._search_notes`): `(namespace, query, k) ->
        (store revision, records best first)`; a turn's follow-up search is the search the turn
        before ran for its own message."""
        self.places: dict[tuple[str, int], tuple[Any, tuple[str, int]]] = {}
        """Where a message is: `(namespace, message id) -> (store revision, (thread, seq))`
        (`Thread._turn_pool`: the stretches the notes' records were filed from)."""
        self.stretches: dict[tuple[str, str, tuple[int, int]], tuple[Any, Any]] = {}
        """An evicted stretch's messages, ready to rank: `(namespace, thread, (start, end)) ->
        (store revision, memlane.context.turns.Piece)` (`Thread._turn_pool`; at most
        `STRETCH_READ` of each; at most
        `STRETCH_ENTRIES` stretches, each of at most `STRETCH_CHARS` characters)."""
        self.windows: dict[tuple[int, ...], tuple[Any, ...]] = {}
        """A window's turns as shown: `(id of its first message, id of its last, length) ->
        (window, max message tokens, tokenizer, texts, dropped, turns, the working layer's
        scores by size and policy)`
        (`memlane.context.assemble.prepare`; a store hands back the same message objects
        while the thread is unchanged, a hit checks each is the one kept). At most
        `WINDOW_ENTRIES`."""
        self.facts: dict[str, tuple[Any, ...]] = {}
        """A text read as a fact by the heuristic memory step (`memlane.step.heuristic
        .fact_readings`): the related records it is shown come back stretch after stretch."""
        self.fences: dict[tuple[str, tuple[str, ...]], str] = {}
        """A layer's text between its data markers: `(header, lines) -> text`
        (`memlane.context.buffer.layer_text`; at most `FENCE_ENTRIES`)."""
        self.fill: dict[tuple[Any, ...], int] = {}
        """The working turns a thread's last fill to the budget ended on, by (namespace, thread,
        budget, policy): where the next context's fill starts (`memlane.context.fill`)."""
        self._on_clear = on_clear

    def memos(self) -> dict[str, dict[Any, Any]]:
        """Every memo by name (what `clear` empties; tests walk them)."""
        return {"scans": self.scans, "lines": self.lines, "buffer_lines": self.buffer_lines,
                "tools_json": self.tools_json, "rounded": self.rounded,
                "line_terms": self.line_terms, "line_index": self.line_index,
                "notes": self.notes, "turns": self.turns, "searches": self.searches,
                "fill": self.fill, "places": self.places, "stretches": self.stretches,
                "windows": self.windows, "policies": self.policies, "facts": self.facts,
                "fences": self.fences}

    def clear(self) -> None:
        """Empty every memo (and the tokenizer's, through `on_clear`)."""
        for memo in self.memos().values():
            memo.clear()
        if self._on_clear is not None:
            self._on_clear()


def at_revision(memo: dict[Any, Any], key: Any, rev: Any) -> Any:
    """What `keep_at` memoised under `key` for the store revision `rev`, else None (always
    None without a revision: a store that cannot tell memoises nothing across calls)."""
    if rev is None:
        return None
    hit = memo.get(key)
    return hit[1] if hit is not None and hit[0] == rev else None


def at_any_revision(memo: dict[Any, Any], key: Any) -> Any:
    """What `keep_at` memoised under `key`, whatever the revision it was kept for, else None
    (for what can be carried on from an older revision rather than built again)."""
    hit = memo.get(key)
    return hit[1] if hit is not None else None


def keep_at(memo: dict[Any, Any], key: Any, rev: Any, value: Any,
            most: int = MAX_ENTRIES) -> Any:
    """`remember` `value` under `key` for the store revision `rev` (nothing without one);
    returns `value`."""
    if rev is not None:
        remember(memo, key, (rev, value), most)
    return value


def held(memo: dict[Any, Any], key: Any, obj: object) -> Any:
    """What `hold` memoised under `key` for the very object `obj`, else None: a memo by
    identity (of a frozen record, message, episode or policy a store or caller hands out
    again while it is current), cheaper than hashing the object's fields; the entry keeps
    the object, so its id is not reused while the entry stands."""
    hit = memo.get(key)
    return hit[1] if hit is not None and hit[0] is obj else None


def hold(memo: dict[Any, Any], key: Any, obj: object, value: Any) -> Any:
    """`remember` `value` under `key` for `obj` (`held`); returns `value`."""
    remember(memo, key, (obj, value))
    return value


def remember(memo: dict[Any, Any], key: Any, value: Any, most: int = MAX_ENTRIES) -> Any:
    """Store `value` under `key`, emptying `memo` first when it holds `most`; returns `value`."""
    if len(memo) >= most:
        memo.clear()
    memo[key] = value
    return value
