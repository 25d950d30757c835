"""The memory step written by a model, and what happens when the model gets it wrong.

`ModelExtractor` is one model call per stretch: `STEP_INSTRUCTIONS` as the system message, the
stretch rendered with `#seq` numbers (the numbers `source` and `relevance` refer to) and the
existing related records (ids + text, bounded) so the model can update instead of duplicating,
with `json_schema=STEP_SCHEMA` for structured output.

Models do return broken JSON, a schema slip, or nothing (timeouts): `FallbackExtractor` validates
the primary's output with `parse_step` before returning it, and on any failure files the stretch
with the fallback (the offline heuristic) instead, logs why, and tells an `on_fallback` callback
(`step/runner.py` writes a `step_fallback` row to the quality ledger). A memory step never
crashes a turn.

Inline mode: an agent that cannot afford the separate call offers `inline_tool_schema()` (the
same fields as a `file_memory` tool) in its own call; the agent loop strips that call from what
the user sees and applies its arguments with `Thread.step`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ModelError, StepError
from ..safety import as_data, datamark, is_suspect, quarantined_record
from ..types import Message, Record
from .extractor import Extraction, Extractor, HeuristicExtractor, parse_output
from .schema import STEP_INSTRUCTIONS, STEP_SCHEMA

if TYPE_CHECKING:
    from ..models.base import Model

log = logging.getLogger("memlane.step")

INLINE_TOOL_NAME = "file_memory"

# Bounds on what one step call is shown: a stretch is a few turns, but a single pasted document
# must not blow up the step's prompt; existing records are context, not the subject.
MAX_MESSAGE_CHARS = 2000
MAX_EXISTING = 20
MAX_EXISTING_CHARS = 3000


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    if len(text) <= n:
        return text
    head = (n * 2) // 3
    return f"{text[:head]} [... {len(text) - n} characters cut ...] {text[-(n - head):]}"


def render_stretch(
    messages: Sequence[Message],
    existing: Sequence[Record] = (),
    *,
    max_message_chars: int = MAX_MESSAGE_CHARS,
    max_existing: int = MAX_EXISTING,
    max_existing_chars: int = MAX_EXISTING_CHARS,
) -> str:
    """The step prompt's user message: the stretch with `#seq` numbers, then related records."""
    lines = ["Stretch to file (each turn starts with its #seq):"]
    for m in messages:
        who = f"{m.role} ({m.name})" if m.name else m.role
        text = _clip(m.content, max_message_chars)
        # The step's model reads stored text too (docs/SAFETY.md): a turn the scan flags is
        # shown datamarked (the model files what it says, as data), a quarantined record as
        # its marker, as in every other place a model reads memory.
        if is_suspect(m.content):
            text = f"[flagged as a possible injection; shown datamarked] {datamark(text)}"
        lines.append(f"#{m.seq} {who}: {text}")
    shown, used = [], 0
    for r in existing[:max_existing]:
        # A clean record as every layer shows it (`as_data`): a line break in it cannot start
        # a forged "#seq user:" line of the stretch above.
        text = (quarantined_record(r.id, []) if r.suspect or is_suspect(r.text)
                else _clip(as_data(r.text), 300))
        line = f"#{r.id} [{r.kind}] {text}"
        if used + len(line) > max_existing_chars:
            break
        shown.append(line)
        used += len(line)
    lines.append("")
    if shown:
        lines.append("Existing related records (do not add a duplicate of one; a fact that "
                     "changed, a correction or a new value of the same property of the same "
                     "person, is an add with \"replaces\": the record's id and the turn that "
                     "said it as source; facts about different people or properties stay "
                     "apart, and when unsure add without \"replaces\"):")
        lines.extend(shown)
    else:
        lines.append("Existing related records: none.")
    lines.append("")
    lines.append("Return the JSON object now.")
    return "\n".join(lines)


