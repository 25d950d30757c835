"""The side-by-side benchmark keeps working (its peers are not installed here: it runs memlane and
the floor only) and gives every system the same conversation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memlane import Memory

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture()
def bench_peers(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_peers as mod

    return mod


def test_every_system_gets_the_messages_memlane_stored(bench_peers, tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    bench_peers.build("memlane", path, 120)
    want = bench_peers.conversation(120)
    with Memory.open(str(path)) as mem:
        got = mem.thread(bench_peers.THREAD).messages()
        assert mem.thread(bench_peers.THREAD).episodes(), "the memlane thread is filed"
    assert [(m.role, m.content, m.ts) for m in got] == \
        [(m["role"], m["content"], m["ts"]) for m in want]


def test_floor_reads_the_rows_memlane_shows(bench_peers, tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    bench_peers.build("memlane", path, 400)
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        with Memory.open(str(path)) as mem:
            ctx = mem.thread(bench_peers.THREAD).context(budget=bench_peers.BUDGET)
            shown = [m for m in ctx.messages if m.layer in ("working", "short_term")]
        floor = bench_peers.Runner("floor", path)
        n, tokens = floor.call()
        # every message in view comes from the rows the floor reads, plus the listed lines
        assert tokens is None
        assert n >= len(shown) + len(ctx.trace.buffer_lines)
        assert len(floor.time_calls(loop, 3)) == 3
    finally:
        loop.close()


def test_runs_without_the_peers_and_reports_ratios(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "bench_peers.py", "--sizes", "200", "--calls", "10", "--writes", "8",
         "--systems", "memlane,memlane_nomsg,floor,floor_fts", "--dir", str(tmp_path)],
        cwd=BENCH, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "| 200 | memlane `thread.context(new_message=...)` | 10 |" in out.stdout
    assert "| 200 | memlane `thread.context()`, no new message | 10 |" in out.stdout
    assert "| 200 | floor: bare FTS5 `MATCH ... ORDER BY bm25 LIMIT 50`, same messages | 10 |" \
        in out.stdout
    assert "memlane with a new message, p50:" in out.stdout
    assert "| 200 | floor: bare `sqlite3` query, same rows | 10 |" in out.stdout
    assert "memlane vs the bare-query floor" in out.stdout
    assert "| append one message | memlane | 16 |" in out.stdout
    assert "| memory step: 3 records (+ episode line) | memlane | 2 |" in out.stdout


def test_unknown_system_is_named(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "bench_peers.py", "--systems", "memlane,mem0"],
                         cwd=BENCH, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "unknown system(s) ['mem0']" in out.stderr
