"""The cost side of the evaluation: tokens and model calls per turn, for each policy and budget.

The evaluation (`memlane eval locomo`, docs/RESULTS.md) measures what each context policy reaches
with the question asked once, at the end of the conversation. This benchmark replays the same
conversations as a live agent would and asks, at every user turn, what the policy costs:

- **answer prompt**: the context the policy assembles for that turn (the turn's text as the new
  message, over everything said before it and the memory filed so far), sized and assembled by the
  evaluation's own code (`memlane.eval.policies.prepare`, then `Prepared.context`), counted with
  memlane's tokenizer as assembly counts it (`Trace.tokens_total`: system prompt, tool schemas,
  layers, 4 tokens of framing per message). Counted exactly.
- **memory step** (every policy that needs records: `window+search`, `three-stage`, `buffer`,
  `buffer+search`, `memlane`): one call per stretch, as the evaluation counts it. The step is
  written offline by memlane's heuristic extractor; the benchmark counts what a model step
  (`memlane.step.model.ModelExtractor`) would be sent for the same stretch: `STEP_INSTRUCTIONS`
  (system), `render_stretch(stretch, related records)` (the related records are
  `Memory.related`, what `Thread.step` gives a model step) and `STEP_SCHEMA` as compact JSON.
  Input counted; output *estimated* as the heuristic's step output (records, episode line,
  relevance scores) serialised as the step JSON.
- **summary update** (`summary`): the evaluation's summary policy shows a summary of what lies
  before its window, written by a summarizer, one call per stretch. Here a call is counted at a
  stretch end once the window has evicted turns not yet summarized. Input: a summarizer prompt
  (`SUMMARY_INSTRUCTIONS` below, an *estimate*: the evaluation has no summarizer, its summary
  texts come from the data), the previous summary and the newly evicted turns; output: the
  summary the policy shows at the next turn (LoCoMo's `session_summary` texts up to a third of
  the budget, or the heuristic summary on the demo conversation), a stand-in for what a model
  would write, capped as the policy caps it.
- `window` makes no call beyond the answer.

Not counted, for every policy alike: the answer's own output, and tool rounds during the answer
(`search_memory` / `open_memory` results; docs/RESULTS.md reports those per question as
`tokens/q` minus `context tok`).

Data: the LoCoMo development split when it exists (`--data`, default
/work/shared/data/locomo/locomo-dev.json; loaded by path, never copied), replayed exactly as
`memlane eval locomo --source heuristic` files it (one memory step per session, through
`memlane.eval.replay.replay`); otherwise the bundled demo conversation, filed at the default
cadence (a step every 4 user turns), as the needle workload files its threads. With LoCoMo, the
demo conversation is measured too, to show the memory step at that default cadence.

Speed: the replay sizes every policy at every turn. `window`, `window+search` and `summary` start
their window search from the previous turn's window (`prepare(window_hint=...)`), which gives the
evaluation's window whenever fitting is monotone in the window; every `--check-every` turns the
window is also sized from scratch and any difference is counted in the report. The buffer
policies, whose block changes with the window's start, are sized from scratch at every turn.

    python benchmarks/bench_cost.py                           # prints the table
    python benchmarks/bench_cost.py --write                   # ...and updates docs/PERFORMANCE.md
    python benchmarks/bench_cost.py --budgets 2000 --policies window,summary,buffer
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from _report import machine, write_section

from memlane.context.tokens import MESSAGE_OVERHEAD, default_tokenizer
from memlane.demo import load_demo_conversation
from memlane.eval.locomo import Conversation, Turn, load_locomo
from memlane.eval.needle_run import _summary_source as heuristic_summary_source
from memlane.eval.policies import (
    CachedTokenizer,
    PolicySpec,
    Prepared,
    prepare,
    resolve_policies,
    turn_token_counts,
)
from memlane.eval.replay import Replayed, replay
from memlane.eval.replay import _summary_source as locomo_summary_source
from memlane.memory import HeuristicExtractor, Memory, open_store
from memlane.step.model import render_stretch
from memlane.step.schema import STEP_INSTRUCTIONS, STEP_SCHEMA
from memlane.types import Message, Record

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "RESULTS.md"
SECTION = "## Tokens and model calls per turn"
DEFAULT_DATA = "/work/shared/data/locomo/locomo-dev.json"
DEFAULT_POLICIES = "all"

SUMMARY_INSTRUCTIONS = (
    "You maintain a running summary of a long conversation. Below are the summary so far and "
    "the turns that no longer fit in the context window. Rewrite the summary so it also covers "
    "those turns: keep names, dates, numbers, plans and preferences; drop small talk. Reply with "
    "the summary only, in plain prose, oldest events first."
)
"""The summarizer's prompt (an estimate: the evaluation's summary texts come from the data)."""


# --- what is counted ----------------------------------------------------------------------------


@dataclass
class Cost:
    """Totals for one policy at one budget over the turns measured."""

    turns: int = 0
    answer_tokens: int = 0
    answer_max: int = 0
    step_calls: int = 0
    step_in: int = 0
    step_out: int = 0
    summary_calls: int = 0
    summary_in: int = 0
    summary_out: int = 0
    outgrown_turns: int = 0
    """Turns at which the policy's rows no longer held the whole conversation."""
    outgrown_tokens: int = 0

    def add(self, other: Cost) -> None:
        for k, v in other.__dict__.items():
            setattr(self, k, max(v, self.answer_max) if k == "answer_max" else getattr(self, k) + v)

    @property
    def extra_calls(self) -> int:
        return self.step_calls + self.summary_calls

    @property
    def extra_tokens(self) -> int:
        return self.step_in + self.step_out + self.summary_in + self.summary_out

    def row(self) -> dict[str, Any]:
        n = max(self.turns, 1)
        return {
            "turns": self.turns,
            "answer_prompt_tokens_per_turn": self.answer_tokens / n,
            "answer_prompt_tokens_max": self.answer_max,
            "extra_calls_per_turn": self.extra_calls / n,
            "extra_tokens_per_turn": self.extra_tokens / n,
            "extra_in_per_turn": (self.step_in + self.summary_in) / n,
            "extra_out_per_turn": (self.step_out + self.summary_out) / n,
            "total_tokens_per_turn": (self.answer_tokens + self.extra_tokens) / n,
            "model_calls_per_turn": 1 + self.extra_calls / n,
            "outgrown_share": self.outgrown_turns / n,
            "answer_prompt_tokens_outgrown": self.outgrown_tokens / max(self.outgrown_turns, 1),
            "step_calls": self.step_calls,
            "step_in": self.step_in,
            "step_out": self.step_out,
            "summary_calls": self.summary_calls,
            "summary_in": self.summary_in,
            "summary_out": self.summary_out,
        }


