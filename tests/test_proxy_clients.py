"""The proxy under real clients: the official `openai` SDK, unchanged, against a scripted
upstream on loopback that misbehaves on cue (slow, hung, rate-limited, a dropped stream, a body
that is not a stream). Whatever happens, the log read back holds each turn once, in order.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette")
openai = pytest.importorskip("openai")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from memlane.context.policy import Policy  # noqa: E402
from memlane.memory import Memory  # noqa: E402
from memlane.models import FunctionModel, ModelReply  # noqa: E402
from memlane.server.align import EDIT_REACH  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.testing import FakeUpstream, Reply, serve_in_thread  # noqa: E402

RATE_LIMITED = json.dumps({"error": {"message": "Rate limit reached, slow down",
                                     "type": "requests", "code": "rate_limit_exceeded"}})


class Script:
    """Answers `answer N to <question>`; questions starting with a cue misbehave."""

    def __init__(self) -> None:
        self.n = itertools.count(1)
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> Reply:
        q = body["messages"][-1].get("content") or ""
        with self.lock:
            n = next(self.n)
            self.seen[q] = self.seen.get(q, 0) + 1
            first = self.seen[q] == 1
        text = f"answer {n} to {q[:40]}"
        if q.startswith("slow-once") and first:
            return Reply(content=text, delay=1.5)
        if q.startswith("hang"):
            return Reply(content=text, delay=3.0)
        if q.startswith("ratelimit"):
            return Reply(status=429, body=RATE_LIMITED.encode(),
                         headers=(("Retry-After", "7"),))
        if q.startswith("drop") and first:
            return Reply(content=text + " and much more to say", drop_after=3)
        if q.startswith("plain") and first:
            return Reply(content=text, plain=True)
        if q.startswith("trickle"):
            return Reply(content=text + " " + "word " * 40, pace=0.05)
        if q.startswith("parallel"):
            return Reply(content=text, delay=0.05)
        return Reply(content=text)


@pytest.fixture
def proxy(tmp_path):
    memory = Memory.open(tmp_path / "m.db")
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    with FakeUpstream(Script()) as up:
        app = create_app(memory, Auth(ring), ServerConfig(
            upstream=up.url, upstream_key="upstream-secret", upstream_timeout=5,
            passthrough=("GET models/**", "POST embeddings")),
            mcp=False)
        with serve_in_thread(app) as url:
            def client(**kw):
                kw.setdefault("max_retries", 0)
                return openai.OpenAI(base_url=url + "/v1", api_key=key, **kw)

            def log(thread):
                app.state.service.drain()
                return [(m.role, m.content)
                        for m in app.state.service.mem("acme").thread(thread).messages()]

            yield client, log, up, url, key, memory, ring
    memory.close()


def ask(c, thread, messages, **kw):
    r = c.chat.completions.create(model="fake-model", messages=messages, user=thread, **kw)
    return r.choices[0].message.content


def u(text):
    return {"role": "user", "content": text}


def a(text):
    return {"role": "assistant", "content": text}


def test_resend_regeneration_and_edit_keep_each_turn_once(proxy, capsys):
    client, log, *_ = proxy
    c = client()
    a1 = ask(c, "t", [u("q1")])
    a2 = ask(c, "t", [u("q1"), a(a1), u("q2")])
    # The same request again (a regenerate button): the answer is replaced, not appended.
    a2b = ask(c, "t", [u("q1"), a(a1), u("q2")])
    assert a2b != a2
    assert log("t") == [("user", "q1"), ("assistant", a1), ("user", "q2"), ("assistant", a2b)]
    # An edited question: the thread continues from the edit.
    a3 = ask(c, "t", [u("q1"), a(a1), u("q2 edited")])
    assert log("t") == [("user", "q1"), ("assistant", a1), ("user", "q2 edited"),
                        ("assistant", a3)]
    # A client that sends only its new message, twice the same words: two turns.
    a4 = ask(c, "t", [u("yes")])
    a5 = ask(c, "t", [u("yes")])
    assert log("t")[-4:] == [("user", "yes"), ("assistant", a4), ("user", "yes"),
                             ("assistant", a5)]
    # What `memlane show THREAD --json` reads back is the same log.
    from memlane.cli import main

    memory = proxy[5]
    capsys.readouterr()
    assert main(["--db", memory.store.path, "--namespace", "acme", "show", "t", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    msgs = shown["messages"] if isinstance(shown, dict) else shown
    assert [(m["role"], m["content"]) for m in msgs] == log("t")


def test_sdk_retry_after_a_client_timeout_records_the_turn_once(proxy):
    client, log, up, *_ = proxy
    c = client(timeout=1.0, max_retries=2)
    started = time.monotonic()
    answer = ask(c, "retry", [u("slow-once: what is the plan?")])
    assert time.monotonic() - started < 4
    # The first attempt was answered after the client gave up; the retry's answer replaced it.
    assert len(up.requests) == 2
    assert log("retry") == [("user", "slow-once: what is the plan?"), ("assistant", answer)]


def test_a_dropped_stream_and_a_non_stream_body_are_errors_and_unrecorded(proxy):
    client, log, *_ = proxy
    c = client()
    for cue in ("drop", "plain"):
        thread = f"s-{cue}"
        got = []
        with pytest.raises(openai.APIError) as e:
            for chunk in c.chat.completions.create(model="fake-model", stream=True, user=thread,
                                                   messages=[u(f"{cue} me")]):
                got.append(chunk)
        assert "stream" in e.value.message
        assert log(thread) == [("user", f"{cue} me")]  # no partial or empty answer
        # Sent again, it is answered and recorded once.
        chunks = list(c.chat.completions.create(model="fake-model", stream=True, user=thread,
                                                messages=[u(f"{cue} me")]))
        text = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
        assert log(thread) == [("user", f"{cue} me"), ("assistant", text)]


def test_a_client_that_leaves_mid_stream_frees_the_thread(proxy):
    client, log, *_ = proxy
    c = client(timeout=5)
    stream = c.chat.completions.create(model="fake-model", stream=True, user="gone",
                                       messages=[u("trickle slowly")])
    next(iter(stream))
    stream.close()  # the client hangs up after the first chunk
    answer = ask(c, "gone", [u("are you there?")])  # would wait forever if the thread stayed held
    got = log("gone")
    assert got[-2:] == [("user", "are you there?"), ("assistant", answer)]
    assert ("user", "trickle slowly") in got and len(got) in (3, 4)


def test_upstream_errors_keep_their_meaning(proxy, tmp_path):
    client, log, up, url, key, memory, ring = proxy
    c = client()
    with pytest.raises(openai.RateLimitError) as e:
        ask(c, "rl", [u("ratelimit please")])
    assert e.value.status_code == 429 and e.value.response.headers["retry-after"] == "7"
    assert "Rate limit reached" in e.value.message
    with pytest.raises(openai.RateLimitError):
        list(c.chat.completions.create(model="fake-model", stream=True, user="rl",
                                       messages=[u("ratelimit please")]))
    assert log("rl") == [("user", "ratelimit please")]
    # A hung upstream: 504 (a timeout, not a failure) within --upstream-timeout, after one
    # attempt; the body does not show the upstream's (internal) address.
    short = create_app(memory, Auth(ring), ServerConfig(upstream=up.url, upstream_timeout=0.5),
                       mcp=False)
    with serve_in_thread(short) as url2:
        c2 = openai.OpenAI(base_url=url2 + "/v1", api_key=key, max_retries=0)
        before = len(up.requests)
        started = time.monotonic()
        with pytest.raises(openai.InternalServerError) as e:
            ask(c2, "hung", [u("hang on")])
        assert e.value.status_code == 504 and "0.5 s" in e.value.message
        assert up.url not in e.value.message and "127.0.0.1" not in e.value.message
        assert time.monotonic() - started < 2.5 and len(up.requests) == before + 1


def test_models_and_other_endpoints_pass_through_with_the_upstream_key(proxy):
    client, _, up, url, key, *_ = proxy
    assert [m.id for m in client().models.list()] == ["fake-model"]
    req = urllib.request.Request(f"{url}/v1/embeddings", method="POST",
                                 data=json.dumps({"input": "hi", "model": "e"}).encode(),
                                 headers={"Authorization": f"Bearer {key}",
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        assert json.load(r) == {"path": "/v1/embeddings", "echo": {"input": "hi", "model": "e"}}
    assert {h["Authorization"] for h in up.headers} == {"Bearer upstream-secret"}


def test_six_parallel_requests_on_one_thread_pair_their_turns(proxy):
    client, log, *_ = proxy
    c = client()
    questions = [f"parallel {i}" for i in range(6)]
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda q: ask(c, "par", [u(q)]), questions))
    got = log("par")
    assert len(got) == 12 and sorted(q for r, q in got if r == "user") == questions
    for (r1, q), (r2, ans) in zip(got[::2], got[1::2], strict=True):
        assert (r1, r2) == ("user", "assistant") and ans.endswith(f"to {q}")
    assert sorted(answers) == sorted(ans for _, ans in got[1::2])


def test_turns_pair_across_two_services_on_one_postgres(pg_url, tmp_path):
    """Two services (two `Memory` objects, two stores: two processes behind a load balancer)
    on one PostgreSQL database, three requests each at once on one thread."""
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    mems = [Memory.open(pg_url), Memory.open(pg_url)]
    try:
        with FakeUpstream(Script()) as up:
            apps = [create_app(m, Auth(ring), ServerConfig(upstream=up.url), mcp=False)
                    for m in mems]
            with serve_in_thread(apps[0]) as url0, serve_in_thread(apps[1]) as url1:
                clients = [openai.OpenAI(base_url=x + "/v1", api_key=key, max_retries=0)
                           for x in (url0, url1)]
                jobs = [(clients[i % 2], f"parallel pg {i}") for i in range(6)]
                with ThreadPoolExecutor(6) as pool:
                    list(pool.map(lambda j: ask(j[0], "pg", [u(j[1])]), jobs))
            for app in apps:
                app.state.service.drain()
        got = [(m.role, m.content) for m in mems[0].namespace("acme").thread("pg").messages()]
        assert len(got) == 12
        for (r1, q), (r2, ans) in zip(got[::2], got[1::2], strict=True):
            assert (r1, r2) == ("user", "assistant") and ans.endswith(f"to {q}")
    finally:
        for m in mems:
            m.close()


def test_an_oversize_current_message_is_flagged_and_kept_whole(proxy):
    client, log, *_ = proxy
    big = "Here is my log file. " + " ".join(f"line{i} status=ok" for i in range(6000))
    raw = client().chat.completions.with_raw_response.create(
        model="fake-model", user="big", messages=[u(big)],
        extra_headers={"X-Memlane-Budget": "2000"})
    assert "the log keeps it whole" in raw.headers["x-memlane-truncated"]
    assert log("big")[0] == ("user", big)


@pytest.mark.parametrize("stream", [False, True])
def test_local_model_reports_length_when_cut(tmp_path, stream):
    model = FunctionModel(lambda m, t, j: ModelReply(content="cut sho", finish_reason="length"),
                          name="local-test")
    memory = Memory.open(tmp_path / "m.db")
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    app = create_app(memory, Auth(ring), ServerConfig(), mcp=False, model=model)
    with serve_in_thread(app) as url:
        c = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
        kw = {"model": "x", "user": "t", "messages": [u("hi")], "max_tokens": 2}
        if stream:
            chunks = list(c.chat.completions.create(stream=True, **kw))
            finish = [ch.choices[0].finish_reason for ch in chunks if ch.choices][-1]
        else:
            finish = c.chat.completions.create(**kw).choices[0].finish_reason
        assert finish == "length"
        assert [m.id for m in c.models.list()] == ["local-test"]
    memory.close()


# --- alignment, as a property ------------------------------------------------------------------

OPS = st.lists(st.one_of(
    st.tuples(st.just("new"), st.integers(0, 12)),         # history window (0: all of it)
    st.tuples(st.just("only"), st.just(0)),                 # just the new message
    st.tuples(st.just("resend"), st.integers(0, 12), st.booleans()),  # window, SDK retry
    st.tuples(st.just("edit"), st.integers(0, 12)),         # which user turn is edited
), min_size=1, max_size=8)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("prop")
    memory = Memory.open(tmp / "m.db", policy=Policy(short_term_turns=3, working_turns=2))
    ring = KeyRing.load(tmp / "keys.json")
    key = ring.add("acme")
    with FakeUpstream(Script()) as up:
        app = create_app(memory, Auth(ring), ServerConfig(upstream=up.url), mcp=False)
        with serve_in_thread(app) as url:
            yield app, url, key
    memory.close()


_threads = itertools.count()


def _post(url, key, thread, messages, retry):
    req = urllib.request.Request(
        f"{url}/v1/chat/completions", method="POST",
        data=json.dumps({"model": "m", "messages": messages}).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                 "X-Memlane-Thread": thread, "X-Stainless-Retry-Count": "1" if retry else "0"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["choices"][0]["message"]["content"]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_the_log_follows_the_client_without_duplicates(live, ops):
    """Whatever mix of new turns, trimmed histories, resends and edits a client sends, the
    client's conversation is the tail of the log, and no message is in the log twice."""
    app, url, key = live
    thread = f"p{next(_threads)}"
    conv: list[dict] = []
    fresh = itertools.count()
    for op in ops:
        kind, k = op[0], op[1]
        retry = False
        if kind == "resend" and conv:
            sent = conv[:-1]
            retry = op[2]
            window = max(k, 1 if retry else 2)
            sent = sent[-window:] if k else sent
            # The question alone again, unmarked, is a user saying the same thing twice (the
            # documented rule): a resend that sends no history is marked, as SDKs mark theirs.
            retry = retry or len(sent) == 1
            conv = conv[:-1]
        elif kind == "edit" and conv:
            # Within the reach of an edit (the last EDIT_REACH questions); an older departure
            # is never taken for one (test_a_client_that_never_edits_never_loses_a_message).
            turns = [i for i, m in enumerate(conv) if m["role"] == "user"][-EDIT_REACH:]
            i = turns[k % len(turns)]
            conv = conv[:i] + [u(f"{thread} edited {next(fresh)}")]
            sent = conv
        else:
            conv = conv + [u(f"{thread} says {next(fresh)}")]
            sent = conv if kind == "new" and not k else (conv[-k - 1:] if kind == "new"
                                                         else conv[-1:])
        conv = conv + [a(_post(url, key, thread, sent, retry))]
        got = [{"role": m.role, "content": m.content}
               for m in app.state.service.mem("acme").thread(thread).messages()]
        assert got[len(got) - len(conv):] == conv
        assert len({m["content"] for m in got}) == len(got)


