"""The needle workload: plant a fact, bury it past the window, ask for it, on every policy.

For each seed and depth, `make_needle_thread` writes a conversation of `turns` exchanges of real
small talk with one fact planted at the exchange `depth * turns` (0 = the first exchange), and the
question for it as the last message. The exchanges are appended to a fresh thread one by one and
filed as an agent would file them: memlane's heuristic memory step after each exchange whenever a
stretch is due (every 4 user turns, `Cadence()`). Then each policy assembles the context for the
question at the same budget, on the same thread, and the reader (`memlane.eval.reader`) decides
what to open and search. Reached means: the needle message is in view, or a pinned note, an opened
record or a search result came from it, or (summary) the summary contains the answer.

The `summary` policy's summary here is heuristic, and named for what it is: the texts of the
records the heuristic extractor filed from the stretches wholly before the window, newest first,
joined until a third of the budget. (A model's summary would be worded differently; this one keeps
the extractor's sentences verbatim, so it is if anything kind to the summary policy.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..context.tokens import default_tokenizer
from ..errors import UsageError
from ..memory import Memory, open_store
from ..search.embed import get_embedder
from ..types import Record
from .needle import NeedleThread, make_needle_thread
from .policies import CachedTokenizer, prepare, resolve_policies, turn_token_counts
from .reader import LexicalIndex, classify, pointed_at, read
from .replay import reader_cue, reading_tools
from .report import Progress, Tally

__all__ = ["DEFAULT_DEPTHS", "needle_exchange", "run_needle"]

DEFAULT_DEPTHS = (0.0, 0.25, 0.5, 0.75)
"""Where the fact is planted, as a fraction of the thread (0 = the first exchange)."""


def needle_exchange(depth: float, turns: int) -> int:
    """The exchange index a depth fraction plants the fact at."""
    if not 0.0 <= depth < 1.0:
        raise UsageError(f"depth {depth} is outside the thread: use fractions 0 <= d < 1 "
                         "(0 = the first exchange, 0.5 = the middle)")
    return min(turns - 1, int(depth * turns))


def _file(mem: Memory, thread_id: str, nt: NeedleThread) -> tuple[int, int]:
    """Append the thread (all but the question) exchange by exchange, filing as it goes.
    Returns (user turns, memory steps)."""
    t = mem.thread(thread_id)
    body = nt.messages[:-1]
    users = steps = 0
    for i in range(0, len(body), 2):
        t.extend([{"role": r, "content": c} for r, c in body[i:i + 2]])
        users += 1
        steps += len(t.maybe_step(turn_done=True))  # each exchange is a whole turn
    return users, steps


def _summary_source(mem: Memory, thread_id: str, records: dict[int, Record],
                    tokenizer: CachedTokenizer) -> Callable[[int, int], str]:
    episodes = mem.thread(thread_id).episodes()

    def summary_for(window_start: int, cap: int) -> str:
        chosen: list[str] = []
        used = 0
        for ep in reversed(episodes):
            if ep.end >= window_start:
                continue
            for rid in reversed(ep.record_ids):
                r = records.get(rid)
                if r is None:
                    continue
                n = tokenizer.count([r.text])[0] + 1
                if used + n > cap:
                    return " ".join(reversed(chosen))
                chosen.append(r.text)
                used += n
        return " ".join(reversed(chosen))

    return summary_for


@dataclass
class _NeedleRun:
    """What stays the same across the needle's threads."""

    budgets: Sequence[int]
    specs: list[Any]
    tk: CachedTokenizer
    store: Any
    open_lines: int
    search_k: int
    cue: int | None
    tallies: dict[tuple[int, str], Tally]


