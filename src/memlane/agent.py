"""A small tool-calling agent loop with memory, used by `memlane chat`, the demo and the
evaluation. The proxy (`memlane.server.turns`) drives the same turn core
(`memlane.tools.turn.TurnLoop`) over raw OpenAI JSON and SSE; the agent drives it over the
`Model` protocol.

One turn:

1. assemble the context for the new message (`Thread.context(new_message=...)`), then record the
   user's message (recorded before the model is called: a failed model call never loses it);
2. call the model with memlane's memory tools (and the application's own tools), execute the
   memory tool calls, feed the results back (bounded: `max_tool_rounds` rounds, each result cut to
   `tool_result_tokens`; an unknown tool gets an error result, never an exception), and stream
   the answer through `on_token`;
3. record the answer, and write its row to the quality ledger (`memlane.tools.answer`);
4. file the conversation when a stretch is due (the memory step): on a background worker, so the
   step's model call is never in the reply's latency path. One worker per agent runs the steps
   one at a time, so steps of one thread never race; `wait()` and `close()` flush it.

Inline mode (`inline=True`) adds no model call at all: when a stretch is due, the agent's own call
is offered a `file_memory` tool (the memory step's fields) with a note naming the stretch's turns;
the loop takes that call out of what the user sees and files it through the step runner
(`memlane.step.runner`, the one filing path of every surface; `memlane.tools.inline`). The
stretch filed inline ends at the user's new message (the answer being written goes into the next
one). If the model does not file, or files something invalid, the offline heuristic files the
stretch instead: still no model call.

What goes into the message log is the conversation: the user's messages and the final answers.
Tool traffic is not replayed as history: memory tool results are copies of records (memory
already holds them), and results of the application's tools are kept as recall snapshots
(`Memory.save_snapshot`), which the model finds again with `recall`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._version import __version__
from .context.policy import Policy
from .errors import UsageError
from .ledger import Ledger
from .memory import Memory, Thread
from .models.base import Model, ModelReply, ToolCall, Usage
from .step.extractor import Extractor
from .step.model import INLINE_TOOL_NAME, FallbackExtractor, ModelExtractor, inline_tool_schema
from .step.runner import StepRunner, StepWorker, file_reporting
from .tool_schemas import MEMORY_TOOL_NAMES, TOOL_SCHEMAS
from .tools.answer import note_correction, prompt_version, record_answer
from .tools.apptools import AppTool, run_call
from .tools.handlers import MemoryTools
from .tools.inline import INLINE_NOTE_TOKENS, InlineFiling
from .tools.rounds import ToolCallRecord
from .tools.turn import RunTools, TurnLoop
from .types import StepResult, Trace

log = logging.getLogger("memlane.agent")

AGENT_VERSION = f"memlane-agent/{__version__}"


@dataclass(frozen=True)
class TurnResult:
    """What one turn did."""

    answer: str
    """The answer as the user sees it (inline `file_memory` calls taken out)."""
    tool_calls: tuple[ToolCallRecord, ...]
    """Tool calls executed, in order (inline `file_memory` calls are not among them)."""
    context_trace: Trace
    """How the context of the first model call was assembled."""
    usage: Usage
    """Tokens billed over all the turn's model calls (the background step's are not here)."""
    step_results: tuple[StepResult, ...]
    """Memory steps applied during the turn: inline ones, or all of them with
    `background=False`. Background steps land later; `Agent.wait()` returns them."""
    thread_id: str = ""
    user_seq: int = 0
    """Seq of the recorded user message."""
    answer_seq: int = 0
    """Seq of the recorded answer."""
    model_calls: int = 0
    signals: dict[str, Any] = field(default_factory=dict)
    """Quality signals detected at answer time (also in the ledger row)."""
    step_problems: tuple[str, ...] = ()
    """Why a memory step that was due could not run (`StepStalled`), with
    `background=False`; a background step's is logged as a warning."""


def _add_usage(a: Usage, b: Usage) -> Usage:
    return Usage(a.prompt_tokens + b.prompt_tokens, a.completion_tokens + b.completion_tokens)


