"""The OpenAI-compatible proxy, driven by the official `openai` package, unchanged, against a
scripted OpenAI-compatible upstream that is a real HTTP server on loopback.

The scripted upstream behaves like a model that uses memory: when the question asks for the
parcel number and a memory note (buffer line) is in view, it calls `open_memory` with the note's
record ids; given the opened records, it answers with the record's text. So a correct answer
proves the fact came back through the buffer, after the window slid past it.
"""

from __future__ import annotations

import json
import re
import urllib.request

import pytest

pytest.importorskip("starlette")
openai = pytest.importorskip("openai")
pytest.importorskip("mcp")

from memlane.context.policy import Policy  # noqa: E402
from memlane.ledger import Ledger  # noqa: E402
from memlane.memory import Cadence, Memory  # noqa: E402
from memlane.server.align import Alignment, align, log_form  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.testing import FakeUpstream, Reply, serve_in_thread  # noqa: E402

FACT = "Hi! My parcel tracking number is 81-3319 and it ships from Porto on Friday."
QUESTION = "What was my parcel tracking number again?"
NOTES = "Memory notes"


def texts(obj):
    """Every "text" string anywhere in a JSON value (what `open_memory` returned)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "text" and isinstance(v, str):
                yield v
            else:
                yield from texts(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from texts(v)


def script(body):
    msgs = body["messages"]
    last = msgs[-1]
    if last["role"] == "tool" and not last["content"].startswith("{"):
        return Reply(content=f"The weather tool says: {last['content']}")
    if last["role"] == "tool":
        found = [t for t in texts(json.loads(last["content"])) if "81-3319" in t]
        return Reply(content=f"From your memory: {found[0]}" if found else "I could not find it.")
    tool_names = {t["function"]["name"] for t in body.get("tools", [])}
    if "get_weather" in tool_names and "weather" in (last.get("content") or ""):
        return Reply(tool_calls=(("get_weather", {"city": "Oslo"}),))
    if last["role"] == "user" and "tracking number" in last["content"]:
        notes = [m["content"] for m in msgs if m["role"] == "system" and NOTES in m["content"]]
        if notes and "open_memory" in tool_names:
            # The first stretch's line (how it started): the first entry of the data span.
            first_line = next(x for x in notes[0].splitlines() if x.startswith("- "))
            ids = [int(x) for x in re.findall(r"#(\d+)", first_line)]
            return Reply(tool_calls=(("open_memory", {"ids": ids}),))
        return Reply(content="I don't know.")
    return Reply(content=f"Noted ({len(msgs)} messages in view).")


@pytest.fixture
def service(tmp_path):
    """(client factory, upstream, app) with a small window so the fact slides out quickly."""
    memory = Memory.open(tmp_path / "m.db",
                         # Notes off: these tests follow the fact through the buffer
                         # (with notes the default shows its record in view).
                         policy=Policy(short_term_turns=2, working_turns=2, notes_share=0.0),
                         cadence=Cadence(every_user_turns=2))
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    ledger = Ledger(tmp_path / "ledger.db")
    with FakeUpstream(script) as up:
        app = create_app(memory, Auth(ring), ServerConfig(upstream=up.url, budget=BUDGET),
                         ledger=ledger, mcp=False)
        with serve_in_thread(app) as url:
            client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
            yield client, up, app, url, key
    memory.close()
    ledger.close()


# Long enough that the conversation cannot fit the budget (1,000 tokens, half of it the system
# prompt and tool schemas): whatever the policy keeps in view, the first turn slides out.
FILLER = [f"Let's plan dinner number {i}: something with lentils and {veg}?"
          for i, veg in enumerate(["spinach", "carrots", "kale", "leeks", "peas", "beets",
                                   "squash", "fennel"] * 3)]
BUDGET = 1000


def stored(app, thread):
    svc = app.state.service
    return [(m.role, m.content) for m in svc.mem("acme").thread(thread).messages()]


def test_full_history_client_gets_the_early_fact_through_the_buffer(service):
    client, up, app, _, _ = service
    history = []
    for text in [FACT, *FILLER]:
        history.append({"role": "user", "content": text})
        r = client.chat.completions.create(model="fake-model", messages=history, user="trip")
        history.append({"role": "assistant", "content": r.choices[0].message.content})
    app.state.service.drain()
    n_before = len(up.requests)
    history.append({"role": "user", "content": QUESTION})
    r = client.chat.completions.create(model="fake-model", messages=history, user="trip")

    assert "81-3319" in r.choices[0].message.content
    assert r.id == f"chatcmpl-fake-{n_before + 2}" and r.model == "fake-model"
    assert r.choices[0].finish_reason == "stop" and r.usage.total_tokens == 15
    first, second = up.requests[n_before:]
    # The upstream saw the assembled context, not the client's history: the fact is gone from
    # the replayed turns (the buffer may quote it, as notes), and the buffer line that points
    # at it is there.
    assert all("81-3319" not in json.dumps(m) for m in first["messages"]
               if m["role"] != "system")
    assert any(NOTES in m["content"] for m in first["messages"] if m["role"] == "system")
    assert len(first["messages"]) < len(history)
    assert {t["function"]["name"] for t in first["tools"]} >= {"open_memory", "search_memory"}
    assert second["messages"][-1]["role"] == "tool"
    assert "81-3319" in second["messages"][-1]["content"]
    # Every turn is in the log exactly once, though the client re-sent everything each time.
    log = stored(app, "trip")
    assert log == [(m["role"], m["content"]) for m in history] + \
        [("assistant", r.choices[0].message.content)]


def test_streaming_client_sending_only_the_new_message(service):
    client, up, app, _, _ = service
    for text in [FACT, *FILLER]:
        stream = client.chat.completions.create(
            model="fake-model", messages=[{"role": "user", "content": text}], stream=True,
            extra_headers={"X-Memlane-Thread": "trip-s"})
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    app.state.service.drain()
    n_before = len(up.requests)
    stream = client.chat.completions.create(
        model="fake-model", messages=[{"role": "system", "content": "Be brief."},
                                      {"role": "user", "content": QUESTION}],
        stream=True, stream_options={"include_usage": True},
        extra_headers={"X-Memlane-Thread": "trip-s"})
    chunks = list(stream)
    answer = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "81-3319" in answer
    # The chunks are the upstream's: the tool-calling round stayed inside the proxy, the
    # answering round was forwarded with its id and model; the usage chunk comes last.
    assert {c.id for c in chunks} == {f"chatcmpl-fake-{n_before + 2}"}
    assert all(c.model == "fake-model" for c in chunks)
    assert chunks[-1].usage is not None and chunks[-1].choices == []
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert not any(c.choices[0].delta.tool_calls for c in chunks if c.choices)
    assert up.requests[n_before]["messages"][0]["content"].startswith("Be brief.")
    log = stored(app, "trip-s")
    assert log[-2:] == [("user", QUESTION), ("assistant", answer)]
    assert [m for m in log if m[0] == "user"] == \
        [("user", t) for t in [FACT, *FILLER, QUESTION]]


@pytest.mark.parametrize("stream", [False, True])
def test_client_tools_pass_through_untouched(service, stream):
    client, up, app, _, _ = service
    weather = {"type": "function", "function": {
        "name": "get_weather", "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}
    history = [{"role": "user", "content": "What's the weather in Oslo?"}]
    kw = {"model": "fake-model", "user": f"tools-{stream}", "tools": [weather]}
    if stream:
        chunks = list(client.chat.completions.create(messages=history, stream=True, **kw))
        calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
        assert calls[0].function.name == "get_weather"
        call_id, args = calls[0].id, "".join(tc.function.arguments or "" for tc in calls)
        assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    else:
        r = client.chat.completions.create(messages=history, **kw)
        msg = r.choices[0].message
        assert r.choices[0].finish_reason == "tool_calls"
        assert [c.function.name for c in msg.tool_calls] == ["get_weather"]
        call_id, args = msg.tool_calls[0].id, msg.tool_calls[0].function.arguments
    assert json.loads(args) == {"city": "Oslo"}
    # Nothing recorded but the question until the client's tool exchange ends the turn.
    assert stored(app, f"tools-{stream}") == [("user", history[0]["content"])]
    history += [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "get_weather", "arguments": args}}]},
        {"role": "tool", "tool_call_id": call_id, "content": "Oslo: 4 C, rain"},
    ]
    r = client.chat.completions.create(messages=history, **kw | {"tools": [weather]})
    upstream_msgs = up.requests[-1]["messages"]
    assert upstream_msgs[-1] == history[-1]  # the tool result went up verbatim, with its id
    assert upstream_msgs[-2]["tool_calls"][0]["id"] == call_id
    answer = r.choices[0].message.content
    history.append({"role": "assistant", "content": answer})
    history.append({"role": "user", "content": "Thanks, that helps."})
    client.chat.completions.create(messages=history, **kw)
    log = stored(app, f"tools-{stream}")
    assert [role for role, _ in log] == ["user", "assistant", "tool", "assistant", "user",
                                         "assistant"]
    assert log[1][1] == f'[tool call get_weather({args})]'


def test_errors_are_openai_shaped(service, tmp_path):
    client, up, app, url, key = service
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert "X-Memlane-Thread" in e.value.message
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="m", user="t",
                                       messages=[{"role": "assistant", "content": "hi"}])
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="m", user="t", messages=[{"role": "wizard"}])
    bad = openai.OpenAI(base_url=url + "/v1", api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="m", user="t",
                                    messages=[{"role": "user", "content": "hi"}])
    # An upstream that is down is a 502 (its address in the server's log, not in the body),
    # and the user's message is still recorded.
    memory = app.state.service.memory
    down = create_app(memory, app.state.service.auth,
                      ServerConfig(upstream="http://127.0.0.1:9/v1", upstream_timeout=2),
                      mcp=False)
    with serve_in_thread(down) as url2:
        c2 = openai.OpenAI(base_url=url2 + "/v1", api_key=key, max_retries=0)
        for stream in (False, True):
            with pytest.raises(openai.APIStatusError) as e:
                c2.chat.completions.create(model="m", user="down", stream=stream,
                                           messages=[{"role": "user", "content": "hello?"}])
            assert e.value.status_code == 502
            assert "127.0.0.1:9" not in str(e.value.body) + e.value.message
    assert stored(app, "down") == [("user", "hello?")]  # the retry was aligned, not doubled
    # No upstream configured: 503 with the fix.
    none = create_app(memory, app.state.service.auth, ServerConfig(), mcp=False)
    with serve_in_thread(none) as url3:
        c3 = openai.OpenAI(base_url=url3 + "/v1", api_key=key, max_retries=0)
        with pytest.raises(openai.APIStatusError) as e:
            c3.chat.completions.create(model="m", user="x",
                                       messages=[{"role": "user", "content": "hi"}])
        assert e.value.status_code == 503 and "--upstream" in e.value.message


def test_server_timing_reports_the_proxy_overhead(service):
    client, _, _, _, _ = service
    raw = client.chat.completions.with_raw_response.create(
        model="m", user="timing", messages=[{"role": "user", "content": "hello"}])
    timing = raw.headers["server-timing"]
    memlane_ms = float(re.search(r"memlane;dur=([\d.]+)", timing).group(1))
    upstream_ms = float(re.search(r"upstream;dur=([\d.]+)", timing).group(1))
    assert 0 < memlane_ms < 1000 and 0 < upstream_ms < 1000


def test_answers_are_written_to_the_quality_ledger(service):
    client, _, _, url, key = service
    for text in ("hello", "and again"):
        client.chat.completions.create(model="m", user="ledgered",
                                       messages=[{"role": "user", "content": text}])
    req = urllib.request.Request(f"{url}/v1/memlane/ledger?thread_id=ledgered",
                                 headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(req) as r:
        ledger = json.load(r)
    assert ledger["enabled"] is True
    rows = ledger["rows"]
    assert [(row["kind"], row["seq"], row["model"]) for row in rows] == \
        [("answer", 2, "m"), ("answer", 4, "m")]
    assert rows[0]["agent_version"].startswith("memlane-proxy/")


@pytest.mark.parametrize("stream", [False, True])
def test_in_process_model_as_upstream(tmp_path, stream):
    """`memlane serve --upstream local`: a `Model` answers in-process, in OpenAI's format."""
    from memlane.models import FunctionModel, ModelReply, ToolCall

    def fn(messages, tools, json_schema):
        r = script({"messages": messages, "tools": tools or []})
        return ModelReply(content=r.content or "", tool_calls=tuple(
            ToolCall(f"call_{i}", name, args) for i, (name, args) in enumerate(r.tool_calls)))

    model = FunctionModel(fn, name="local-test")
    memory = Memory.open(tmp_path / "m.db", policy=Policy(short_term_turns=2, working_turns=2),
                         cadence=Cadence(every_user_turns=2))
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    app = create_app(memory, Auth(ring), ServerConfig(budget=BUDGET), mcp=False, model=model)
    with serve_in_thread(app) as url:
        client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
        for text in [FACT, *FILLER, QUESTION]:
            if text == QUESTION:
                app.state.service.drain()
            kw = {"model": "x", "user": "local", "messages": [{"role": "user", "content": text}]}
            if stream:
                chunks = list(client.chat.completions.create(stream=True, **kw))
                answer = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
                assert {c.model for c in chunks} == {"local-test"}
            else:
                r = client.chat.completions.create(**kw)
                answer = r.choices[0].message.content
                assert r.model == "local-test" and r.id.startswith("chatcmpl-memlane-")
    assert "81-3319" in answer
    opened = [c for c in model.calls if c.messages[-1]["role"] == "tool"]
    assert opened and "81-3319" in opened[-1].messages[-1]["content"]
    memory.close()


