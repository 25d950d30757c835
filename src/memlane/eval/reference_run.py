"""Run the reference workload (`memlane.eval.reference`) through every policy.

Each thread is appended exchange by exchange to a fresh namespace and filed as an agent files it
(the heuristic memory step whenever a stretch is due, `Cadence()`), exactly as the needle
workload does; then each policy assembles the context for the question at the same budget and
the offline reader (`memlane.eval.reader.read`, the same rules for every policy and workload)
opens and searches. Reached: an evidence message is in view, or a note, an opened record or a
search result came from it.

Results are grouped by the item's kind (`by_kind`, as before) and by where the fact was planted
(`by_position`; `after_first`: every position but the first exchange; `by_kind_position`:
[reached, threads] per kind and position). For updates, `updates` counts `update_outcome`s over
what the reader saw: `stale_only` is a stale value shown as current, a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..context.tokens import default_tokenizer
from ..errors import UsageError
from ..memory import Memory, open_store
from ..search.embed import get_embedder
from ..types import Context
from .policies import CachedTokenizer, PolicySpec, prepare, resolve_policies, turn_token_counts
from .reader import Reading, classify, pointed_at, read
from .reference import (
    DEFAULT_POSITIONS,
    REFERENCE_KINDS,
    UPDATE_OUTCOMES,
    RefThread,
    generate,
    load_dialogue,
    load_reference,
    update_outcome,
)
from .replay import reader_cue, reading_tools
from .report import Progress, Tally

__all__ = ["Breakdown", "run_reference"]


def position_order(label: str) -> tuple[int, float, str]:
    """Sort key of position labels: "first", then "5%"... by value, then any other label."""
    if label == "first":
        return (0, 0.0, label)
    try:
        return (1, float(label.rstrip("%")), label) if label.endswith("%") else (2, 0.0, label)
    except ValueError:
        return (2, 0.0, label)


@dataclass
class Breakdown:
    """What `Tally` does not group: by position, by kind and position, and update outcomes."""

    cells: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    """(kind, position) -> [reached, threads]."""
    updates: dict[str, int] = field(default_factory=lambda: dict.fromkeys(UPDATE_OUTCOMES, 0))

    def add(self, kind: str, position: str, reached: bool, outcome: str | None) -> None:
        c = self.cells.setdefault((kind, position or "-"), [0, 0])
        c[0] += reached
        c[1] += 1
        if outcome is not None:
            self.updates[outcome] += 1

    def to_dict(self) -> dict[str, Any]:
        pos: dict[str, list[int]] = {}
        for (_, p), (r, n) in sorted(self.cells.items(), key=lambda c: position_order(c[0][1])):
            cell = pos.setdefault(p, [0, 0])
            cell[0] += r
            cell[1] += n
        later = [rn for p, rn in pos.items() if p not in ("first", "-")]
        after = [sum(r for r, _ in later), sum(n for _, n in later)]
        kp: dict[str, dict[str, list[int]]] = {}
        for (k, p), rn in sorted(self.cells.items(),
                                 key=lambda c: (c[0][0], position_order(c[0][1]))):
            kp.setdefault(k, {})[p] = list(rn)
        out: dict[str, Any] = {
            "by_position": {p: round(r / max(n, 1), 4) for p, (r, n) in pos.items()},
            "after_first": round(after[0] / after[1], 4) if after[1] else None,
            "after_first_n": after,
            "by_kind_position": kp,
        }
        n_updates = sum(self.updates.values())
        if n_updates:
            out["updates"] = {"threads": n_updates, **self.updates,
                              "stale_failures": self.updates["stale_only"]}
        return out


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


def seen_texts(ctx: Context, reading: Reading) -> list[str]:
    """Everything the reader saw: every message of the context in any layer, the records it
    opened and the search results it read."""
    return [*(m.content for m in ctx.messages), *(r.text for r in reading.opened),
            *(r.text for r in reading.searched)]


def _threads(data: str | Path | None, threads: int | None, seeds: int, seed: int,
             turns: int | None, kinds: Sequence[str], positions: Sequence[float],
             filler: str) -> list[RefThread]:
    if data is not None:
        return load_reference(data)
    n = threads if threads is not None else seeds * len(kinds)
    if n < 1 or not kinds:
        raise UsageError("use at least 1 thread (--threads N, or --seeds N per kind)")
    source = filler if filler in ("auto", "chitchat", "builtin") else load_dialogue(filler)
    return generate(n, seed, kinds, positions, turns, source)


@dataclass
class _Run:
    """One run's settings and counters."""

    budgets: Sequence[int]
    specs: list[PolicySpec]
    cue: int | None
    open_lines: int
    search_k: int
    tallies: dict[tuple[int, str], Tally] = field(default_factory=dict)
    breakdowns: dict[tuple[int, str], Breakdown] = field(default_factory=dict)
    users: int = 0
    steps: int = 0
    search_name: str = ""