class Agent:
    """An agent with memlane memory: `turn()` answers one user message."""

    def __init__(
        self,
        memory: Memory,
        model: Model,
        *,
        budget: int = 4000,
        policy: Policy | None = None,
        max_tool_rounds: int = 4,
        inline: bool = False,
        background: bool = True,
        ledger: Ledger | None = None,
        extractor: Extractor | None = None,
        tools: Sequence[AppTool] = (),
        max_tokens: int | None = None,
        tool_result_tokens: int = 800,
        version: str = AGENT_VERSION,
    ) -> None:
        """`extractor` writes the background memory steps; by default the model does
        (`ModelExtractor`), validated, with the memory's own extractor (the offline heuristic)
        as the fallback. In inline mode the default is the memory's extractor: the model already
        had its chance inside the turn, and inline mode promises no extra model call."""
        if isinstance(max_tool_rounds, bool) or not isinstance(max_tool_rounds, int) \
                or max_tool_rounds < 0:
            raise UsageError(f"max_tool_rounds must be 0 or more, got {max_tool_rounds!r}")
        self.memory = memory
        self.model = model
        self.budget = budget
        self.policy = policy
        self.max_tool_rounds = max_tool_rounds
        self.inline = inline
        self.background = background
        self.ledger = ledger
        self.max_tokens = max_tokens
        self.tool_result_tokens = tool_result_tokens
        self.version = version
        self.app_tools: dict[str, AppTool] = {}
        for t in tools:
            self.register_tool(t)
        if extractor is None:
            if inline:
                extractor = memory.extractor
            else:
                # Its fallbacks reach the ledger through the step runner (`_runner`).
                extractor = FallbackExtractor(ModelExtractor(model), memory.extractor)
        self.extractor = extractor
        self._tools_by_thread: dict[str, MemoryTools] = {}
        self._inline_schema_tokens: int | None = None
        self._worker: StepWorker[str] = StepWorker(self._file_due)

    # configuration -----------------------------------------------------------------------------
    def register_tool(self, tool: AppTool) -> None:
        if tool.name in MEMORY_TOOL_NAMES or tool.name == INLINE_TOOL_NAME:
            raise UsageError(f"tool name {tool.name!r} is taken by memlane's memory tools; "
                               "rename the application tool")
        self.app_tools[tool.name] = tool

    @property
    def model_name(self) -> str:
        return str(getattr(self.model, "name", type(self.model).__name__))

    @property
    def prompt_version(self) -> str:
        """A short hash of everything that shapes the prompt (`tools.answer.prompt_version`)."""
        p = self.policy or self.memory.policy
        return prompt_version(p.system_prompt, p.memory_instructions, self.tool_schemas(),
                              self.inline)

    def tool_schemas(self, inline_due: bool = False) -> list[dict[str, Any]]:
        """The tools offered to the model (memory tools when the policy uses them); none for a
        model that is never sent tools (`supports_tools = False`, the local model), so the
        budget and `/context` do not count schemas the model never sees."""
        if not getattr(self.model, "supports_tools", True):
            return []
        p = self.policy or self.memory.policy
        out = [dict(t) for t in TOOL_SCHEMAS] if p.use_tools else []
        out += [t.schema() for t in self.app_tools.values()]
        if inline_due:
            out.append(inline_tool_schema())
        return out

    def _inline_reserve(self) -> int:
        """Budget kept for the inline step's tool schema and note, every turn in inline mode
        (whether a stretch is due is known only once the user's message is recorded)."""
        if self._inline_schema_tokens is None:
            self._inline_schema_tokens = self.memory.tokenizer.count(
                [json.dumps([inline_tool_schema()])])[0]
        return self._inline_schema_tokens + INLINE_NOTE_TOKENS

    def context(self, thread_id: str, new_message: str | None = None) -> Any:
        """The context the model would see next (what `/context` shows)."""
        return self.memory.thread(thread_id).context(
            self.budget, new_message, policy=self.policy, tools=self.tool_schemas())

    # one turn ----------------------------------------------------------------------------------
    def turn(
        self, thread_id: str, user_text: str, on_token: Callable[[str], None] | None = None
    ) -> TurnResult:
        if self._worker.closed:
            raise UsageError("the agent is closed; create a new Agent to continue")
        thread = self.memory.thread(thread_id)
        note_correction(self.ledger, self.memory, thread, user_text, self.model_name)
        # The memory tools' rule (MemoryTools.user_turn): writes and forgets need these words.
        self.memory_tools(thread_id).user_turn = user_text
        tools = self.tool_schemas()
        reserve = 0
        if self.inline:
            # A heuristic step the worker may still be running for this thread must land
            # first, or the inline step could file an overlapping stretch. No model call is
            # queued in inline mode, so this wait is short.
            self._worker.wait_quietly()
            reserve = self._inline_reserve()
        ctx = thread.context(self.budget - reserve, user_text, policy=self.policy, tools=tools)
        user_msg = thread.add("user", user_text)

        messages: list[dict[str, Any]] = ctx.openai_messages()
        inline = InlineFiling(self.memory, self._runner(), thread.id) if self.inline else None
        if inline is not None and inline.span is not None:
            messages.insert(len(messages) - 1, {"role": "system", "content": inline.note})
            tools = self.tool_schemas(inline_due=True)

        loop, usage, calls = self._loop(thread, messages, tools, inline, on_token)
        answer_msg = thread.add("assistant", loop.answer_text)
        signals = record_answer(
            self.ledger, self.memory, thread, answer_msg, signals=loop.signals,
            agent_version=self.version, prompt_version=self.prompt_version,
            model=self.model_name)

        step_results = list(inline.results) if inline is not None else []
        problems: list[str] = []
        # The agent has just recorded its whole turn: it need not wait for the next question to
        # close it (`turn_done`).
        if not (inline is not None and inline.done) and \
                self._runner().due_stretch(thread.id, turn_done=True):
            if self.background:
                self._worker.submit(thread.id)
            else:
                step_results.extend(file_reporting(lambda: self._file_due(thread.id),
                                                   problems))
        return TurnResult(
            answer=loop.answer_text, tool_calls=tuple(loop.records), context_trace=ctx.trace,
            usage=usage, step_results=tuple(step_results), thread_id=thread.id,
            user_seq=user_msg.seq, answer_seq=answer_msg.seq, model_calls=calls,
            signals=signals, step_problems=tuple(problems),
        )

    def _loop(
        self,
        thread: Thread,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        inline: InlineFiling | None,
        on_token: Callable[[str], None] | None,
    ) -> tuple[TurnLoop, Usage, int]:
        """The agent's adapter of the turn core: `Model.complete` calls in, decisions out."""
        filed: dict[str, str] = {}

        def execute(c: ToolCall, rnd: int) -> ToolCallRecord | str:
            if c.name == INLINE_TOOL_NAME:
                return filed[c.id]
            return run_call(self.app_tools, self.memory_tools(thread.id), c, rnd)

        loop = TurnLoop(self.max_tool_rounds, execute, self.memory.tokenizer,
                        self.tool_result_tokens, offered=bool(tools))
        stream = (lambda f: on_token(loop.text(f))) if on_token else None
        usage = Usage()
        calls = 0
        while True:
            reply: ModelReply = self.model.complete(
                messages, tools=None if loop.last or not tools else tools,
                max_tokens=self.max_tokens, on_token=stream)
            calls += 1
            usage = _add_usage(usage, reply.usage)
            if stream is None:
                loop.text(reply.content)
            round_calls = list(reply.tool_calls)
            if inline is not None and round_calls and not loop.last:
                filed.update(inline.file(round_calls))
                if filed:
                    # Filed: the tool is not offered again this turn.
                    tools = [t for t in tools if t["function"]["name"] != INLINE_TOOL_NAME]
                if all(c.name == INLINE_TOOL_NAME for c in round_calls) \
                        and reply.content.strip():
                    round_calls = []  # the answer came with the filing call: nothing to ask
            decision = loop.end_round(round_calls, reply.content)
            if not isinstance(decision, RunTools):
                break
            messages += decision.messages
        if inline is not None:
            inline.missed()
        return loop, usage, calls

    # tools -------------------------------------------------------------------------------------
    def memory_tools(self, thread_id: str) -> MemoryTools:
        """The memory tools as used in `thread_id` (what the model saves is attributed to it).
        Their own bound on results is the agent's `tool_result_tokens`."""
        tools = self._tools_by_thread.get(thread_id)
        if tools is None:
            if len(self._tools_by_thread) > 256:  # a long-lived agent serving many threads
                self._tools_by_thread.clear()
            tools = self._tools_by_thread[thread_id] = MemoryTools(
                self.memory, max_tokens=self.tool_result_tokens, thread_id=thread_id)
        return tools

    # memory steps ------------------------------------------------------------------------------
    def _runner(self) -> StepRunner:
        """The one filing path (`memlane.step.runner`), with this agent's extractor and ledger."""
        return self.memory.step_runner(self.extractor, ledger=self.ledger,
                                       model=self.model_name)

    def _file_due(self, thread_id: str, max_steps: int = 1000) -> list[StepResult]:
        """File every stretch of `thread_id` that is due (runs on the worker, in batches, or
        inline with `background=False`)."""
        return self._runner().file_due(thread_id, max_steps=max_steps, turn_done=True)

    def flush(self, thread_id: str) -> list[StepResult]:
        """Let the background steps land, then file what is still unfiled in `thread_id`,
        however short (a session that ends: `memlane chat` on `/quit` and at end of input)."""
        done = self._worker.wait()
        return done + self._runner().file_due(thread_id, force=True)

    # lifecycle ---------------------------------------------------------------------------------
    def wait(self) -> list[StepResult]:
        """Block until the background memory steps have landed; returns those that landed
        since the last call."""
        return self._worker.wait()

    def close(self) -> list[StepResult]:
        """Flush the background steps and stop the worker. The memory and the ledger belong to
        the caller and stay open."""
        return self._worker.close()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["AGENT_VERSION", "Agent", "AppTool", "ToolCallRecord", "TurnResult"]