NON_EDITS = st.lists(st.one_of(
    st.tuples(st.just("new"), st.integers(0, 12)),      # trimmed to its last k messages (0: all)
    st.tuples(st.just("only"), st.just(0)),              # just the new message
    st.tuples(st.just("prefix"), st.integers(0, 30)),    # an old request sent again
    st.tuples(st.just("partial"), st.integers(0, 30)),   # a block from the middle + a new one
    st.tuples(st.just("restart"), st.integers(0, 3)),    # a new conversation, same thread
), min_size=1, max_size=10)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=NON_EDITS)
def test_a_client_that_never_edits_never_loses_a_message(live, ops):
    """Clients that trim their history, send partial histories or old requests again, or
    start over on the same thread: the log only grows, by the user's message and its answer
    (or, for a history the log lacks, that history first). Before: a prefix resent on a long
    thread was taken for an edit and cut the log."""
    app, url, key = live
    thread = f"n{next(_threads)}"
    conv: list[dict] = []
    fresh = itertools.count()
    def shows_an_edit(block_end: int) -> bool:
        # A block of the log that stops right before one of its last EDIT_REACH questions,
        # then a different question: what an editing client sends, so an edit by the rule.
        later = [i for i, m in enumerate(conv) if m["role"] == "user" and i >= block_end]
        return block_end < len(conv) and conv[block_end]["role"] == "user" \
            and len(later) <= EDIT_REACH

    for kind, k in ops:
        new = u(f"{thread} says {next(fresh)}")
        users = [i for i, m in enumerate(conv) if m["role"] == "user"]
        if kind == "partial" and conv and shows_an_edit(k % len(conv) + 1 + k % 5):
            kind = "only"
        if kind == "restart" and shows_an_edit(2 * k):
            kind = "only"
        if kind == "prefix" and len(users) > 1:
            # An old question, with its history (not the last: that is a regeneration).
            sent = conv[:users[:-1][k % (len(users) - 1)] + 1]
        elif kind == "partial" and conv:
            j = k % len(conv)
            sent = conv[j:j + 1 + k % 5] + [new]
        elif kind == "restart":
            sent = conv[:2 * k] + [new]  # opens like the first conversation did
        elif kind == "only" or not conv:
            sent = [new]
        else:
            sent = (conv if not k else conv[-k:]) + [new]
        before = [(m.role, m.content)
                  for m in app.state.service.mem("acme").thread(thread).messages()] \
            if conv else []
        answer = _post(url, key, thread, sent, False)
        got = [(m.role, m.content)
               for m in app.state.service.mem("acme").thread(thread).messages()]
        assert got[:len(before)] == before, f"{kind}: the log lost messages"
        assert got[-1] == ("assistant", answer)
        assert got[-2] == ("user", sent[-1]["content"])
        conv = [{"role": r, "content": c} for r, c in got]


