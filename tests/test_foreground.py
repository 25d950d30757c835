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
