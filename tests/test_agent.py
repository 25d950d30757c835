"""The agent loop on a real SQLite memory, with test models at the model boundary only."""

import json
import logging
import re
import threading

import pytest

from memlane import Cadence, Memory, Policy
from memlane.agent import Agent, AppTool
from memlane.context.tokens import default_tokenizer
from memlane.errors import ModelError
from memlane.ledger import Ledger
from memlane.models.base import ModelReply, ToolCall, Usage
from memlane.models.scripted import FunctionModel, ScriptedModel
from memlane.step.model import INLINE_TOOL_NAME, FallbackExtractor, ModelExtractor
from memlane.step.schema import STEP_INSTRUCTIONS

SMALL = Policy(short_term_turns=1, working_turns=1, fill_budget=False)
FACT = "My passport number is K4471902 and I fly to Lisbon on May 3."


@pytest.fixture
def mem(tmp_path):
    m = Memory.open(tmp_path / "mem.db", policy=SMALL, cadence=Cadence(every_user_turns=2))
    yield m
    m.close()


def seed(mem, thread="t"):
    """Six filed turns whose first plants a fact; the window holds only the last two."""
    t = mem.thread(thread)
    t.add("user", FACT)
    t.add("assistant", "Noted, have a good trip.")
    for i in range(5):
        t.add("user", f"Tell me about the museums of Porto, part {i}?")
        t.add("assistant", f"Porto museum {i} is worth a visit.")
    assert t.maybe_step()
    return t


def step_json(fact="The user likes window seats.", line="Seats and travel plans", seqs=(1, 3)):
    return {
        "records": [{"op": "add", "text": fact, "kind": "preference", "source": [seqs[0]]}],
        "episode": line,
        "relevance": [{"seq": s, "score": 0.9} for s in seqs],
        "quality": {"score": 0.8, "signals": [], "note": "fine"},
    }


def _tool_names(tools):
    return [t["function"]["name"] for t in tools or []]


def test_tool_loop_opens_the_records_of_a_buffer_line(mem):
    seed(mem)

    def fn(messages, tools, json_schema):
        assert json_schema is None
        if messages[-1]["role"] == "tool":
            found = re.search(r"K\d{7}", messages[-1]["content"])
            return f"Your passport number is {found.group(0)}." if found else "I don't know."
        block = next(m["content"] for m in messages if "Memory notes" in m["content"])
        first_line = next(x for x in block.splitlines() if x.startswith("- ") and "#" in x)
        ids = [int(i) for i in re.findall(r"#(\d+)", first_line)]
        return ModelReply("", (ToolCall("c1", "open_memory", {"ids": ids}),),
                          Usage(100, 5))

    model = FunctionModel(fn)
    tokens = []
    with Agent(mem, model, extractor=mem.extractor) as agent:
        res = agent.turn("t", "What was my passport number again?", on_token=tokens.append)
    assert res.answer == "Your passport number is K4471902."
    assert "".join(tokens) == res.answer, "the answer streams through on_token"
    (call,) = res.tool_calls
    assert call.name == "open_memory" and call.kind == "memory" and call.error is None
    first_visible = res.context_trace.buffer_lines[0]
    assert first_visible.start == 1 and call.arguments["ids"] == list(first_visible.record_ids)
    assert "K4471902" in json.dumps(call.result)
    assert len(model.calls) == 2 and res.model_calls == 2
    assert res.usage.prompt_tokens == 100
    sent = model.calls[1].messages
    assert sent[-2]["tool_calls"][0]["function"]["name"] == "open_memory"
    assert sent[-1]["role"] == "tool" and sent[-1]["tool_call_id"] == "c1"
    assert "open_memory" in _tool_names(model.calls[0].tools)
    # The turn is in the log: the question and the answer, not the tool traffic.
    last = mem.thread("t").messages()[-2:]
    assert [(m.role, m.content) for m in last] == [
        ("user", "What was my passport number again?"), ("assistant", res.answer)]


