"""What the offline writer (the heuristic memory step) keeps: facts kept, non-facts filed.

    PYTHONPATH=src python scripts/measure_heuristic.py [--locomo PATH] [--labelled PATH]

- Labelled conversations (tests/data/fact_conversations.jsonl, written for this): every user
  message is marked fact or not; each thread is filed by the heuristic through `Thread.step`.
  Reports facts kept (a record has the message as a source) and non-facts filed.
- LoCoMo (the development split, by path): each conversation replayed as the evaluation does
  (both speakers as named user turns, one stretch per session). Its questions' evidence ids say
  which turns hold facts someone asked about: reports the share of those turns that some record
  came from, the records per turn, and the share of records from evidence turns. Evidence is
  not exhaustive (an unasked fact is still a fact), so the last number is a floor on precision.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from memlane.eval.locomo import load_locomo
from memlane.eval.replay import replay
from memlane.memory import Memory
from memlane.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent


def labelled(path: Path) -> dict[str, float]:
    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    with tempfile.TemporaryDirectory() as d:
        mem = Memory(SQLiteStore(Path(d) / "m.db"), "u")
        fact_of: dict[int, bool] = {}
        texts: dict[int, str] = {}
        lines: list[str] = []
        for tid in dict.fromkeys(r["thread"] for r in rows):
            t = mem.thread(tid)
            for r in (r for r in rows if r["thread"] == tid):
                m = t.add("user", r["text"])
                t.add("assistant", "Okay.")
                fact_of[m.id] = bool(r["fact"])
                texts[m.id] = r["text"]
            lines.extend(r.episode.line for r in t.flush())
        recs = mem.records()
        sourced = {s for r in recs for s in r.source_ids}
        facts = [i for i, f in fact_of.items() if f]
        kept = [i for i in facts if i in sourced]
        non = [i for i, f in fact_of.items() if not f and i in sourced]
        missed = [texts[i] for i in facts if i not in sourced]
        mem.store.close()
    return {"facts": len(facts), "facts_kept": len(kept), "non_facts": len(fact_of) - len(facts),
            "non_facts_filed": len(non), "records": len(recs),
            "missed": missed, "filed_non_facts": [texts[i] for i in non], "lines": lines}


def locomo(path: Path) -> dict[str, float]:
    convs = load_locomo(path)
    ev_total = ev_kept = recs_total = turns_total = recs_from_ev = 0
    for conv in convs:
        with tempfile.TemporaryDirectory() as d:
            mem = Memory(SQLiteStore(Path(d) / "m.db"), "u")
            rep = replay(mem, conv, "heuristic")
            evidence = {e for q in conv.questions for e in q.evidence if e in rep.by_dia}
            ev_ids = {rep.by_dia[e].id for e in evidence}
            sourced = {s for r in rep.records.values() for s in r.source_ids}
            ev_total += len(ev_ids)
            ev_kept += len(ev_ids & sourced)
            recs_total += len(rep.records)
            turns_total += rep.turns
            recs_from_ev += sum(1 for r in rep.records.values() if set(r.source_ids) & ev_ids)
            mem.store.close()
    return {"conversations": len(convs), "turns": turns_total, "evidence_turns": ev_total,
            "evidence_turns_kept": ev_kept,
            "evidence_kept_share": round(ev_kept / max(ev_total, 1), 3),
            "records": recs_total, "records_per_turn": round(recs_total / max(turns_total, 1), 3),
            "records_from_evidence_share": round(recs_from_ev / max(recs_total, 1), 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--locomo", type=Path,
                    default=ROOT.parent.parent / "shared/data/locomo/locomo-dev.json")
    ap.add_argument("--labelled", type=Path,
                    default=ROOT / "tests/data/fact_conversations.jsonl")
    ap.add_argument("--verbose", action="store_true", help="list misses and filed non-facts")
    a = ap.parse_args(argv)
    lab = labelled(a.labelled)
    detail = {k: lab.pop(k) for k in ("missed", "filed_non_facts", "lines")}
    print("labelled:", json.dumps(lab))
    if a.verbose:
        print(json.dumps(detail, indent=1))
    if a.locomo.exists():
        print("locomo:", json.dumps(locomo(a.locomo)))
    else:
        print(f"locomo: {a.locomo} not found (pass --locomo PATH)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
