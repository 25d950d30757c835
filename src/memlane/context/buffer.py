"""The episodic buffer block: which lines to show, and how they read.

An index of pointers, not a summary: each line says what a filed stretch was about and which
records hold its facts. The first stretch (how the conversation started) and the stretches just
before the window are shown; the middle is counted, never silently skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..safety import NOTES_HEADER, as_data, fenced, quarantined_line, scan_stored, why
from ..types import BufferLine, BufferTurn, ContextRows, Episode, Message, Record
from ..validate import date_text, safe_ts

TURNS_NOTE = ("Lines starting with \">\" quote earlier messages of this conversation, under the "
              "stretch they belong to.")
"""Added to the block's header when it opens turns (`Policy.buffer_turns`)."""


def select_lines(rows: ContextRows, max_lines: int,
                 matched: Sequence[Episode] = (),
                 recent_lines: int | None = None) -> tuple[list[Episode], int, int]:
    """(lines oldest first, stretches proven skipped, lines quarantined by the injection scan).

    A quarantined line is still shown, as a marker that keeps its record ids (`render_line`):
    the pointer is the line's job, and a line that vanished would hide that a stretch exists.

    `skipped` counts the episodes that start before the window but are not shown; the store's
    episode numbering proves it (episodes are numbered 1..n in filing order). `matched`: lines
    chosen for the new message (best first), shown after the first stretch's and before the
    latest ones, when they start before the window. When the evicted stretches are more than
    `max_lines`: `recent_lines`, at most this many of the latest lines
    (None: as many as fit in `max_lines`). The first stretch's line is always shown (the seed's
    rule: how the conversation started), even when its records are in view as notes or
    standing facts; lines are the index a model follows (the demo's "one pointer away").
    """
    withheld = 0
    if rows.episodes_before_window <= max_lines:
        # Every evicted stretch can have a line: the block is the whole course of the
        # conversation.
        recent_lines = None
    recent = list(rows.recent_episodes)  # newest first
    first = rows.first_episode
    chosen: dict[int, Episode] = {}
    start = _window_start(rows)
    if first is not None and max_lines >= 1 and first.start < start:
        chosen[first.end] = first
    if recent_lines is not None:
        recent = recent[:recent_lines]
    for ep in [*(e for e in matched if e.start < start), *recent]:
        if len(chosen) >= max_lines:
            break
        if ep.end in chosen:
            continue
        chosen[ep.end] = ep
    lines = sorted(chosen.values(), key=lambda e: e.end)
    for ep in lines:
        # Scanned when written and again now (patterns grow, old rows do not get rescanned),
        # unless this very scanner found the line clean when it was written (`scan_stored`).
        if ep.suspect or scan_stored(ep.line, ep.scanned, None):
            withheld += 1
    skipped = max(0, rows.episodes_before_window - len(lines))
    return lines, skipped, withheld


def _window_start(rows: ContextRows) -> int:
    return rows.window[0].seq if rows.window else 2**62


