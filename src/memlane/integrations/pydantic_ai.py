"""memlane as the memory of a pydantic-ai agent.

    from pydantic_ai import Agent
    from memlane import AsyncMemory
    from memlane.integrations.pydantic_ai import memlane_capability

    mem = await AsyncMemory.open("agent.db")
    agent = Agent(model, capabilities=[memlane_capability(mem, "support-42", budget=4000)])
    await agent.run("Where is my order?")          # no message_history: memlane holds it

`memlane_capability` is the whole integration: the history processor below, the memory tools as a
toolset, and the recording of each run's final answer when the run ends. `history_processor()`
alone is the processor (for pydantic-ai 1.x `Agent(history_processors=[...])`, or
`capabilities=[ProcessHistory(...)]` in 2.x); on its own it never sees a run's final answer, which
is recorded only if the next run is given it in `message_history`.

Before each model request the processor:

1. records in the thread whatever it has not recorded yet: earlier messages handed in as
   `message_history`, the run's user prompt, the model's replies and tool calls, tool results;
2. at the start of a run, assembles memlane's context for the prompt (`new_message` = the
   prompt's text, so notes are chosen for it) once;
3. hands the model that context (memlane's notes as a system part, the window's turns, past tool
   calls paired with their returns) followed by the current run's own messages, unchanged (the
   prompt request with its instructions and attachments, this run's tool calls and returns).

pydantic-ai writes the processor's output back into the run, so `result.all_messages()` is what
the model was sent, not the full history; the full history is the thread's. Each message is
marked in its `metadata` once recorded (`{"memlane": "recorded"}`, or `"context"` for what memlane
produced), so handing a run's messages back in never records them twice. The agent's own system
prompt parts are sent as they are and not recorded (the agent sends them again every run).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..aio import AsyncMemory
from ..context.policy import Policy
from ..errors import MissingExtra, UsageError
from ..memory import Memory
from ..tool_schemas import TOOL_SCHEMAS
from ..types import StepResult
from ._filing import Filer
from ._transcript import Call, call_line, replay, user_words

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import ProcessHistory
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        RetryPromptPart,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.tools import Tool
    from pydantic_ai.toolsets import FunctionToolset
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise MissingExtra("memlane.integrations.pydantic_ai", "pydantic-ai",
                       "pydantic-ai-slim") from e

__all__ = ["MemlaneCapability", "history_processor", "memlane_capability", "memlane_toolset"]

_MARK = "memlane"
ThreadId = str | Callable[[RunContext[Any]], str]


def _mark(m: ModelMessage) -> str | None:
    return (m.metadata or {}).get(_MARK)


def _set_mark(m: ModelMessage, value: str) -> None:
    m.metadata = {**(m.metadata or {}), _MARK: value}


def _prompt_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(c for c in content if isinstance(c, str))


def messages_to_log(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    """pydantic-ai messages as memlane log messages (`{role, content, name}`), in order."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, UserPromptPart):
                    text = _prompt_text(p.content)
                    if text:
                        out.append({"role": "user", "content": text})
                elif isinstance(p, ToolReturnPart):
                    out.append({"role": "tool", "content": p.model_response_str(),
                                "name": p.tool_name})
                elif isinstance(p, RetryPromptPart) and p.tool_name:
                    out.append({"role": "tool", "content": p.model_response(),
                                "name": p.tool_name})
                # SystemPromptPart: the agent's own, sent again every run; not conversation.
        elif isinstance(m, ModelResponse):
            lines = [p.content for p in m.parts if isinstance(p, TextPart) and p.content]
            lines += [call_line(p.tool_name, p.args_as_json_str()) for p in m.parts
                      if isinstance(p, ToolCallPart)]
            # Thinking and provider-side (builtin) tool parts are not kept.
            if lines:
                out.append({"role": "assistant", "content": "\n".join(lines)})
    return out


def context_to_messages(messages: Sequence[Any]) -> list[ModelMessage]:
    """An assembled context's messages (without its `new` layer) as pydantic-ai messages."""
    out: list[ModelMessage] = []
    parts: list[Any] = []

    def flush() -> None:
        if parts:
            out.append(ModelRequest(parts=list(parts), metadata={_MARK: "context"}))
            parts.clear()

    for part in replay(messages):
        if isinstance(part, Call):
            flush()
            out.append(ModelResponse(parts=[ToolCallPart(part.name, part.arguments,
                                                         tool_call_id=part.call_id)],
                                     metadata={_MARK: "context"}))
            out.append(ModelRequest(parts=[ToolReturnPart(part.name, part.output,
                                                          tool_call_id=part.call_id)],
                                    metadata={_MARK: "context"}))
        elif part.role == "assistant":
            flush()
            out.append(ModelResponse(parts=[TextPart(part.text)], metadata={_MARK: "context"}))
        elif part.text:
            parts.append(SystemPromptPart(part.text) if part.role == "system"
                         else UserPromptPart(part.text))
    flush()
    merged: list[ModelMessage] = []
    for m in out:  # a tool return followed by notes or a user turn: one request, not two
        if merged and isinstance(m, ModelRequest) and isinstance(merged[-1], ModelRequest):
            merged[-1] = replace(merged[-1], parts=[*merged[-1].parts, *m.parts])
        else:
            merged.append(m)
    return merged


