"""The service's memory steps in a child process (`memlane.server.step_process`): real child
processes on a real SQLite file and a real PostgreSQL database (the `store` fixture runs each
test on both). A proxied conversation is filed by the child and the server's reads see it; a
child killed mid-run is replaced and files exactly what an undisturbed filing would; `wait()`
returns once everything submitted is filed, with the child's results; shutdown leaves no
process behind; what a child cannot reopen keeps the thread worker."""

from __future__ import annotations

import json
import logging
import os
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from memlane import Cadence, FallbackExtractor, HeuristicExtractor, Ledger, Memory  # noqa: E402
from memlane.errors import UsageError  # noqa: E402
from memlane.models.openai import OpenAIModel  # noqa: E402
from memlane.models.scripted import ScriptedModel  # noqa: E402
from memlane.server.app import ServerConfig, Service, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.server.step_process import (  # noqa: E402
    MAX_FAILURES,
    ChildRecipe,
    ProcessStepWorker,
    child_recipe,
    step_worker,
)
from memlane.step.model import ModelExtractor  # noqa: E402
from memlane.testing import FakeUpstream, Reply, serve_in_thread  # noqa: E402
from serve_process import start_serve, turns_until_a_step_child  # noqa: E402


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def talk(mem: Memory, thread: str, turns: int) -> None:
    """`turns` closed turns (each a fact the heuristic files), then a user message closing the
    last one."""
    t = mem.thread(thread)
    t.extend([m for i in range(turns) for m in (
        {"role": "user", "content": f"My locker {i} in {thread} is {4400 + i} and my cat {i} "
                                    f"is called Tom{i}."},
        {"role": "assistant", "content": "Noted."})])
    t.add("user", "That is all for now.")


def filed(mem: Memory, thread: str) -> tuple[list[tuple[int, int]], list[str]]:
    """A thread's episodes (start, end) and its records' texts: what filing left."""
    eps = [(e.start, e.end) for e in mem.thread(thread).episodes()]
    recs = sorted(r.text for r in mem.records(limit=10_000) if r.thread_id == thread)
    return eps, recs


def service(mem: Memory, tmp_path: Path, **config: Any) -> Service:
    return Service(mem, Auth(KeyRing.load(tmp_path / "keys.json")), ServerConfig(**config))


# --- a proxied conversation ---------------------------------------------------------------------
def test_a_proxied_conversation_is_filed_by_the_child_and_the_server_sees_it(store, tmp_path):
    mem = Memory(store, cadence=Cadence(every_user_turns=2))
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    ledger = Ledger(tmp_path / "ledger.db")
    with FakeUpstream(lambda body: Reply(content="Noted.")) as up:
        app = create_app(mem, Auth(ring), ServerConfig(upstream=up.url, step_worker="auto"),
                         ledger=ledger, mcp=False)
        svc = app.state.service
        assert svc.step_worker_kind == "process"
        worker = svc._worker
        try:
            with serve_in_thread(app) as url:
                for i in range(6):
                    body = json.dumps({"model": "m", "messages": [
                        {"role": "user", "content": f"My badge number {i} is {7700 + i}."}]})
                    req = urllib.request.Request(
                        url + "/v1/chat/completions", data=body.encode(),
                        headers={"Authorization": f"Bearer {key}",
                                 "Content-Type": "application/json",
                                 "X-Memlane-Thread": "trip"})
                    with urllib.request.urlopen(req, timeout=30) as r:
                        assert json.load(r)["choices"][0]["message"]["content"] == "Noted."
                    if i == 2:
                        # The server's memos are warm before the child's writes land.
                        svc.drain()
                        before = svc.mem("acme").thread("trip").context(
                            budget=4000, new_message="badge?").to_dict()
                svc.drain()
                t = svc.mem("acme").thread("trip")
                # Every answer closes its turn (turn_done): 6 turns, 3 stretches of 2.
                assert [(e.start, e.end) for e in t.episodes()] == [(1, 4), (5, 8), (9, 12)]
                assert worker.child_jobs >= 2 and worker.fallback_jobs == 0
                assert worker.pid is not None and worker.pid != os.getpid()
                assert alive(worker.pid)
                assert sorted(r.text for r in svc.mem("acme").records()) == [
                    f"My badge number {i} is {7700 + i}." for i in range(6)]
                # The server's next read shows the child's filing in the notes (the store's
                # revision moved with the child's writes, so no memo hid them).
                after = t.context(budget=4000, new_message="badge?").to_dict()
                notes = [json.dumps(m) for m in after["messages"] if "7705" in json.dumps(m)]
                assert notes and all("7705" not in json.dumps(m) for m in before["messages"])
                assert "7700" in json.dumps(before["messages"])
        finally:
            pid = worker.pid
            svc.close()
            ledger.close()
    assert pid is not None and not alive(pid)


