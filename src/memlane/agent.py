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
the loop takes that call out of what the user sees and applies it with `Thread.step`. The stretch
filed inline ends at the user's new message (the answer being written goes into the next one). If
the model does not file, or files something invalid, the offline heuristic files the stretch
instead: still no model call.

What goes into the message log is the conversation: the user's messages and the final answers.
Tool traffic is not replayed as history: memory tool results are copies of records (memory
already holds them), and results of the application's tools are kept as recall snapshots
(`Memory.save_snapshot`), which the model finds again with `recall`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._version import __version__
from .context.policy import Policy
from .context.truncate import head_tail
from .errors import MemlaneError, StepError
from .ledger import Ledger, detect_asked_again, detect_correction, question_keys
from .memory import Extractor, Memory, Thread
from .models.base import Model, ModelReply, ToolCall, Usage
from .recall.rounds import ToolCallRecord, run_memory_call, tool_round
from .recall.schemas import MEMORY_TOOL_NAMES, TOOL_SCHEMAS
from .recall.tools import MemoryTools
from .safety import MEMORY_INSTRUCTIONS
from .step.model import (
    INLINE_TOOL_NAME,
    Extraction,
    FallbackExtractor,
    ModelExtractor,
    inline_note,
    inline_tool_schema,
)
from .step.parse import parse_step
from .step.schema import STEP_INSTRUCTIONS
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


class _StepWorker:
    """One background thread that runs memory steps, one at a time, in submission order.

    A thread already waiting in the queue is not queued twice: the job files whatever is due
    when it runs, so one queued job covers every turn that arrived meanwhile.
    """

    def __init__(self, run: Callable[[str], list[StepResult]]) -> None:
        self._run = run
        self._q: queue.Queue[str | None] = queue.Queue()
        self._queued: set[str] = set()
        self._lock = threading.Lock()
        self._results: list[StepResult] = []
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def submit(self, thread_id: str) -> None:
        with self._lock:
            if self._closed:
                raise MemlaneError("the agent is closed; create a new Agent to continue")
            if thread_id in self._queued:
                return
            self._queued.add(thread_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="memlane-step",
                                                daemon=True)
                self._thread.start()
        self._q.put(thread_id)

    def _loop(self) -> None:
        while True:
            tid = self._q.get()
            try:
                if tid is None:
                    return
                with self._lock:
                    self._queued.discard(tid)
                try:
                    done = self._run(tid)
                except Exception:  # noqa: BLE001 - a failed step must not kill the worker
                    log.exception("background memory step for thread %r failed", tid)
                    done = []
                with self._lock:
                    self._results.extend(done)
            finally:
                self._q.task_done()

    def wait(self) -> list[StepResult]:
        """Block until every submitted step has run; the results that landed since last time."""
        self._q.join()
        with self._lock:
            out, self._results = self._results, []
        return out

    def wait_quietly(self) -> None:
        """Like `wait`, keeping the results for the next `wait`."""
        self._q.join()

    def close(self) -> list[StepResult]:
        out = self.wait()
        with self._lock:
            self._closed = True
            t = self._thread
        if t is not None:
            self._q.put(None)
            t.join()
        return out


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
        if max_tool_rounds < 0:
            raise MemlaneError("max_tool_rounds must be 0 or more")
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
                extractor = FallbackExtractor(ModelExtractor(model), memory.extractor,
                                              on_fallback=self._on_step_fallback)
        elif isinstance(extractor, FallbackExtractor) and extractor.on_fallback is None:
            extractor.on_fallback = self._on_step_fallback  # so the ledger hears of it
        self.extractor = extractor
        self._tools_by_thread: dict[str, MemoryTools] = {}
        self._inline_schema_tokens: int | None = None
        self._worker = _StepWorker(self._file_due)

    # configuration -----------------------------------------------------------------------------
    def register_tool(self, tool: AppTool) -> None:
        if tool.name in MEMORY_TOOL_NAMES or tool.name == INLINE_TOOL_NAME:
            raise MemlaneError(f"tool name {tool.name!r} is taken by memlane's memory tools; "
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
        """The tools offered to the model (memory tools when the policy uses them)."""
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
            raise MemlaneError("the agent is closed; create a new Agent to continue")
        thread = self.memory.thread(thread_id)
        self._check_correction(thread, user_text)
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
            stretch = thread.due_stretch()
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

        if not inline_done and thread.step_due():
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
        try:
            res = thread.step(args, start=span[0], end=span[1])
        except StepError as e:
            self._on_step_fallback(e, thread.messages(span[0], span[1]))
            log.warning("inline memory step for msgs %s..%s was invalid; filing with %s: %s",
                        span[0], span[1], self.memory.extractor.name, e)
            try:
                res = thread.step(start=span[0], end=span[1], extractor=self.memory.extractor)
            except MemlaneError:
                log.exception("fallback memory step failed")
                return None
            return res
        self._note_quality(thread.id, thread.messages(span[0], span[1]), args)
        return res

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

    def _file_due(self, thread_id: str, max_steps: int = 20) -> list[StepResult]:
        """File every stretch of `thread_id` that is due (runs on the worker, or inline with
        `background=False`)."""
        thread = self.memory.thread(thread_id)
        done: list[StepResult] = []
        while len(done) < max_steps:
            stretch = thread.due_stretch()
            if not stretch or stretch[-1].role == "user":
                # The turn in progress: its question is here, its answer not yet. Filing now
                # would split the turn across two stretches; the turn submits again when done.
                break
            existing = self._related(stretch)
            if isinstance(self.extractor, FallbackExtractor):
                ex = self.extractor.extract(stretch, existing)
            else:
                ex = Extraction(self.extractor(stretch, existing), self.extractor.name)
            try:
                res = thread.step(ex.output, start=stretch[0].seq, end=stretch[-1].seq)
            except StepError as e:
                # Only an extractor without a fallback gets here: file it the offline way.
                self._on_step_fallback(e, stretch)
                res = thread.step(start=stretch[0].seq, end=stretch[-1].seq,
                                  extractor=self.memory.extractor)
            else:
                self._note_quality(thread_id, stretch, ex.output)
            if res is None:
                break
            done.append(res)
        return done

    def _note_quality(
        self, thread_id: str, stretch: Sequence[Message], output: Mapping[str, Any] | str
    ) -> None:
        if self.ledger is None:
            return
        try:
            q = parse_step(output if isinstance(output, str) else dict(output)).quality
        except StepError:
            return
        if not q:
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
        self._ledger_write(lambda lg: lg.append(
            "quality", namespace=self.memory.ns, thread_id=thread_id, seq=answered[-1].seq,
            signals=sig, score=score, note=q.get("note") if isinstance(q.get("note"), str)
            else None, model=self.model_name))

    def _on_step_fallback(self, error: Exception, messages: Sequence[Message]) -> None:
        if self.ledger is None or not messages:
            return
        problems = getattr(error, "problems", None)
        self._ledger_write(lambda lg: lg.append(
            "step_fallback", namespace=self.memory.ns, thread_id=messages[0].thread_id,
            seq=messages[-1].seq, model=self.model_name,
            signals={"step_fallback": {"error": f"{type(error).__name__}: {error}"[:500],
                                       "problems": list(problems or [])[:10],
                                       "start": messages[0].seq, "end": messages[-1].seq}}))

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