def test_alignment_of_resent_history():
    log = [("user", "a"), ("assistant", "b"), ("user", "a"), ("assistant", "c")]
    # A client that trimmed its history still lines up: the new turn follows the log.
    assert align([*log[2:], ("user", "d")], log, 1) == Alignment("new", None, 2)
    # Only the new message: a new turn, even when it repeats an answered one...
    assert align([("user", "a")], log, 1) == Alignment("new", None, 0)
    # ...unless the SDK says it is retrying: then the answer at seq 4 is replaced (the
    # question at seq 3 stays, with whatever was filed from it).
    assert align([("user", "a")], log, 1, retry=True) == Alignment("resend", 4, 0, True)
    # The same history and question again: answered again, the old answer replaced.
    assert align(log[:3], log, 1) == Alignment("resend", 4, 2, True)
    # An edited question: the thread continues from there.
    assert align([*log[:2], ("user", "x")], log, 1) == Alignment("edit", 3, 2)
    # A new thread records the client's history.
    assert align([("assistant", "hi"), ("user", "x")], [], 1) == Alignment("new", None, 0)


def test_alignment_cuts_only_for_an_edit_it_is_shown():
    # Issue 20: re-sending [u1, a1, u2] on a 12-turn thread was taken for an edit at message 3
    # and cut the log from 24 messages to 4.
    log = [m for i in range(12) for m in (("user", f"q{i}"), ("assistant", f"a{i}"))]
    # An old request sent again (a prefix of the log): a new turn, nothing cut.
    assert align(log[:3], log, 1) == Alignment("new", None, 2)
    assert align(log[:5], log, 1) == Alignment("new", None, 4)
    # A partial history from the middle, then an old question or a new one: nothing cut.
    assert align(log[6:11], log, 1) == Alignment("new", None, 4)
    assert align([*log[6:10], ("user", "new")], log, 1) == Alignment("new", None, 4)
    # A new conversation on the same thread that opens like the first did: nothing cut.
    assert align([*log[:2], ("user", "something else")], log, 1) == Alignment("new", None, 2)
    # A history that departs at a reply (a client that rewrites answers): nothing cut.
    assert align([*log[:21], ("assistant", "mine"), ("user", "x")], log, 1).cut is None
    # An edit of one of the last EDIT_REACH questions, full or trimmed history: shown, cut.
    assert align([*log[:22], ("user", "q11 edited")], log, 1) == Alignment("edit", 23, 22)
    assert align([*log[18:22], ("user", "q11 edited")], log, 1) == Alignment("edit", 23, 4)
    assert align([*log[:20], ("user", "q10 edited")], log, 1) == Alignment("edit", 21, 20)
    # ...and of an older one: a trimmed or restarted client looks the same; a new turn.
    assert align([*log[:18], ("user", "q9 edited")], log, 1) == Alignment("new", None, 18)
    # Regenerating the last answer cuts just that answer; an older answered turn is not
    # regenerated (the turns after it would go).
    assert align(log[:23], log, 1) == Alignment("resend", 24, 22, True)
    assert align(log[:21], log, 1) == Alignment("new", None, 20)
    parts = {"role": "user", "content": [{"type": "text", "text": "hi"},
                                         {"type": "image_url", "image_url": {"url": "x"}}]}
    assert log_form(parts)["content"] == "hi"