def _measure_thread(run: _NeedleRun, mem: Memory, nt: NeedleThread, users: int,
                    depth_key: str) -> str:
    """Ask one filed needle thread its question under every policy at every budget, and tally
    how the needle was reached; returns the search's name."""
    tk = run.tk
    msgs = mem.thread("t").messages()
    needle = msgs[nt.needle_index]
    records, search_name, cached, open_records, notes = reading_tools(mem)
    summary_for = _summary_source(mem, "t", records, tk)
    turn_tokens = turn_token_counts(msgs)
    for budget in run.budgets:
        for spec in run.specs:
            prep = prepare(
                run.store, mem.ns, "t", spec, budget, probe=nt.question, tokenizer=tk,
                now=msgs[-1].ts, total_turns=users,
                summary_for=summary_for if spec.summary else None,
                notes=notes if spec.notes else (), turn_tokens=turn_tokens,
                memory=mem,
            )
            ctx = prep.context(nt.question)
            reading = read(
                ctx, nt.question, tk, open_records=open_records,
                search=cached if spec.search else None, notes=records,
                summary=prep.summary, m=run.open_lines, k=run.search_k, cue_terms=run.cue,
            )
            cls = classify(reading, [needle.content], [needle.id], nt.answer)
            run.tallies[(budget, spec.name)].add(
                cls, reading, depth_key, listed=pointed_at(ctx, records, [needle.id]))
    return search_name


def run_needle(
    budgets: Sequence[int],
    *,
    depths: Sequence[float] = DEFAULT_DEPTHS,
    seeds: int = 10,
    turns: int = 120,
    policies: str | Sequence[str] | None = None,
    filler: str = "auto",
    open_lines: int = 3,
    search_k: int = 5,
    progress: bool = True,
    embedder: str | None = None,
    reader: str = "eager",
    cue_terms: int = 2,
    ablate: str | Sequence[str] | None = None,
) -> dict[str, Any]:
    """Run the needle workload; returns the report dict (see `memlane.eval.report`).
    `reader`/`cue_terms` as in `memlane.eval.replay.run_locomo` (the needle has no names)."""
    if not budgets or any(b <= 0 for b in budgets):
        raise UsageError("budgets must be positive token counts, e.g. --budget 2000")
    if seeds < 1 or turns < 2:
        raise UsageError("use at least 1 seed and 2 turns")
    cue = reader_cue(reader, cue_terms)
    specs = resolve_policies(policies, ablate)
    exchanges = sorted({needle_exchange(d, turns) for d in depths})
    emb = get_embedder(embedder)
    tk = CachedTokenizer(default_tokenizer())
    bar = Progress(seeds * len(exchanges), "needle", enabled=progress)
    store = open_store(":memory:")
    run = _NeedleRun(budgets, specs, tk, store, open_lines, search_k, cue,
                     {(b, s.name): Tally() for b in budgets for s in specs})
    users_total = steps_total = 0
    filler_source = ""
    search_name = ""
    try:
        for seed in range(seeds):
            for ex in exchanges:
                nt = make_needle_thread(seed, turns, ex, filler)  # type: ignore[arg-type]
                filler_source = nt.filler_source
                mem = Memory(store, f"needle-{seed}-{ex}", tokenizer=tk, embedder=emb)
                users, steps = _file(mem, "t", nt)
                users_total += users
                steps_total += steps
                search_name = _measure_thread(run, mem, nt, users, f"{ex / turns:.2f}")
                bar.step(f"seed {seed} exchange {ex}")
    finally:
        bar.close()
        store.close()
    rate = steps_total / max(users_total, 1)
    for (_, name), tally in run.tallies.items():
        spec = next(s for s in specs if s.name == name)
        tally.model_calls_per_turn = rate if (spec.needs_records or spec.summary) else 0.0
    grid = [
        {"budget": b,
         "policies": {s.name: run.tallies[(b, s.name)].to_dict("by_depth") for s in specs}}
        for b in budgets
    ]
    out: dict[str, Any] = {
        "workload": "needle",
        "turns": turns,
        "depths": [round(ex / turns, 2) for ex in exchanges],
        "seeds": seeds,
        "threads": seeds * len(exchanges),
        "filler": filler_source,
        "reader": {"reader": reader, "cue_terms": cue, "open_lines": open_lines,
                   "search_k": search_k,
                   "search": search_name or LexicalIndex.name},
    }
    if len(budgets) == 1:
        out.update(grid[0])
    else:
        out["budgets"] = grid
    return out