@dataclass(frozen=True)
class StepCall:
    """One memory step as a model would have been asked for it."""

    messages: int
    tokens_in: int
    tokens_out: int


class RecordingStep:
    """The heuristic memory step (same output, so the same records and buffer lines as the
    evaluation), noting what a model step would have been sent and would have returned.

    Not a `HeuristicExtractor`, so `Thread.step` gives it the related records, as it gives a
    model step; the heuristic ignores them."""

    name = "heuristic"

    def __init__(self, tokenizer: CachedTokenizer) -> None:
        self.tk = tokenizer
        self.calls: list[StepCall] = []
        self.fixed = (self.tk.count([STEP_INSTRUCTIONS])[0] + 2 * MESSAGE_OVERHEAD
                       + self.tk.count([json.dumps(STEP_SCHEMA, separators=(",", ":"))])[0])

    def __call__(self, messages: Sequence[Message], existing: Sequence[Record]) -> Any:
        out = HeuristicExtractor()(messages, existing)
        sent = self.fixed + self.tk.count([render_stretch(messages, existing)])[0]
        got = self.tk.count([json.dumps(out, separators=(",", ":"), ensure_ascii=False)])[0]
        self.calls.append(StepCall(len(messages), sent, got))
        return out


def _render_turns(messages: Iterable[Message]) -> str:
    return "\n".join(f"{m.name or m.role}: {m.content}" for m in messages)


