"""Requests before memory steps (`memlane.server.foreground`): a background step filed by the
server waits while a request is doing work, at most its patience, and never while it holds the
SQLite store's lock; a proxied turn counts as work except while it waits on the upstream.
A real SQLite file, the real service and its step worker; the proxy over loopback HTTP with the
`openai` SDK against the scripted upstream of `memlane.testing`.
"""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("starlette")
openai = pytest.importorskip("openai")

from memlane.memory import Memory  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.server.base import KEEPS_UP  # noqa: E402
from memlane.server.foreground import Foreground  # noqa: E402
from memlane.testing import FakeUpstream, Reply, serve_in_thread  # noqa: E402


def _conversation(n: int) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"My sister Ana moved to Lisbon in spring {2000 + i}."
             if i % 2 == 0 else "Noted."} for i in range(n)]


@pytest.fixture
def service(tmp_path):
    memory = Memory.open(tmp_path / "m.db")
    ring = KeyRing.load(tmp_path / "keys.json")
    ring.add("acme")
    app = create_app(memory, Auth(ring), ServerConfig(), mcp=False)
    svc = app.state.service
    yield svc, memory
    svc.close()
    memory.close()


def _filed(memory: Memory, thread: str) -> int:
    return len(memory.thread(thread).episodes())


def test_a_step_waits_while_a_request_works_and_files_once_it_ends(service):
    svc, memory = service
    svc.foreground.patience = 30.0  # far longer than this test waits
    memory.thread("t").extend(_conversation(8))  # four whole turns: one stretch due
    with svc.foreground.busy():  # a request doing work, as the proxy's turn counts itself
        svc.submit_step(memory.ns, "t", turn_done=True)
        time.sleep(0.4)
        assert _filed(memory, "t") == 0, "the step ran while a request was doing work"
    svc.drain(10)
    assert _filed(memory, "t") == 1
    assert 0.3 < svc.foreground.waited < 10


def test_a_step_waits_no_longer_than_its_patience(service):
    svc, memory = service
    svc.foreground.patience = 0.3
    memory.thread("t").extend(_conversation(8))
    with svc.foreground.busy():  # requests that never stop
        t = time.monotonic()
        svc.submit_step(memory.ns, "t", turn_done=True)
        svc.drain(10)
        took = time.monotonic() - t
        assert _filed(memory, "t") == 1, "under continuous load the step must still file"
    assert 0.25 < svc.foreground.waited < 0.6
    assert took < 5


def test_a_step_stops_waiting_once_jobs_queue_up_behind_it(service):
    svc, memory = service
    svc.foreground.patience = 30.0
    threads = [f"t{i}" for i in range(KEEPS_UP + 2)]
    for t in threads:
        memory.thread(t).extend(_conversation(8))
    with svc.foreground.busy():  # requests that never stop
        for t in threads:
            svc.submit_step(memory.ns, t, turn_done=True)
        time.sleep(0.5)
        # A job with KEEPS_UP or more queued behind it files at once; then the worker keeps up
        # again (fewer wait), and the next job waits for a gap.
        filed = [t for t in threads if _filed(memory, t)]
        assert filed == threads[:len(threads) - KEEPS_UP], filed
    svc.drain(10)
    assert all(_filed(memory, t) == 1 for t in threads)


def test_a_request_thread_never_waits_and_a_job_waits_only_outside_the_store_lock(tmp_path):
    memory = Memory.open(tmp_path / "m.db")
    fg = Foreground(patience=0.2)
    seen: list[tuple[str, float]] = []

    def pause() -> None:
        t = time.monotonic()
        fg.pause()
        seen.append((threading.current_thread().name, time.monotonic() - t))

    memory.store.yield_before_lock(pause)
    try:
        memory.thread("t").extend(_conversation(2))
        with fg.busy():
            seen.clear()
            memory.thread("t").messages()  # the request's own reads: no wait
            assert seen and all(w < 0.05 for _, w in seen)

            def job() -> None:
                with fg.background():  # waits here first (busy), then at the lock
                    seen.clear()
                    with memory.store.transaction():
                        # Nested takes of the lock (re-entrant) call nothing: a wait here
                        # would hold the store for the requests the job waits for.
                        memory.store.records(memory.ns)
                        memory.thread("t").messages()

            worker = threading.Thread(target=job, name="job")
            worker.start()
            worker.join(10)
        assert [name for name, _ in seen] == ["job"], seen  # the transaction's take only
        assert fg.waited >= 0.15  # the whole patience, spent at the start
    finally:
        memory.close()


def test_a_proxied_turn_is_work_except_while_it_waits_on_the_upstream(tmp_path):
    memory = Memory.open(tmp_path / "m.db")
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    during_upstream: list[int] = []
    with FakeUpstream(lambda body: (during_upstream.append(svc.foreground.running),
                                    Reply(content="Sure."))[1]) as up:
        app = create_app(memory, Auth(ring), ServerConfig(upstream=up.url), mcp=False)
        svc = app.state.service
        in_store: list[int] = []
        # Observe every take of the store's lock by a request thread (then wait as the
        # service does): what the turn's own reads and writes see.
        memory.store.yield_before_lock(
            lambda: (in_store.append(svc.foreground.running), svc.foreground.pause()))
        try:
            with serve_in_thread(app) as url:
                client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
                for i in range(3):
                    got = client.chat.completions.create(
                        model="m", user="t", messages=[{"role": "user", "content": f"hi {i}"}])
                    assert got.choices[0].message.content == "Sure."
                svc.drain(10)
        finally:
            svc.close()
            memory.close()
    assert during_upstream == [0, 0, 0]
    assert in_store and max(in_store) >= 1  # the turn's store work was counted
    assert svc.foreground.running == 0


