"""Who writes a memory step: the `Extractor` protocol and the offline `HeuristicExtractor`.

An extractor is shown a stretch of messages and the existing records related to it, and returns
the step JSON (`step/schema.py`). `step/model.py` has the model-backed ones; the runner
(`step/runner.py`) validates and applies whatever an extractor returns.

An extractor that also has `extract()` (`ValidatingExtractor`) validates its own output and says
what happened (`Extraction`): the heuristic (nothing to fall back to, so an invalid step of its
own is a bug, raised) and `FallbackExtractor` (the one fallback: a failed step is filed by the
heuristic). The runner reads any other extractor through a `FallbackExtractor`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..types import Message, Record
from .heuristic import extract
from .parse import StepOutput, parse_step


class Extractor(Protocol):
    """Writes a memory step for a stretch: returns the step JSON (dict or string)."""

    name: str

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any] | str: ...


@dataclass(frozen=True)
class Extraction:
    """A validated memory step and which extractor wrote it."""

    output: Mapping[str, Any] | str
    """The step JSON that was filed."""
    extractor: str
    """Name of the extractor whose output this is."""
    parsed: StepOutput
    """`output` as `parse_step` read it."""
    error: str | None = None
    """Why the primary extractor's step was not used (None: it was)."""
    problems: tuple[str, ...] = ()
    """The primary's validation problems by path, when its output was malformed."""


@runtime_checkable
class ValidatingExtractor(Extractor, Protocol):
    """An extractor that validates its own step (and may fall back): the runner calls
    `extract` instead of validating the output itself."""

    def extract(self, messages: Sequence[Message], existing: Sequence[Record]) -> Extraction: ...


def parse_output(output: Mapping[str, Any] | str) -> StepOutput:
    """`parse_step` of step JSON as an extractor returns it (a string or any mapping)."""
    return parse_step(output if isinstance(output, str) else dict(output))


class HeuristicExtractor:
    """The offline, deterministic memory step (no model). See `memlane.step.heuristic`."""

    name = "heuristic"

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any]:
        return extract(messages, existing)

    def extract(self, messages: Sequence[Message], existing: Sequence[Record]) -> Extraction:
        # Nothing to fall back to: an invalid heuristic step is a bug, raised.
        out = self(messages, existing)
        return Extraction(out, self.name, parse_output(out))


__all__ = ["Extraction", "Extractor", "HeuristicExtractor", "ValidatingExtractor",
           "parse_output"]
