"""PostgreSQL beside SQLite: write throughput from many processes, and context() latency.

Starts a throwaway PostgreSQL with pgvector from the `pgserver` package (or uses `--url`), and for
each store measures:

- **appends/s**: P processes (spawned) each append N single messages, one call (one transaction)
  per message, (a) all to one shared thread, (b) each to its own thread. Wall time from a barrier
  to the last process's exit. PostgreSQL is measured with its default durability
  (`synchronous_commit = on`: every commit waits for the WAL flush) and with
  `synchronous_commit = off`, which is the like-for-like setting for SQLite's WAL with
  `synchronous = NORMAL` (a crash of the machine may lose the last moments of commits, never
  corrupts).
- **context() p50/p99** on one thread of 10k messages built as `bench_assemble.py` builds it
  (a heuristic memory step every 4 user turns), after a warm-up.
- **search p50/p99** in one namespace of 20k records: lexical (`search_records`, FTS5 BM25 on
  SQLite, tsvector + ts_rank on PostgreSQL) and vector (`vector_candidates`, k=10, SQLite's
  binary pre-selection + exact re-rank, pgvector HNSW on PostgreSQL) with recall@10 against an
  exact scan. The vectors are synthetic, 384 dimensions, drawn around 200 centres (embeddings of
  real text cluster like that; uniformly random vectors are a worst case no index is built for).

`--write` puts the tables under "## PostgreSQL" in docs/PERFORMANCE.md, leaving the file's other
sections alone.

    python benchmarks/bench_postgres.py                  # prints the tables
    python benchmarks/bench_postgres.py --write          # ...and updates docs/PERFORMANCE.md
    python benchmarks/bench_postgres.py --url postgresql://user:pw@host/db   # a server you run
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_assemble  # noqa: E402  (same folder: the thread builder)
from _report import machine, pct, write_section  # noqa: E402

from memlane import HistoryPolicy, Memory, open_store  # noqa: E402

SECTION = "## PostgreSQL"
HIST = HistoryPolicy(ttl_seconds=None, max_threads=None)


@contextmanager
def pg_server(url: str | None) -> Iterator[str]:
    """A server URL: `url`, or a throwaway pgserver instance stopped on exit."""
    if url:
        yield url
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    base = Path(tempfile.mkdtemp(prefix="memlane-pgbench-"))
    base.chmod(0o755)  # pgserver runs postgres as an unprivileged user when we are root
    srv = pgserver.get_server(base / "data", cleanup_mode="stop")
    try:
        yield srv.get_uri()
    finally:
        srv.cleanup()
        shutil.rmtree(base, ignore_errors=True)


def new_database(server_url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        c.execute(f"CREATE DATABASE {name}")
    return bench_url(server_url, name)


def bench_url(url: str, database: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(url)._replace(path="/" + database))


def set_synchronous_commit(server_url: str, value: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as c:
        c.execute(f"ALTER SYSTEM SET synchronous_commit = {value}")
        c.execute("SELECT pg_reload_conf()")


def settle(target: str) -> None:
    """Measure the steady state: on PostgreSQL, gather the planner statistics autovacuum would
    gather in the background after a bulk load. Until it has, the planner takes every new table
    for a few rows, and scans a namespace's vectors exactly instead of walking the HNSW index.
    (SQLite keeps no statistics unless told to; memlane never tells it, and its queries pin
    their indexes instead.)"""
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target, autocommit=True) as c:
            c.execute("ANALYZE")


# appends ---------------------------------------------------------------------------------------


def _appender(target: str, thread_id: str, n: int, barrier: Any) -> None:
    mem = Memory(open_store(target), "bench", history=HIST)
    t = mem.thread(thread_id)
    barrier.wait(timeout=120)
    for i in range(n):
        t.add("user" if i % 2 == 0 else "assistant", f"message {i} from {os.getpid()}")
    mem.close()


def appends_per_second(target: str, procs: int, n: int, shared: bool) -> float:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(procs + 1)
    tag = uuid.uuid4().hex[:8]
    ps = [ctx.Process(target=_appender,
                      args=(target, f"shared-{tag}" if shared else f"own-{tag}-{k}", n, barrier))
          for k in range(procs)]
    for p in ps:
        p.start()
    barrier.wait(timeout=120)
    t0 = time.perf_counter()
    for p in ps:
        p.join()
    elapsed = time.perf_counter() - t0
    if any(p.exitcode != 0 for p in ps):
        raise SystemExit("an appender process failed")
    return procs * n / elapsed


# context ---------------------------------------------------------------------------------------


def context_latency(targets: dict[str, str], n_messages: int, calls: int
                    ) -> dict[str, dict[str, float]]:
    """context() p50/p99 per store. The calls alternate between the stores, so load from
    anything else on the machine falls on both alike."""
    out: dict[str, dict[str, float]] = {}
    for label, target in targets.items():
        out[label] = {"built_s": bench_assemble.build(target, n_messages)}
        settle(target)
    mems = {label: Memory.open(target) for label, target in targets.items()}
    times: dict[str, list[float]] = {label: [] for label in targets}
    with_msg: dict[str, list[float]] = {label: [] for label in targets}
    # The turn as users run it: a new message each call, the thread's own user turns (the
    # same ones, in the same order, on both stores).
    first = next(iter(mems.values())).thread("bench")
    news = [m.content for m in first.messages() if m.role == "user"][-500:]
    random.Random(11).shuffle(news)
    try:
        for i in range(20 + calls):
            for label, mem in mems.items():
                th = mem.thread("bench")
                t0 = time.perf_counter()
                th.context(budget=4000)
                t1 = time.perf_counter()
                th.context(budget=4000, new_message=news[i % len(news)])
                t2 = time.perf_counter()
                if i >= 20:  # after the warm-up
                    times[label].append((t1 - t0) * 1000)
                    with_msg[label].append((t2 - t1) * 1000)
        for label, mem in mems.items():
            info = mem.thread("bench").info()
            out[label].update(
                messages=info.messages, episodes=len(mem.thread("bench").episodes()),
                records=len(mem.store.records(mem.ns, limit=10**9)),
                full_p50=statistics.median(times[label]),
                full_p99=pct(times[label], 99),
                msg_p50=statistics.median(with_msg[label]),
                msg_p99=pct(with_msg[label], 99))
    finally:
        for mem in mems.values():
            mem.close()
    return out


# search ----------------------------------------------------------------------------------------

_WORDS = ("locker garden marathon invoice piano bicycle wedding sourdough chess tax flight "
          "hotel museum doctor recipe budget meeting password printer router lease puppy "
          "vaccine dentist concert novel hiking ferry tram bakery").split()


def _corpus(n: int, seed: int = 11) -> tuple[list[str], Any, list[str], Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    names = bench_assemble._NAMES
    places = bench_assemble._PLACES
    texts = [
        f"{names[i % len(names)]} mentioned the {_WORDS[rng.integers(len(_WORDS))]} and the "
        f"{_WORDS[rng.integers(len(_WORDS))]} in {places[rng.integers(len(places))]} on day {i}."
        for i in range(n)
    ]
    centres = rng.normal(size=(200, 384))
    vecs = centres[rng.integers(0, 200, n)] + 0.6 * rng.normal(size=(n, 384))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    queries = [f"{_WORDS[rng.integers(len(_WORDS))]} {_WORDS[rng.integers(len(_WORDS))]} "
               f"{places[rng.integers(len(places))]}" for _ in range(200)]
    qv = centres[rng.integers(0, 200, 200)] + 0.6 * rng.normal(size=(200, 384))
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    return texts, vecs.astype("float32"), queries, qv.astype("float32")


def search_latency(targets: dict[str, str], n: int, calls: int
                   ) -> dict[str, dict[str, float]]:
    """Lexical and vector search p50/p99 per store, calls alternating between the stores."""
    import numpy as np

    texts, vecs, queries, qv = _corpus(n)
    stores = {label: open_store(target) for label, target in targets.items()}
    out: dict[str, dict[str, float]] = {}
    try:
        ids: dict[str, Any] = {}
        for label, store in stores.items():
            t0 = time.perf_counter()
            with store.transaction() as tx:
                rids = [tx.add_record("bench", text, "fact", [], None, time.time(), None,
                                      False) for text in texts]
            for i in range(0, n, 2000):
                store.put_vectors("bench", [(rids[j], vecs[j].tolist())
                                            for j in range(i, min(n, i + 2000))],
                                  "synthetic-384")
            ids[label] = np.asarray(rids)
            out[label] = {"loaded_s": time.perf_counter() - t0}
            settle(targets[label])
        lex: dict[str, list[float]] = {label: [] for label in stores}
        vec: dict[str, list[float]] = {label: [] for label in stores}
        recall: dict[str, list[float]] = {label: [] for label in stores}
        # 20 warm-up rounds (SQLite loads its in-process vector index on the first query).
        for i in range(20 + calls):
            q, v = queries[i % len(queries)], qv[i % len(qv)]
            exact_rows = np.argsort(-(vecs @ v))[:10]
            for label, store in stores.items():
                t1 = time.perf_counter()
                store.search_records("bench", q, 10)
                t2 = time.perf_counter()
                got = store.vector_candidates("bench", v.tolist(), 10, model="synthetic-384")
                t3 = time.perf_counter()
                if i < 20:
                    continue
                lex[label].append((t2 - t1) * 1000)
                vec[label].append((t3 - t2) * 1000)
                exact = set(ids[label][exact_rows].tolist())
                recall[label].append(len(exact & {r for r, _ in got}) / 10)
        for label, store in stores.items():
            if hasattr(store, "pool"):  # PostgreSQL: what the HNSW index saves, the exact scan
                out[label]["exact_p50"] = _pg_exact_p50(store, qv[:20])
        for label in stores:
            out[label].update(
                records=n, recall=sum(recall[label]) / len(recall[label]),
                lex_p50=statistics.median(lex[label]),
                lex_p99=pct(lex[label], 99),
                vec_p50=statistics.median(vec[label]),
                vec_p99=pct(vec[label], 99))
    finally:
        for store in stores.values():
            store.close()
    return out


def _pg_exact_p50(store: Any, qv: Any) -> float:
    """p50 of the exact scan PostgresStore falls back to (the same SQL, forced)."""
    from memlane.store.postgres.vector_search import _vec_text

    ts = []
    with store.pool.connection() as c:
        for v in qv:
            t0 = time.perf_counter()
            c.execute("WITH c AS MATERIALIZED (SELECT record_id AS id, vec FROM record_vectors"
                      " WHERE namespace = 'bench' AND model = 'synthetic-384')"
                      " SELECT id, 1 - (vec <=> %s::vector) AS sim FROM c"
                      " ORDER BY sim DESC LIMIT 10", (_vec_text(v.tolist()),)).fetchall()
            ts.append((time.perf_counter() - t0) * 1000)
    return statistics.median(ts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default=None, help="a PostgreSQL server to use (its databases "
                    "memlane_bench_* are created and dropped); default: start one with pgserver")
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--appends", type=int, default=500, help="appends per process")
    ap.add_argument("--messages", type=int, nargs="+", default=[1_000, 10_000],
                    help="thread sizes for context()")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--records", type=int, default=20_000, help="namespace size for search")
    ap.add_argument("--write", action="store_true", help="update docs/PERFORMANCE.md")
    ap.add_argument("--context-only", action="store_true",
                    help="only the context() latencies (prints; no appends, no search)")
    args = ap.parse_args(argv)
    # Stopped with SIGTERM (a timeout, CI): unwind, so the throwaway server is shut down too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    appends: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="memlane-bench-") as d, \
            pg_server(args.url) as server:
        sqlite_target = os.path.join(d, "appends.db")
        open_store(sqlite_target).close()
        pg_target = new_database(server, "memlane_bench_appends")
        open_store(pg_target).close()
        runs = [("SQLite (WAL, synchronous=NORMAL)", sqlite_target, None),
                ("PostgreSQL, synchronous_commit=on", pg_target, "on"),
                ("PostgreSQL, synchronous_commit=off", pg_target, "off")]
        for label, target, sync in runs if not args.context_only else []:
            if sync is not None and args.url is None:
                set_synchronous_commit(server, sync)
            elif sync is not None and sync != "on":
                continue  # do not change the settings of a server we did not start
            row = {}
            for shared in (True, False):
                row["shared" if shared else "own"] = appends_per_second(
                    target, args.procs, args.appends, shared)
            appends[label] = row
            print(f"{label:40s} one thread: {row['shared']:7.0f} appends/s; own threads: "
                  f"{row['own']:7.0f} appends/s", flush=True)
        if args.url is None:
            set_synchronous_commit(server, "on")

        ctx_rows: dict[str, dict[str, float]] = {}
        for n in args.messages:
            got = context_latency(
                {"SQLite": os.path.join(d, f"ctx-{n}.db"),
                 "PostgreSQL": new_database(server, f"memlane_bench_ctx_{n}")},
                n, args.calls)
            for label, r in got.items():
                ctx_rows[f"{label}|{n}"] = r
                print(f"{label:10s} {int(r['messages']):,} messages: context() p50 "
                      f"{r['full_p50']:.2f} ms p99 {r['full_p99']:.2f} ms; with a new message "
                      f"p50 {r['msg_p50']:.2f} ms p99 {r['msg_p99']:.2f} ms (built in "
                      f"{r['built_s']:.0f} s)", flush=True)
        if args.context_only:
            return 0

        search = search_latency(
            {"SQLite": os.path.join(d, "search.db"),
             "PostgreSQL": new_database(server, "memlane_bench_search")},
            args.records, args.calls)
        for label, r in search.items():
            print(f"{label:10s} {args.records:,} records: lexical p50 {r['lex_p50']:.2f} ms, "
                  f"vector p50 {r['vec_p50']:.2f} ms recall@10 {r['recall']:.2f} (loaded in "
                  f"{r['loaded_s']:.0f} s)", flush=True)

    body = render(args, appends, ctx_rows, search)
    print()
    print(body)
    if args.write:
        write_section(SECTION, body)
    return 0


def render(args: argparse.Namespace, appends: dict[str, dict[str, float]],
           ctx_rows: dict[str, dict[str, float]], search: dict[str, dict[str, float]]) -> str:
    import psycopg

    out = [
        SECTION,
        "",
        f"`python benchmarks/bench_postgres.py --write` on {machine()}; "
        f"PostgreSQL from the `pgserver` package (psycopg {psycopg.__version__}), on the same",
        "machine, over a Unix socket. Numbers from a networked server will show its round-trip",
        "time on every call.",
        "",
        f"**Appends**: {args.procs} processes x {args.appends} single-message appends (one",
        "transaction each), all to one thread or each to its own; total appends / wall time.",
        "",
        "| store | one shared thread | one thread per process |",
        "|---|---:|---:|",
    ]
    for label, r in appends.items():
        out.append(f"| {label} | {r['shared']:,.0f} appends/s | {r['own']:,.0f} appends/s |")
    out += [
        "",
        f"**context()** on one thread of each size (a heuristic memory step every 4 user "
        f"turns), {args.calls} calls after a warm-up of 20, default policy; the calls",
        "alternate between the two stores, so other load on the machine hits both alike:",
        "",
        "| store | thread (messages) | episodes | records | context() p50 | context() p99 "
        "| with a new message p50 | with a new message p99 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key, r in ctx_rows.items():
        label = key.split("|")[0]
        out.append(f"| {label} | {int(r['messages']):,} | {int(r['episodes']):,} "
                   f"| {int(r['records']):,} | {r['full_p50']:.2f} ms | {r['full_p99']:.2f} ms "
                   f"| {r['msg_p50']:.2f} ms | {r['msg_p99']:.2f} ms |")
    out += [
        "",
        f"**Search** in one namespace of {args.records:,} records, k=10, {args.calls} queries "
        "after a warm-up of 20, alternating between the stores (vectors: synthetic, 384",
        "dimensions, clustered):",
        "",
        "| store | lexical p50 | lexical p99 | vector p50 | vector p99 | vector recall@10 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, r in search.items():
        out.append(f"| {label} | {r['lex_p50']:.2f} ms | {r['lex_p99']:.2f} ms "
                   f"| {r['vec_p50']:.2f} ms | {r['vec_p99']:.2f} ms | {r['recall']:.2f} |")
    out += [
        "",
        "Reading them:",
        "",
        "- Appends on PostgreSQL cost a commit each. With `synchronous_commit = on` that is a WAL",
        "  flush, so the rate is this disk's flush rate shared by all writers; with it off (the",
        "  like-for-like setting for SQLite's `synchronous = NORMAL`) it is CPU: here "
        f"{args.procs} client",
        f"  processes and {args.procs} server backends share {os.cpu_count()} CPUs. SQLite "
        "appends in-process with no round",
        "  trip. Appends to one thread serialize on its row (SQLite: on the file); on a server",
        "  with more cores, writers to different threads scale where SQLite's single writer",
        "  lock cannot.",
        "- Each read context() makes (`context_rows`; 1-4 a call, more while the budget has",
        "  room for older turns) is one statement on PostgreSQL: one round trip, one snapshot,",
        "  index ranges sized by the window, so like SQLite's it stays flat as the thread grows;",
        "  over a network add a round trip per read. p99 here is scheduling noise.",
        "- Lexical search ranks every matching record: the synthetic corpus has a 30-word",
        "  vocabulary, so each query matches about a quarter of the namespace, a worst case for",
        "  both engines (real text matches far fewer). PostgreSQL is measured after `ANALYZE`",
        "  (what autovacuum does after a bulk load; before it, the planner takes the namespace",
        "  for a few rows and scans its vectors exactly). Vector search on PostgreSQL walks the",
        "  HNSW index (recall is measured against an exact scan, which PostgreSQL itself",
        f"  takes {search['PostgreSQL'].get('exact_p50', float('nan')):.0f} ms (p50) to do at "
        "this size); SQLite pre-selects by binary",
        "  codes in process and re-ranks exactly.",
    ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