def test_upstream_model_writes_the_memory_step(tmp_path):
    """With --upstream-model, the upstream model files the memory (heuristic as fallback)."""
    from memlane.cli.serve import build_memory

    def step_script(body):
        if body.get("response_format"):
            seq = int(re.search(r"#(\d+) user", body["messages"][-1]["content"]).group(1))
            return Reply(content=json.dumps({
                "records": [{"op": "add", "text": "MODEL-FILED: parcel 81-3319",
                             "source": [seq]}],
                "episode": "Parcel number given", "relevance": [{"seq": seq, "score": 0.9}]}))
        return Reply(content="ok")

    with FakeUpstream(step_script) as up:
        memory = build_memory(str(tmp_path / "m.db"), up.url, "fake-model", None,
                              heuristic=False)
        memory.cadence = Cadence(every_user_turns=1)
        ring = KeyRing.load(tmp_path / "k.json")
        key = ring.add("acme")
        app = create_app(memory, Auth(ring), ServerConfig(upstream=up.url), mcp=False)
        with serve_in_thread(app) as url:
            c = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
            c.chat.completions.create(model="x", user="t",
                                      messages=[{"role": "user", "content": FACT}])
            app.state.service.drain()
        recs = app.state.service.mem("acme").records()
        assert [r.text for r in recs] == ["MODEL-FILED: parcel 81-3319"]
        assert any(b.get("response_format") for b in up.requests)
        memory.close()


