"""The OpenAI Agents SDK integration, against the real SDK and a fake OpenAI-compatible upstream
on loopback: the agent's model sees memlane's context, and the early fact reaches it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.memory import Session
from openai import AsyncOpenAI

from memlane import AsyncMemory, Memory, Policy, UsageError
from memlane.integrations.openai_agents import (
    MemlaneSession,
    items_to_log,
    memlane_tools,
)
from memlane.testing import FakeUpstream, Reply

set_tracing_disabled(True)  # the SDK would otherwise export traces over the network


def _texts(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body["messages"])


def script(body: dict[str, Any]) -> Reply:
    """A model that answers from what it is shown, and searches memory when a note points at
    what it needs."""
    last_user = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    shown = _texts(body)
    asked = "search memory" in str(last_user) or "4471" not in shown
    if "locker code" in str(last_user) and asked:
        if body["messages"][-1]["role"] != "tool":
            return Reply(tool_calls=(("search_memory", {"query": "locker code"}),))
    if "locker code" in str(last_user):
        return Reply(content="Your locker code is 4471." if "4471" in shown
                     else "I don't know.")
    return Reply(content=f"Noted: {str(last_user)[:40]}")


def _agent(up: FakeUpstream, mem: AsyncMemory) -> Agent:
    model = OpenAIChatCompletionsModel(model="fake", openai_client=AsyncOpenAI(
        base_url=up.url, api_key="test", max_retries=0))
    return Agent(name="support", instructions="Be brief.", model=model,
                 tools=memlane_tools(mem))


def test_the_session_is_an_sdk_session(tmp_path):
    mem = Memory.open(tmp_path / "m.db")
    s = MemlaneSession("s1", memory=mem)
    assert isinstance(s, Session)
    assert s.session_id == "s1" and s.session_settings is None
    with pytest.raises(UsageError, match="budget"):
        MemlaneSession("s1", memory=mem, budget=0)


def test_runner_gets_the_context_and_the_early_fact_through_memlane(store):
    async def main() -> None:
        # Notes off: with them the default shows the locker record as a note and the model
        # answers without a tool call; this test is about the search tool through the SDK.
        mem = AsyncMemory(Memory(store, policy=Policy(notes_share=0.0)))
        session = MemlaneSession("user-7", memory=mem, budget=800, background_step=False)
        with FakeUpstream(script) as up:
            agent = _agent(up, mem)
            await Runner.run(agent, "My locker code is 4471.", session=session)
            for i in range(24):
                await Runner.run(agent, f"Tell me about topic number {i} in the garden.",
                                 session=session)
            stored = (await session.thread.info()).messages
            assert stored == 50 and session.steps  # every turn kept; stretches filed
            sent_before = len(up.requests)
            r = await Runner.run(agent, "What is my locker code?", session=session)
            this_run = up.requests[sent_before:]
        assert "4471" in r.final_output
        # The model was sent the context, not the history: far fewer messages than the log has,
        # the middle of the conversation absent, memlane's notes present, the early turn itself
        # not replayed...
        first = this_run[0]
        assert len(first["messages"]) < stored / 2
        shown = _texts(first)
        assert "topic number 3 in" not in shown and "Memory notes" in shown
        assert "My locker code is 4471." not in [m["content"] for m in first["messages"]
                                                 if m["role"] == "user"]
        # ...and the fact reached it through memlane: in its notes (a record the buffer points
        # at), or in the result of its search tool.
        via_notes = [m for m in first["messages"] if m["role"] == "system" and "4471" in
                     str(m["content"])]
        via_tool = [m for req in this_run[1:] for m in req["messages"]
                    if m["role"] == "tool" and "4471" in m["content"]]
        assert via_notes or via_tool
        assert {t["function"]["name"] for t in first["tools"]} >= {"search_memory", "open_memory"}

    asyncio.run(main())


def test_tool_calls_come_back_paired_and_the_sdk_accepts_them(tmp_path):
    async def main() -> None:
        mem = await AsyncMemory.open(tmp_path / "p.db")
        session = MemlaneSession("p", memory=mem, background_step=False)
        await mem.remember("The user's locker code is 4471.")
        with FakeUpstream(script) as up:
            agent = _agent(up, mem)
            await Runner.run(agent, "My locker code is 4471.", session=session)
            await Runner.run(agent, "Please search memory for my locker code.", session=session)
            items = await session.get_items()
            calls = [i for i in items if i.get("type") == "function_call"]
            outputs = [i for i in items if i.get("type") == "function_call_output"]
            assert [c["name"] for c in calls] == ["search_memory"]
            assert [o["call_id"] for o in outputs] == [calls[0]["call_id"]]
            assert items.index(outputs[0]) == items.index(calls[0]) + 1
            assert "4471" in outputs[0]["output"]
            # The next run sends them to the model as a linked call and result.
            n = len(up.requests)
            await Runner.run(agent, "Thanks!", session=session)
            msgs = up.requests[n]["messages"]
            call_msgs = [m for m in msgs if m.get("tool_calls")]
            assert call_msgs and msgs[msgs.index(call_msgs[0]) + 1]["tool_call_id"] == \
                call_msgs[0]["tool_calls"][0]["id"]
            assert await session.get_items(limit=2) == (await session.get_items())[-2:]
            n = (await session.thread.info()).messages
            popped = await session.pop_item()
            assert popped == {"role": "assistant", "content": "Noted: Thanks!"}
            assert (await session.thread.info()).messages == n - 1
            await session.clear_session()
            assert await session.get_items() == []
            assert await session.pop_item() is None
            assert await mem.search("locker code")  # long-term records outlive the thread
        await mem.close()

    asyncio.run(main())


def test_background_step_files_after_the_turn(tmp_path):
    async def main() -> None:
        mem = await AsyncMemory.open(tmp_path / "b.db")
        session = MemlaneSession("b", memory=mem)
        with FakeUpstream(script) as up:
            agent = _agent(up, mem)
            for i in range(4):
                await Runner.run(agent, f"Fact number {i}: the sky is color {i}.",
                                 session=session)
            await session.wait()
        assert session.steps and (await session.thread.info()).filed_to == 8
        await mem.close()

    asyncio.run(main())


def test_pop_item_removes_one_item_and_no_fact_and_clear_session_keeps_records(tmp_path):
    # Issue 20: pop_item withdrew the whole step that covered the last answer and deleted
    # "My order number is 81-3319." from four turns earlier; clear_session then lost it.
    async def main() -> None:
        mem = await AsyncMemory.open(tmp_path / "p.db")
        session = MemlaneSession("p", memory=mem, background_step=False)
        with FakeUpstream(script) as up:
            agent = _agent(up, mem)
            for text in ["My order number is 81-3319.", "I live in Utrecht.",
                         "My cat is called Miso.", "I am vegan."]:
                await Runner.run(agent, text, session=session)
        assert session.steps and (await session.thread.info()).filed_to == 8
        before = {r.id: r.text for r in await mem.records()}
        assert any("81-3319" in x for x in before.values())
        popped = await session.pop_item()
        assert popped == {"role": "assistant", "content": "Noted: I am vegan."}
        info = await session.thread.info()
        assert (info.messages, info.filed_to) == (7, 7), "exactly one item went"
        assert {r.id: r.text for r in await mem.records()} == before, "and no fact"
        popped = await session.pop_item()  # the user's own message: a fact stated only there
        assert popped == {"role": "user", "content": "I am vegan."}
        after = {r.id: r.text for r in await mem.records()}
        assert not any("vegan" in x for x in after.values())
        assert after == {k: v for k, v in before.items() if "vegan" not in v}
        await session.clear_session()
        assert {r.id: r.text for r in await mem.records()} == after
        assert [h.record.text for h in await mem.search("order number")][:1] == [
            "My order number is 81-3319."]
        await mem.close()

    asyncio.run(main())


def test_items_to_log_keeps_conversation_and_refuses_the_unknown():
    log = items_to_log([
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "role": "assistant", "id": "m1", "status": "completed",
         "content": [{"type": "output_text", "text": "Hello", "annotations": []}]},
        {"type": "function_call", "call_id": "c1", "name": "search_memory",
         "arguments": json.dumps({"query": "x"})},
        {"type": "function_call", "call_id": "c2", "name": "recall", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": "none"},
        {"type": "function_call_output", "call_id": "c1", "output": "{\"results\": []}"},
        {"role": "developer", "content": "Be brief."},
    ])
    assert log == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello"},
        {"role": "assistant", "content": '[tool call search_memory({"query": "x"})]\n'
                                         "[tool call recall({})]"},
        {"role": "tool", "content": "none", "name": "recall"},
        {"role": "tool", "content": '{"results": []}', "name": "search_memory"},
        {"role": "system", "content": "Be brief."},
    ]
    with pytest.raises(UsageError, match="type 'frobnicate'"):
        items_to_log([{"type": "frobnicate"}])
    with pytest.raises(UsageError, match="role must be"):
        items_to_log([{"role": "robot", "content": "x"}])
