"""A small tool-calling agent loop with memory, shared by `memlane chat`, the demo, the
evaluation and the HTTP proxy.

One turn:

1. assemble the context for the new message (`Thread.context(new_message=...)`), then record the
   user's message (recorded before the model is called: a failed model call never loses it);
2. call the model with memlane's memory tools (and the application's own tools), execute the
   memory tool calls, feed the results back (bounded: `max_tool_rounds` rounds, each result cut to
   `tool_result_tokens`; an unknown tool gets an error result, never an exception), and stream
   the answer through `on_token`;
3. record the answer, and write its row to the quality ledger;
4. file the conversation when a stretch is due (the memory step): on a background worker, so the
   step's model call is never in the reply's latency path. One worker per agent runs the steps
   one at a time, so steps of one thread never race; `wait()` and `close()` flush it.

Inline mode (`inline=True`) adds no model call at all: when a stretch is due, the agent's own call
is offered a `file_memory` tool (the memory step's fields) with a note naming the stretch's turns;
the loop takes that call out of what the user sees and files it through the step runner
(`memlane.step.runner`, the one filing path of every surface). The stretch filed inline ends at
the user's new message (the answer being written goes into the next one). If the model does not
file, or files something invalid, the offline heuristic files the stretch instead: still no model
call.

What goes into the message log is the conversation: the user's messages and the final answers.
Tool traffic is not replayed as history: memory tool results are copies of records (memory
already holds them), and results of the application's tools are kept as recall snapshots
(`Memory.save_snapshot`), which the model finds again with `recall`.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._version import __version__
from .context.policy import Policy
from .context.truncate import head_tail
from .errors import MemlaneError, UsageError
from .ledger import Ledger, detect_asked_again, detect_correction, question_keys
from .memory import Extractor, Memory, Thread
from .models.base import Model, ModelReply, ToolCall, Usage
from .recall.schemas import MEMORY_TOOL_NAMES, TOOL_SCHEMAS
from .safety import MEMORY_INSTRUCTIONS
from .step.model import (
    INLINE_TOOL_NAME,
    FallbackExtractor,
    ModelExtractor,
    inline_note,
    inline_tool_schema,
)
from .step.runner import StepRunner, StepWorker
from .step.schema import STEP_INSTRUCTIONS
from .tools.handlers import MemoryTools
from .tools.rounds import ToolCallRecord, run_memory_call, tool_round
from .types import Message, Record, StepResult, Trace

log = logging.getLogger("memlane.agent")

AGENT_VERSION = f"memlane-agent/{__version__}"
# Room kept in the budget for the inline step's tool schema and its note (inline mode only).
INLINE_NOTE_TOKENS = 500
# How far back the "asked again" detector reads the thread (the rest is in records).
ASKED_AGAIN_LOOKBACK = 200


@dataclass(frozen=True)
class AppTool:
    """A tool of the application's own, offered to the model beside the memory tools."""

    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments."""
    handler: Callable[[dict[str, Any]], Any]
    """Called with the parsed arguments; returns something JSON-serialisable."""
    snapshot: bool = True
    """Keep results as recall snapshots (when the memory supports them)."""

    def schema(self) -> dict[str, Any]:
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}}


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
        """A short hash of everything that shapes the prompt: system prompt, memory
        instructions, the offered tools, the inline step's instructions."""
        p = self.policy or self.memory.policy
        parts = [p.system_prompt, MEMORY_INSTRUCTIONS if p.memory_instructions else "",
                 json.dumps(self.tool_schemas(), sort_keys=True),
                 STEP_INSTRUCTIONS if self.inline else ""]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:10]

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
        self._check_correction(thread, user_text)
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
        inline_span: tuple[int, int] | None = None
        if self.inline:
            stretch = self._runner().due_stretch(thread.id, inline=True)
            if stretch:
                inline_span = (stretch[0].seq, stretch[-1].seq)
                note = inline_note(stretch, self._related(stretch))
                note = head_tail(note, INLINE_NOTE_TOKENS, self.memory.tokenizer)
                messages.insert(len(messages) - 1, {"role": "system", "content": note})
                tools = self.tool_schemas(inline_due=True)

        answer, records, usage, calls, step_results, signals, inline_done = self._loop(
            thread, messages, tools, inline_span, on_token)

        answer_msg = thread.add("assistant", answer)
        signals.update(self._answer_signals(thread, answer, user_msg))
        if self.ledger is not None:
            self._ledger_write(lambda lg: lg.record_answer(
                namespace=self.memory.ns, thread_id=thread.id, seq=answer_msg.seq,
                agent_version=self.version, prompt_version=self.prompt_version,
                model=self.model_name, answer_tokens=answer_msg.tokens, signals=signals))

        # The agent has just recorded its whole turn: it need not wait for the next question to
        # close it (`turn_done`).
        if not inline_done and self._runner().due_stretch(thread.id, turn_done=True):
            if self.background:
                self._worker.submit(thread.id)
            else:
                step_results.extend(self._file_due(thread.id))
        return TurnResult(
            answer=answer, tool_calls=tuple(records), context_trace=ctx.trace, usage=usage,
            step_results=tuple(step_results), thread_id=thread.id, user_seq=user_msg.seq,
            answer_seq=answer_msg.seq, model_calls=calls, signals=signals,
        )

    def _loop(
        self,
        thread: Thread,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        inline_span: tuple[int, int] | None,
        on_token: Callable[[str], None] | None,
    ) -> tuple[str, list[ToolCallRecord], Usage, int, list[StepResult], dict[str, Any], bool]:
        parts: list[str] = []
        records: list[ToolCallRecord] = []
        usage = Usage()
        step_results: list[StepResult] = []
        signals: dict[str, Any] = {}
        inline_done = False
        calls = 0
        emitted = [False]

        def stream(fragment: str) -> None:
            # Text from an earlier round (said before a tool call) stays; a new round's text
            # starts a new paragraph, exactly as `answer` joins them.
            if not emitted[0] and parts:
                on_token("\n\n")  # type: ignore[misc]
            emitted[0] = True
            on_token(fragment)  # type: ignore[misc]

        for rnd in range(self.max_tool_rounds + 1):
            last = rnd == self.max_tool_rounds
            emitted[0] = False
            reply: ModelReply = self.model.complete(
                messages, tools=None if last or not tools else tools,
                max_tokens=self.max_tokens, on_token=stream if on_token else None)
            calls += 1
            usage = _add_usage(usage, reply.usage)
            if reply.content.strip():
                parts.append(reply.content.strip())
            if not reply.tool_calls:
                break
            if last:
                # Tools were not offered on this call; a model that calls one anyway is ignored.
                signals["tool_rounds_exhausted"] = self.max_tool_rounds
                break
            filing = [c for c in reply.tool_calls if c.name == INLINE_TOOL_NAME]
            others = [c for c in reply.tool_calls if c.name != INLINE_TOOL_NAME]
            filed: dict[str, str] = {}
            for c in filing:
                if inline_done or inline_span is None:
                    filed[c.id] = json.dumps({"error": "no memory filing is due now"})
                    continue
                res = self._apply_inline(thread, c, inline_span)
                inline_done = True
                if res is not None:
                    step_results.append(res)
                filed[c.id] = json.dumps({"ok": True, "filed": list(inline_span)})
            if filing:
                # Filed: the tool is not offered again this turn.
                tools = [t for t in tools if t["function"]["name"] != INLINE_TOOL_NAME]
            if not others and reply.content.strip():
                break  # the answer came with the filing call: nothing left to ask the model

            def execute(c: ToolCall, rnd: int = rnd, filed: dict[str, str] = filed
                        ) -> ToolCallRecord | str:
                return filed[c.id] if c.name == INLINE_TOOL_NAME else \
                    self._execute(thread, c, rnd)

            sent, done = tool_round(reply.content, reply.tool_calls, execute,
                                    self.tool_result_tokens, self.memory.tokenizer)
            records += done
            messages += sent
            if rnd + 1 == self.max_tool_rounds:
                signals["tool_rounds_exhausted"] = self.max_tool_rounds
        errors = [r.name for r in records if r.error]
        if errors:
            signals["tool_errors"] = errors
        if inline_span is not None and not inline_done:
            log.info("inline mode: the model did not file msgs %s..%s; the heuristic will",
                     *inline_span)
        return "\n\n".join(parts), records, usage, calls, step_results, signals, inline_done

    def _apply_inline(
        self, thread: Thread, call: ToolCall, span: tuple[int, int]
    ) -> StepResult | None:
        args: Any = call.arguments
        if isinstance(args, dict) and set(args) == {"_raw"}:
            args = args["_raw"]  # broken JSON: let the parser say what is wrong
        # Invalid arguments are filed by the heuristic (still no model call), with a ledger row.
        try:
            return self._runner().file(thread.id, args, start=span[0], end=span[1],
                                       fallback=True)
        except MemlaneError:
            log.exception("inline memory step for msgs %s..%s failed", *span)
            return None

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

    def _execute(self, thread: Thread, call: ToolCall, rnd: int) -> ToolCallRecord:
        if call.name in MEMORY_TOOL_NAMES:
            return run_memory_call(self.memory_tools(thread.id), call, rnd)
        args = dict(call.arguments)
        if "_raw" in args and len(args) == 1:
            return ToolCallRecord(call.id, call.name, args, None,
                                  f"arguments are not a JSON object: {args['_raw'][:200]!r}",
                                  rnd, "app")
        tool = self.app_tools.get(call.name)
        if tool is None:
            offered = sorted(MEMORY_TOOL_NAMES | set(self.app_tools))
            return ToolCallRecord(call.id, call.name, args, None,
                                  f"unknown tool {call.name!r}; available: "
                                  f"{', '.join(offered)}", rnd, "unknown")
        try:
            result = tool.handler(args)
        except Exception as e:  # noqa: BLE001 - the model is told; the turn goes on
            log.warning("tool %s failed: %r", call.name, e)
            return ToolCallRecord(call.id, call.name, args, None,
                                  f"{type(e).__name__}: {e}", rnd, "app")
        if tool.snapshot:
            self._snapshot(thread, call.name, args, result)
        return ToolCallRecord(call.id, call.name, args, result, None, rnd, "app")

    def _snapshot(self, thread: Thread, name: str, args: dict[str, Any], result: Any) -> None:
        # A snapshot is a cache for `recall`; failing to keep one must not fail the turn.
        out = self.memory_tools(thread.id).save_snapshot(name, args, result)
        if "error" in out:
            log.warning("could not save a recall snapshot of %s: %s", name, out["error"])

    # memory steps ------------------------------------------------------------------------------
    def _runner(self) -> StepRunner:
        """The one filing path (`memlane.step.runner`), with this agent's extractor and ledger."""
        return self.memory.step_runner(self.extractor, ledger=self.ledger,
                                       model=self.model_name)

    def _related(self, stretch: Sequence[Message], limit: int = 10) -> list[Record]:
        """Existing records related to a stretch (so a step updates instead of duplicating)."""
        return self.memory.related(stretch, limit)

    def _search(self, query: str, limit: int) -> list[Record]:
        if not query.strip():
            return []
        try:
            hits = self.memory.search(query, limit)
        except MemlaneError:
            log.debug("search for related records failed", exc_info=True)
            return []
        return [h.record for h in hits]

    def _file_due(self, thread_id: str, max_steps: int = 1000) -> list[StepResult]:
        """File every stretch of `thread_id` that is due (runs on the worker, in batches, or
        inline with `background=False`)."""
        return self._runner().file_due(thread_id, max_steps=max_steps, turn_done=True)

    def flush(self, thread_id: str) -> list[StepResult]:
        """Let the background steps land, then file what is still unfiled in `thread_id`,
        however short (a session that ends: `memlane chat` on `/quit` and at end of input)."""
        done = self._worker.wait()
        return done + self._runner().file_due(thread_id, force=True)

    # quality signals ---------------------------------------------------------------------------
    def _check_correction(self, thread: Thread, user_text: str) -> None:
        """A correction in this message judges the previous answer: a `signal` row for it."""
        if self.ledger is None:
            return
        phrase = detect_correction(user_text)
        if not phrase:
            return
        if not thread.exists():
            return
        n = thread.info().messages
        last = thread.messages(n, n)
        if not last or last[0].role != "assistant":
            return
        # A pointer to the user's message, not its words: forgetting the thread reaches it.
        detail = {"phrase": phrase.lower(), "at_seq": n + 1}
        self._ledger_write(lambda lg: lg.append(
            "signal", namespace=self.memory.ns, thread_id=thread.id, seq=last[0].seq,
            signals={"user_correction": detail}, score=0.2, model=self.model_name))

    def _answer_signals(self, thread: Thread, answer: str, user_msg: Message) -> dict[str, Any]:
        if "?" not in answer:
            return {}
        start = max(1, user_msg.seq - ASKED_AGAIN_LOOKBACK)
        said = [m for m in thread.messages(start, user_msg.seq) if m.role == "user"]
        keys = question_keys(answer)
        if not keys:
            return {}
        records: list[Record] = []
        for _, words in keys[:3]:
            records += self._search(" ".join(words), 5)
        hit = detect_asked_again(answer, said, records)
        return {"asked_again": hit} if hit else {}

    def _ledger_write(self, write: Callable[[Ledger], Any]) -> None:
        # The ledger is for engineers: a full disk or a locked file must not fail the user's turn.
        assert self.ledger is not None
        try:
            write(self.ledger)
        except Exception:  # noqa: BLE001
            log.warning("could not write to the quality ledger", exc_info=True)

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
