"""Run the reference workload (`memlane.eval.reference`) through every policy.

Each thread is appended exchange by exchange to a fresh namespace and filed as an agent files it
(the heuristic memory step whenever a stretch is due, `Cadence()`), exactly as the needle
workload does; then each policy assembles the context for the question at the same budget and
the offline reader (`memlane.eval.reader.read`, the same rules for every policy and workload)
opens and searches. Reached: an evidence message is in view, or a note, an opened record or a
search result came from it. Results are grouped by the item's kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..context.tokens import default_tokenizer
from ..errors import UsageError
from ..memory import Memory, open_store
from ..search.embed import get_embedder
from .policies import CachedTokenizer, prepare, resolve_policies, turn_token_counts
from .reader import classify, pointed_at, read
from .reference import REFERENCE_KINDS, RefThread, load_reference, make_reference_thread
from .replay import reader_cue, reading_tools
from .report import Progress, Tally

__all__ = ["run_reference"]


def _file(mem: Memory, thread_id: str, rt: RefThread) -> tuple[int, int]:
    """Append the conversation exchange by exchange (a user message and what follows it),
    filing whatever is due after each. Returns (user turns, memory steps)."""
    t = mem.thread(thread_id)
    users = steps = 0
    chunk: list[dict[str, Any]] = []

    def flush() -> None:
        nonlocal steps
        if chunk:
            t.extend(chunk)
            chunk.clear()
            steps += len(t.maybe_step())

    for j, (role, content) in enumerate(rt.messages):
        if role == "user":
            flush()
            users += 1
        row: dict[str, Any] = {"role": role, "content": content}
        if rt.ts:
            row["ts"] = rt.ts[j]
        chunk.append(row)
    flush()
    return users, steps


def _threads(data: str | Path | None, seeds: int, turns: int, kinds: Sequence[str],
             filler: str) -> list[RefThread]:
    """The threads of `data`, or `seeds` generated threads of each kind."""
    if data is not None:
        return load_reference(data)
    if seeds < 1:
        raise UsageError("use at least 1 seed")
    for k in kinds:
        if k not in REFERENCE_KINDS:
            raise UsageError(f"unknown kind {k!r}: use {', '.join(REFERENCE_KINDS)}")
    return [make_reference_thread(s, turns, k, filler) for k in kinds for s in range(seeds)]


@dataclass
class _Measuring:
    """What stays the same across the workload's threads."""

    store: Any
    budgets: Sequence[int]
    specs: list[Any]
    tk: CachedTokenizer
    tallies: dict[tuple[int, str], Tally]
    open_lines: int
    search_k: int
    cue: int | None


def _measure_thread(run: _Measuring, mem: Memory, rt: RefThread, users: int) -> str:
    """Ask one filed thread its question under every policy at every budget, and tally how its
    evidence was reached; returns the search's name."""
    tk = run.tk
    msgs = mem.thread("t").messages()
    evidence = [msgs[i] for i in rt.evidence]
    records, search_name, cached, open_records, notes = reading_tools(mem)
    turn_tokens = turn_token_counts(msgs)
    for budget in run.budgets:
        for spec in run.specs:
            if spec.summary:
                continue  # no summaries here: the needle's heuristic one is named apart
            prep = prepare(run.store, mem.ns, "t", spec, budget, probe=rt.question,
                           tokenizer=tk, now=msgs[-1].ts, total_turns=users,
                           notes=notes if spec.notes else (), turn_tokens=turn_tokens,
                           memory=mem)
            ctx = prep.context(rt.question)
            reading = read(ctx, rt.question, tk, open_records=open_records,
                           search=cached if spec.search else None, notes=records,
                           m=run.open_lines, k=run.search_k, cue_terms=run.cue)
            cls = classify(reading, [m.content for m in evidence], [m.id for m in evidence])
            run.tallies[(budget, spec.name)].add(
                cls, reading, rt.kind, listed=pointed_at(ctx, records, [m.id for m in evidence]))
    return search_name


def run_reference(
    budgets: Sequence[int],
    *,
    data: str | Path | None = None,
    seeds: int = 10,
    turns: int = 300,
    kinds: Sequence[str] = REFERENCE_KINDS,
    policies: str | Sequence[str] | None = None,
    ablate: str | Sequence[str] | None = None,
    filler: str = "auto",
    open_lines: int = 3,
    search_k: int = 5,
    progress: bool = True,
    embedder: str | None = None,
    reader: str = "eager",
    cue_terms: int = 2,
) -> dict[str, Any]:
    """Generated threads (`seeds` per kind) or, with `data`, the threads of a JSONL file."""
    if not budgets or any(b <= 0 for b in budgets):
        raise UsageError("budgets must be positive token counts, e.g. --budget 4000")
    cue = reader_cue(reader, cue_terms)
    specs = resolve_policies(policies, ablate)
    threads = _threads(data, seeds, turns, kinds, filler)
    emb = get_embedder(embedder)
    tk = CachedTokenizer(default_tokenizer())
    tallies = {(b, s.name): Tally() for b in budgets for s in specs}
    bar = Progress(len(threads), "reference", enabled=progress)
    store = open_store(":memory:")
    users_total = steps_total = 0
    search_name = ""
    try:
        for n, rt in enumerate(threads):
            mem = Memory(store, f"ref-{n}", tokenizer=tk, embedder=emb)
            users, steps = _file(mem, "t", rt)
            users_total += users
            steps_total += steps
            search_name = _measure_thread(
                _Measuring(store, budgets, specs, tk, tallies, open_lines, search_k, cue),
                mem, rt, users)
            bar.step(rt.id)
    finally:
        bar.close()
        store.close()
    rate = steps_total / max(users_total, 1)
    shown = [s for s in specs if not s.summary]
    for (_, name), tally in tallies.items():
        spec = next(s for s in specs if s.name == name)
        tally.model_calls_per_turn = rate if spec.needs_records else 0.0
    grid = [{"budget": b,
             "policies": {s.name: tallies[(b, s.name)].to_dict("by_kind") for s in shown}}
            for b in budgets]
    out: dict[str, Any] = {
        "workload": "reference",
        "data": str(data) if data is not None else None,
        "threads": len(threads),
        "turns": turns if data is None else None,
        "seeds": seeds if data is None else None,
        "kinds": sorted({t.kind for t in threads}),
        "filler": sorted({t.filler_source for t in threads}),
        "reader": {"reader": reader, "cue_terms": cue, "open_lines": open_lines,
                   "search_k": search_k, "search": search_name},
    }
    if len(budgets) == 1:
        out.update(grid[0])
    else:
        out["budgets"] = grid
    return out