def _measure(run: _Run, store: Any, mem: Memory, tk: CachedTokenizer, rt: RefThread) -> None:
    """File one thread, then assemble and read its question under every policy and budget."""
    users, steps = _file(mem, "t", rt)
    run.users += users
    run.steps += steps
    msgs = mem.thread("t").messages()
    evidence = [msgs[i] for i in rt.evidence]
    records, run.search_name, cached, open_records, notes = reading_tools(mem)
    turn_tokens = turn_token_counts(msgs)
    for budget in run.budgets:
        for spec in run.specs:
            prep = prepare(store, mem.ns, "t", spec, budget, probe=rt.question, tokenizer=tk,
                           now=msgs[-1].ts, total_turns=users,
                           notes=notes if spec.notes else (), turn_tokens=turn_tokens,
                           memory=mem)
            ctx = prep.context(rt.question)
            reading = read(ctx, rt.question, tk, open_records=open_records,
                           search=cached if spec.search else None, notes=records,
                           m=run.open_lines, k=run.search_k, cue_terms=run.cue)
            cls = classify(reading, [m.content for m in evidence], [m.id for m in evidence])
            run.tallies[(budget, spec.name)].add(
                cls, reading, rt.kind, listed=pointed_at(ctx, records, [m.id for m in evidence]))
            outcome = (update_outcome(seen_texts(ctx, reading), rt.answer, rt.stale)
                       if rt.stale and rt.answer else None)
            run.breakdowns[(budget, spec.name)].add(rt.kind, rt.position, cls is not None,
                                                     outcome)


def run_reference(
    budgets: Sequence[int],
    *,
    data: str | Path | None = None,
    seeds: int = 10,
    turns: int | None = None,
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
    threads: int | None = None,
    seed: int = 0,
    positions: Sequence[float] = DEFAULT_POSITIONS,
) -> dict[str, Any]:
    """Generated threads (`threads` in all, else `seeds` per kind, spread over `kinds` and
    `positions`, drawn from `seed`; `turns` exchanges each, None for 150-249; `filler` "auto",
    "chitchat", "builtin" or the path of a LoCoMo JSON file) or, with `data`, the threads of a
    JSONL file."""
    if not budgets or any(b <= 0 for b in budgets):
        raise UsageError("budgets must be positive token counts, e.g. --budget 4000")
    cue = reader_cue(reader, cue_terms)
    specs = [s for s in resolve_policies(policies, ablate) if not s.summary]
    # (no summaries here: the needle's heuristic one is named apart)
    rts = _threads(data, threads, seeds, seed, turns, kinds, positions, filler)
    emb = get_embedder(embedder)
    tk = CachedTokenizer(default_tokenizer())
    run = _Run(budgets, specs, cue, open_lines, search_k)
    for b in budgets:
        for s in specs:
            run.tallies[(b, s.name)] = Tally()
            run.breakdowns[(b, s.name)] = Breakdown()
    bar = Progress(len(rts), "reference", enabled=progress)
    store = open_store(":memory:")
    try:
        for n, rt in enumerate(rts):
            _measure(run, store, Memory(store, f"ref-{n}", tokenizer=tk, embedder=emb), tk, rt)
            bar.step(rt.id)
    finally:
        bar.close()
        store.close()
    return _report(run, rts, data=data, turns=turns, seeds=seeds, seed=seed, reader=reader,
                   threads=threads)


def _report(run: _Run, rts: list[RefThread], *, data: str | Path | None, turns: int | None,
            seeds: int, seed: int, reader: str, threads: int | None) -> dict[str, Any]:
    rate = run.steps / max(run.users, 1)
    for (_, name), tally in run.tallies.items():
        spec = next(s for s in run.specs if s.name == name)
        tally.model_calls_per_turn = rate if spec.needs_records else 0.0
    grid = [{"budget": b,
             "policies": {s.name: {**run.tallies[(b, s.name)].to_dict("by_kind"),
                                   **run.breakdowns[(b, s.name)].to_dict()}
                          for s in run.specs}}
            for b in run.budgets]
    lengths = [len(t.messages) for t in rts]
    out: dict[str, Any] = {
        "workload": "reference",
        "data": str(data) if data is not None else None,
        "threads": len(rts),
        "turns": turns if data is None else None,
        "messages": [min(lengths), max(lengths)],
        "seeds": (None if threads is not None else seeds) if data is None else None,
        "seed": seed if data is None else None,
        "kinds": sorted({t.kind for t in rts}),
        "positions": sorted({t.position for t in rts if t.position}, key=position_order),
        "filler": sorted({t.filler_source for t in rts}),
        "reader": {"reader": reader, "cue_terms": run.cue, "open_lines": run.open_lines,
                   "search_k": run.search_k, "search": run.search_name},
    }
    if len(run.budgets) == 1:
        out.update(grid[0])
    else:
        out["budgets"] = grid
    return out


def format_breakdown(policies: dict[str, dict[str, Any]], title: str = "") -> str:
    """Reach by kind and by position, and the update outcomes, one row per policy."""
    rows = list(policies.values())
    kinds = list(dict.fromkeys(k for r in rows for k in r.get("by_kind", {})))
    positions = sorted({p for r in rows for p in r.get("by_position", {}) if p != "-"},
                       key=position_order)
    cols = [*kinds, *positions, "after 1st"]
    width = max([len(n) for n in policies] + [6])
    head = f"{'policy':<{width}}  " + "  ".join(f"{c:>{max(len(c), 6)}}" for c in cols)
    if any("updates" in r for r in rows):
        head += "  stale-only  both"
    lines = [title] if title else []
    lines += [head, "-" * len(head)]
    for name, r in policies.items():
        vals = [r.get("by_kind", {}).get(k) for k in kinds]
        vals += [r.get("by_position", {}).get(p) for p in positions] + [r.get("after_first")]
        cells = "  ".join(f"{'-' if v is None else f'{v:.1%}':>{max(len(c), 6)}}"
                          for c, v in zip(cols, vals, strict=True))
        u = r.get("updates")
        if u:
            cells += f"  {u['stale_only']:>5}/{u['threads']:<4}  {u['both']:>4}"
        lines.append(f"{name:<{width}}  {cells}")
    return "\n".join(lines)
