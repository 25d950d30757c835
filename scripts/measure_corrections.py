"""Corrections and near-misses, filed offline: does a natural correction replace the fact it
corrects, and does an unrelated statement never replace anything?

    PYTHONPATH=src python scripts/measure_corrections.py [--data FILE] [--json] [-v]
        [--engine sqlite|postgres|both]

Data files in tests/data: `corrections_tune.jsonl` and `corrections_tune_v3.jsonl` (the rules
were worked out on them), `corrections_heldout_v2.jsonl` .. `_v9.jsonl` (each written before
its first measurement, which the commit that added it records; tuned on after), `_v10.jsonl`
(written after the last rule change, never tuned on),
`corrections_nearmiss_v3.jsonl` (20 near-misses only), and
`corrections_people_v3.jsonl` (two holders with like facts, one corrected).

Each case of the data file (default `tests/data/corrections_heldout_v2.jsonl`, one JSON object
a line: `id`, `kind` "correction" or "near_miss", `first` statements, the `second` statement,
`old`: a word of the first fact, `new`: a word of the second, or null) is one conversation: the
first statements, each with a reply, two exchanges of small talk, then 40 days later (in the
same thread for every other case, else in another thread of the namespace) the second
statement and two more exchanges. It is filed by the heuristic writer through `ingest` (the
path `memlane ingest` takes), in its own namespace, on a SQLite file and on a PostgreSQL server
started with `pgserver`.

Counted, per engine:
- `applied` (corrections): every record that held `old` after the first part has a new text
  now (its first text is in its dated history), and a current record holds `new`;
- `wrong_supersedes`: records of the first part whose text changed or went, other than the one
  a correction is about (for a near-miss: any): a supersede by an unrelated statement, data loss;
- `not_filed`: a first fact no record holds (`old`), or a second whose `new` no current record
  holds;
- `kept_both`: corrections left as two current records (the new one marked "newer than").
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memlane.ingest import ingest
from memlane.memory import Memory

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "corrections_heldout_v2.jsonl"
DAY = 86400.0
T0 = 1767225600.0  # 2026-01-01
TALK = [
    ("What's a good film for a rainy evening?", "Maybe a classic noir, something slow."),
    ("Ha, that's true.", "Glad it helped!"),
    ("Can you give me a quick soup recipe?", "Leek and potato: soften, simmer, blend."),
    ("Thanks, that's useful.", "Any time."),
    ("How do I get wine out of a carpet?", "Blot it, then cold water and a little soap."),
    ("Lovely, cheers.", "You're welcome!"),
]


def load(path: Path | str = DATA) -> list[dict[str, Any]]:
    """The cases of a data file (see the module docstring)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def has(text: str, word: str) -> bool:
    """`word` (a word or phrase) stands in `text` as whole words, any case."""
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text, re.I) is not None


def _turns(said: list[str], talk: int, t0: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    ts = t0
    pairs = [(s, "Noted, thanks for telling me.") for s in said]
    pairs += [TALK[(talk + k) % len(TALK)] for k in range(2)]
    for user, reply in pairs:
        out += [{"role": "user", "content": user, "ts": ts},
                {"role": "assistant", "content": reply, "ts": ts + 30}]
        ts += 600
    return out


def run_case(mem: Memory, n: int, case: dict[str, Any]) -> dict[str, Any]:
    """File one case in `mem` (an empty namespace) and judge it."""
    ingest(mem, "a", _turns(case["first"], n, T0))
    before = {r.id: r.text for r in mem.records()}
    old_ids = [i for i, t in before.items() if has(t, case["old"])]
    later = "a" if n % 2 else "b"
    ingest(mem, later, _turns([case["second"]], n + 2, T0 + 40 * DAY))
    after = {r.id: r.text for r in mem.records()}
    corrects = case["kind"] == "correction"
    moved = [i for i in before if after.get(i) != before[i]]
    wrong = [i for i in moved if not (corrects and i in old_ids)]
    new_current = case["new"] is None or any(has(t, case["new"]) for t in after.values())
    applied = False
    if corrects and old_ids and new_current:
        applied = all(i in after and after[i] != before[i] and any(
            h["text"] == before[i] and h["superseded"] for h in mem.record_history(i))
            for i in old_ids)
    kept_both = corrects and not applied and any("[newer than #" in t for t in after.values())
    return {"id": case["id"], "kind": case["kind"], "applied": applied,
            "wrong": [(before[i], after.get(i)) for i in wrong],
            "first_filed": bool(old_ids), "second_filed": new_current, "kept_both": kept_both,
            "records": sorted(after.values())}


def measure(store: Any, cases: list[dict[str, Any]], prefix: str = "m") -> dict[str, Any]:
    """Every case in its own namespace of `store`; the counts and each case's outcome."""
    rows = [run_case(Memory(store, f"{prefix}{n}"), n, c) for n, c in enumerate(cases)]
    corrections = [r for r in rows if r["kind"] == "correction"]
    return {
        "corrections": len(corrections),
        "near_misses": len(rows) - len(corrections),
        "applied": sum(r["applied"] for r in corrections),
        "kept_both": sum(r["kept_both"] for r in corrections),
        "wrong_supersedes": sum(len(r["wrong"]) for r in rows),
        "not_filed": sum((not r["first_filed"]) + (not r["second_filed"]) for r in rows),
        "cases": rows,
    }


@contextmanager
def _engine(kind: str) -> Iterator[Any]:
    if kind == "sqlite":
        from memlane.store.sqlite import SQLiteStore

        with tempfile.TemporaryDirectory() as d:
            store = SQLiteStore(Path(d) / "corrections.db")
            try:
                yield store
            finally:
                store.close()
        return
    import pgserver

    from memlane.store.postgres import PostgresStore

    with tempfile.TemporaryDirectory() as d:
        Path(d).chmod(0o755)
        server = pgserver.get_server(Path(d) / "data", cleanup_mode="stop")
        try:
            store = PostgresStore(server.get_uri(), min_size=1, max_size=4)
            try:
                yield store
            finally:
                store.close()
        finally:
            server.cleanup()


def _report(kind: str, res: dict[str, Any], verbose: bool) -> None:
    print(f"{kind}: corrections applied {res['applied']} of {res['corrections']} "
          f"(kept both {res['kept_both']}); wrong supersedes {res['wrong_supersedes']} "
          f"(over {res['corrections'] + res['near_misses']} conversations); "
          f"facts not filed {res['not_filed']}")
    for r in res["cases"]:
        bad = (r["kind"] == "correction" and not r["applied"]) or r["wrong"] or \
            not r["first_filed"] or not r["second_filed"]
        if verbose and bad:
            print(f"  {r['id']}: applied={r['applied']} wrong={r['wrong']} "
                  f"filed={r['first_filed']},{r['second_filed']} records={r['records']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--engine", choices=("sqlite", "postgres", "both"), default="both")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every case that failed")
    args = ap.parse_args(argv)
    cases = load(args.data)
    out: dict[str, Any] = {}
    for kind in ("sqlite", "postgres") if args.engine == "both" else (args.engine,):
        with _engine(kind) as store:
            out[kind] = measure(store, cases)
        if not args.json:
            _report(kind, out[kind], args.verbose)
    if args.json:
        json.dump({k: {x: y for x, y in v.items() if x != "cases"} for k, v in out.items()},
                  sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
