"""The tool-calling turn, written once: the core that the agent (`memlane.agent`) and the
proxy's JSON and SSE paths (`memlane.server.turns`) drive.

A turn is a few rounds; each round is one model call. The adapters feed the core what the model
said (`text`, fragment by fragment as it streams, or whole) and, when the call ends, the tool
calls it made (`end_round`); the core decides:

- `RunTools`: the calls were all memlane's and tools were offered: they have been executed
  (`tools.rounds.tool_round`, results cut to a token bound) and the adapter sends the returned
  messages with the next model call;
- `Answer`: this round's answer is the turn's: its text (every round's text, as the user saw
  it), and which of the round's calls go back to the client (the calls that are not memlane's;
  memlane's calls in a mixed answer, on the last round or when memory tools were not offered
  are taken out: they are not the client's business, nor executable by it).

Text said before a tool call stays: a later round's text starts a new paragraph ("\\n\\n"
before its first fragment, when an earlier round said something). The answer recorded is
exactly what was forwarded, so a client that sends its history back matches the log.

On the last round (`max_rounds` tool rounds done) the adapters offer no memory tools; a model
that calls one anyway is answered without it (`tool_rounds_exhausted`). The signals the turn
gives the quality ledger (`signals`) are the same on every surface: `tool_calls` (names run),
`tool_errors` (names that failed), `tool_rounds_exhausted`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..context.tokens import Tokenizer
from ..models.base import ToolCall
from .rounds import ToolCallRecord, tool_round


@dataclass(frozen=True)
class RunTools:
    """memlane's calls were run: append `messages` and call the model again."""

    messages: list[dict[str, Any]]


@dataclass(frozen=True)
class Answer:
    """The turn's answer."""

    text: str
    """Every round's text joined, exactly as it was forwarded."""
    keep: list[int]
    """Indices (in the round's calls) of the calls that go back to the client."""
    dropped: bool
    """Some of the round's calls were memlane's and are taken out of the answer."""


@dataclass
class TurnLoop:
    """One turn's rounds: events in (`text`, `end_round`), decisions out."""

    max_rounds: int
    """Tool rounds allowed; the call after the last one is offered no memory tools."""
    execute: Callable[[ToolCall, int], ToolCallRecord | str]
    """Runs one of memlane's calls in round `rnd` (a record, or a result text of its own)."""
    tokenizer: Tokenizer
    result_tokens: int
    """Each result is cut to this many tokens before the model sees it."""
    is_memory: Callable[[str], bool] = lambda name: True
    """Whether a call is executed here (memlane's) or belongs to the client."""
    offered: bool = True
    """Whether memory tools were offered at all (a call of one that was not is dropped)."""
    round: int = 0
    records: list[ToolCallRecord] = field(default_factory=list)
    exhausted: bool = False
    _text: list[str] = field(default_factory=list)
    _round_start: int = 0
    _said: bool = False

    @property
    def last(self) -> bool:
        """This round is offered no memory tools."""
        return self.round >= self.max_rounds

    def text(self, fragment: str) -> str:
        """Take a text fragment of this round; returns what to forward to the user."""
        if not fragment:
            return ""
        if self._said and len(self._text) == self._round_start:
            fragment = "\n\n" + fragment
        self._text.append(fragment)
        return fragment

    @property
    def answer_text(self) -> str:
        return "".join(self._text)

    def _close_round(self) -> None:
        if "".join(self._text[self._round_start:]).strip():
            self._said = True
        self._round_start = len(self._text)

    def end_round(self, calls: Sequence[ToolCall], content: Any = None,
                  mine: Sequence[int] | None = None) -> RunTools | Answer:
        """The model call ended with `calls`; `content` is its text as the wire shows it (the
        assistant message sent back with the calls' results). `mine`: which calls are
        memlane's, when the adapter had to decide as they streamed (else `is_memory`)."""
        if mine is None:
            mine = [i for i, c in enumerate(calls) if self.is_memory(c.name)]
        if mine and len(mine) == len(calls) and not self.last and self.offered:
            rnd = self.round
            sent, done = tool_round(content, calls, lambda c: self.execute(c, rnd),
                                    self.result_tokens, self.tokenizer)
            self.records += done
            self.round += 1
            if self.last:
                self.exhausted = True
            self._close_round()
            return RunTools(sent)
        if mine and self.last:
            self.exhausted = True
        self._close_round()
        return Answer(self.answer_text, [i for i in range(len(calls)) if i not in mine],
                      bool(mine))

    @property
    def signals(self) -> dict[str, Any]:
        """What the turn tells the quality ledger."""
        out: dict[str, Any] = {}
        if self.records:
            out["tool_calls"] = [r.name for r in self.records]
        errors = [r.name for r in self.records if r.error]
        if errors:
            out["tool_errors"] = errors
        if self.exhausted:
            out["tool_rounds_exhausted"] = self.max_rounds
        return out


__all__ = ["Answer", "RunTools", "TurnLoop"]
