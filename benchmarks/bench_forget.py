"""What forgetting cleanly costs, and what the plain `fact_terms` costs a turn.

- `pg`: `forget_record` on PostgreSQL (a pgserver of its own) with the post-forget statistics
  refresh (`PgForget._after_forget`: ANALYZE of the touched text columns) and without it, the
  two alternating on the same namespace of N messages and N/10 records.
- `terms`: a turn with a new message (`Thread.context(budget=4000, new_message=...)`, the
  thread's own user turns) on bench_assemble's thread of N messages: how many texts reach
  `text.fact_terms` (past the Memory's own memo) and what they cost plain, against the word memo
  step/heuristic.py kept at module level before (a forget did not empty it), warm.

    python benchmarks/bench_forget.py pg --sizes 10000 100000
    python benchmarks/bench_forget.py terms --sizes 1000 10000
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from memlane import text  # noqa: E402
from memlane.memory import Memory  # noqa: E402

_WORDS = "apple river stone cloud maple harbor violet ember canyon lantern".split()


def pg(n: int, forgets: int = 20) -> None:
    import pgserver  # type: ignore[import-untyped]

    from memlane.store.postgres import PostgresStore
    from memlane.store.postgres import forget as pgf

    base = Path(tempfile.mkdtemp(prefix="bench-forget-"))
    base.chmod(0o755)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        srv = pgserver.get_server(base / "data", cleanup_mode="stop")
    try:
        store = PostgresStore(srv.get_uri(), min_size=1, max_size=2)
        mem = Memory(store, "n")
        t = mem.thread("t")
        msgs = [{"role": "user" if i % 2 == 0 else "assistant",
                 "content": f"Message {i} about the {_WORDS[i % 10]} and the "
                            f"{_WORDS[i * 7 % 10]}, code Q{i:06d}."} for i in range(n)]
        for k in range(0, n, 1000):
            t.extend(msgs[k:k + 1000])
        ids = [mem.remember(f"Fact {i}: the {_WORDS[i % 10]} code is Q{i * 10:06d}.").id
               for i in range(n // 10)]
        refresh = pgf.PgForget._after_forget

        def without(self: Any, tables: Any = ()) -> None:
            refresh(self, ())

        took: dict[str, list[float]] = {"with the refresh": [], "without": []}
        try:
            for k, rid in enumerate(ids[:forgets]):
                name = "with the refresh" if k % 2 == 0 else "without"
                pgf.PgForget._after_forget = refresh if k % 2 == 0 else without  # type: ignore
                t0 = time.perf_counter()
                mem.forget_record(rid)
                took[name].append(time.perf_counter() - t0)
        finally:
            pgf.PgForget._after_forget = refresh  # type: ignore[method-assign]
        for name, v in took.items():
            print(f"pg N={n}: forget_record {name}: median {statistics.median(v) * 1e3:.1f} ms "
                  f"({len(v)} forgets)")
        store.close()
    finally:
        srv.cleanup()


def _memo_terms() -> Any:
    """`fact_terms` with the module-level word memo it had before (for comparison only)."""
    memo: dict[str, str] = {}

    def term(w: str) -> str:
        lw = w.lower().strip("'-.")
        lw = lw[:-2] if lw.endswith("'s") else lw
        return "" if not lw or lw in text.FACT_STOPWORDS else text.stem(lw)

    def fact_terms(s: str) -> frozenset[str]:
        out = set()
        for w in text.FACT_WORD.findall(s.replace("\u2019", "'")):
            t = memo.get(w)
            if t is None:
                t = memo[w] = term(w)
            if t:
                out.add(t)
        return frozenset(out)
    return fact_terms


def terms(n: int, calls: int = 60) -> None:
    import bench_assemble  # type: ignore[import-not-found]

    import memlane.memory as mm

    path = str(Path(tempfile.mkdtemp()) / "m.db")
    bench_assemble.build(path, n)
    seen: list[str] = []
    plain = text.fact_terms

    def counting(s: str) -> frozenset[str]:
        seen.append(s)
        return plain(s)
    mm.fact_terms = counting  # type: ignore[attr-defined]
    con = sqlite3.connect(path)
    users = [r[0] for r in con.execute(
        "SELECT content FROM messages WHERE role = 'user' ORDER BY id DESC LIMIT 200")]
    con.close()
    random.Random(11).shuffle(users)
    with Memory.open(path) as mem:
        th = mem.thread("bench")
        for m in users[:5]:
            th.context(budget=4000, new_message=m)
        seen.clear()
        times = []
        for m in users[5:5 + calls]:
            t0 = time.perf_counter()
            th.context(budget=4000, new_message=m)
            times.append(time.perf_counter() - t0)
    memo = _memo_terms()
    for s in seen:
        memo(s)  # warm, as a long-running process had it

    def cost(fn: Any) -> float:
        best = min(_timed(fn, seen) for _ in range(5))
        return best / calls * 1e6
    print(f"terms N={n}: turn median {statistics.median(times) * 1e3:.2f} ms; "
          f"{len(seen) / calls:.1f} texts a turn reach fact_terms; plain {cost(plain):.1f} us "
          f"a turn, old word memo {cost(memo):.1f} us")


def _timed(fn: Any, texts: list[str]) -> float:
    t0 = time.perf_counter()
    for s in texts:
        fn(s)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["pg", "terms"])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000])
    args = ap.parse_args()
    for n in args.sizes:
        (pg if args.what == "pg" else terms)(n)


if __name__ == "__main__":
    main()