class Meter:
    """Replays one thread turn by turn and counts every policy at every budget.

    Call `turn(text, now)` as each user turn arrives (before it is stored), `filed()` after a
    memory step has filed a stretch, `finish()` at the end."""

    def __init__(self, mem: Memory, thread_id: str, specs: Sequence[PolicySpec],
                 budgets: Sequence[int], tokenizer: CachedTokenizer, recorder: RecordingStep,
                 summary_source: Callable[[], Callable[[int, int], str]], *,
                 check_every: int = 0, use_hints: bool = True) -> None:
        self.mem, self.thread_id, self.specs, self.budgets = mem, thread_id, specs, budgets
        self.tk, self.recorder, self.summary_source = tokenizer, recorder, summary_source
        self.cost = {(s.name, b): Cost() for s in specs for b in budgets}
        self.messages: list[Message] = []
        self.turn_tokens: list[int] = []
        self.notes: list[Record] = []
        self.summary_for = summary_source()
        self._steps_seen = 0
        # Summary state per budget: covered up to seq, last summary text, an update pending.
        self._folded = dict.fromkeys(budgets, 0)
        self._summary = dict.fromkeys(budgets, "")
        self._pending = dict.fromkeys(budgets, False)
        self._instr = self.tk.count([SUMMARY_INSTRUCTIONS])[0] + 2 * MESSAGE_OVERHEAD
        self.last_contexts: dict[tuple[str, int], Any] = {}
        # The fill search starts from the window sized for the previous turn; every
        # `check_every`-th turn it is also sized from scratch, and any difference is counted.
        self.hints: dict[tuple[str, int], int] = {}
        self.check_every = check_every
        self.use_hints = use_hints
        self.checked = 0
        self.mismatched = 0

    # state -------------------------------------------------------------------------------------
    def _sync(self) -> None:
        t = self.mem.thread(self.thread_id)
        new = t.messages(start=len(self.messages) + 1)
        if new:
            self.messages.extend(new)
            self.turn_tokens = turn_token_counts(self.messages)

    def filed(self) -> None:
        """A stretch was filed: records, summaries and the step's cost change."""
        new_steps = self.recorder.calls[self._steps_seen:]
        self._steps_seen = len(self.recorder.calls)
        if not new_steps:
            return
        for spec in self.specs:
            if spec.needs_records:
                for b in self.budgets:
                    c = self.cost[(spec.name, b)]
                    c.step_calls += len(new_steps)
                    c.step_in += sum(s.tokens_in for s in new_steps)
                    c.step_out += sum(s.tokens_out for s in new_steps)
        self.notes = sorted(self.mem.records(limit=1_000_000), key=lambda r: -r.id)
        self.summary_for = self.summary_source()
        for b in self.budgets:
            self._pending[b] = True

    def _prepare(self, spec: PolicySpec, budget: int, text: str, now: float,
                 hint: int | None = None) -> Prepared:
        return prepare(
            self.mem.store, self.mem.ns, self.thread_id, spec, budget, probe=text,
            tokenizer=self.tk, now=now, total_turns=max(1, len(self.turn_tokens)),
            summary_for=self.summary_for if spec.summary else None,
            notes=self.notes if spec.notes else (), turn_tokens=self.turn_tokens,
            window_hint=hint,
        )

    def _summary_update(self, budget: int, prep: Prepared) -> None:
        """A summarizer call at the stretch end just passed, if the window has evicted turns
        the summary does not cover yet."""
        self._pending[budget] = False
        start = prep.window_start
        if start is None or not prep.rows.truncated:
            return
        evicted = [m for m in self.messages if self._folded[budget] < m.seq < start]
        if not evicted or not prep.summary:
            # Nothing new has left the window, or no whole stretch has: the policy shows no new
            # summary, so none is written (the turns are folded in by the next update).
            return
        prev = self._summary[budget]
        body = f"Summary so far:\n{prev or '(none)'}\n\nTurns to add:\n{_render_turns(evicted)}"
        c = self.cost[("summary", budget)]
        c.summary_calls += 1
        c.summary_in += self._instr + self.tk.count([body])[0]
        c.summary_out += self.tk.count([prep.summary])[0]
        self._folded[budget] = start - 1
        self._summary[budget] = prep.summary

    # the replay --------------------------------------------------------------------------------
    def turn(self, text: str, now: float) -> None:
        self._sync()
        check = self.check_every > 0 and len(self.turn_tokens) % self.check_every == 0
        for b in self.budgets:
            for spec in self.specs:
                # Not for policies with the buffer block: which lines it lists depends on where
                # the window starts, so fitting is not monotone in the window and a search from
                # a guess can settle on another window than the evaluation's (seen on LoCoMo).
                hinted = spec.fill and self.use_hints and not spec.policy.use_buffer
                hint = self.hints.get((spec.name, b)) if hinted else None
                prep = self._prepare(spec, b, text, now, hint)
                if hinted:
                    self.hints[(spec.name, b)] = prep.policy.short_term_turns
                    if check and hint is not None:
                        ref = self._prepare(spec, b, text, now)
                        self.checked += 1
                        self.mismatched += (ref.policy, ref.summary) != (prep.policy, prep.summary)
                ctx = prep.context(text)
                n = ctx.trace.tokens_total
                c = self.cost[(spec.name, b)]
                c.turns += 1
                c.answer_tokens += n
                c.answer_max = max(c.answer_max, n)
                if prep.rows.truncated:
                    c.outgrown_turns += 1
                    c.outgrown_tokens += n
                self.last_contexts[(spec.name, b)] = ctx
                if spec.summary and self._pending[b]:
                    self._summary_update(b, prep)

    def finish(self, text: str, now: float) -> dict[tuple[str, int], Cost]:
        """Count the last stretch's summary update (there is no next turn to trigger it)."""
        self._sync()
        for spec in self.specs:
            if spec.summary:
                for b in self.budgets:
                    if self._pending[b]:
                        self._summary_update(b, self._prepare(spec, b, text, now))
        return self.cost


