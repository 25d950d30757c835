"""memlane as the memory of an OpenAI Agents SDK agent.

    from agents import Agent, Runner
    from memlane import AsyncMemory
    from memlane.integrations.openai_agents import MemlaneSession, memlane_tools

    mem = await AsyncMemory.open("agent.db")
    agent = Agent(name="support", instructions="...", tools=memlane_tools(mem))
    session = MemlaneSession("support-42", memory=mem, budget=4000)
    await Runner.run(agent, "Where is my order?", session=session)

`MemlaneSession` implements the SDK's `Session` protocol over one memlane thread:

- `get_items()` returns memlane's assembled context, not the whole history: memlane's notes (the
  memory instructions, pinned records, the episodic buffer block) as system items, then the
  window's turns, past tool calls and their outputs as paired `function_call` /
  `function_call_output` items (see `_transcript`). Its cost depends on the window, not on the
  length of the conversation.
- `pop_item()` drops the thread's last message (memlane's `Thread.truncate`): exactly one item,
  and no record except one stated in that message alone.
- `add_items()` records what the run produced: user and assistant messages, function calls (as
  lines of the assistant's message) and their outputs (as `tool` messages). Reasoning items and
  hosted-tool items (web search, file search, computer use, MCP) are not conversation and are not
  kept. Once the batch holds an assistant message, the memory step for whatever is due runs in
  the background, off the run's latency path, as memlane's own agent loop does (`wait()`
  flushes it).

The SDK reads the session before it adds the new input, so the context is assembled without the
new message (`new_message=None`): what is pinned and what the buffer lines point at is shown; a
record relevant only to the new question is reached through the memory tools.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from ..aio import AsyncMemory
from ..context.policy import Policy
from ..errors import MissingExtra, UsageError
from ..memory import Memory, Thread
from ..tool_schemas import TOOL_SCHEMAS
from ..types import Message, StepResult
from ._filing import Filer
from ._transcript import Call, call_line, replay, user_words

try:
    from agents import FunctionTool, RunContextWrapper
    from agents.items import TResponseInputItem
    from agents.memory import SessionSettings
    from agents.memory.session_settings import coerce_session_settings
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise MissingExtra("memlane.integrations.openai_agents", "openai-agents",
                       "openai-agents") from e

__all__ = ["MemlaneSession", "memlane_tools"]

# Item types that are not conversation (model reasoning, hosted tools the SDK runs server-side):
# they are not kept. Anything else unknown is refused, so a new item type fails loudly.
_SKIPPED = {
    "reasoning", "web_search_call", "file_search_call", "computer_call", "computer_call_output",
    "code_interpreter_call", "image_generation_call", "local_shell_call",
    "local_shell_call_output", "mcp_call", "mcp_list_tools", "mcp_approval_request",
    "mcp_approval_response", "item_reference", "compaction", "shell_call", "shell_call_output",
    "apply_patch_call", "apply_patch_call_output", "tool_search_call", "tool_search_output",
    "custom_tool_call", "custom_tool_call_output",
}


def _as_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dict(dump(exclude_unset=True))
    raise UsageError(f"a session item must be a dict (an SDK input item), got "
                     f"{type(item).__name__}")


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text of its parts (images and files
    are not kept in the log)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for p in content:
            p = _as_dict(p)
            t = p.get("text") if "text" in p else p.get("refusal")
            if isinstance(t, str):
                parts.append(t)
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False, default=str)


def items_to_log(items: Sequence[Any], names: dict[str, str] | None = None
                 ) -> list[dict[str, Any]]:
    """SDK input items as memlane log messages (`{role, content, name}`), in order. `names`
    maps call ids to tool names across batches (an output can come in a later batch than its
    call); it is updated."""
    out: list[dict[str, Any]] = []
    names = {} if names is None else names
    for i, raw in enumerate(items):
        item = _as_dict(raw)
        kind = item.get("type")
        if kind in (None, "message") and "role" in item:
            role = item["role"]
            role = "system" if role == "developer" else role
            if role not in ("system", "user", "assistant"):
                raise UsageError(f"item {i}: role must be user, assistant, system or developer, "
                                 f"got {role!r}")
            text = _text(item.get("content"))
            if text:
                out.append({"role": role, "content": text})
        elif kind == "function_call":
            name = str(item.get("name") or "?")
            names[str(item.get("call_id"))] = name
            line = call_line(name, item.get("arguments") or "{}")
            # Calls of one model response go into one assistant message, as the model made them.
            if out and out[-1]["role"] == "assistant" and out[-1].get("_calls"):
                out[-1]["content"] += "\n" + line
            else:
                out.append({"role": "assistant", "content": line, "_calls": True})
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else _text(output)
            out.append({"role": "tool", "content": text,
                        "name": names.get(str(item.get("call_id")))})
        elif kind in _SKIPPED:
            continue
        else:
            raise UsageError(f"item {i}: memlane does not know session items of type {kind!r}")
    for m in out:
        m.pop("_calls", None)
    return out


def context_to_items(messages: Sequence[Any], notes_role: str) -> list[TResponseInputItem]:
    """An assembled context's messages as SDK input items."""
    items: list[Any] = []
    for part in replay(messages):
        if isinstance(part, Call):
            items.append({"type": "function_call", "call_id": part.call_id, "name": part.name,
                          "arguments": part.arguments})
            items.append({"type": "function_call_output", "call_id": part.call_id,
                          "output": part.output})
        elif part.text:
            role = notes_role if part.role == "system" else part.role
            items.append({"role": role, "content": part.text})
    return items