def test_context_view_shows_the_system_prompt_the_proxy_sent(service):
    """The inspector's context view of a proxied thread shows the client's system prompt (the
    one the model got), not memlane's default, and says which it is."""
    client, up, app, url, key = service

    def view(thread):
        req = urllib.request.Request(f"{url}/v1/memlane/threads/{thread}/context",
                                     headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(req) as r:
            return json.load(r)

    own = "You are Captain Parcel, a terse shipping bot."
    client.chat.completions.create(model="m", user="sys", messages=[
        {"role": "system", "content": own}, {"role": "user", "content": FACT}])
    sent = up.requests[-1]["messages"][0]
    assert sent["role"] == "system" and sent["content"].startswith(own)
    ctx = view("sys")
    assert ctx["system_prompt_from"] == "proxy"
    assert ctx["messages"][0]["layer"] == "system"
    assert ctx["messages"][0]["content"] == sent["content"]
    # A thread written without the proxy shows memlane's own prompt, and says so.
    app.state.service.mem("acme").thread("plain").add("user", "hello")
    plain = view("plain")
    assert plain["system_prompt_from"] == "memory" and own not in plain["messages"][0]["content"]


def test_serve_files_memory_with_the_heuristic_for_the_local_model():
    from memlane.cli.serve import heuristic_steps

    local = object()
    assert heuristic_steps("local", local, "auto", False)
    assert heuristic_steps("local:/m.gguf", local, "auto", False)
    assert not heuristic_steps("local", local, "model", False)  # asked for: the model writes
    assert not heuristic_steps("http://up/v1", None, "auto", False)
    assert heuristic_steps("http://up/v1", None, "heuristic", False)
    assert heuristic_steps("http://up/v1", None, "auto", True)  # --heuristic-step


def test_a_tool_less_in_process_model_gets_no_tools_and_no_tool_names(tmp_path):
    from memlane.models import FunctionModel, ModelReply

    model = FunctionModel(lambda messages, tools, json_schema: ModelReply(content="ok"),
                          name="local-test")
    model.supports_tools = False  # as the local model
    memory = Memory.open(tmp_path / "m.db", cadence=Cadence(every_user_turns=2))
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    app = create_app(memory, Auth(ring), ServerConfig(budget=BUDGET), mcp=False, model=model)
    with serve_in_thread(app) as url:
        client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
        for text in [FACT, *FILLER[:6]]:
            client.chat.completions.create(model="x", user="loc", messages=[
                {"role": "user", "content": text}])
        app.state.service.drain()
        client.chat.completions.create(model="x", user="loc", messages=[
            {"role": "user", "content": QUESTION}])
    memory.close()
    calls = [c for c in model.calls if c.json_schema is None]
    assert len(calls) == 8
    for c in calls:
        assert not c.tools
        system = "\n".join(m["content"] for m in c.messages if m["role"] == "system")
        assert "You have long-term memory" in system
        for name in ("open_memory", "search_memory", "update_memory", "remember /"):
            assert name not in system, name
