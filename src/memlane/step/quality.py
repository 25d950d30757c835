"""What a filing tells the quality ledger (`memlane.ledger`): a `step_fallback` row when the
primary extractor's step was not used, a `quality` row when the step graded the answer. The
ledger is for engineers: a failed write is logged, never fails the step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ledger import Ledger, write_quietly
from ..types import Message
from .parse import StepOutput


def note_fallback(ledger: Ledger | None, ns: str, model: str | None, error: str,
                  problems: list[str], stretch: Sequence[Message]) -> None:
    """A `step_fallback` row: the primary extractor's step was not used, and why."""
    write_quietly(ledger, lambda lg: lg.append(
        "step_fallback", namespace=ns, thread_id=stretch[0].thread_id,
        seq=stretch[-1].seq, model=model,
        signals={"step_fallback": {"error": error[:500], "problems": problems[:10],
                                   "start": stretch[0].seq, "end": stretch[-1].seq}}))


def note_quality(ledger: Ledger | None, ns: str, model: str | None, thread_id: str,
                 stretch: Sequence[Message], parsed: StepOutput) -> None:
    """A `quality` row for the last answer of the stretch, when the step graded it."""
    q = parsed.quality
    if ledger is None or not q:
        return
    answered = [m for m in stretch if m.role == "assistant"]
    if not answered:
        return
    score = q.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        score = None
    elif not 0 <= score <= 1:
        score = min(1.0, max(0.0, float(score)))
    sig: dict[str, Any] = {"quality": q}
    for s in q.get("signals") or []:
        if isinstance(s, str) and s:
            sig.setdefault(s, "step")
    note = q.get("note") if isinstance(q.get("note"), str) else None
    write_quietly(ledger, lambda lg: lg.append(
        "quality", namespace=ns, thread_id=thread_id, seq=answered[-1].seq,
        signals=sig, score=score, note=note, model=model))

