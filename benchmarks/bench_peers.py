"""Context for the next call, appends and memory-step writes, side by side with the libraries
users would pick instead, in one run on one machine, reported as ratios to memlane.

Run by `make bench` in its own virtual environment (`.venv-bench`), where the peers are installed;
they are never dependencies of memlane. Every system gets the same conversation (the synthetic
user/assistant thread of bench_assemble.py, same seed), stored on disk in its own SQLite file:

- memlane: `thread.context(budget=4000)` on the thread as `Memory` filed it (a heuristic memory
  step every 4 user turns, so the buffer block and the records exist, as in real use).
- floor: a bare `sqlite3` connection reading the rows memlane's context shows (the messages from
  its window start on, and the buffer lines it lists), no processing at all.
- LlamaIndex `Memory` (llama-index-core) on its SQLAlchemy/aiosqlite store, `token_limit=4000`,
  `await memory.aget()`. It keeps a FIFO of "active" messages and archives the rest as they are
  put, so a read touches the active ones only.
- LangChain `trim_messages(history.messages, max_tokens=4000, strategy="last")` over
  `SQLChatMessageHistory` (langchain-community) on SQLite: reads the whole history, then trims.
- OpenAI Agents SDK `SQLiteSession.get_items()`, trimmed from the newest item back to 4000 tokens.

Token counts: every system counts with the same tokenizer memlane uses (cl100k_base through
toktok), as a list counter over a batch for LangChain, and as `tokenizer_fn` for LlamaIndex (it
only takes `len()` of what the function returns). LangChain's own offline counter
(`"approximate"`, characters / 4) is measured too, as it is what many users pass.

Timing: each (system, size) is timed in blocks that rotate through the systems, so load on the
machine hits all alike; per call wall time; p50 and p95; calls per system are capped by a time
allowance (the slow peers at 100k get fewer calls, at least 10). The ratio column is the peer's
p50 over memlane's p50 in the same run.

Also: peak resident memory of each system reading the 100k-message thread (a fresh child process
per system: resident memory after its imports, and the peak after 20 context calls), and the time
to append one message and to write a memory step's records (memlane's `Thread.step` with a given
step JSON: 3 records and the episode line in one transaction; LangGraph's `SqliteStore`: the same 3
records as one batch of puts, what a LangMem-style extractor writes; no embeddings on either side).

    python benchmarks/bench_peers.py                       # 1k, 10k, 100k; prints the tables
    python benchmarks/bench_peers.py --write               # ...and updates docs/PERFORMANCE.md
    python benchmarks/bench_peers.py --sizes 1000 --systems memlane,floor   # quick, no peers
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_assemble
from _report import machine, pct, write_section, yardstick

from memlane import Memory

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Against the peers"
BUDGET = 4000
THREAD = "bench"
ENC = "cl100k_base"

# system -> (label, distribution it needs or None, reads the whole history per call?)
SYSTEMS: dict[str, tuple[str, str | None, bool]] = {
    "memlane": ("memlane `thread.context(new_message=...)`", None, False),
    "memlane_nomsg": ("memlane `thread.context()`, no new message", None, False),
    "memlane_exh": ("memlane, new message, exhaustive search (before: `search_bounds=None`)",
                    None, False),
    "floor": ("floor: bare `sqlite3` query, same rows", None, False),
    "floor_cols": ("floor, with the columns memlane reads", None, False),
    "floor_fts": ("floor: bare FTS5 `MATCH ... ORDER BY bm25 LIMIT 50`, same messages", None,
                  False),
    "llamaindex": ("LlamaIndex `Memory.aget`", "llama_index.core", False),
    "langchain": ("LangChain `trim_messages` + `SQLChatMessageHistory`", "langchain_community",
                  True),
    "langchain_approx": ("LangChain, same, `token_counter=\"approximate\"`", "langchain_community",
                         True),
    "agents": ("OpenAI Agents `SQLiteSession.get_items` + trim", "agents", True),
}
DB_NAMES = {"memlane": "memlane", "memlane_nomsg": "memlane", "memlane_exh": "memlane",
            "floor": "memlane",
            "floor_cols": "memlane", "floor_fts": "memlane",
            "llamaindex": "llamaindex",
            "langchain": "langchain", "langchain_approx": "langchain", "agents": "agents"}


def available(system: str) -> bool:
    mod = SYSTEMS[system][1]
    return mod is None or importlib.util.find_spec(mod.split(".")[0]) is not None and \
        importlib.util.find_spec(mod) is not None


def conversation(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """The same messages bench_assemble.build writes, in the same order."""
    rng = random.Random(seed)
    base = 1_700_000_000.0
    out: list[dict[str, Any]] = []
    for i in range(n // 2):
        out.append({"role": "user", "content": bench_assemble._user(rng, i), "ts": base + 60 * i})
        out.append({"role": "assistant", "content": bench_assemble._assistant(rng, i),
                    "ts": base + 60 * i + 5})
    return out


def counter() -> Callable[[list[str]], list[int]]:
    """The peers' token counter: the tokenizer memlane uses (cl100k through toktok), called
    directly rather than through `BPETokenizer`, whose memo of repeated texts is memlane's own
    work and would be a speed-up the peers do not have."""
    import toktok  # type: ignore[import-untyped]

    def count(texts: list[str]) -> list[int]:
        return list(toktok.batch_count(texts, ENC, threads=1)) if texts else []
    return count


def new_messages(path: Path, n: int = 500) -> list[str]:
    """The new messages of memlane's calls: the thread's own user turns (the last `n`),
    shuffled with a fixed seed, so every run and both floors see the same ones."""
    con = sqlite3.connect(str(path))
    try:
        rows = [r[0] for r in con.execute(
            "SELECT content FROM messages WHERE role = 'user' ORDER BY id DESC LIMIT ?", (n,))]
    finally:
        con.close()
    random.Random(11).shuffle(rows)
    return rows


# -- building each system's file (once; reused by later runs) ---------------------------------

def build(system: str, path: Path, n: int) -> float:
    t0 = time.perf_counter()
    msgs = conversation(n)
    if system == "memlane":
        bench_assemble.build(str(path), n)
    elif system == "llamaindex":
        from llama_index.core.llms import ChatMessage
        from llama_index.core.storage.chat_store.base_db import MessageStatus

        async def go() -> None:
            # What `aput` one message at a time leaves behind, without 100k slow calls: every
            # message but the last 200 stored as archived (as the FIFO flush marks them), then
            # the last 200 put one at a time, so the active queue is in its natural state.
            mem = llamaindex_memory(path)
            old, last = msgs[:-200], msgs[-200:]
            for k in range(0, len(old), 1000):
                await mem.sql_store.add_messages(
                    THREAD, [ChatMessage(role=m["role"], content=m["content"])
                             for m in old[k:k + 1000]], status=MessageStatus.ARCHIVED)
            for m in last:
                await mem.aput(ChatMessage(role=m["role"], content=m["content"]))
        asyncio.run(go())
    elif system == "langchain":
        from langchain_community.chat_message_histories import SQLChatMessageHistory
        from langchain_core.messages import AIMessage, HumanMessage
        hist = SQLChatMessageHistory(session_id=THREAD, connection=f"sqlite:///{path}")
        for k in range(0, len(msgs), 1000):
            hist.add_messages([(HumanMessage if m["role"] == "user" else AIMessage)(m["content"])
                               for m in msgs[k:k + 1000]])
        hist.session_maker.remove()
        hist.engine.dispose()
    elif system == "agents":
        from agents import SQLiteSession

        async def go2() -> None:
            s = SQLiteSession(THREAD, str(path))
            for k in range(0, len(msgs), 1000):
                await s.add_items([{"role": m["role"], "content": m["content"]}
                                   for m in msgs[k:k + 1000]])
            s.close()
        asyncio.run(go2())
    else:
        raise ValueError(system)
    return time.perf_counter() - t0


def llamaindex_memory(path: Path) -> Any:
    from llama_index.core.memory import Memory as LIMemory
    count = counter()
    return LIMemory.from_defaults(
        session_id=THREAD, token_limit=BUDGET,
        tokenizer_fn=lambda s: range(count([s])[0]),  # LlamaIndex takes len() of the result
        async_database_uri=f"sqlite+aiosqlite:///{path}")


# -- one "next context" call per system --------------------------------------------------------

class Runner:
    """Opens one system on its file and gives a sync or async `call()` returning what it would
    send (for a sanity check: message count and tokens)."""

    def __init__(self, system: str, path: Path) -> None:
        self.system = system
        self.is_async = False
        count = counter()
        if system in ("memlane", "memlane_nomsg", "memlane_exh"):
            self.mem = Memory.open(str(path))
            th = self.mem.thread(THREAD)
            if system == "memlane_exh":
                self.mem.store.search_bounds = None  # every match ranked: the search before
            if system in ("memlane", "memlane_exh"):
                # The turn as users run it: each call brings a new message (the thread's own
                # user turns, shuffled: the notes search sees the conversation's words).
                news = new_messages(path)
                nxt = iter(range(10**9))

                def call() -> tuple[int, int | None]:
                    ctx = th.context(budget=BUDGET,
                                     new_message=news[next(nxt) % len(news)])
                    return len(ctx.messages), ctx.trace.tokens_total
            else:
                def call() -> tuple[int, int | None]:
                    ctx = th.context(budget=BUDGET)
                    return len(ctx.messages), ctx.trace.tokens_total
            self.call: Callable[[], Any] = call
        elif system == "floor_fts":
            # The second floor: what a search engine's own top-k costs on the same index, the
            # same messages as the queries (their terms OR-ed, as memlane's exhaustive search).
            from memlane.store.fts import fts5_match, query_terms
            con = sqlite3.connect(str(path))
            matches = [m for m in (fts5_match(query_terms(x), ("text",))
                                   for x in new_messages(path)) if m]
            nxt2 = iter(range(10**9))
            q_fts = ("SELECT rowid FROM records_fts WHERE records_fts MATCH ?"
                     " ORDER BY bm25(records_fts, 1.0, 0.0) LIMIT 50")

            def fts() -> tuple[int, int | None]:
                rows = con.execute(q_fts, (matches[next(nxt2) % len(matches)],)).fetchall()
                return len(rows), None
            self.call = fts
        elif system in ("floor", "floor_cols"):
            with Memory.open(str(path)) as mem:  # which rows memlane shows: read once, untimed
                ctx = mem.thread(THREAD).context(budget=BUDGET)
                start, lines = ctx.trace.window_start, len(ctx.trace.buffer_lines)
                ns = mem.ns
            con = sqlite3.connect(str(path))
            # floor: what a prompt needs; floor_cols: every column memlane's read takes (ids,
            # positions, times, stored token counts, relevance; the lines' spans and dates)
            mcols, ecols = ("role, content", "line, record_ids") if system == "floor" else (
                "id, seq, role, content, ts, tokens, relevance, name",
                'start, "end", line, record_ids, date, suspect, n')
            q_msgs = (f"SELECT {mcols} FROM messages WHERE namespace = ? AND thread_id = ? "
                      "AND seq >= ? ORDER BY seq")
            q_lines = (f'SELECT {ecols} FROM episodes WHERE namespace = ? '
                       'AND thread_id = ? ORDER BY "end" DESC LIMIT ?')

            def floor() -> tuple[int, int | None]:
                rows = con.execute(q_msgs, (ns, THREAD, start)).fetchall()
                eps = con.execute(q_lines, (ns, THREAD, lines)).fetchall()
                return len(rows) + len(eps), None
            self.call = floor
        elif system == "llamaindex":
            mem = llamaindex_memory(path)
            self.is_async = True

            async def li() -> tuple[int, int | None]:
                got = await mem.aget()
                return len(got), sum(count([str(m.content) for m in got])) + 4 * len(got)
            self.call = li
        elif system in ("langchain", "langchain_approx"):
            from langchain_community.chat_message_histories import SQLChatMessageHistory
            from langchain_core.messages import trim_messages
            hist = SQLChatMessageHistory(session_id=THREAD, connection=f"sqlite:///{path}")

            def lc_count(messages: list[Any]) -> int:
                return sum(count([str(m.content) for m in messages])) + 4 * len(messages)
            tc: Any = "approximate" if system == "langchain_approx" else lc_count

            def lc() -> tuple[int, int | None]:
                got = trim_messages(hist.messages, max_tokens=BUDGET, token_counter=tc,
                                    strategy="last", start_on="human")
                return len(got), lc_count(got)
            self.call = lc
        elif system == "agents":
            from agents import SQLiteSession
            session = SQLiteSession(THREAD, str(path))
            self.is_async = True

            async def ag() -> tuple[int, int | None]:
                items = await session.get_items()
                used, keep = 0, 0
                for it in reversed(items):  # newest back, until the budget is spent
                    t = count([str(it.get("content", ""))])[0] + 4
                    if used + t > BUDGET:
                        break
                    used += t
                    keep += 1
                return len(items[len(items) - keep:]), used
            self.call = ag
        else:
            raise ValueError(system)

    def time_calls(self, loop: asyncio.AbstractEventLoop, n: int) -> list[float]:
        """Wall time of n calls in ms (async calls awaited inside one running loop)."""
        if self.is_async:
            async def run() -> list[float]:
                out = []
                for _ in range(n):
                    t0 = time.perf_counter()
                    await self.call()
                    out.append((time.perf_counter() - t0) * 1000)
                return out
            return loop.run_until_complete(run())
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            self.call()
            out.append((time.perf_counter() - t0) * 1000)
        return out

    def result(self, loop: asyncio.AbstractEventLoop) -> str:
        """What one call returns: messages, and tokens under cl100k (memlane: its trace's total,
        which includes the tools' schemas; peers: message contents + 4 per message)."""
        n, tokens = loop.run_until_complete(self.call()) if self.is_async else self.call()
        return f"{n}" + ("" if tokens is None else f" / {tokens:,}")


def time_context(runners: dict[str, Runner], calls: int, allowance_s: float,
                 loop: asyncio.AbstractEventLoop) -> dict[str, list[float]]:
    """Rotate through the systems in blocks of 10 calls until each has `calls` calls or has
    spent its time allowance (at least 10 calls each)."""
    times: dict[str, list[float]] = {s: [] for s in runners}
    spent = dict.fromkeys(runners, 0.0)
    for r in runners.values():  # warm-up: 5 calls (1 for a slow one)
        t0 = time.perf_counter()
        r.time_calls(loop, 1)
        if time.perf_counter() - t0 < 0.2:
            r.time_calls(loop, 4)
    order = list(runners)
    rnd = 0
    while True:
        active = [s for s in order if len(times[s]) < calls and
                  (spent[s] < allowance_s or len(times[s]) < 10)]
        if not active:
            return times
        rot = active[rnd % len(active):] + active[:rnd % len(active)]
        for s in rot:
            t = runners[s].time_calls(loop, 10)
            times[s].extend(t)
            spent[s] += sum(t) / 1000
        rnd += 1


# -- appends and memory-step writes ------------------------------------------------------------

def time_writes(system: str, d: Path, n: int) -> dict[str, list[float]]:
    """Per-append (and per-step) wall times in ms on a fresh copy of each system's 10k file."""
    msgs = conversation(2 * n + 400)[-(2 * n):]
    out: dict[str, list[float]] = {}
    loop = asyncio.new_event_loop()
    path = d / f"writes-{system}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    if system == "memlane":
        with Memory.open(str(path)) as mem:
            th = mem.thread(THREAD)
            th.extend(conversation(400))
            th.maybe_step()
            app, steps = [], []
            for k in range(0, len(msgs), 8):
                for m in msgs[k:k + 8]:
                    t0 = time.perf_counter()
                    th.add(m["role"], m["content"], ts=m["ts"])
                    app.append((time.perf_counter() - t0) * 1000)
                stretch = th.pending()
                texts = [m["content"] for m in msgs[k:k + 8] if m["role"] == "user"][:3]
                step = {"records": [{"op": "add", "text": t, "kind": "fact",
                                     "source": [stretch[0].seq]} for t in texts],
                        "episode": "Talked about " + " ".join(texts[0].split()[:12]),
                        "relevance": [{"seq": m.seq, "score": 0.5} for m in stretch
                                      if m.role == "user"]}
                t0 = time.perf_counter()
                th.step(output=step)
                steps.append((time.perf_counter() - t0) * 1000)
            out["append"], out["step"] = app, steps
    elif system == "floor":
        con = sqlite3.connect(str(path), isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("CREATE TABLE m (id INTEGER PRIMARY KEY, thread TEXT, role TEXT, "
                    "content TEXT, ts REAL)")
        app = []
        for m in msgs:
            t0 = time.perf_counter()
            con.execute("INSERT INTO m (thread, role, content, ts) VALUES (?, ?, ?, ?)",
                        (THREAD, m["role"], m["content"], m["ts"]))
            app.append((time.perf_counter() - t0) * 1000)
        out["append"] = app
        con.close()
    elif system == "llamaindex":
        from llama_index.core.llms import ChatMessage
        mem = llamaindex_memory(path)

        async def li() -> list[float]:
            await mem.aput_messages([ChatMessage(role=m["role"], content=m["content"])
                                     for m in conversation(400)])
            ts = []
            for m in msgs:
                t0 = time.perf_counter()
                await mem.aput(ChatMessage(role=m["role"], content=m["content"]))
                ts.append((time.perf_counter() - t0) * 1000)
            return ts
        out["append"] = loop.run_until_complete(li())
    elif system == "langchain":
        from langchain_community.chat_message_histories import SQLChatMessageHistory
        from langchain_core.messages import AIMessage, HumanMessage
        hist = SQLChatMessageHistory(session_id=THREAD, connection=f"sqlite:///{path}")
        app = []
        for m in msgs:
            msg = (HumanMessage if m["role"] == "user" else AIMessage)(m["content"])
            t0 = time.perf_counter()
            hist.add_message(msg)
            app.append((time.perf_counter() - t0) * 1000)
        out["append"] = app
    elif system == "agents":
        from agents import SQLiteSession
        s = SQLiteSession(THREAD, str(path))

        async def ag() -> list[float]:
            ts = []
            for m in msgs:
                t0 = time.perf_counter()
                await s.add_items([{"role": m["role"], "content": m["content"]}])
                ts.append((time.perf_counter() - t0) * 1000)
            return ts
        out["append"] = loop.run_until_complete(ag())
        s.close()
    elif system == "langgraph":
        from langgraph.store.base import PutOp
        from langgraph.store.sqlite import SqliteStore
        with SqliteStore.from_conn_string(str(path)) as store:
            store.setup()
            steps = []
            for k in range(0, len(msgs), 8):
                texts = [m["content"] for m in msgs[k:k + 8] if m["role"] == "user"][:3]
                ops = [PutOp(("memories", "default"), f"r{k}-{i}", {"text": t, "kind": "fact"},
                             index=False) for i, t in enumerate(texts)]
                t0 = time.perf_counter()
                store.batch(ops)
                steps.append((time.perf_counter() - t0) * 1000)
            out["step"] = steps
    loop.close()
    return out


# -- peak memory, one child process per system --------------------------------------------------

def rss_child(system: str, path: str) -> None:
    def rss_mb() -> float:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0
    def hwm_mb() -> float:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return 0.0
    # import what the system needs before the baseline, so it measures the data, not the code
    if system == "llamaindex":
        import llama_index.core.memory  # noqa: F401
    elif system.startswith("langchain"):
        import langchain_community.chat_message_histories  # noqa: F401
        import langchain_core.messages  # noqa: F401
    elif system == "agents":
        import agents  # noqa: F401
    counter()(["warm"])
    base = rss_mb()
    loop = asyncio.new_event_loop()
    r = Runner(system, Path(path))
    r.time_calls(loop, 20)
    peak = hwm_mb()  # not ru_maxrss: Linux carries that over from the parent across exec
    print(json.dumps({"base": base, "peak": peak}))


def peak_rss(system: str, path: Path) -> dict[str, float]:
    p = subprocess.run([sys.executable, __file__, "--rss-child", system, str(path)],
                       capture_output=True, text=True, check=True)
    return dict(json.loads(p.stdout.strip().splitlines()[-1]))


# -- report ------------------------------------------------------------------------------------

def fmt(ms: float) -> str:
    return f"{ms:.2f} ms" if ms < 100 else f"{ms:,.0f} ms"


def context_table(res: dict[int, dict[str, list[float]]], info: dict[int, dict[str, Any]]) -> str:
    out = ["| thread (messages) | system | calls | p50 | p95 | p50 ratio to memlane "
           "| messages / tokens sent |",
           "|---:|---|---:|---:|---:|---:|---:|"]
    for n, times in res.items():
        m50 = statistics.median(times["memlane"]) if "memlane" in times else float("nan")
        for s, t in times.items():
            p50 = statistics.median(t)
            ratio = "1" if s == "memlane" else f"{p50 / m50:,.2f}x" if p50 < m50 * 10 \
                else f"{p50 / m50:,.0f}x"
            out.append(f"| {n:,} | {SYSTEMS[s][0]} | {len(t)} | {fmt(p50)} | {fmt(pct(t, 95))} "
                       f"| {ratio} | {info[n].get(s, '')} |")
    return "\n".join(out)


def verdicts(res: dict[int, dict[str, list[float]]]) -> list[str]:
    out = []
    sizes = sorted(res)
    med = {n: {s: statistics.median(t) for s, t in res[n].items()} for n in sizes}
    lo, hi = sizes[0], sizes[-1]
    if "memlane" not in med[lo]:
        return out
    peers = [s for s in med[lo] if not s.startswith(("memlane", "floor"))]
    if peers:
        fastest = min(peers, key=lambda s: med[lo][s])
        r = med[lo]["memlane"] / med[lo][fastest]
        out.append(f"- At {lo:,} messages, memlane vs the fastest peer ({SYSTEMS[fastest][0]}): "
                   f"{r:.2f}x its time: target (no slower) "
                   + ("**met**." if r <= 1 else f"**missed** by {(r - 1) * 100:.0f}%."))
    whole = [s for s in med[hi] if SYSTEMS[s][2]]
    for s in whole:
        r = med[hi][s] / med[hi]["memlane"]
        out.append(f"- At {hi:,} messages, {SYSTEMS[s][0]} (reads the whole history) takes "
                   f"{r:,.0f}x memlane's time: target (at least 10x) "
                   + ("**met**." if r >= 10 else "**missed**."))
    worst_ms = max(med[n]["memlane"] for n in sizes)
    out.append("- memlane with a new message, p50: "
               + ", ".join(f"{fmt(med[n]['memlane'])} at {n:,}" for n in sizes)
               + ": target (at most 2 ms at every size) "
               + ("**met**." if worst_ms <= 2 else "**missed**."))
    if all("llamaindex" in med[n] for n in sizes):
        slower = [n for n in sizes if med[n]["memlane"] >= med[n]["llamaindex"]]
        out.append("- memlane with a new message vs LlamaIndex `Memory.aget`: "
                   + ", ".join(f"{med[n]['memlane'] / med[n]['llamaindex']:.2f}x at {n:,}"
                               for n in sizes)
                   + ": target (faster at every size) "
                   + ("**met**." if not slower else
                      f"**missed** at {', '.join(f'{n:,}' for n in slower)}."))
    if "memlane_nomsg" in med[lo]:
        out.append("- the new message's share (notes search and its notes): "
                   + ", ".join(f"+{fmt(med[n]['memlane'] - med[n]['memlane_nomsg'])} at {n:,}"
                               for n in sizes) + " over the call without one.")
    if len(sizes) > 1:
        r = med[hi]["memlane"] / med[lo]["memlane"]
        out.append(f"- memlane from {lo:,} to {hi:,} messages: {r:.2f}x "
                   f"({fmt(med[lo]['memlane'])} -> {fmt(med[hi]['memlane'])}): flat "
                   + ("**met**." if r <= 1.5 else "**missed**."))
    if "floor" in med[lo]:
        worst = max(med[n]["memlane"] / med[n]["floor"] for n in sizes)
        each = ", ".join(f"{med[n]['memlane'] / med[n]['floor']:.1f}x at {n:,}" for n in sizes)
        out.append(f"- memlane vs the bare-query floor: {each}: target (within 3x) "
                   + ("**met**." if worst <= 3 else f"**missed** (worst {worst:.1f}x)."))
    if "floor_cols" in med[lo]:
        each = ", ".join(f"{med[n]['memlane'] / med[n]['floor_cols']:.1f}x at {n:,}"
                         for n in sizes)
        out.append(f"- memlane vs the floor reading the columns memlane reads: {each}.")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--allowance", type=float, default=20.0,
                    help="seconds of calls per system and size (slow peers get fewer calls)")
    ap.add_argument("--writes", type=int, default=200, help="messages appended per system")
    ap.add_argument("--dir", default=None, help="keep the built files here and reuse them")
    ap.add_argument("--write", action="store_true", help="update docs/PERFORMANCE.md")
    ap.add_argument("--rss-child", nargs=2, metavar=("SYSTEM", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.rss_child:
        rss_child(*args.rss_child)
        return 0

    wanted = [s for s in args.systems.split(",") if s]
    unknown = [s for s in wanted if s not in SYSTEMS]
    if unknown:
        ap.error(f"unknown system(s) {unknown}; choose from {', '.join(SYSTEMS)}")
    missing = [s for s in wanted if not available(s)]
    if missing:
        print(f"not installed, skipped: {', '.join(missing)} (make bench installs the peers in "
              f".venv-bench)", file=sys.stderr)
    systems = [s for s in wanted if s not in missing]

    tmp = None
    if args.dir:
        d = Path(args.dir)
        d.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="memlane-peers-")
        d = Path(tmp.name)
    loop = asyncio.new_event_loop()
    results: dict[int, dict[str, list[float]]] = {}
    info: dict[int, dict[str, Any]] = {}
    builds: dict[int, dict[str, float]] = {}
    # How fast the machine runs Python at the start and after the context calls: absolute
    # times compare across runs only at close yardsticks (`_report.yardstick`).
    speed = [yardstick()]
    print(f"Python loop yardstick at the start: {speed[0]:.1f} ms", flush=True)
    for n in args.sizes:
        builds[n] = {}
        paths = {}
        for s in systems:
            db = DB_NAMES[s]
            path = d / f"{db}-{n}.db"
            done = Path(str(path) + ".done")
            if not done.exists():
                for suffix in ("", "-wal", "-shm"):
                    Path(str(path) + suffix).unlink(missing_ok=True)
                builds[n][db] = build(db, path, n)
                done.write_text("ok")
                print(f"built {db} {n:,} messages in {builds[n][db]:.1f} s", flush=True)
            paths[s] = path
        runners = {s: Runner(s, paths[s]) for s in systems}
        info[n] = {s: r.result(loop) for s, r in runners.items()}
        results[n] = time_context(runners, args.calls, args.allowance, loop)
        for s, t in results[n].items():
            print(f"{n:>7,} {s:<17} {len(t):>4} calls  p50 {fmt(statistics.median(t)):>10}  "
                  f"p95 {fmt(pct(t, 95)):>10}  sent {info[n][s]}", flush=True)
        del runners

    speed.append(yardstick())
    print(f"Python loop yardstick after the context calls: {speed[1]:.1f} ms", flush=True)
    print()
    ctab = context_table(results, info)
    print(ctab)
    vlines = verdicts(results)
    print("\n".join(vlines))

    hi = max(args.sizes)
    rss = {}
    for s in systems:
        if s.startswith("floor") or s in ("memlane_nomsg", "memlane_exh"):
            continue
        rss[s] = peak_rss(s, d / f"{DB_NAMES[s]}-{hi}.db")
        print(f"rss {s}: {rss[s]}", flush=True)
    rtab = ["| system | resident after imports | peak reading the thread | peak - imports |",
            "|---|---:|---:|---:|"]
    for s, r in rss.items():
        rtab.append(f"| {SYSTEMS[s][0]} | {r['base']:.0f} MB | {r['peak']:.0f} MB "
                    f"| {r['peak'] - r['base']:.0f} MB |")
    print("\n".join(rtab))

    writers = [s for s in systems
               if s not in ("langchain_approx", "floor_cols", "floor_fts", "memlane_nomsg",
                            "memlane_exh")]
    if importlib.util.find_spec("langgraph") is not None and \
            importlib.util.find_spec("langgraph.store.sqlite") is not None:
        writers.append("langgraph")
    wres = {s: time_writes(s, d, args.writes) for s in writers}
    wlabels = {"memlane": "memlane", "floor": "floor: bare `sqlite3` INSERT (WAL)",
               "llamaindex": "LlamaIndex `Memory.aput`",
               "langchain": "LangChain `SQLChatMessageHistory.add_message`",
               "agents": "OpenAI Agents `SQLiteSession.add_items`",
               "langgraph": "LangGraph `SqliteStore.batch` (3 puts)"}
    wtab = ["| write | system | count | p50 | p95 | p50 ratio to memlane |",
            "|---|---|---:|---:|---:|---:|"]
    for kind, what in (("append", "append one message"),
                       ("step", "memory step: 3 records (+ episode line)")):
        base = statistics.median(wres["memlane"][kind]) if kind in wres.get("memlane", {}) \
            else float("nan")
        for s, r in wres.items():
            if kind in r:
                p50 = statistics.median(r[kind])
                wtab.append(f"| {what} | {wlabels[s]} | {len(r[kind])} | {fmt(p50)} "
                            f"| {fmt(pct(r[kind], 95))} | {p50 / base:.2f}x |")
    print("\n".join(wtab))

    if args.write:
        versions = []
        for dist in ("llama-index-core", "langchain-core", "langchain-community", "openai-agents",
                     "langgraph", "langgraph-checkpoint-sqlite"):
            try:
                from importlib.metadata import version
                versions.append(f"{dist} {version(dist)}")
            except Exception:
                pass
        given = sys.argv[1:] if argv is None else argv
        cmd = "make bench" if given == ["--write", "--dir", ".bench-data/peers"] else \
            "python benchmarks/bench_peers.py " + " ".join(given)
        body = "\n".join([
            SECTION, "",
            f"Measured side by side in one run (`{cmd}`, which runs "
            "`benchmarks/bench_peers.py --write` in `.venv-bench`, where the peers are installed;",
            "they are not dependencies of memlane). Versions: " + ", ".join(versions) + ".", "",
            "Machine: " + machine(speed=f"{speed[0]:.1f} ms before the context calls, "
                                        f"{speed[1]:.1f} ms after them") + ".", "",
            "### Context for the next call, 4,000-token budget", "",
            "Each system stores the same conversation (user/assistant pairs, the thread of "
            "*Context assembly* above) in its own SQLite file and produces what it would send "
            "next. memlane assembles the full context (system prompt, memory tools' schemas, "
            "notes, buffer block, working memory, short-term turns) as a turn runs it, with a "
            "new message (the thread's own user turns, shuffled, one per call), so the notes "
            "search runs; beside it the same call without one, and the same call with the "
            "exhaustive search (`search_bounds=None`: the search before the bound, #22). A "
            "second floor is FTS5's own top 50 (`MATCH ... ORDER BY bm25 LIMIT 50`) of the same "
            "messages' terms on memlane's file. The peers only pick messages, "
            "counting tokens with the same cl100k tokenizer memlane uses. The floor reads, with "
            "a bare `sqlite3` connection and no processing, the rows memlane's context shows: "
            "its messages and its buffer lines. Calls rotate between the systems in blocks of "
            "10, so load hits all alike; slow peers get fewer calls (a time allowance of "
            f"{args.allowance:.0f} s each, at least 10 calls). \"messages / tokens sent\" is "
            "what one call returned, tokens counted with cl100k (memlane: its trace's total, "
            "which includes the system prompt and the tools' schemas; peers: message contents "
            "+ 4 per message; floor: rows read).", "",
            ctab, "",
            *vlines, "",
            "### Peak memory reading the "
            f"{hi:,}-message thread", "",
            "A fresh process per system: resident memory after importing the library, and the "
            "peak (`VmHWM`) after opening the thread and making 20 context calls.", "",
            *rtab, "",
            "### Writes", "",
            f"{args.writes * 2} messages appended one at a time to a thread that already holds "
            "400, each a transaction, with each system's own defaults (memlane and the floor: "
            "WAL with `synchronous=NORMAL`; the peers: SQLite's default rollback journal, an "
            "fsync per commit, except where the library sets otherwise). A memory step writes "
            "what a model's step would: memlane's `Thread.step(output=...)` validates the step "
            "JSON and applies 3 records, their sources and the episode line in one transaction "
            "(full-text index kept by triggers); LangGraph's `SqliteStore.batch` puts the same "
            "3 texts (no vector index on either side). LlamaIndex, LangChain and the Agents "
            "SDK have no long-term record store of their own to compare with.", "",
            *wtab,
        ])
        write_section(SECTION, body)
        print(f"\nwrote {ROOT / 'docs' / 'PERFORMANCE.md'}")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