# --- a child killed mid-run ---------------------------------------------------------------------
def test_a_child_killed_mid_run_is_replaced_and_files_what_an_undisturbed_run_would(
        store, tmp_path, caplog):
    cadence = Cadence(every_user_turns=1)
    mem = Memory(store, cadence=cadence)
    ref = Memory(store, "ref", cadence=cadence)
    threads = [f"t{i}" for i in range(12)]
    for name in threads:
        talk(mem, name, 8)
        talk(ref, name, 8)
        ref.step_runner().file_due(name)  # the reference: filed in this process, undisturbed
    total = len(threads) * 8
    assert sum(len(ref.thread(n).episodes()) for n in threads) == total

    svc = service(mem, tmp_path, step_worker="process")
    worker = svc._worker
    assert isinstance(worker, ProcessStepWorker)
    caplog.set_level(logging.ERROR, logger="memlane.server")
    for name in threads:
        svc.submit_step(mem.ns, name)
    deadline = time.monotonic() + 60
    while not any(mem.thread(n).episodes() for n in threads):
        assert time.monotonic() < deadline, "the child filed nothing"
        time.sleep(0.005)
    first = worker.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    at_kill = sum(len(mem.thread(n).episodes()) for n in threads)
    assert at_kill < total  # killed mid-run, not after it
    svc.drain(120)
    assert worker.restarts == 1 and worker.pid not in (None, first)
    assert worker.fallback_jobs == 0
    for name in threads:
        assert filed(mem, name) == filed(ref, name), name
    assert "memory step process failed" in caplog.text and "exit code -9" in caplog.text
    svc.close()
    assert not alive(first)


# --- wait() -------------------------------------------------------------------------------------
def test_wait_returns_once_everything_submitted_is_filed_with_the_childs_results(store,
                                                                                tmp_path):
    mem = Memory(store, cadence=Cadence(every_user_turns=2))
    names = ["a", "b", "c"]
    for name in names:
        talk(mem, name, 4)
    recipe = child_recipe(mem, None, "heuristic")
    assert isinstance(recipe, ChildRecipe)
    worker = ProcessStepWorker(recipe, lambda key, batch: pytest.fail("filed in the server"))
    try:
        for name in names:
            worker.submit((mem.ns, name, False))
            worker.submit((mem.ns, name, False))  # already queued: not queued twice
        results = worker.wait(120)
        # Results came back from the child, in submission order, one job per thread.
        assert [(r.thread_id, r.start, r.end) for r in results] == [
            (n, s, e) for n in names for s, e in ((1, 4), (5, 8))]
        assert worker.child_jobs == 3
        assert all(r.episode is not None for r in results) and sum(
            len(r.added) for r in results) == len(mem.records(limit=10_000))
        for name in names:
            assert [(e.start, e.end) for e in mem.thread(name).episodes()] == [(1, 4), (5, 8)]
            assert mem.thread(name).info().filed_to == 8
        assert worker.wait(10) == []  # the results went to the first wait
    finally:
        pid = worker.pid
        worker.close()
    assert pid is not None and not alive(pid)
    with pytest.raises(UsageError, match="closed"):
        worker.submit((mem.ns, "a", False))


