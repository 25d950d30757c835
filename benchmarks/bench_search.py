"""Search latency at 10k, 100k and 1M records: lexical (BM25) and hybrid (BM25 + vectors).

    .venv/bin/python benchmarks/bench_search.py [--sizes 10000,100000,1000000] [--queries 200]

Data is synthetic and says so: record texts are 6-13 pseudo-words drawn from a 50,000-word
vocabulary with a Zipf-Mandelbrot distribution (p ~ 1/(rank + 50), so the commonest content word
is in ~3% of records, as in real text), mixed with English function words. Queries are 4 words
taken from a random record. Vectors are **random unit vectors** (384 dimensions, the size of
e5-small): they time the vector path, they say nothing about its quality. Query embedding is
excluded from the hybrid numbers (it is the embedder's cost, reported separately by
locomo_search.py); the query vector is a stored vector plus noise.

One namespace holds all records (the worst case for one user's search). Databases are built once
under --dir and reused. Times are wall-clock per `Memory.search(query, k=5)` call, after one
warm-up pass over 20 queries (the first vector query of a process loads the namespace's index:
reported as "index load").

Also reported, so a run can be judged: the process's resident memory before opening the database
and after the index load ("rss"), and the machine's load while the timed queries ran: how busy
the CPUs were in all (from /proc/stat) and how much of that was other processes ("others", the
machine's busy time minus this process's CPU time; 100% = one core).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from memlane import Memory
from memlane.search.hybrid import SearchWorkers, search
from memlane.store.sqlite import SQLiteStore

DIM = 384
MODEL = "bench/random-unit-384"
FUNC = ["the", "a", "to", "and", "of", "in", "on", "for", "with", "is", "was", "at", "my",
        "her", "his", "their"]


class QueryVectors:
    """An `Embedder` stand-in: returns prepared query vectors in turn (timing only)."""

    name = MODEL
    dim = DIM

    def __init__(self, vecs: np.ndarray) -> None:
        self.vecs = vecs
        self.i = 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = []
        for _ in texts:
            out.append(self.vecs[self.i % len(self.vecs)].tolist())
            self.i += 1
        return out


def vocabulary(rng: np.random.Generator, v: int = 50_000) -> np.ndarray:
    syl = np.array(["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pe", "da", "gu", "ri", "zo",
                    "ba", "fe", "ul", "om", "ix"])
    words: set[str] = set()
    while len(words) < v:
        words.add("".join(rng.choice(syl, rng.integers(2, 5))))
    arr = np.array(sorted(words))
    rng.shuffle(arr)
    return arr


def build(path: Path, n: int) -> None:
    rng = np.random.default_rng(1)
    words = vocabulary(rng)
    p = 1 / (np.arange(len(words)) + 50.0)
    p /= p.sum()
    store = SQLiteStore(path)
    c = store.conn
    batch = 20_000
    t0 = time.perf_counter()
    for start in range(0, n, batch):
        m = min(batch, n - start)
        nw = rng.integers(6, 14, m)
        idx = rng.choice(len(words), int(nw.sum()), p=p)
        fn = rng.integers(0, len(FUNC), int(nw.sum()))
        rows, o = [], 0
        for j in range(m):
            ws = [f"{FUNC[fn[o + x]]} {words[idx[o + x]]}" if x % 2 else str(words[idx[o + x]])
                  for x in range(nw[j])]
            o += nw[j]
            rows.append(("bench", " ".join(ws), "fact", float(start + j), float(start + j)))
        c.execute("BEGIN")
        c.executemany("INSERT INTO records (namespace, text, kind, created, updated)"
                      " VALUES (?, ?, ?, ?, ?)", rows)
        c.execute("COMMIT")
        vecs = rng.standard_normal((m, DIM), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        ids = [r[0] for r in c.execute("SELECT id FROM records WHERE namespace = 'bench' AND"
                                       " id > ? ORDER BY id", (start,))]
        store.put_vectors("bench", list(zip(ids, vecs, strict=True)), MODEL)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    print(f"  built {n:,} records in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def rss_mb() -> float:
    """Resident memory of this process, MB (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_ticks() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot (Linux; zeros elsewhere)."""
    try:
        with open("/proc/stat") as f:
            v = [float(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0.0, 0.0
    hz = os.sysconf("SC_CLK_TCK")
    idle = v[3] + (v[4] if len(v) > 4 else 0.0)  # idle + iowait
    return (sum(v) - idle) / hz, sum(v) / hz


class Load:
    """Machine load over a stretch of time: CPU busy in all, and by processes other than this."""

    def __enter__(self) -> Load:
        self.t0, self.c0, self.b0 = time.perf_counter(), time.process_time(), cpu_ticks()
        return self

    def __exit__(self, *exc: object) -> None:
        wall = time.perf_counter() - self.t0
        busy = cpu_ticks()[0] - self.b0[0]
        ours = time.process_time() - self.c0
        self.busy_pct = round(100 * busy / wall)
        self.others_pct = max(0, round(100 * (busy - ours) / wall))


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def sample_queries(conn: Any, rng: np.random.Generator,
                   n: int) -> tuple[list[str], np.ndarray]:
    """n queries from random stored records: 4 of a record's content words, and that record's
    vector plus noise (so each query has one planted neighbour)."""
    top = conn.execute("SELECT MAX(id) FROM records").fetchone()[0]
    queries, qvecs = [], []
    for rid in rng.integers(1, top + 1, n):
        text, blob = conn.execute(
            "SELECT r.text, v.vec FROM records r JOIN record_vectors v ON v.record_id = r.id"
            " WHERE r.id = ?", (int(rid),)).fetchone()
        ws = [w for w in text.split() if w not in FUNC]
        queries.append(" ".join(rng.choice(ws, min(4, len(ws)), replace=False)))
        v = np.frombuffer(blob, "<f4") + rng.standard_normal(DIM).astype(np.float32) * 0.05
        qvecs.append(v / np.linalg.norm(v))
    return queries, np.array(qvecs, dtype=np.float32)


def measure(path: Path, n_queries: int) -> dict[str, object]:
    rss0 = rss_mb()
    mem = Memory.open(path, namespace="bench")
    top = mem.store.conn.execute("SELECT MAX(id) FROM records").fetchone()[0]
    queries, qvecs = sample_queries(mem.store.conn, np.random.default_rng(7), n_queries + 20)
    emb = QueryVectors(qvecs)
    workers = SearchWorkers()  # what Memory.search passes: the vector half beside the lexical
    t = time.perf_counter()
    search(mem.store, "bench", queries[0], 5, embedder=emb, workers=workers)
    load = time.perf_counter() - t
    out: dict[str, object] = {"records": top, "index_load_s": round(load, 2),
                              "rss_mb_before": round(rss0), "rss_mb_after_load": round(rss_mb())}
    for mode in ("lexical", "hybrid"):
        e = emb if mode == "hybrid" else None
        for q in queries[:20]:  # warm-up
            search(mem.store, "bench", q, 5, embedder=e, workers=workers)
        emb.i = 20
        times = []
        with Load() as ld:
            for q in queries[20:]:
                t = time.perf_counter()
                search(mem.store, "bench", q, 5, embedder=e, workers=workers)
                times.append((time.perf_counter() - t) * 1000)
        out[mode] = {"p50_ms": round(pct(times, 0.5), 1), "p95_ms": round(pct(times, 0.95), 1),
                     "mean_ms": round(statistics.mean(times), 1),
                     "cpu_busy_pct": ld.busy_pct, "others_cpu_pct": ld.others_pct}
    out["rss_mb_end"] = round(rss_mb())
    workers.close()
    mem.close()
    return out


def measure_apart(path: Path, n_queries: int) -> dict[str, object]:
    """`measure` in a fresh process, so memory and caches of one size do not carry over."""
    out = subprocess.run([sys.executable, __file__, "--measure", str(path), "--queries",
                          str(n_queries)], check=True, stdout=subprocess.PIPE, text=True).stdout
    result: dict[str, object] = json.loads(out)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--dir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp"))
                    / "memlane-bench")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # one size, JSON out
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.queries)))
        return 0
    args.dir.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start", flush=True)
    results = []
    for n in (int(s) for s in args.sizes.split(",")):
        path = args.dir / f"search-{n}.db"
        if not path.exists():
            build(path, n)
        r: dict[str, Any] = measure_apart(path, args.queries)
        results.append(r)
        print(f"{n:>9,} records  lexical p50 {r['lexical']['p50_ms']:6.1f} ms  "
              f"p95 {r['lexical']['p95_ms']:6.1f} ms   hybrid p50 {r['hybrid']['p50_ms']:6.1f} ms"
              f"  p95 {r['hybrid']['p95_ms']:6.1f} ms   (index load {r['index_load_s']} s)",
              flush=True)
        lx, hy = r["lexical"], r["hybrid"]
        print(f"{'':>18}rss {r['rss_mb_before']} -> {r['rss_mb_after_load']} MB after index"
              f" load ({r['rss_mb_end']} MB at end); CPU busy {lx['cpu_busy_pct']}% / "
              f"{hy['cpu_busy_pct']}% (lexical / hybrid), other processes"
              f" {lx['others_cpu_pct']}% / {hy['others_cpu_pct']}%", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