# --- the two sources ----------------------------------------------------------------------------


def measure_locomo(conv: Conversation, specs: Sequence[PolicySpec], budgets: Sequence[int],
                   tokenizer: CachedTokenizer, check_every: int = 0) -> Meter:
    """One LoCoMo conversation, replayed by `memlane.eval.replay.replay` (heuristic source: one
    memory step per session), with every policy measured as each turn arrives."""
    store = open_store(":memory:")
    try:
        recorder = RecordingStep(tokenizer)
        mem = Memory(store, conv.sample_id, tokenizer=tokenizer, extractor=recorder)
        done: list[int] = []  # sessions filed so far
        session_end: dict[int, int] = {}

        def summaries() -> Callable[[int, int], str]:
            # The evaluation's summary source over the sessions filed so far.
            part = replace(conv, sessions=tuple(s for s in conv.sessions if s.index in done))
            rep = Replayed(part, mem, conv.sample_id, {}, dict(session_end), 0, 0, {}, 0.0)
            return locomo_summary_source(rep, tokenizer)

        meter = Meter(mem, conv.sample_id, specs, budgets, tokenizer, recorder, summaries,
                      check_every=check_every)
        current: list[int | None] = [None]

        def on_turn(tr: Turn) -> None:
            if current[0] is not None and tr.session != current[0]:
                done.append(current[0])
                session_end[current[0]] = len(mem.thread(conv.sample_id).messages())
                meter.filed()
            current[0] = tr.session
            meter.turn(tr.text, tr.ts)

        replay(mem, conv, "heuristic", on_turn=on_turn)
        if current[0] is not None:
            done.append(current[0])
            session_end[current[0]] = len(mem.thread(conv.sample_id).messages())
            meter.filed()
        last = conv.turns[-1]
        meter.finish(last.text, last.ts)
        return meter
    finally:
        store.close()


