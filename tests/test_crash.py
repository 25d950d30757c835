"""Real processes against one SQLite file: killed mid-write, and writing at the same time.

A child appends messages and applies large memory steps (with retries) in a loop, printing each
commit as it lands; the test SIGKILLs it at random moments, several rounds on the same file, and
after each round opens the store and checks that nothing reported committed was lost and that every
step landed whole or not at all.
"""

from __future__ import annotations

import dataclasses
import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from pathlib import Path

import pytest

from memlane import Memory

# CPUs and a timed write rate are the machine's: run alone, after the parallel part.
pytestmark = pytest.mark.serial

# Records each step adds, by the stretch's end: 0, 8, 16, 24 or 32 records of ~2 KB, so a step is
# a transaction of tens of kilobytes and a kill often lands inside one.
ADDS = "(end // 4) % 5 * 8"

CHILD = textwrap.dedent(f"""
    import sys
    from memlane import Memory

    path, rnd = sys.argv[1], int(sys.argv[2])
    mem = Memory.open(path)
    t = mem.thread("t")
    i = 0
    while True:
        key = f"r{{rnd}}-{{i}}"
        msgs = t.extend([
            {{"role": "user", "content": f"user {{key}}: my locker code is {{i * 7919 % 10000}}."}},
            {{"role": "assistant", "content": f"assistant {{key}}"}},
        ])
        print(f"M {{msgs[0].seq}} user {{key}}", flush=True)
        print(f"M {{msgs[1].seq}} assistant {{key}}", flush=True)
        i += 1
        info = t.info()
        start, end = info.filed_to + 1, info.messages
        if end - start + 1 >= 4:
            out = {{
                "records": [
                    {{"op": "add", "text": f"fact {{end}}.{{k}} " + "lorem ipsum " * 170}}
                    for k in range({ADDS})
                ],
                "episode": f"stretch {{start}}-{{end}}",
                "relevance": [{{"seq": s, "score": 0.5}} for s in range(start, end + 1)],
            }}
            t.step(out, start=start, end=end)
            print(f"S {{end}}", flush=True)
            if end % 3 == 0:  # a retry: overwrites the episode, replaces the records
                t.step(out, start=start, end=end)
                print(f"R {{end}}", flush=True)
""")


def adds(end: int) -> int:
    return eval(ADDS, {"end": end})  # the same formula the child uses