@dataclass
class _RunContext:
    """The context assembled at a run's start, reused for the run's later model requests."""

    prompt: ModelMessage
    messages: list[ModelMessage] = field(default_factory=list)


class MemlaneHistory:
    """The history processor (see the module docstring). Call it as pydantic-ai does:
    `await processor(ctx, messages)`."""

    def __init__(self, memory: AsyncMemory | Memory, thread_id: ThreadId, *, budget: int = 4000,
                 policy: Policy | None = None, memory_tools: bool = True,
                 background_step: bool = True) -> None:
        if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
            raise UsageError(f"budget must be a positive number of tokens, got {budget!r}")
        if not (isinstance(thread_id, str) and thread_id) and not callable(thread_id):
            raise UsageError("thread_id must be a thread id or a function of the RunContext "
                             "that returns one")
        self.memory = memory if isinstance(memory, AsyncMemory) else AsyncMemory(memory)
        self.thread_id = thread_id
        self.budget = budget
        p = policy or self.memory.sync.policy
        self.policy = replace(p, system_prompt="", use_tools=memory_tools,
                              memory_instructions=memory_tools and p.memory_instructions)
        self._runs: dict[str, _RunContext] = {}
        self._filer = Filer(background_step)

    def _thread(self, ctx: RunContext[Any]) -> Any:
        tid = self.thread_id if isinstance(self.thread_id, str) else self.thread_id(ctx)
        return self.memory.thread(tid)

    async def record(self, ctx: RunContext[Any], messages: Sequence[ModelMessage]) -> bool:
        """Record the messages not recorded yet (and mark them). True if a reply was among
        them."""
        thread = self._thread(ctx)
        new = [m for m in messages if _mark(m) is None]
        log = messages_to_log(new)
        if log:
            await thread.extend(log)
        for m in new:
            _set_mark(m, "recorded")
        return any(m["role"] == "assistant" for m in log)

    async def turn_ended(self, ctx: RunContext[Any]) -> None:
        """File what is due on the run's thread (the cadence): see `_filing`."""
        await self._filer.turn_ended(self._thread(ctx))

    @property
    def steps(self) -> list[StepResult]:
        """Memory steps run after this processor's runs, oldest first."""
        return self._filer.steps

    @property
    def step_problems(self) -> list[str]:
        """Why a memory step that was due could not run (`StepStalled`; also logged as a
        warning), oldest first; empty while filing goes on."""
        return self._filer.problems

    async def wait(self) -> None:
        """Wait for the background memory steps in flight."""
        await self._filer.wait()

    async def __call__(self, ctx: RunContext[Any],
                       messages: list[ModelMessage]) -> list[ModelMessage]:
        # The run's prompt: the last request with a user prompt that memlane did not produce.
        p = next((i for i in range(len(messages) - 1, -1, -1)
                  if isinstance(messages[i], ModelRequest) and _mark(messages[i]) != "context"
                  and any(isinstance(x, UserPromptPart) for x in messages[i].parts)), None)
        if p is None:  # a run resumed without a new prompt: record, replay the unrecorded tail
            p = next((i for i, m in enumerate(messages) if _mark(m) is None), len(messages))
        before, tail = messages[:p], messages[p:]
        thread = self._thread(ctx)
        key = f"{thread.id}\0{ctx.run_id}"
        run = self._runs.get(key)
        replied = False
        if run is None or not tail or run.prompt is not tail[0]:
            replied = await self.record(ctx, before)
            prompt = tail[0] if tail else None
            text = None
            if isinstance(prompt, ModelRequest) and _mark(prompt) is None:
                text = "\n".join(_prompt_text(x.content) for x in prompt.parts
                                 if isinstance(x, UserPromptPart)) or None
            assembled = await thread.context(self.budget, text, policy=self.policy,
                                             tools=TOOL_SCHEMAS if self.policy.use_tools else [])
            shown = context_to_messages([m for m in assembled.messages if m.layer != "new"])
            if isinstance(prompt, ModelRequest) and shown and isinstance(shown[-1], ModelRequest):
                # Two requests in a row would be merged by pydantic-ai when the messages are
                # handed back in, losing the marks: memlane's last parts go into (a copy of) the
                # prompt request instead, marked as recorded once the prompt is.
                await self.record(ctx, [prompt])
                prompt = replace(prompt, parts=[*shown.pop().parts, *prompt.parts])
                tail = [prompt, *tail[1:]]
            self._runs.clear()  # one run's context per processor is all that is reused
            run = self._runs[key] = _RunContext(prompt or ModelRequest(parts=[]), shown)
        if await self.record(ctx, tail) or replied:
            await self.turn_ended(ctx)
        return [*run.messages, *tail]


