"""The inline memory step inside one agent turn (`Agent(inline=True)`): when a stretch is due,
the turn's own model call is offered `file_memory` with a note naming the stretch's turns; a
call of it is filed through the step runner (the one filing path) and taken out of what the
user sees. Invalid arguments are filed by the heuristic instead (still no model call)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from ..context.truncate import head_tail
from ..errors import MemlaneError
from ..memory import Memory
from ..models.base import ToolCall
from ..step.model import INLINE_TOOL_NAME, inline_note
from ..step.runner import StepRunner
from ..types import StepResult

log = logging.getLogger("memlane.agent")

INLINE_NOTE_TOKENS = 500
"""Room kept in the budget for the inline step's note (inline mode only)."""


class InlineFiling:
    """One turn's inline step: the stretch due (if any) and what filing it gave."""

    def __init__(self, memory: Memory, runner: StepRunner, thread_id: str) -> None:
        self.runner, self.thread_id = runner, thread_id
        stretch = runner.due_stretch(thread_id, inline=True)
        self.span = (stretch[0].seq, stretch[-1].seq) if stretch else None
        self.note = ""
        if stretch:
            note = inline_note(stretch, memory.related(stretch, 10))
            self.note = head_tail(note, INLINE_NOTE_TOKENS, memory.tokenizer)
        self.done = False
        self.results: list[StepResult] = []

    def file(self, calls: Sequence[ToolCall]) -> dict[str, str]:
        """File the round's `file_memory` calls (the first one files; any other is told no
        filing is due); returns the result text of each, by call id."""
        out: dict[str, str] = {}
        for c in calls:
            if c.name != INLINE_TOOL_NAME:
                continue
            if self.done or self.span is None:
                out[c.id] = json.dumps({"error": "no memory filing is due now"})
                continue
            res = self._apply(c, self.span)
            self.done = True
            if res is not None:
                self.results.append(res)
            out[c.id] = json.dumps({"ok": True, "filed": list(self.span)})
        return out

    def _apply(self, call: ToolCall, span: tuple[int, int]) -> StepResult | None:
        args: Any = call.arguments
        if isinstance(args, dict) and set(args) == {"_raw"}:
            args = args["_raw"]  # broken JSON: let the parser say what is wrong
        try:
            return self.runner.file(self.thread_id, args, start=span[0], end=span[1],
                                    fallback=True)
        except MemlaneError:
            log.exception("inline memory step for msgs %s..%s failed", *span)
            return None

    def missed(self) -> None:
        if self.span is not None and not self.done:
            log.info("inline mode: the model did not file msgs %s..%s; the heuristic will",
                     *self.span)


__all__ = ["INLINE_NOTE_TOKENS", "INLINE_TOOL_NAME", "InlineFiling"]