def test_a_child_that_cannot_start_hands_the_jobs_to_the_server(tmp_path, caplog):
    mem = Memory.open(tmp_path / "m.db", cadence=Cadence(every_user_turns=2))
    talk(mem, "t", 4)
    svc = service(mem, tmp_path)
    good = child_recipe(mem, None, "heuristic")
    assert isinstance(good, ChildRecipe)
    # A database the child cannot open (its folder is gone), as an unreachable server would be.
    bad = ChildRecipe(target=str(tmp_path / "gone" / "m.db"), namespace=mem.ns,
                      cadence=good.cadence, extractor=good.extractor, embedder=None,
                      ledger=None, model="heuristic")
    caplog.set_level(logging.ERROR, logger="memlane.server")
    worker = ProcessStepWorker(bad, svc._step)
    try:
        worker.submit((mem.ns, "t", False))
        [one, two] = worker.wait(120)
        assert (one.start, one.end, two.start, two.end) == (1, 4, 5, 8)
        assert worker.in_process and worker.fallback_jobs == 1 and worker.child_jobs == 0
        assert caplog.text.count("memory step process failed") == MAX_FAILURES
        assert "could not open the store" in caplog.text and "does not exist" in caplog.text
    finally:
        worker.close()
        svc.close()
        mem.close()


# --- which worker -------------------------------------------------------------------------------
def test_what_a_child_cannot_reopen_keeps_the_thread_worker(tmp_path):
    with Memory.open(":memory:") as mem:
        assert "in-memory" in str(child_recipe(mem, None, None))
        svc = service(mem, tmp_path, step_worker="auto")
        assert svc.step_worker_kind == "thread"
        svc.close()
        with pytest.raises(UsageError, match="--step-worker thread"):
            service(mem, tmp_path, step_worker="process")
    with Memory.open(tmp_path / "m.db") as mem:
        assert isinstance(child_recipe(mem, None, None), ChildRecipe)
        with Ledger(":memory:") as lg:
            assert "in-memory ledger" in str(child_recipe(mem, lg, None))
        svc = service(mem, tmp_path, step_worker="thread")
        assert svc.step_worker_kind == "thread"
        svc.close()
        svc = service(mem, tmp_path)  # the default
        assert svc.step_worker_kind == "thread"
        svc.close()
        with pytest.raises(UsageError, match="auto, process, thread"):
            step_worker("fork", mem, None, None, lambda k, b: [])
    # A model over HTTP with the heuristic as fallback is made again in the child (what
    # `memlane serve --upstream-model` builds); a scripted model holds its caller's queue.
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", api_key="k")
    http = FallbackExtractor(ModelExtractor(model), HeuristicExtractor())
    with Memory.open(tmp_path / "h.db", extractor=http) as mem:
        assert isinstance(child_recipe(mem, None, "m"), ChildRecipe)
    scripted = FallbackExtractor(ModelExtractor(ScriptedModel("{}")), HeuristicExtractor())
    with Memory.open(tmp_path / "s.db", extractor=scripted) as mem:
        assert "not one a child process can make again" in str(child_recipe(mem, None, None))
        svc = service(mem, tmp_path, step_worker="auto")
        assert svc.step_worker_kind == "thread"
        svc.close()


def test_the_recipe_keeps_secrets_out_of_its_repr(tmp_path):
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", api_key="sk-secret-123")
    http = FallbackExtractor(ModelExtractor(model), HeuristicExtractor())
    with Memory.open(tmp_path / "h.db", extractor=http) as mem:
        recipe = child_recipe(mem, None, "m")
        assert isinstance(recipe, ChildRecipe)
        assert "sk-secret-123" not in repr(recipe) and str(tmp_path) not in repr(recipe)


# --- `memlane serve` as a real process ----------------------------------------------------------
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
def test_serve_files_in_a_child_and_sigterm_leaves_no_process_behind(tmp_path):
    with FakeUpstream(lambda body: Reply(content="Noted.")) as up:
        proc, url = start_serve(tmp_path, "--upstream", up.url, "--step-worker", "process")
        try:
            # turns enough for a memory step: the child starts
            kids = turns_until_a_step_child(
                url, proc.pid, [f"My badge number {i} is {7700 + i}." for i in range(8)])
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, err
    assert "in a process of its own" in err and "Traceback" not in err
    assert not any(alive(k) for k in kids)
    with Memory.open(tmp_path / "m.db") as mem:
        assert [(e.start, e.end) for e in mem.thread("t").episodes()] == [(1, 8), (9, 16)]
