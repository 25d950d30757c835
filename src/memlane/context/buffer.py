"""The episodic buffer block: which lines to show, and how they read.

An index of pointers, not a summary: each line says what a filed stretch was about and which
records hold its facts. The first stretch (how the conversation started) and the stretches just
before the window are shown; the middle is counted, never silently skipped.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..memo import Caches, remember
from ..safety import NOTES_HEADER, is_suspect, neutralise
from ..types import BufferLine, ContextRows, Episode
from ..validate import date_text


def select_lines(rows: ContextRows, max_lines: int, cache: Caches | None = None
                 ) -> tuple[list[Episode], int, int]:
    """(lines oldest first, stretches proven skipped, lines withheld by the injection scan).

    `skipped` counts the episodes that start before the window but are not shown; the store's
    episode numbering proves it (episodes are numbered 1..n in filing order). `cache`: the
    memory's memos (scan results).
    """
    scans = cache.scans if cache is not None else None
    withheld = 0
    recent = list(rows.recent_episodes)  # newest first
    first = rows.first_episode
    chosen: dict[int, Episode] = {}
    if first is not None and max_lines >= 1 and first.start < _window_start(rows):
        chosen[first.end] = first
    for ep in recent:
        if len(chosen) >= max_lines:
            break
        chosen.setdefault(ep.end, ep)
    shown: list[Episode] = []
    for ep in sorted(chosen.values(), key=lambda e: e.end):
        # Scanned when written and again now: patterns grow, old rows do not get rescanned.
        if ep.suspect or is_suspect(ep.line, scans):
            withheld += 1
            continue
        shown.append(ep)
    # Withheld lines count as not listed too: the block's "N stretches not listed" must cover
    # every evicted stretch it does not show, or a withheld one would vanish without a trace.
    skipped = max(0, rows.episodes_before_window - len(shown))
    return shown, skipped, withheld


def _window_start(rows: ContextRows) -> int:
    return rows.window[0].seq if rows.window else 2**62


def _date(ts: float, cache: Caches | None) -> str:
    if cache is None:
        return _day(ts)
    day = cache.dates.get(ts)
    if day is None:
        # Memoised: the same lines are rendered on every assembly, and strftime is not cheap.
        day = remember(cache.dates, ts, _day(ts))
    return day


def _day(ts: float) -> str:
    return date_text(ts) or "date unknown"  # a row stored before timestamps were checked


def render_line(ep: Episode, cache: Caches | None = None) -> str:
    """One line of the block. `cache`: the memory's memos.

    The memos of an episode are keyed by identity, with the episode kept in the entry: a store
    hands the same `Episode` objects out call after call (SQLite memoises them by row), so a hit
    is the very object (an id is never reused while the entry holds it) and, episodes being
    frozen, the same text. An identity check is cheaper than hashing the episode's fields."""
    if cache is not None:
        hit = cache.lines.get(id(ep))
        if hit is not None and hit[0] is ep:
            return hit[1]
    ids = ", ".join(f"#{i}" for i in ep.record_ids) if ep.record_ids else "no records"
    text = f"- {_date(ep.date, cache)} (msgs {ep.start}-{ep.end}): {neutralise(ep.line)} [{ids}]"
    if cache is not None:
        remember(cache.lines, id(ep), (ep, text))
    return text


def _stretches(n: int, adjective: str = "") -> str:
    return f"{n} {adjective}stretch{'' if n == 1 else 'es'}"


def render_block(
    lines: Sequence[Episode], skipped_after_first: int, unfiled: int, first_end: int | None,
    cache: Caches | None = None, header: str = NOTES_HEADER,
) -> str:
    """The block's text. The gap marker goes after the first stretch's line, where the skipped
    stretches are, and only when `skipped_after_first` > 0. `header`: `NOTES_HEADER_NO_TOOLS`
    for a context without tools."""
    out = [header]
    placed_gap = False
    for ep in lines:
        out.append(render_line(ep, cache))
        if ep.end == first_end and skipped_after_first > 0:
            out.append(f"- ... {_stretches(skipped_after_first)} not listed: search memory ...")
            placed_gap = True
    if skipped_after_first > 0 and not placed_gap:
        out.insert(
            1, f"- ... {_stretches(skipped_after_first, 'earlier ')} not listed: search memory "
               "..."
        )
    if unfiled > 0:
        out.append(f"- ({unfiled} earlier message{' is' if unfiled == 1 else 's are'} not "
                   "filed yet: search memory)")
    return "\n".join(out)


def to_buffer_lines(lines: Sequence[Episode], cache: Caches | None = None
                    ) -> tuple[BufferLine, ...]:
    if cache is None:
        return tuple(BufferLine(e.line, e.record_ids, e.start, e.end, e.date) for e in lines)
    memo = cache.buffer_lines  # by identity, as in `render_line`
    out = []
    for e in lines:
        hit = memo.get(id(e))
        if hit is not None and hit[0] is e:
            out.append(hit[1])
        else:
            b = BufferLine(e.line, e.record_ids, e.start, e.end, e.date)
            remember(memo, id(e), (e, b))
            out.append(b)
    return tuple(out)
