"""The pydantic-ai integration, against the real library with its own `FunctionModel`: the test
asserts on exactly what the model received."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from memlane import AsyncMemory, Memory, Policy, UsageError
from memlane.integrations.pydantic_ai import history_processor, memlane_capability


class Model:
    """Answers from what it is shown; searches memory for a locker code it cannot see."""

    def __init__(self) -> None:
        self.seen: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        prompts = [p.content for m in messages if isinstance(m, ModelRequest)
                   for p in m.parts if isinstance(p, UserPromptPart)]
        last = messages[-1].parts[-1]
        if "locker code?" in str(prompts[-1]):
            if isinstance(last, ToolReturnPart):
                return ModelResponse(parts=[TextPart(f"Found: {last.content}")])
            if "4471" not in _text(messages):
                return ModelResponse(parts=[ToolCallPart("search_memory",
                                                         {"query": "locker code"})])
            return ModelResponse(parts=[TextPart("It is 4471.")])
        return ModelResponse(parts=[TextPart(f"Noted: {str(prompts[-1])[:30]}")])


def _text(messages: list[ModelMessage]) -> str:
    return "\n".join(str(getattr(p, "content", "")) for m in messages for p in m.parts)


def test_the_model_receives_memlanes_context_and_the_early_fact(store):
    async def main() -> None:
        # Notes off: this test follows the fact through the search tool (with notes the default
        # shows its record in view and the model answers without a tool call).
        mem = AsyncMemory(Memory(store, policy=Policy(notes_share=0.0)))
        model = Model()
        # No notes layer here (notes_share=0): the default would show the locker-code record
        # itself as a note; this test follows the other path, a buffer line pointing the model
        # at memory and the model searching it, so the tool exchange is recorded too.
        cap = memlane_capability(mem, "user-7", budget=800, background_step=False,
                                 policy=Policy(notes_share=0.0))
        agent = Agent(FunctionModel(model), instructions="Be brief.", capabilities=[cap])
        await agent.run("My locker code is 4471.")
        for i in range(20):
            await agent.run(f"Tell me about topic number {i} in the garden.")
        info = await mem.thread("user-7").info()
        assert info.messages == 42 and info.filed_to > 0 and cap.processor.steps
        n = len(model.seen)
        r = await agent.run("What is my locker code?")
        first = model.seen[n]
        assert "4471" in r.output
        shown = _text(first)
        assert "topic number 3 in" not in shown
        assert "Memory notes" in shown  # the buffer block stands in for the evicted past
        assert len(first) < info.messages / 2
        prompts = [p.content for m in first for p in m.parts if isinstance(p, UserPromptPart)]
        assert "My locker code is 4471." not in prompts  # the early turn is not replayed...
        # ...the fact reached the model through memlane: its notes, or its search tool.
        via_notes = [p for m in first for p in m.parts
                     if isinstance(p, SystemPromptPart) and "4471" in p.content]
        via_tool = [p for msgs in model.seen[n + 1:] for m in msgs for p in m.parts
                    if isinstance(p, ToolReturnPart) and "4471" in p.model_response_str()]
        assert via_notes or via_tool
        # The prompt request is the agent's own, with its instructions.
        assert first[-1].instructions == "Be brief."
        assert first[-1].parts[-1].content == "What is my locker code?"
        # Everything was recorded once, including the final answer.
        log = await mem.thread("user-7").messages(43)
        assert log[0].content == "What is my locker code?" and log[-1].role == "assistant"
        assert "4471" in log[-1].content
        assert len(log) == (2 if via_notes else 4)  # + the tool call and its result

    asyncio.run(main())


def test_handing_messages_back_does_not_record_them_twice(tmp_path):
    async def main() -> None:
        mem = await AsyncMemory.open(tmp_path / "m.db")
        model = Model()
        agent = Agent(FunctionModel(model),
                      capabilities=[memlane_capability(mem, "t", background_step=False)])
        r = await agent.run("hello there")
        r = await agent.run("and again", message_history=r.all_messages())
        msgs = await mem.thread("t").messages()
        assert [(m.role, m.content) for m in msgs] == [
            ("user", "hello there"), ("assistant", "Noted: hello there"),
            ("user", "and again"), ("assistant", "Noted: and again")]
        # The second run's model saw the first exchange once, replayed from memlane.
        assert _text(model.seen[-1]).count("hello there") == 2  # the prompt and the reply
        await mem.close()

    asyncio.run(main())


def test_bare_processor_with_process_history_and_a_thread_per_user(tmp_path):
    async def main() -> None:
        mem = Memory.open(tmp_path / "b.db")
        model = Model()
        proc = history_processor(mem, lambda ctx: f"user-{ctx.deps}", memory_tools=False)
        agent = Agent(FunctionModel(model), deps_type=str,
                      system_prompt="You are terse.", capabilities=[ProcessHistory(proc)])
        await agent.run("I am Ada.", deps="ada")
        await agent.run("I am Bob.", deps="bob")
        assert [m.content for m in mem.thread("user-ada").messages()] == ["I am Ada."]
        assert [m.content for m in mem.thread("user-bob").messages()] == ["I am Bob."]
        # Without memory tools, no memory instructions; the agent's system prompt is sent as
        # it is, and never recorded.
        first = model.seen[0]
        system = [p.content for m in first for p in m.parts if isinstance(p, SystemPromptPart)]
        assert system == ["You are terse."]
        assert model.seen[1][-1].parts[-1].content == "I am Bob."
        assert "Ada" not in _text(model.seen[1])
        mem.close()

    asyncio.run(main())


def test_bad_arguments_say_what_to_do(tmp_path):
    mem = Memory.open(tmp_path / "e.db")
    with pytest.raises(UsageError, match="budget"):
        history_processor(mem, "t", budget=-1)
    with pytest.raises(UsageError, match="thread_id"):
        history_processor(mem, "", budget=100)
    mem.close()




def test_over_an_openai_compatible_server_the_wire_messages_are_valid(tmp_path):
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from memlane.testing import FakeUpstream, Reply

    def script(body: dict) -> Reply:
        msgs = body["messages"]
        if msgs[-1]["role"] == "tool":
            return Reply(content="Done.")
        if "remember" in str(msgs[-1].get("content")):
            return Reply(tool_calls=(("remember", {"text": "Locker code 4471"}),))
        return Reply(content="ok")

    async def main() -> None:
        mem = await AsyncMemory.open(tmp_path / "w.db")
        with FakeUpstream(script) as up:
            model = OpenAIChatModel("fake", provider=OpenAIProvider(base_url=up.url,
                                                                    api_key="test"))
            agent = Agent(model, capabilities=[
                memlane_capability(mem, "w", background_step=False)])
            await agent.run("Please remember my locker code 4471.")
            await agent.run("Thanks.")
            sent = up.requests[-1]["messages"]
        # The past call and its result went out as a linked pair, in the OpenAI wire format.
        calls = [i for i, m in enumerate(sent) if m.get("tool_calls")]
        assert len(calls) == 1
        call = sent[calls[0]]
        assert call["tool_calls"][0]["function"]["name"] == "remember"
        result = sent[calls[0] + 1]
        assert result["role"] == "tool" and result["tool_call_id"] == call["tool_calls"][0]["id"]
        assert sent[-1] == {"role": "user", "content": "Thanks."}
        assert [r.text for r in await mem.records()] == ["Locker code 4471"]
        await mem.close()

    asyncio.run(main())