def _day(ts: float) -> str:
    """`ts`'s UTC date, memoised by the day it falls in (a search shows dozens of records each
    turn that were not shown before, each stated at its own second of one of a few days)."""
    f = safe_ts(ts)
    if f is None:
        return "date unknown"  # a row stored before timestamps were checked
    day = int(f // 86400)
    text = _DAYS.get(day)
    if text is None:
        if len(_DAYS) >= DAYS_KEPT:
            _DAYS.clear()
        text = _DAYS[day] = date_text(day * 86400) or "date unknown"
    return text


DAYS_KEPT = 4096
"""Days whose dates `_day` keeps (a calendar fact, not a user's: emptied when full)."""
_DAYS: dict[int, str] = {}


def note_line(r: Record, text: str) -> str:
    """How a record reads as a note: `- #<id> (YYYY-MM-DD) text`, dated by when the fact was
    stated, so of two records about one thing the reader sees which is newer (the heuristic
    keeps both when it cannot tell a correction from a new fact). A record with no time at all
    (built by hand) has no date."""
    ts = r.stated or r.updated
    if not ts:
        return f"- #{r.id} {text}"
    return f"- #{r.id} ({_day(ts)}) {text}"


def render_line(ep: Episode) -> str:
    """One line of the block."""
    ids = id_list(ep.record_ids) if ep.record_ids else "no records"
    return f"- {_day(ep.date)} (msgs {ep.start}-{ep.end}): {shown_line(ep)} [{ids}]"


def id_list(ids: Sequence[int]) -> str:
    """"#1, #2" for a few ids; a run of three or more consecutive ids as "#4-#9": a stretch's
    records are filed together and numbered in a row, and a line listing a dozen ids one by
    one spent more of the budget on its ids than on its words."""
    out: list[str] = []
    i = 0
    ids = list(ids)
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        if j - i >= 2:
            out.append(f"#{ids[i]}-#{ids[j]}")
        else:
            out.extend(f"#{x}" for x in ids[i:j + 1])
        i = j + 1
    return ", ".join(out)


def _stretches(n: int, adjective: str = "") -> str:
    return f"{n} {adjective}stretch{'' if n == 1 else 'es'}"


def layer_text(header: str, lines: list[str]) -> str:
    """`safety.fenced(header, lines)`: a layer's text between its data markers."""
    return fenced(header, lines)


def _gap_after(lines: Sequence[Episode], first_end: int | None) -> int | None:
    """The index of the shown line the gap marker follows: the first break in the messages
    at or after the first stretch's line (a matched line can sit right after it), else the
    first stretch's line itself; None when that line is not shown."""
    first = next((i for i, ep in enumerate(lines) if ep.end == first_end), None)
    if first is None:
        return None
    for i in range(first, len(lines) - 1):
        if lines[i + 1].start > lines[i].end + 1:
            return i
    return first


def render_block(
    lines: Sequence[Episode], skipped_after_first: int, unfiled: int, first_end: int | None,
    header: str = NOTES_HEADER,
    turns: Sequence[BufferTurn] = (),
) -> str:
    """The block's text. The gap marker (`_gap_after`) only when `skipped_after_first` > 0.
    `header`: `NOTES_HEADER_NO_TOOLS` for a context without tools. `turns`: opened evicted
    messages, each quoted under the line of the stretch it belongs to (the line dates and
    frames it), or, when that line is not shown, dated on its own where its seq falls among
    the lines."""
    out: list[str] = []
    under: dict[int, list[BufferTurn]] = {}
    loose: list[BufferTurn] = []
    for t in sorted(turns, key=lambda t: t.seq):
        owner = next((ep.end for ep in lines if ep.start <= t.seq <= ep.end), None)
        if owner is None:
            loose.append(t)
        else:
            under.setdefault(owner, []).append(t)
    gap_after = _gap_after(lines, first_end) if skipped_after_first > 0 else None
    for i, ep in enumerate(lines):
        while loose and loose[0].seq < ep.start:
            out.append(loose_turn(loose.pop(0)))
        out.append(render_line(ep))
        out.extend(quoted_turn(t) for t in under.get(ep.end, ()))
        if i == gap_after:
            out.append(f"- ... {_stretches(skipped_after_first)} not listed: search memory ...")
    out.extend(loose_turn(t) for t in loose)
    if skipped_after_first > 0 and gap_after is None:
        out.insert(
            0, f"- ... {_stretches(skipped_after_first, 'earlier ')} not listed: search memory "
               "..."
        )
    if unfiled > 0:
        out.append(f"- ({unfiled} earlier message{' is' if unfiled == 1 else 's are'} not "
                   "filed yet: search memory)")
    if turns:
        header = (f"{header[:-1]} {TURNS_NOTE}]" if header.endswith("]")
                  else f"{header} {TURNS_NOTE}")
    return layer_text(header, out)


def quoted_turn(t: BufferTurn) -> str:
    """An opened turn under its stretch's line (which dates it)."""
    return f"  > msg {t.seq} {t.role}: {t.text}"


def loose_turn(t: BufferTurn) -> str:
    """An opened turn whose stretch's line is not shown: dated on its own."""
    return f"- {_day(t.date)} (msg {t.seq}) {t.role}: {t.text}"


def shown_turn(m: Message) -> tuple[str, bool]:
    """(the text an opened message is quoted with, whether it is quarantined): scanned like
    every stored text that reaches the model, as data when clean (`safety.as_data`), a marker
    when the scan flags it (the message was said, but it reads like an instruction)."""
    flags = scan_stored(m.content, m.scanned, None)
    if flags:
        return f"[quarantined message: withheld, it reads like an instruction ({why(flags)})]", True
    return as_data(m.content), False


def select_turns(opened: Sequence[Message], before: int, k: int, cap: int,
                 max_tokens: int, count: Callable[[str], int],
                 cut: Callable[[str, int, int], tuple[str, int]],
                 prime: Callable[[Sequence[str]], None] | None = None,
                 ) -> tuple[list[BufferTurn], list[int], int]:
    """(turns, tokens of each, how many quarantined) the buffer opens: of `opened` (best
    first), the ones before seq `before` (the window's start: a message in view is never
    opened), at most `k`, each cut head + tail to `max_tokens`, while their lines fit `cap`
    tokens (a turn that does not fit is passed over for a shorter one after it). A turn costs
    its text, its loose prefix (`loose_turn`, the longer form, so the share holds wherever it
    is shown) and a line break. Only the turns looked at are scanned; `prime`, when given,
    counts the first `k` in one batch."""
    todo = [m for m in opened if m.seq < before]
    shown = [shown_turn(m) for m in todo[:k]]  # the rest only when one is passed over
    if prime is not None:
        prime([x for m, (text, _) in zip(todo, shown, strict=False) for x in (text, _prefix(m))])
    out: list[BufferTurn] = []
    tokens: list[int] = []
    withheld = used = 0
    for i, m in enumerate(todo):
        if len(out) >= k:
            break
        text, suspect = shown[i] if i < len(shown) else shown_turn(m)
        n, whole = count(text), not suspect
        if n > max_tokens:
            text, n = cut(text, max_tokens, n)
            whole = False
        cost = n + count(_prefix(m)) + 1
        if used + cost > cap:
            continue
        out.append(BufferTurn(m.seq, m.name or m.role, text, m.ts, whole))
        tokens.append(cost)
        used += cost
        withheld += suspect
    return out, tokens, withheld


def _prefix(m: Message) -> str:
    """A loose turn's prefix as counted: any date has the tokens of this one (BPE cuts digits
    in groups of three), and formatting each candidate's date cost more than the rest."""
    return f"- 2000-01-01 (msg {m.seq}) {m.name or m.role}: "


def shown_line(ep: Episode) -> str:
    """An episode's line as the block shows it: a quarantine marker for a suspect one (flagged
    when written, or by the scan now), else the line as data (`safety.as_data`)."""
    flags = scan_stored(ep.line, ep.scanned, None)
    return quarantined_line(flags) if ep.suspect or flags else as_data(ep.line)


def to_buffer_lines(lines: Sequence[Episode]) -> tuple[BufferLine, ...]:
    """The trace's lines, each as the block shows it (`shown_line`): the trace goes out with
    the context (`memlane context --json`, the inspector, an eval's reader), so it must not
    carry a quarantined line's text either."""
    return tuple(BufferLine(shown_line(e), e.record_ids, e.start, e.end, e.date)
                 for e in lines)