def _run_and_kill(path: Path, rnd: int, rng: random.Random) -> list[str]:
    """Start the child, let it run a random while once it is writing, SIGKILL it; its output."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(rnd)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    out = b""
    deadline = time.monotonic() + 60
    # Wait for the first commit (imports and opening take a while), then a random moment.
    while b"\n" not in out and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            out += os.read(proc.stdout.fileno(), 65536)
        if proc.poll() is not None:
            break
    assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    # At a random moment once it has committed a random number of writes: the work a round
    # does is the same on a quiet and a loaded machine (a time alone gave fewer writes under
    # load and failed the check below that the rounds did real work).
    stop = time.monotonic() + rng.uniform(0.05, 0.8)
    lines = rng.randint(8, 16)
    while (time.monotonic() < stop or out.count(b"\n") < lines) and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.01)
        if ready:
            out += os.read(proc.stdout.fileno(), 65536)
        if proc.poll() is not None:
            break
    proc.send_signal(signal.SIGKILL)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    out += rest
    # Only whole lines were certainly printed after their commit.
    return out.decode().split("\n")[:-1]


def check_store(path: Path, reported: dict[int, str], steps: set[int]) -> tuple[int, int]:
    c = sqlite3.connect(path)
    try:
        assert c.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        rows = c.execute("SELECT seq, content FROM messages WHERE thread_id = 't' ORDER BY seq")
        msgs = dict(rows.fetchall())
        # Every message the child saw committed is there, and the log has no holes.
        for seq, who in reported.items():
            assert seq in msgs, f"message {seq} was reported committed and is lost"
            assert msgs[seq].startswith(who + ":") or msgs[seq] == who
        assert list(msgs) == list(range(1, len(msgs) + 1))
        n_msgs, next_seq, filed_to = c.execute(
            "SELECT (SELECT COUNT(*) FROM messages), next_seq, filed_to FROM threads").fetchone()
        assert next_seq == n_msgs + 1

        existing = {r[0] for r in c.execute("SELECT id FROM records")}
        by_step: dict[int, set[int]] = defaultdict(set)
        for rid, step_end in c.execute("SELECT id, step_end FROM records"):
            by_step[step_end].add(rid)
        episodes = c.execute('SELECT "end", record_ids FROM episodes ORDER BY "end"').fetchall()
        ends = {e for e, _ in episodes}
        import json

        for end, ids_json in episodes:
            ids = set(json.loads(ids_json))
            assert ids <= existing, f"episode {end} points at records that do not exist"
            # Atomic: the episode and exactly its step's records landed together.
            assert len(by_step[end]) == adds(end), (end, len(by_step[end]))
            assert ids == by_step[end]
        assert set(by_step) <= ends, "records of a step whose episode never landed"
        assert steps <= ends, "a step reported applied is missing"
        assert filed_to == max(ends, default=0)
        # No orphaned sources either.
        orphans = c.execute("SELECT COUNT(*) FROM record_sources WHERE record_id NOT IN"
                            " (SELECT id FROM records)").fetchone()[0]
        assert orphans == 0
        return len(msgs), len(episodes)
    finally:
        c.close()


@pytest.mark.slow
def test_sigkill_during_writes_loses_nothing_committed(tmp_path):
    path = tmp_path / "crash.db"
    rng = random.Random(20240601)
    reported: dict[int, str] = {}
    steps: set[int] = set()
    sizes = []
    for rnd in range(6):
        for line in _run_and_kill(path, rnd, rng):
            kind, _, rest = line.partition(" ")
            if kind == "M":
                seq, who = rest.split(" ", 1)
                reported[int(seq)] = who
            elif kind in ("S", "R"):
                steps.add(int(rest))
        sizes.append(check_store(path, reported, steps))
    # It did real work across the rounds: many messages, many steps.
    assert sizes[-1][0] > 40 and sizes[-1][1] > 5
    # And the store still works as a store.
    with Memory.open(path) as mem:
        ctx = mem.thread("t").context(budget=3000)
        assert ctx.trace.tokens_total <= 3000
        # The buffer still indexes the filed stretches. Asked with the notes layer off and a
        # window of one turn: how much the killed writers got to write (it varies with the
        # machine's load) decides whether the whole thread, or all its records as notes, fit in
        # the budget, and then no line is needed.
        lean = dataclasses.replace(mem.policy, notes_share=0.0, use_working=False,
                                   short_term_turns=1, fill_budget=False)
        ctx = mem.thread("t").context(budget=3000, policy=lean)
        assert ctx.trace.tokens_total <= 3000
        assert ctx.trace.buffer_lines


WRITER = textwrap.dedent("""
    import os, sys, time
    from memlane import Memory

    path, k, n, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    mem = Memory.open(path)
    t = mem.thread("shared")
    while not os.path.exists(go):
        time.sleep(0.005)
    for i in range(n):
        t.add("user" if i % 2 == 0 else "assistant", f"w{k}-{i}")
    print("done", flush=True)
""")


@pytest.mark.slow
def test_concurrent_writers_on_one_thread(tmp_path):
    path, go = tmp_path / "shared.db", tmp_path / "go"
    writers, n = 4, 200
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(k), str(n), str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for k in range(writers)]
    time.sleep(0.5)  # let them all open the store (and race on the first migration)
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err.decode()
        assert out.decode().strip() == "done"
    with Memory.open(path) as mem:
        msgs = mem.thread("shared").messages()
        info = mem.thread("shared").info()
    assert [m.seq for m in msgs] == list(range(1, writers * n + 1))
    contents = [m.content for m in msgs]
    assert sorted(contents) == sorted(f"w{k}-{i}" for k in range(writers) for i in range(n))
    for k in range(writers):
        mine = [int(c.split("-")[1]) for c in contents if c.startswith(f"w{k}-")]
        assert mine == list(range(n)), f"writer {k}'s messages are out of order"
    assert len({m.id for m in msgs}) == writers * n
    assert info.messages == writers * n
