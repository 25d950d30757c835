"""Who writes a memory step: the `Extractor` protocol and the offline `HeuristicExtractor`.

An extractor is shown a stretch of messages and the existing records related to it, and returns
the step JSON (`step/schema.py`). `step/model.py` has the model-backed ones; the runner
(`step/runner.py`) validates and applies whatever an extractor returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..types import Message, Record
from .heuristic import extract


class Extractor(Protocol):
    """Writes a memory step for a stretch: returns the step JSON (dict or string)."""

    name: str

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any] | str: ...


class HeuristicExtractor:
    """The offline, deterministic memory step (no model). See `memlane.step.heuristic`."""

    name = "heuristic"

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any]:
        return extract(messages, existing)


__all__ = ["Extractor", "HeuristicExtractor"]