def measure_messages(messages: Sequence[Mapping[str, Any]], specs: Sequence[PolicySpec],
                     budgets: Sequence[int], tokenizer: CachedTokenizer,
                     thread_id: str = "demo", check_every: int = 0) -> Meter:
    """A user/assistant conversation, as an agent lives it: at each user turn the context is
    assembled for the user's message, then the exchange is stored and every due stretch is filed
    (the default cadence, as the needle workload files its threads)."""
    store = open_store(":memory:")
    try:
        recorder = RecordingStep(tokenizer)
        mem = Memory(store, "cost", tokenizer=tokenizer, extractor=recorder)
        t = mem.thread(thread_id)

        def summaries() -> Callable[[int, int], str]:
            records = {r.id: r for r in mem.records(limit=1_000_000)}
            return heuristic_summary_source(mem, thread_id, records, tokenizer)

        meter = Meter(mem, thread_id, specs, budgets, tokenizer, recorder, summaries,
                      check_every=check_every)
        exchange: list[Mapping[str, Any]] = []
        now = 0.0

        def flush() -> None:
            if exchange:
                t.extend([{k: m[k] for k in ("role", "content", "ts", "name") if k in m}
                          for m in exchange])
                exchange.clear()
                if t.maybe_step(turn_done=True):  # the whole exchange is recorded
                    meter.filed()

        for m in messages:
            if m["role"] == "user":
                flush()
                now = float(m.get("ts") or now)
                meter.turn(m["content"], now)
            exchange.append(m)
        flush()
        last = next((m for m in reversed(messages) if m["role"] == "user"), messages[-1])
        meter.finish(last["content"], now)
        return meter
    finally:
        store.close()


# --- the run ------------------------------------------------------------------------------------


def _rows(meters: Sequence[Meter], specs: Sequence[PolicySpec], budgets: Sequence[int]
          ) -> dict[str, dict[str, Any]]:
    total = {(s.name, b): Cost() for s in specs for b in budgets}
    for meter in meters:
        for k, c in meter.cost.items():
            total[k].add(c)
    return {f"{name}@{b}": {"policy": name, "budget": b, **c.row()}
            for (name, b), c in total.items()}


