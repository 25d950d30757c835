"""Why the default misses a reference thread: one row per thread of a `--data` file.

For each thread: the records filed from the evidence message (and an update's stale message)
with their kinds, where the evidence's standing record ranks in the core layer for the question
(and how many standing records there are), and per budget whether the default reached it, how,
and what an update showed (`update_outcome`) and in which layers the stale value stood
(`stale_in`: "buffer" when a line of the buffer names it, "core", "notes", "short_term"...).

    python scripts/diagnose_reference.py /tmp/ref_a.jsonl [--budgets 2000,4000,8000]
        [--reader eager|cued] > /tmp/diag.jsonl
"""

from __future__ import annotations

import argparse
import json

from memlane.context.standing import rank_standing, standing_pool
from memlane.context.tokens import default_tokenizer
from memlane.eval.policies import CachedTokenizer, prepare, resolve_policies, turn_token_counts
from memlane.eval.reader import answer_in, classify, read
from memlane.eval.reference import load_reference, update_outcome
from memlane.eval.reference_run import _file, seen_texts
from memlane.eval.replay import reader_cue, reading_tools
from memlane.memory import Memory, open_store
from memlane.text import fact_terms
from memlane.validate import STANDING_KINDS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("--budgets", default="2000,4000,8000")
    ap.add_argument("--reader", default="eager")
    a = ap.parse_args()
    budgets = [int(b) for b in a.budgets.split(",")]
    spec = next(s for s in resolve_policies("memlane", None))
    tk = CachedTokenizer(default_tokenizer())
    store = open_store(":memory:")
    for n, rt in enumerate(load_reference(a.data)):
        mem = Memory(store, f"d-{n}", tokenizer=tk)
        users, _ = _file(mem, "t", rt)
        msgs = mem.thread("t").messages()
        ev = [msgs[i] for i in rt.evidence]
        ev_ids = {m.id for m in ev}
        recs = store.records(mem.ns, limit=100000)
        stale_i = next((i for i, (r, c) in enumerate(rt.messages) if r == "user" and rt.stale
                        and i not in rt.evidence and set(fact_terms(rt.stale)) <= set(
                            fact_terms(c))), None)
        stale_id = msgs[stale_i].id if stale_i is not None else None
        pool = standing_pool(store.standing_records(mem.ns, 200),
                             store.corrected_records(mem.ns, 200), fact_terms)
        standing = pool.records
        ranked = rank_standing(pool, fact_terms(rt.question), fact_terms)
        row = {"id": rt.id, "kind": rt.kind, "pos": rt.position,
               "fact": rt.messages[rt.evidence[0]][1],
               "ev_recs": [[r.id, r.kind, r.text] for r in recs if ev_ids & set(r.source_ids)],
               "stale_recs": [[r.id, r.kind, r.text] for r in recs
                              if stale_id is not None and stale_id in r.source_ids],
               "n_standing": len(standing),
               "ranked": [[r.id, r.kind] for r in ranked][:12],
               "ev_rank": next((i for i, r in enumerate(ranked) if ev_ids & set(r.source_ids)),
                               None)}
        records, _, cached, open_records, notes = reading_tools(mem)
        for b in budgets:
            prep = prepare(store, mem.ns, "t", spec, b, probe=rt.question, tokenizer=tk,
                           now=msgs[-1].ts, total_turns=users, notes=notes,
                           turn_tokens=turn_token_counts(msgs), memory=mem)
            ctx = prep.context(rt.question)
            reading = read(ctx, rt.question, tk, open_records=open_records,
                           search=cached if spec.search else None, notes=records, m=3, k=5,
                           cue_terms=reader_cue(a.reader, 2))
            cls = classify(reading, [m.content for m in ev], [m.id for m in ev])
            core = [m.content for m in ctx.messages if "standing" in m.content.lower()[:200]]
            row[str(b)] = {"cls": cls, "core_chars": sum(len(c) for c in core),
                           "upd": update_outcome(seen_texts(ctx, reading), rt.answer, rt.stale)
                           if rt.stale else None,
                           "stale_in": sorted({m.layer for m in ctx.messages
                                               if answer_in(m.content, rt.stale)})
                           if rt.stale else None}
        print(json.dumps(row), flush=True)
    store.close()
    _ = STANDING_KINDS


if __name__ == "__main__":
    main()