def test_tool_rounds_are_bounded_and_unknown_tools_get_an_error(mem):
    calls = [ModelReply("", (ToolCall(f"c{i}", name, {"query": "x"}),))
             for i, name in enumerate(["search_memory", "launch_rockets"])]
    model = ScriptedModel(*calls, "Stopping here.")
    agent = Agent(mem, model, max_tool_rounds=2, extractor=mem.extractor, background=False)
    res = agent.turn("t", "hello")
    assert len(model.calls) == 3, "two tool rounds, then one call without tools"
    assert model.calls[0].tools and model.calls[1].tools and model.calls[2].tools is None
    assert res.answer == "Stopping here."
    unknown = res.tool_calls[1]
    assert unknown.kind == "unknown" and "unknown tool 'launch_rockets'" in unknown.error
    tool_msg = model.calls[2].messages[-1]
    assert tool_msg["role"] == "tool" and "unknown tool" in json.loads(tool_msg["content"])["error"]
    assert res.signals["tool_rounds_exhausted"] == 2
    assert res.signals["tool_errors"] == ["launch_rockets"]
    # A model that still calls a tool when none is offered is not obeyed.
    model.enqueue(*calls[:2], ModelReply("Done.", (ToolCall("z", "search_memory", {}),)))
    res = agent.turn("t", "again")
    assert res.answer == "Done." and len(res.tool_calls) == 2
    agent.close()


def test_tool_results_are_bounded_in_tokens(mem):
    big = " ".join(f"row{i} value" for i in range(5000))
    tool = AppTool("fetch_report", "Fetch the report.", {"type": "object", "properties": {}},
                   lambda args: {"report": big})
    model = ScriptedModel(ModelReply("", (ToolCall("c1", "fetch_report", {}),)), "Summarised.")
    agent = Agent(mem, model, tools=[tool], tool_result_tokens=200, extractor=mem.extractor)
    res = agent.turn("t", "get the report")
    agent.close()
    assert res.answer == "Summarised." and res.tool_calls[0].kind == "app"
    assert "fetch_report" in _tool_names(model.calls[0].tools)
    shown = model.calls[1].messages[-1]["content"]
    assert default_tokenizer().count([shown])[0] <= 200
    assert "truncated" in shown and shown.startswith('{"report": "row0')
    assert res.tool_calls[0].result == {"report": big}, "the caller still gets it whole"
    # The application tool's result was kept as a recall snapshot, for later conversations.
    (hit,) = mem.recall("row17 value")
    assert hit.snapshot.tool == "fetch_report" and hit.snapshot.thread_id == "t"


def test_memory_step_runs_in_the_background_and_lands(mem):
    release = threading.Event()
    step_threads = []

    def fn(messages, tools, json_schema):
        if json_schema is not None:
            step_threads.append(threading.current_thread().name)
            assert release.wait(10)
            assert messages[0]["content"] == STEP_INSTRUCTIONS
            assert "#1 user: I like window seats." in messages[1]["content"]
            assert "#3 user:" in messages[1]["content"]
            return json.dumps(step_json())
        return "Noted."

    model = FunctionModel(fn)
    ledger = Ledger(":memory:")
    agent = Agent(mem, model, ledger=ledger)
    assert isinstance(agent.extractor, FallbackExtractor)
    agent.turn("t", "I like window seats.")
    res = agent.turn("t", "And I travel light.")   # the second user turn makes a stretch due
    # The reply came back while the step is still blocked in its model call.
    assert res.step_results == () and mem.thread("t").episodes() == []
    release.set()
    landed = agent.wait()
    assert len(landed) == 1 and step_threads == ["memlane-step"]
    (ep,) = mem.thread("t").episodes()
    assert (ep.start, ep.end, ep.line) == (1, 4, "Seats and travel plans")
    recs = mem.records(list(ep.record_ids))
    assert [r.text for r in recs] == ["The user likes window seats."]
    # The step's quality judged the last answer of its stretch (seq 4).
    (q,) = ledger.rows(kind="quality")
    assert q.seq == 4 and q.score == 0.8
    agent.close()
    with pytest.raises(Exception, match="closed"):
        agent.turn("t", "one more")
    assert mem.thread("t").info().messages == 4


def test_steps_of_one_thread_never_overlap(mem):
    active, overlaps = [0], []
    lock = threading.Lock()

    def fn(messages, tools, json_schema):
        if json_schema is not None:
            with lock:
                active[0] += 1
                overlaps.append(active[0])
            threading.Event().wait(0.05)
            with lock:
                active[0] -= 1
            seqs = [int(s) for s in re.findall(r"^#(\d+) user", messages[1]["content"], re.M)]
            return step_json(line=f"stretch from {seqs[0]}", seqs=seqs)
        return "ok"

    agent = Agent(mem, FunctionModel(fn))
    for i in range(8):
        agent.turn("t", f"message number {i} about trains")
    agent.close()
    assert overlaps and max(overlaps) == 1
    eps = mem.thread("t").episodes()
    assert [(e.start, e.end) for e in eps] == [(1, 4), (5, 8), (9, 12), (13, 16)]