def run(data: str | None, budgets: Sequence[int], policies: str, *, limit: int | None = None,
        check_every: int = 20, demo: bool = True, progress: bool = True) -> dict[str, Any]:
    """Measure LoCoMo at `data` if the file exists (else the demo conversation); with `demo`,
    the demo conversation is measured as well, at the default cadence."""
    specs = resolve_policies(policies)
    tk = CachedTokenizer(default_tokenizer())
    t0 = time.perf_counter()
    meters: list[Meter] = []
    msgs = load_demo_conversation()
    demo_turns = sum(m["role"] == "user" for m in msgs)
    out: dict[str, Any] = {}
    if data and Path(data).is_file():
        convs = load_locomo(data)[:limit]
        out.update(
            workload="locomo",
            source=f"LoCoMo ({Path(data).name}: {', '.join(c.sample_id for c in convs)})",
            turns=sum(len(c.turns) for c in convs),
            stretches=sum(len(c.sessions) for c in convs),
            stretch="one memory step per session, as the evaluation files LoCoMo",
        )
        for conv in convs:
            t1 = time.perf_counter()
            meters.append(measure_locomo(conv, specs, budgets, tk, check_every))
            if progress:
                print(f"  {conv.sample_id}: {len(conv.turns)} turns, "
                      f"{time.perf_counter() - t1:.1f}s", file=sys.stderr, flush=True)
    else:
        if progress:
            print(f"no LoCoMo file at {data!r}: measuring the bundled demo conversation",
                  file=sys.stderr, flush=True)
        meters.append(measure_messages(msgs, specs, budgets, tk, check_every=check_every))
        out.update(workload="demo", source=DEMO_SOURCE, turns=demo_turns,
                   stretches=len(meters[0].recorder.calls), stretch=DEMO_STRETCH)
    out.update(
        budgets=list(budgets),
        rows=_rows(meters, specs, budgets),
        step_fixed_tokens=RecordingStep(tk).fixed,
        summary_prompt_tokens=tk.count([SUMMARY_INSTRUCTIONS])[0] + 2 * MESSAGE_OVERHEAD,
        hint_checks=sum(m.checked for m in meters),
        hint_mismatches=sum(m.mismatched for m in meters),
        check_every=check_every,
    )
    if demo and out["workload"] == "locomo":
        m = measure_messages(msgs, specs, budgets, tk)
        out["demo"] = {"source": DEMO_SOURCE, "turns": demo_turns,
                       "stretches": len(m.recorder.calls), "stretch": DEMO_STRETCH,
                       "rows": _rows([m], specs, budgets)}
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


DEMO_SOURCE = "the bundled demo conversation (src/memlane/data/demo_conversation.jsonl)"
DEMO_STRETCH = "a memory step every 4 user turns, the default cadence"


# --- the report ---------------------------------------------------------------------------------


def _results_reach(path: Path = RESULTS) -> dict[tuple[str, int], tuple[str, str]]:
    """(policy, budget) -> (reach with annotations, reach with heuristic records), from the
    headline table of docs/RESULTS.md ({} if it is not there)."""
    out: dict[tuple[str, int], tuple[str, str]] = {}
    if not path.exists():
        return out
    lines = path.read_text().splitlines()
    head = next((i for i, ln in enumerate(lines) if ln.startswith("| policy | 2k annotations")),
                None)
    if head is None:
        return out
    cols = [c.strip() for c in lines[head].strip("|").split("|")][1:]
    for ln in lines[head + 2:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip().replace("*", "") for c in ln.strip("|").split("|")]
        name = cells[0].split(" (")[0]
        by: dict[int, dict[str, str]] = {}
        for col, val in zip(cols, cells[1:], strict=False):
            m = re.match(r"(\d+)k (\w+)", col)
            if m:
                by.setdefault(int(m[1]) * 1000, {})[m[2]] = val
        for b, v in by.items():
            out[(name, b)] = (v.get("annotations", ""), v.get("heuristic", ""))
    return out