class ModelExtractor:
    """A memory step by one model call with structured output (an `Extractor`)."""

    def __init__(self, model: Model, *, max_tokens: int = 1024) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.name = f"model:{getattr(model, 'name', type(model).__name__)}"

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any] | str:
        reply = self.model.complete(
            [{"role": "system", "content": STEP_INSTRUCTIONS},
             {"role": "user", "content": render_stretch(messages, existing)}],
            json_schema=STEP_SCHEMA,
            max_tokens=self.max_tokens,
        )
        # Some servers ignore response_format and answer through a tool call instead.
        for call in reply.tool_calls:
            if call.name == INLINE_TOOL_NAME and call.arguments and "_raw" not in call.arguments:
                return call.arguments
        if not reply.content.strip():
            raise ModelError(f"{self.name} returned an empty memory step "
                             f"(finish_reason={reply.finish_reason!r})")
        return reply.content


class FallbackExtractor:
    """`primary`, validated; on invalid output or a model failure, `fallback` (logged). The one
    fallback of the memory step: the runner files every extractor that does not validate its
    own steps through one of these (`StepRunner`), and a step given as output (inline mode)
    too (`given_step`)."""

    def __init__(
        self,
        primary: Extractor,
        fallback: Extractor | None = None,
        *,
        on_fallback: Callable[[Exception, Sequence[Message]], None] | None = None,
    ) -> None:
        if fallback is None:
            fallback = HeuristicExtractor()
        self.primary = primary
        self.fallback = fallback
        self.on_fallback = on_fallback
        self.name = f"{primary.name}|fallback:{fallback.name}"
        self.fallbacks = 0
        """How many steps the fallback wrote."""

    def extract(self, messages: Sequence[Message], existing: Sequence[Record]) -> Extraction:
        try:
            out = self.primary(messages, existing)
            return Extraction(out, self.primary.name, parse_output(out))
        except Exception as e:  # noqa: BLE001 - any failure of the primary must not lose the step
            # StepError and ModelError are the expected ones; anything else (a bug in an adapter,
            # a socket error it did not wrap) is logged with its traceback, and still falls back.
            expected = isinstance(e, (StepError, ModelError))
            self.fallbacks += 1
            span = f"{messages[0].seq}..{messages[-1].seq}" if messages else "(empty)"
            log.warning("memory step by %s failed for msgs %s, filed by %s instead: %s",
                        self.primary.name, span, self.fallback.name, e,
                        exc_info=not expected)
            if self.on_fallback is not None:
                try:
                    self.on_fallback(e, messages)
                except Exception:  # noqa: BLE001 - reporting must not lose the step either
                    log.exception("on_fallback callback failed")
            out = self.fallback(messages, existing)
            return Extraction(out, self.fallback.name, parse_output(out),
                              f"{type(e).__name__}: {e}",
                              tuple(getattr(e, "problems", None) or ()))

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any] | str:
        return self.extract(messages, existing).output


class given_step:  # noqa: N801 - read as a phrase: FallbackExtractor(given_step(output, who))
    """A step written already (an inline `file_memory` call's arguments) as an extractor, so
    that it goes through the one fallback like any other."""

    def __init__(self, output: Mapping[str, Any] | str, name: str) -> None:
        self.output = output
        self.name = name

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any] | str:
        return self.output


def inline_tool_schema() -> dict[str, Any]:
    """The memory step as a tool (`file_memory`) the agent's own call can emit (inline mode)."""
    return {
        "type": "function",
        "function": {
            "name": INLINE_TOOL_NAME,
            "description": (
                "File the conversation stretch listed in the memory-filing note into long-term "
                "memory. Call it once, alongside your answer; the user never sees it. "
                + STEP_INSTRUCTIONS.split("\n", 1)[1]
            ),
            "parameters": json.loads(json.dumps(STEP_SCHEMA)),
        },
    }


def inline_note(messages: Sequence[Message], existing: Sequence[Record] = (), *,
                max_message_chars: int = 240) -> str:
    """The system note that asks for an inline step: the stretch's turns by `#seq`, clipped
    (they are mostly in view already; the note only has to name them)."""
    body = render_stretch(messages, existing, max_message_chars=max_message_chars,
                          max_existing=10, max_existing_chars=1200)
    body = body.rsplit("\n", 1)[0]  # drop "Return the JSON object now."
    return (f"Memory filing is due. Along with your answer, call {INLINE_TOOL_NAME} once for "
            f"this stretch (seq numbers as shown):\n{body}")


__all__ = [
    "INLINE_TOOL_NAME",
    "Extraction",
    "FallbackExtractor",
    "ModelExtractor",
    "given_step",
    "inline_note",
    "inline_tool_schema",
    "render_stretch",
]