def test_inline_mode_strips_the_tool_call_and_applies_the_step(mem):
    ledger = Ledger(":memory:")
    model = ScriptedModel("Noted.")
    agent = Agent(mem, model, inline=True, ledger=ledger, background=False)
    agent.turn("t", "I like window seats.")
    assert INLINE_TOOL_NAME not in _tool_names(model.calls[0].tools), "not due yet"

    model.enqueue(ModelReply("Got it, light luggage it is.",
                             (ToolCall("f1", INLINE_TOOL_NAME, step_json()),)))
    tokens = []
    res = agent.turn("t", "And I travel light.", on_token=tokens.append)
    call = model.calls[1]
    assert INLINE_TOOL_NAME in _tool_names(call.tools)
    note = next(m["content"] for m in call.messages if "Memory filing is due" in m["content"])
    assert "#1 user: I like window seats." in note and "#3 user: And I travel light." in note
    assert call.messages[-1] == {"role": "user", "content": "And I travel light."}
    # What the user sees: the answer only; the filing call is gone and cost no extra call.
    assert res.answer == "Got it, light luggage it is." == "".join(tokens)
    assert res.tool_calls == () and len(model.calls) == 2
    (step,) = res.step_results
    assert step.episode.line == "Seats and travel plans" and (step.start, step.end) == (1, 3)
    assert [r.text for r in mem.records(list(step.added))] == ["The user likes window seats."]
    assert mem.thread("t").messages()[-1].content == res.answer
    (q,) = ledger.rows(kind="quality")
    assert q.seq == 2
    agent.close()


def test_inline_filing_alone_then_the_answer(mem):
    model = ScriptedModel(
        "Noted.",
        ModelReply("", (ToolCall("f1", INLINE_TOOL_NAME, step_json()),)),
        "Here is your answer.",
    )
    agent = Agent(mem, model, inline=True, background=False)
    agent.turn("t", "I like window seats.")
    res = agent.turn("t", "And I travel light.")
    assert res.answer == "Here is your answer." and len(res.step_results) == 1
    assert INLINE_TOOL_NAME not in _tool_names(model.calls[2].tools), "filed once per turn"
    assert model.calls[2].messages[-1]["role"] == "tool"
    agent.close()


def test_invalid_model_step_falls_back_to_the_heuristic_and_is_logged(mem, caplog):
    ledger = Ledger(":memory:")

    def fn(messages, tools, json_schema):
        if json_schema is not None:
            return '{"records": "all of them", "episode": ""'  # broken JSON
        return "Sure."

    agent = Agent(mem, FunctionModel(fn), ledger=ledger)
    with caplog.at_level(logging.WARNING, logger="memlane.step"):
        agent.turn("t", "My booking code is QX7781 for the Lisbon hotel.")
        res = agent.turn("t", "Thanks!")
        assert res.answer == "Sure."
        (landed,) = agent.wait()
    assert landed.episode.line.startswith("The user "), "the heuristic's line"
    texts = [r.text for r in mem.records(list(landed.added))]
    assert texts == ["My booking code is QX7781 for the Lisbon hotel."]
    assert any("memory step by model:function failed" in r.getMessage() and
               "filed by heuristic" in r.getMessage() for r in caplog.records)
    (row,) = ledger.rows(kind="step_fallback")
    assert row.seq == 4 and "not valid JSON" in row.signals["step_fallback"]["error"]
    assert ledger.report()["step_fallbacks"] == 1
    agent.close()


def test_model_error_in_the_step_falls_back(mem):
    def fn(messages, tools, json_schema):
        if json_schema is not None:
            raise ModelError("upstream timed out after 60 s")
        return "ok"

    ex = FallbackExtractor(ModelExtractor(FunctionModel(fn)), mem.extractor)
    agent = Agent(mem, FunctionModel(fn), extractor=ex, background=False)
    agent.turn("t", "I drive a blue Volvo from 2019.")
    res = agent.turn("t", "ok")
    assert len(res.step_results) == 1 and ex.fallbacks == 1
    agent.close()


def test_inline_step_with_invalid_arguments_falls_back(mem):
    ledger = Ledger(":memory:")
    model = ScriptedModel(
        "Noted.",
        ModelReply("Fine.", (ToolCall("f1", INLINE_TOOL_NAME, {"records": "nope"}),)),
    )
    agent = Agent(mem, model, inline=True, ledger=ledger, background=False)
    agent.turn("t", "My locker number is 4417.")
    res = agent.turn("t", "See you.")
    assert res.answer == "Fine." and len(res.step_results) == 1
    assert res.step_results[0].episode.line.startswith("The user ")  # the heuristic's
    assert len(ledger.rows(kind="step_fallback")) == 1
    agent.close()
