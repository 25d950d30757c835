"""`memlane serve --cpu`: the server's threads on one CPU (`memlane.server.cpu`), as real
processes: every thread the server has (and starts later) on the CPU chosen, a child step
process back on all of them, `off` leaving placement to the system, a CPU the process may not
use refused before anything opens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from memlane.errors import UsageError
from memlane.server import cpu
from serve_process import free_port, start_serve, turns_until_a_step_child

# CPUs and a timed write rate are the machine's: run alone, after the parallel part.
pytestmark = pytest.mark.serial

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
needs_two = pytest.mark.skipif(not cpu.supported() or len(CPUS) < 2,
                               reason="needs Linux affinity and two CPUs to choose from")


def _allowed(pid: int, tid: int | None = None) -> set[int]:
    """A task's allowed CPUs (the process's main thread when `tid` is None)."""
    return set(os.sched_getaffinity(tid or pid))


def _tasks(pid: int) -> list[int]:
    return [int(t) for t in os.listdir(f"/proc/{pid}/task")]


def test_parse_takes_auto_off_and_numbers_and_refuses_the_rest():
    assert cpu.parse("auto") is None and cpu.parse("off") is None and cpu.parse("3") == 3
    for bad in ("", "-1", "1,2", "one", "٣"):
        with pytest.raises(UsageError, match="--cpu"):
            cpu.parse(bad)


def test_ranges_are_written_as_the_kernel_writes_them():
    assert cpu._ranges(frozenset({0, 1, 2, 3, 6})) == "0-3,6"
    assert cpu._ranges(frozenset({5})) == "5"


@needs_two
def test_pin_moves_every_thread_including_those_started_before_and_after():
    # In a child process: pinning the test process would pin the rest of the test run.
    code = textwrap.dedent("""
        import os, threading, json
        from memlane.server import cpu
        stop = threading.Event()
        early = threading.Thread(target=stop.wait); early.start()
        chosen = cpu.pin("auto")
        seen = {}
        late = threading.Thread(target=lambda: seen.update(late=sorted(os.sched_getaffinity(0))))
        late.start(); late.join()
        seen["early"] = sorted(os.sched_getaffinity(early.native_id))
        seen["main"] = sorted(os.sched_getaffinity(0))
        stop.set(); early.join()
        print(json.dumps({"chosen": chosen, **seen}))
    """)
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                    text=True, check=True).stdout)
    assert out["chosen"] in CPUS
    assert out["early"] == out["late"] == out["main"] == [out["chosen"]]


@needs_two
def test_auto_leaves_a_cpu_another_process_is_pinned_to(tmp_path):
    # Another server (or anything under `taskset -c N`) holds one CPU: a second server started
    # with auto takes another, however idle the first one's CPU looks.
    if any(cpu.claimed().get(c) for c in CPUS):
        pytest.skip("other processes are pinned on this machine already")
    taken = CPUS[0]
    holder = subprocess.Popen([sys.executable, "-c", "import os, sys, time; "
                               f"os.sched_setaffinity(0, {{{taken}}}); print(1, flush=True); "
                               "time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "1"
        assert cpu.claimed().get(taken, 0) >= 1
        code = "from memlane.server import cpu; print(cpu.pin('auto'))"
        for _ in range(3):  # whatever this process's id
            got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True).stdout.strip()
            assert int(got) != taken and int(got) in CPUS
    finally:
        holder.kill()
        holder.wait()


@needs_two
def test_a_cpu_the_process_may_not_use_is_refused_with_the_ones_it_may():
    with pytest.raises(UsageError, match=f"CPUs {cpu._ranges(frozenset(CPUS))} only"):
        cpu.pin(str(max(CPUS) + 100))
    assert sorted(os.sched_getaffinity(0)) == CPUS  # nothing moved


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    _, err = proc.communicate(timeout=60)
    return err


@needs_two
def test_serve_runs_every_thread_on_the_cpu_asked_and_its_step_child_on_all(tmp_path):
    from memlane.testing import FakeUpstream, Reply

    want = CPUS[-1]
    with FakeUpstream(lambda body: Reply(content="Noted.")) as up:
        proc, url = start_serve(tmp_path, "--cpu", str(want), "--upstream", up.url,
                           "--step-worker", "process")
        try:
            # turns enough for a memory step: the child starts
            kids = turns_until_a_step_child(
                url, proc.pid, [f"My locker {i} is number {40 + i}." for i in range(8)])
            tasks = _tasks(proc.pid)
            assert len(tasks) > 3  # the event loop, request threads, the step's waiter, ...
            assert all(_allowed(proc.pid, t) == {want} for t in tasks)
            kid = kids.pop()
            assert all(_allowed(kid, t) == set(CPUS) for t in _tasks(kid))
        finally:
            err = _stop(proc)
    assert f"CPU        {want} " in err and "Traceback" not in err


@needs_two
def test_serve_cpu_off_leaves_every_cpu(tmp_path):
    proc, _ = start_serve(tmp_path, "--cpu", "off")
    try:
        assert all(_allowed(proc.pid, t) == set(CPUS) for t in _tasks(proc.pid))
    finally:
        err = _stop(proc)
    assert "CPU   " not in err


@needs_two
def test_serve_takes_its_cpu_from_the_environment_and_the_flag_wins(tmp_path):
    proc, _ = start_serve(tmp_path, env={"MEMLANE_CPU": str(CPUS[0])})
    try:
        assert all(_allowed(proc.pid, t) == {CPUS[0]} for t in _tasks(proc.pid))
    finally:
        _stop(proc)
    proc, _ = start_serve(tmp_path, "--cpu", "off", env={"MEMLANE_CPU": str(CPUS[0])})
    try:
        assert all(_allowed(proc.pid, t) == set(CPUS) for t in _tasks(proc.pid))
    finally:
        _stop(proc)


def test_serve_with_a_cpu_it_may_not_use_fails_before_opening_anything(tmp_path):
    env = {**os.environ, "MEMLANE_KEYS": str(tmp_path / "keys.json")}
    bad = str(max(CPUS or [0]) + 100)
    run = subprocess.run([sys.executable, "-m", "memlane", "--db", str(tmp_path / "m.db"),
                          "serve", "--port", str(free_port()), "--no-mcp", "--cpu", bad],
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and f"--cpu {bad}" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "m.db").exists()