def history_processor(memory: AsyncMemory | Memory, thread_id: ThreadId, *, budget: int = 4000,
                      policy: Policy | None = None, memory_tools: bool = True,
                      background_step: bool = True) -> MemlaneHistory:
    """The history processor for one thread (`thread_id`, or a function of the `RunContext`
    giving it, e.g. `lambda ctx: ctx.deps.user_id`). `memory_tools`: the agent has the memory
    tools, so their schemas are counted in `budget` and the notes tell the model to use them.
    Once it records a reply, the memory step for what is due runs (in the background unless
    `background_step=False`)."""
    return MemlaneHistory(memory, thread_id, budget=budget, policy=policy,
                          memory_tools=memory_tools, background_step=background_step)


def memlane_toolset(memory: AsyncMemory | Memory, *, thread_id: str | None = None,
                    max_tokens: int | None = None) -> FunctionToolset[Any]:
    """memlane's memory tools as a pydantic-ai toolset. A bad call comes back to the model as
    `{"error": ...}`, never as an exception."""
    from ..tools.handlers import DEFAULT_MAX_TOKENS, MemoryTools

    amem = memory if isinstance(memory, AsyncMemory) else AsyncMemory(memory)
    handlers = MemoryTools(amem.sync, thread_id=thread_id,
                           max_tokens=max_tokens or DEFAULT_MAX_TOKENS)

    def make(schema: dict[str, Any]) -> Tool[Any]:
        fn = schema["function"]
        name = fn["name"]

        async def call(ctx: RunContext[Any], **arguments: Any) -> dict[str, Any]:
            # The memory tools' rule: writes and forgets need the user's own words of the turn.
            said = user_words(ctx.prompt)
            if said is not None and said != handlers.user_turn:
                handlers.user_turn = said
            return await amem._run(handlers.call, name, arguments)

        tool: Tool[Any] = Tool.from_schema(call, name, fn["description"], dict(fn["parameters"]),
                                           takes_ctx=True)
        return tool

    return FunctionToolset([make(s) for s in TOOL_SCHEMAS])


@dataclass
class MemlaneCapability(ProcessHistory[Any]):
    """memlane's history processor, its memory tools, and the recording of each run's final
    answer, as one pydantic-ai capability."""

    toolset: FunctionToolset[Any] | None = None
    """The memory tools (None: the agent is not offered them)."""
    def get_toolset(self) -> FunctionToolset[Any] | None:
        return self.toolset

    async def after_run(self, ctx: RunContext[Any], *, result: Any) -> Any:
        processor = self.processor
        if isinstance(processor, MemlaneHistory) and \
                await processor.record(ctx, result.all_messages()):
            await processor.turn_ended(ctx)
        return result

    async def wait(self) -> None:
        """Wait for the background memory steps in flight."""
        if isinstance(self.processor, MemlaneHistory):
            await self.processor.wait()


def memlane_capability(memory: AsyncMemory | Memory, thread_id: ThreadId, *, budget: int = 4000,
                       policy: Policy | None = None, memory_tools: bool = True,
                       background_step: bool = True) -> MemlaneCapability:
    """Everything for `Agent(capabilities=[...])`: the history processor for `thread_id`, the
    memory tools (unless `memory_tools=False`), the final answer recorded after each run and
    the memory step run for what is due (off the run's path unless `background_step=False`;
    `await capability.wait()` flushes it)."""
    amem = memory if isinstance(memory, AsyncMemory) else AsyncMemory(memory)
    tid = thread_id if isinstance(thread_id, str) else None
    return MemlaneCapability(
        processor=MemlaneHistory(amem, thread_id, budget=budget, policy=policy,
                                 memory_tools=memory_tools, background_step=background_step),
        toolset=memlane_toolset(amem, thread_id=tid) if memory_tools else None)