def test_resending_an_early_request_on_a_long_thread_keeps_the_thread(proxy):
    # Issue 20: [u1, a1, u2] re-sent on a 12-turn thread cut the log from 24 messages to 4
    # and the namespace's records from 12 to 0.
    client, log, *_, memory, _ring = proxy
    c = client()
    conv: list[dict] = []
    for i in range(12):
        conv.append(u(f"My locker number {i} is {4400 + i}."))
        conv.append(a(ask(c, "long", conv)))
    mem = memory.namespace("acme")
    mem.thread("long").flush()
    n_records = len(mem.records(limit=1000))
    assert n_records >= 12
    ask(c, "long", conv[:3])
    got = log("long")
    assert len(got) == 26 and got[:24] == [(m["role"], m["content"]) for m in conv]
    assert len(mem.records(limit=1000)) == n_records


def test_regenerating_the_last_answer_keeps_the_stretchs_records(proxy):
    client, log, *_, memory, _ring = proxy
    c = client()
    conv: list[dict] = []
    for i in range(4):
        conv.append(u(f"My locker number {i} is {4400 + i}."))
        conv.append(a(ask(c, "regen", conv)))
    mem = memory.namespace("acme")
    t = mem.thread("regen")
    t.flush()
    before = {r.id: r.text for r in mem.records()}
    assert len(before) >= 4
    pinned = next(iter(before))
    mem.pin(pinned)
    again = ask(c, "regen", conv[:-1])  # the regenerate button: the last answer replaced
    assert log("regen")[-1] == ("assistant", again) and len(log("regen")) == 8
    assert {r.id: r.text for r in mem.records()} == before, "same records, same ids"
    assert mem.records([pinned])[0].pinned