class MemlaneSession:
    """An Agents SDK `Session` whose history is a memlane thread (`session_id` is its id)."""

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        *,
        memory: AsyncMemory | Memory,
        budget: int = 4000,
        policy: Policy | None = None,
        memory_tools: bool = True,
        background_step: bool = True,
        notes_role: Literal["system", "developer"] = "system",
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        """`budget`: tokens for what `get_items` returns (the agent's own instructions and its
        other tools are not counted: leave them room). `policy`: memlane's context policy (the
        memory's by default; its system prompt is dropped, the agent has its own
        instructions). `memory_tools`: the agent has `memlane_tools()`, so their schemas are
        counted and the notes tell the model to use them. `background_step`: run the memory
        step off the run's path (False: `add_items` files what is due before it returns).
        `notes_role`: the role of memlane's notes (`developer` for the Responses API)."""
        self.memory = memory if isinstance(memory, AsyncMemory) else AsyncMemory(memory)
        self.thread = self.memory.thread(session_id)
        self.session_id = session_id
        if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
            raise UsageError(f"budget must be a positive number of tokens, got {budget!r}")
        self.budget = budget
        p = policy or self.memory.sync.policy
        self.policy = replace(p, system_prompt="", use_tools=memory_tools,
                              memory_instructions=memory_tools and p.memory_instructions)
        self.notes_role = notes_role
        self.session_settings = (coerce_session_settings(session_settings)
                                 if session_settings is not None else None)
        self._names: dict[str, str] = {}
        self._filer = Filer(background_step)

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """memlane's context for the thread as input items; with `limit`, its last `limit`."""
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        if not await self.thread.exists():
            return []
        ctx = await self.thread.context(self.budget, None, policy=self.policy,
                                        tools=TOOL_SCHEMAS if self.policy.use_tools else [])
        items = context_to_items(ctx.messages, self.notes_role)
        if limit is not None and limit >= 0:
            items = items[len(items) - limit:] if limit else []
        return items

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Record the items in the thread; file what is due once a reply is in."""
        log = items_to_log(items, self._names)
        while len(self._names) > 256:  # an output comes soon after its call: keep the latest
            del self._names[next(iter(self._names))]
        if not log:
            return
        await self.thread.extend(log)
        if any(m["role"] == "assistant" for m in log):
            await self._filer.turn_ended(self.thread)

    @property
    def steps(self) -> list[StepResult]:
        """Memory steps this session has applied, oldest first."""
        return self._filer.steps

    @property
    def step_problems(self) -> list[str]:
        """Why a memory step that was due could not run (`StepStalled`; also logged as a
        warning), oldest first; empty while filing goes on."""
        return self._filer.problems

    async def wait(self) -> None:
        """Wait for a background memory step in flight (e.g. before closing the memory)."""
        await self._filer.wait()

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the thread's last message and return it as an item (None if the thread is
        empty). No fact goes unless it was stated in that message alone (`Thread.truncate`):
        the step that filed it keeps its other records.
        The log keeps text: a popped tool result comes back as a `function_call_output`
        whose call id is made up, a popped tool call as the assistant's text."""
        await self.wait()
        last = await self.memory._run(_pop, self.thread.sync)
        if last is None:
            return None
        if last.role == "tool":
            return {"type": "function_call_output", "call_id": f"memlane_msg_{last.id}",
                    "output": last.content}
        return {"role": last.role, "content": last.content}  # type: ignore[return-value]

    async def clear_session(self) -> None:
        """Delete the thread (its messages and buffer lines). Long-term records stay: they are
        the namespace's memory; `memory.forget_thread(id)` erases them too."""
        await self.wait()
        await self.thread.delete()


def _pop(thread: Thread) -> Message | None:
    """Read and drop the thread's last message, holding the thread so that nothing lands in
    between."""
    with thread.hold():
        if not thread.exists():
            return None
        n = thread.info().messages
        last = thread.messages(n, n) if n else []
        if not last:
            return None
        thread.truncate(last[0].seq)
        return last[0]


def memlane_tools(memory: AsyncMemory | Memory, *, thread_id: str | None = None,
                  max_tokens: int | None = None) -> list[FunctionTool]:
    """memlane's memory tools (search_memory, open_memory, remember, update_memory, forget,
    recall) as SDK `FunctionTool`s. A bad call comes back to the model as `{"error": ...}`, never
    as an exception. `thread_id`: the conversation records the model saves are attributed to."""
    from ..tools.handlers import DEFAULT_MAX_TOKENS, MemoryTools

    amem = memory if isinstance(memory, AsyncMemory) else AsyncMemory(memory)
    handlers = MemoryTools(amem.sync, thread_id=thread_id,
                           max_tokens=max_tokens or DEFAULT_MAX_TOKENS)

    def make(schema: Mapping[str, Any]) -> FunctionTool:
        fn = schema["function"]
        name = fn["name"]

        async def invoke(ctx: RunContextWrapper[Any], arguments: str) -> str:
            # The memory tools' rule: writes and forgets need the user's own words of the turn.
            said = user_words(getattr(ctx, "turn_input", None))
            if said is not None and said != handlers.user_turn:
                handlers.user_turn = said
            out = await amem._run(handlers.call, name, arguments)
            return json.dumps(out, ensure_ascii=False)

        return FunctionTool(name=name, description=fn["description"],
                            params_json_schema=dict(fn["parameters"]), on_invoke_tool=invoke,
                            strict_json_schema=False)

    return [make(s) for s in TOOL_SCHEMAS]