def table(rows: Mapping[str, Mapping[str, Any]],
          reach: Mapping[tuple[str, int], tuple[str, str]] | None = None) -> str:
    """The markdown table, by budget then policy; with `reach`, RESULTS.md's reach alongside."""
    head = ("| policy | budget | answer prompt tokens/turn (mean) | extra calls/turn | "
            "extra tokens/turn | total tokens/turn | model calls/turn |")
    if reach:
        head += " reach, annotations / heuristic (RESULTS.md) |"
    out = [head, "|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if reach else "")]
    for r in sorted(rows.values(), key=lambda r: r["budget"]):
        line = (f"| {r['policy']} | {r['budget']:,} | "
                f"{r['answer_prompt_tokens_per_turn']:,.0f} | {r['extra_calls_per_turn']:.3f} | "
                f"{r['extra_tokens_per_turn']:,.0f} | {r['total_tokens_per_turn']:,.0f} | "
                f"{r['model_calls_per_turn']:.3f} |")
        if reach:
            a, h = reach.get((r["policy"], r["budget"]), ("", ""))
            line += f" {a} / {h} |" if a or h else " |"
        out.append(line)
    return "\n".join(out)


def _per_call(rows: Mapping[str, Mapping[str, Any]], kind: str) -> str:
    """Mean input and output tokens of one extra call of `kind` ("step" or "summary")."""
    calls = [r for r in rows.values() if r[f"{kind}_calls"]]
    if not calls:
        return ""
    r = calls[0]
    n = r[f"{kind}_calls"]
    return f"{r[f'{kind}_in'] / n:,.0f} in + {r[f'{kind}_out'] / n:,.0f} out"


def section(report: Mapping[str, Any], command: str) -> str:
    locomo = report["workload"] == "locomo"
    reach = _results_reach() if locomo else {}
    rows = report["rows"]
    window = {r["budget"]: r for r in rows.values()
              if r["policy"] == "window" and r["outgrown_share"] > 0}
    summ = sorted((r for r in rows.values() if r["summary_calls"]), key=lambda r: r["budget"])
    lines = [
        SECTION,
        "",
        "The cost side of docs/RESULTS.md: what each context policy spends per user turn, on "
        f"{report['source']}: {report['turns']:,} turns, replayed as a live agent would meet "
        "them. At every turn the policy assembles the context for that turn's message, over "
        "everything said before it and the memory filed so far, with the evaluation's own code "
        "(`memlane.eval.policies.prepare` and `Prepared.context`: the policies and sizing whose "
        f"recall RESULTS.md reports). Stretches: {report['stretch']}; "
        f"{report['stretches']:,} in all.",
        "",
        "What is counted and what is estimated:",
        "",
        "- **Answer prompt** (counted): the assembled context of the answering call, "
        "`Trace.tokens_total` (system prompt, tool schemas, every layer, the new message, 4 "
        "tokens of framing per message; cl100k_base, as assembly counts). Never above the "
        "budget. The mean includes each conversation's early turns, while everything said so "
        "far still fits." + (
            " Over the turns where it no longer fits ("
            + " / ".join(f"{r['outgrown_share']:.0%}" for _, r in sorted(window.items()))
            + " of turns), `window` averages "
            + " / ".join(f"{r['answer_prompt_tokens_outgrown']:,.0f}" for _, r in
                         sorted(window.items()))
            + " tokens at " + " / ".join(f"{b:,}" for b in sorted(window)) + "."
            if window else ""),
        "- **Memory step** (`window+search`, `three-stage`, `buffer`, `buffer+search`, "
        "`memlane`): one call per stretch, as the evaluation counts it "
        f"({_per_call(rows, 'step')} tokens per call). Input counted: what a model step "
        "(`ModelExtractor`) would be sent for the stretch: `STEP_INSTRUCTIONS`, "
        "`render_stretch(stretch, related records)` with the records `Thread.step` gives a "
        f"model step, and `STEP_SCHEMA` as compact JSON ({report['step_fixed_tokens']} of "
        "those tokens are the same in every call). Output estimated: the step is written "
        "offline by the heuristic extractor, so its output (records, episode line, relevance "
        "scores) is counted as the step JSON a model would have returned.",
        "- **Summary update** (`summary`): a summarizer call at a stretch end once the window "
        "has evicted turns the summary does not cover yet, so none while the conversation fits "
        "(" + ", ".join(f"{r['summary_calls']} calls at {r['budget']:,}" for r in summ) + "). "
        "Input: a summarizer prompt (estimated, "
        f"{report['summary_prompt_tokens']} tokens: the evaluation runs no summarizer), the "
        "previous summary and the newly evicted turns (counted). Output: the summary the policy "
        "shows at the next turn, capped at a third of the budget as the policy caps it; counted, "
        "but a stand-in for what a model would write: "
        + ("LoCoMo's own `session_summary` texts." if locomo else
           "the heuristic summary (the extractor's records of the stretches before the window)."),
        "- `window` makes no call beyond the answer. Not counted for any policy: the answer's "
        "own output, and tool rounds during the answer (search results, opened records; "
        "RESULTS.md has those per question: `tokens/q` minus `context tok`).",
        "- Extra tokens/turn: the extra calls' input + output, over all turns. Total "
        "tokens/turn: answer prompt + extra tokens. Model calls/turn: 1 (the answer) + extra "
        "calls.",
        "- `window`, `window+search` and `summary` size their window starting from the previous "
        "turn's (`prepare(window_hint=...)`), which finds the same window when fitting is "
        f"monotone in it; every {report['check_every']}th turn it was also sized from scratch: "
        f"{report['hint_checks'] - report['hint_mismatches']:,} of {report['hint_checks']:,} "
        "checks identical. The buffer policies are sized from scratch at every turn (which "
        "lines the block lists depends on where the window starts, so fitting is not monotone).",
        "",
        "```sh",
        command,
        "```",
        "",
        f"{machine()}; the run took {report['seconds']:.0f} s.",
        "",
        table(rows, reach),
        "",
    ]
    if reach:
        lines += [
            "Reach (share of the 883 category 1-4 questions whose evidence the policy reached) "
            "is copied from the headline table of docs/RESULTS.md: the recall those costs buy, "
            "with records from LoCoMo's annotations / from the heuristic extractor. Both sources "
            "file the same stretches, so the costs are the same; the heuristic's step output is "
            "the one sized here.",
        ]
    else:
        lines += ["The recall these costs buy is in docs/RESULTS.md (reach per policy and "
                  "budget, on LoCoMo)."]
    demo = report.get("demo")
    if demo:
        low = min(r["budget"] for r in demo["rows"].values())
        lines += [
            "",
            "At an agent's default cadence the memory step is called more often: a step every 4 "
            "user turns instead of one per LoCoMo session (about 22 turns), each with the same "
            f"fixed part. On {demo['source']}, {demo['turns']} user turns of a user/assistant "
            f"chat (about 2.5k tokens in all), {demo['stretches']} stretches, at {low:,} tokens "
            "(the step's cost does not depend on the budget; at larger budgets the whole chat "
            "fits):",
            "",
            table({k: r for k, r in demo["rows"].items() if r["budget"] == low}),
        ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--data", default=DEFAULT_DATA,
                    help="LoCoMo JSON file; if it does not exist, the bundled demo conversation")
    ap.add_argument("--budgets", default="2000,4000,8000")
    ap.add_argument("--policies", default=DEFAULT_POLICIES,
                    help="comma-separated policies of the evaluation, or 'all' (the default)")
    ap.add_argument("--limit-conversations", type=int, default=None)
    ap.add_argument("--check-every", type=int, default=20,
                    help="size the window from scratch too every N turns, to check (0: never)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--write", action="store_true",
                    help=f"write the '{SECTION[3:]}' section of docs/PERFORMANCE.md")
    args = ap.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    report = run(args.data, budgets, args.policies, limit=args.limit_conversations,
                 check_every=args.check_every)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        reach = _results_reach() if report["workload"] == "locomo" else None
        print(table(report["rows"], reach))
        if "demo" in report:
            print(f"\n{report['demo']['source']}, {report['demo']['stretch']}:")
            print(table(report["demo"]["rows"]))
    if args.write:
        cmd = "python benchmarks/bench_cost.py"
        if args.data != DEFAULT_DATA:
            cmd += f" --data {args.data}"
        for flag, value, default in (("--budgets", args.budgets, "2000,4000,8000"),
                                     ("--policies", args.policies, DEFAULT_POLICIES),
                                     ("--limit-conversations", args.limit_conversations, None),
                                     ("--check-every", args.check_every, 20)):
            if value != default:
                cmd += f" {flag} {value}"
        write_section(SECTION, section(report, cmd + " --write"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