def test_a_failed_turn_leaves_no_orphan_that_stops_filing(proxy):
    # Issue 20: one upstream error left an unanswered user message; the next question made a
    # double text and the thread was never filed again. The failed question is kept (the
    # user's words), and with the next question it is one turn for the cadence and filing.
    client, log, *_, memory, _ring = proxy
    c = client()
    for i in range(3):
        ask(c, "fail", [u(f"My locker number {i} is {4400 + i}.")])
    with pytest.raises(openai.RateLimitError):
        ask(c, "fail", [u("ratelimit: my bike code is 7781.")])
    for i in range(3, 12):
        ask(c, "fail", [u(f"My locker number {i} is {4400 + i}.")])
    got = log("fail")
    assert len(got) == 25 and got[6] == ("user", "ratelimit: my bike code is 7781.")
    t = memory.namespace("acme").thread("fail")
    # 12 turns (the failed question and the next are one): 3 stretches of 4, filed after the
    # answers, none left behind.
    assert t.info().filed_to == 25 and len(t.episodes()) == 3
    texts = [r.text for r in memory.namespace("acme").records(limit=100)]
    assert any("7781" in x for x in texts)


def test_serve_timeout_option_env_and_banner(monkeypatch):
    from memlane.cli import build_parser
    from memlane.cli.serve import UPSTREAM_TIMEOUT, banner

    assert build_parser().parse_args(["serve"]).upstream_timeout == UPSTREAM_TIMEOUT
    monkeypatch.setenv("MEMLANE_UPSTREAM_TIMEOUT", "7.5")
    assert build_parser().parse_args(["serve"]).upstream_timeout == 7.5
    assert build_parser().parse_args(["serve", "--upstream-timeout", "3"]).upstream_timeout == 3
    where = "http://127.0.0.1:8765"
    text = banner("sqlite:///m.db", where, "http://up/v1", None, "gpt-x", heuristic=False,
                  mcp=True, timeout=7.5)
    assert "gpt-x at the upstream, with the offline heuristic as fallback" in text
    assert "timeout 7.5 s" in text and f"{where}/mcp" in text
    off = banner("sqlite:///m.db", where, None, None, None, heuristic=False, mcp=False,
                 timeout=7.5)
    assert "offline heuristic" in off and "proxy      off" in off and "/mcp" not in off


def test_banner_links_routes_that_exist(proxy):
    from memlane.cli.serve import banner

    _, _, up, url, key, *_ = proxy
    text = banner("sqlite:///m.db", url, up.url, None, None, heuristic=False, mcp=False,
                  timeout=5)
    links = [w for w in text.split() if w.startswith(url)]
    assert len(links) >= 4
    for link in links:
        req = urllib.request.Request(link, headers={"Authorization": f"Bearer {key}"})
        if link.endswith("/chat/completions"):  # POST only
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(req)
            assert e.value.code == 405
            continue
        with urllib.request.urlopen(req) as r:
            assert r.status == 200, link