def _filed_records(memory: Memory) -> list[tuple[str, str]]:
    return sorted((r.text, r.kind) for r in memory.records())


def test_a_running_step_pauses_between_its_parts_while_a_request_works(service, tmp_path,
                                                                         monkeypatch):
    svc, memory = service
    svc.foreground.patience = svc.foreground.brief = 30.0
    talk = _conversation(8)  # four whole turns: one stretch due
    with Memory.open(tmp_path / "ref.db") as ref:  # the same stretch filed with no request
        ref.thread("t").extend(talk)
        ref.step_runner().file_due("t", turn_done=True)
        expected = _filed_records(ref)
    assert expected

    searched, arrived = threading.Event(), threading.Event()
    related = Memory.related

    def related_then_a_request(self, messages, limit=10):
        got = related(self, messages, limit)
        searched.set()  # the step is past its search (a read of the store) ...
        arrived.wait(10)  # ... and a request arrives while it runs
        return got

    monkeypatch.setattr(Memory, "related", related_then_a_request)
    from memlane.step.extractor import HeuristicExtractor
    extract = HeuristicExtractor.extract
    running_at_extract: list[int] = []

    def counted(self, messages, existing):
        running_at_extract.append(svc.foreground.running)
        return extract(self, messages, existing)

    monkeypatch.setattr(HeuristicExtractor, "extract", counted)
    memory.thread("t").extend(talk)
    svc.submit_step(memory.ns, "t", turn_done=True)
    assert searched.wait(10)
    with svc.foreground.busy():
        arrived.set()
        time.sleep(0.3)
        # The step waits at its next pause point (before the extractor), not at the next
        # take of the store's lock: its Python does not run while the request works ...
        assert running_at_extract == [], "the step went on while a request was working"
        assert _filed(memory, "t") == 0
        # ... and it holds no lock of the store while it waits: the request's reads go on.
        read: list[int] = []
        reader = threading.Thread(target=lambda: read.append(len(memory.thread("t").messages())))
        reader.start()
        reader.join(5)
        assert read == [8], "a paused step held the store"
    svc.drain(10)
    assert running_at_extract == [0]
    assert _filed(memory, "t") == 1
    assert _filed_records(memory) == expected  # what it files is the same
    assert svc.foreground.waited > 0.25


def test_pause_points_call_their_threads_hook_only_and_change_no_step(tmp_path):
    from memlane.step.heuristic import extract
    from memlane.step.pauses import pause_point, pausing

    with Memory.open(tmp_path / "m.db") as memory:
        th = memory.thread("t")
        th.extend(_conversation(8))
        messages = th.messages()
        calls: list[str] = []
        pause_point()  # no hook: nothing
        with pausing(lambda: calls.append(threading.current_thread().name)):
            other = threading.Thread(target=pause_point, name="other")
            other.start()
            other.join(5)
            assert calls == []  # another thread's pause point is not this job's
            paused = extract(messages, memory.records())
        assert len(calls) >= len(messages)  # at least once per message
        assert set(calls) == {threading.current_thread().name}
        calls.clear()
        assert extract(messages, memory.records()) == paused  # the same step, unpaused
        assert calls == []  # the hook is gone with its block


def test_a_pause_point_waits_briefly_and_once_when_requests_never_stop():
    from memlane.step.pauses import pause_point

    fg = Foreground(patience=5.0, brief=0.1)
    started, go = threading.Event(), threading.Event()
    took: list[float] = []

    def job() -> None:
        with fg.background():  # no request yet: it starts at once
            started.set()
            go.wait(10)
            t = time.monotonic()
            for _ in range(20):  # its parts, while requests follow one another
                pause_point()
            took.append(time.monotonic() - t)

    worker = threading.Thread(target=job)
    worker.start()
    assert started.wait(10)
    with fg.busy():  # requests that never stop
        go.set()
        worker.join(10)
    # The first pause point waits `brief` and finds no gap; the others do not wait (not 20 x
    # 0.1 s, nor the job's 5 s of patience): filing goes on under continuous load.
    assert took and 0.08 < took[0] < 0.6, took
    assert 0.08 < fg.waited < 0.6


def test_a_pause_point_does_not_wait_while_requests_overlap():
    from memlane.step.pauses import pause_point

    fg = Foreground(patience=5.0, brief=5.0)
    took: list[float] = []
    go = threading.Event()

    def job() -> None:
        with fg.background():
            go.wait(10)
            t = time.monotonic()
            pause_point()
            took.append(time.monotonic() - t)

    entered, done = threading.Event(), threading.Event()

    def another_request() -> None:
        with fg.busy():
            entered.set()
            done.wait(10)

    worker = threading.Thread(target=job)
    worker.start()
    other = threading.Thread(target=another_request)
    with fg.busy():  # two requests at once
        other.start()
        assert entered.wait(10)
        assert fg.running == 2
        go.set()
        worker.join(10)
        done.set()
    other.join(10)
    assert took and took[0] < 0.5  # the server is under load: the step goes on
