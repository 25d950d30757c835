"""The context policies the evaluation compares, built from memlane's own layers.

Every policy is a `memlane.Policy` (which layers assembly uses), the tools it offers, and how its
window is sized; every context goes through `memlane.assemble`, so the evaluation measures the
engine, not a re-implementation of it.

| policy          | what the model sees                                      | extra calls     |
|-----------------|----------------------------------------------------------|-----------------|
| `window`        | the newest turns that fit the budget                     | none            |
| `window+search` | the same, plus the `search_memory` tool                  | memory step     |
| `summary`       | a rolling summary of the evicted past + newest turns     | one per stretch |
| `three-stage`   | 3 short-term turns, 6 pruned working turns, pinned notes | memory step     |
| `buffer`        | episodic buffer + the newest turns; `open_memory` only   | memory step     |
| `buffer+search` | the same, plus `search_memory`                           | memory step     |
| `memlane`       | the default `Policy()` with all memory tools             | memory step     |
| `retrieval`     | records retrieved by the new message + the newest turns  | memory step     |
| `retrieval+search` | the same, plus `search_memory`                        | memory step     |
| `retrieval+turns` | the same as `retrieval`, plus evicted turns it matches | memory step     |

`retrieval` is what most memory layers do (mem0, Zep): the records a search of the new message
ranks first, injected ahead of the newest turns, which fill the rest of the budget; no buffer, no
pruning, no tools. It runs through `Thread.context` like the default (`Policy(use_buffer=False,
use_working=False, working_turns=0, use_tools=False, notes_recent=False)`, the same notes share),
so the two differ only in the layers. `retrieval+turns` is
`retrieval` given the same search of evicted turns as the default's buffer (`Policy.buffer_turns`:
the turns of the stretches its best records cite, quoted within the same share), without the
buffer's lines: whether a retrieval that also searches raw turns matches the default.
`ablated(layer)` is the default without one layer (`--ablate`: `buffer` takes out the lines and
the opened turns, `lines` leaves the turns, `turns` leaves the lines).

Sizing. Policies that replay raw turns as their main layer (`window`, `window+search`, `summary`,
`buffer`, `buffer+search`) *fill* the budget: the evaluation picks the largest number of newest
turns whose assembled context, with the longest question as the new message, drops nothing.
`three-stage` keeps the small window of its design (3 + 6 turns) and gives the rest of the budget
to its notes. `memlane` is `Policy()` exactly as the engine ships it (3 + 8 turns, buffer of up to
12 lines, working memory grown into the budget's spare room by `memlane.context.fill`, the same
code `Thread.context` runs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..context.assemble import assemble
from ..context.fill import sized_context
from ..context.policy import Policy
from ..context.tokens import MESSAGE_OVERHEAD, Tokenizer
from ..errors import UsageError
from ..store.protocol import Store
from ..tool_schemas import TOOL_SCHEMAS
from ..types import Context, ContextRows, Message, Record

__all__ = [
    "POLICIES",
    "CachedTokenizer",
    "PolicySpec",
    "Prepared",
    "SUMMARY_HEADER",
    "SUMMARY_SHARE",
    "prepare",
    "resolve_policies",
    "ABLATIONS",
    "ablated",
    "turn_token_counts",
]

SUMMARY_SHARE = 1 / 3
"""Share of the budget the `summary` policy gives its summary (the newest turns get the rest)."""

SUMMARY_HEADER = (
    "Summary of the earlier conversation (written by a summarizer model; it stands in for the "
    "turns that no longer fit):"
)

THREE_STAGE_SHORT = 3
THREE_STAGE_WORKING = 6
"""The three-stage design's sizes, as its author settled on them (3 verbatim, 6 pruned)."""


@dataclass(frozen=True)
class PolicySpec:
    """One context policy under evaluation."""

    name: str
    description: str
    policy: Policy
    """The engine's policy (layers on or off); a filling policy's window is sized per budget."""
    tools: tuple[str, ...] = ()
    """Names of the memory tools offered (their schemas count in the budget)."""
    fill: bool = False
    """Size the window of newest turns to the budget (else keep the policy's own sizes)."""
    search: bool = False
    """The reader may search memory (the policy offers `search_memory`)."""
    summary: bool = False
    """A rolling summary stands in for the evicted turns."""
    notes: bool = False
    """Pinned long-term notes fill the budget the window leaves."""
    needs_records: bool = False
    """Needs the memory step (records, buffer lines, relevance): its calls are counted."""


def _off(**kw: Any) -> Policy:
    base: dict[str, Any] = dict(use_buffer=False, use_working=False, use_tools=False,
                                memory_instructions=False, working_turns=0, notes_share=0.0,
                                standing=False)
    base.update(kw)
    return Policy(**base)


POLICIES: dict[str, PolicySpec] = {
    s.name: s
    for s in (
        PolicySpec("window", "newest turns only", _off(), fill=True),
        PolicySpec("window+search", "newest turns + search tool",
                   _off(use_tools=True), ("search_memory",), fill=True, search=True,
                   needs_records=True),
        PolicySpec("summary", "rolling summary + newest turns", _off(), fill=True,
                   summary=True),
        PolicySpec("three-stage", "3 short-term + 6 pruned working turns + pinned notes",
                   _off(use_working=True, short_term_turns=THREE_STAGE_SHORT,
                        working_turns=THREE_STAGE_WORKING, fill_budget=False),
                   notes=True, needs_records=True),
        PolicySpec("buffer", "episodic buffer + newest turns (open_memory only)",
                   Policy(use_working=False, working_turns=0, notes_share=0.0), ("open_memory",),
                   fill=True,
                   needs_records=True),
        PolicySpec("buffer+search", "episodic buffer + newest turns + search",
                   Policy(use_working=False, working_turns=0, notes_share=0.0),
                   ("search_memory", "open_memory"),
                   fill=True, search=True, needs_records=True),
        PolicySpec("memlane", "the default Policy() with all memory tools", Policy(),
                   tuple(t["function"]["name"] for t in TOOL_SCHEMAS), search=True,
                   needs_records=True),
        PolicySpec("retrieval", "records retrieved by the new message + newest turns",
                   Policy(use_buffer=False, use_working=False, working_turns=0,
                          use_tools=False, notes_recent=False, standing=False),
                   needs_records=True),
        PolicySpec("retrieval+search", "records retrieved by the new message + newest turns "
                                       "+ search",
                   Policy(use_buffer=False, use_working=False, working_turns=0,
                          notes_recent=False, standing=False),
                   ("search_memory",), search=True, needs_records=True),
        PolicySpec("retrieval+turns", "records and evicted turns retrieved by the new message "
                                      "+ newest turns",
                   Policy(use_working=False, working_turns=0, use_tools=False,
                          notes_recent=False, buffer_lines_shown=False, index_lines=0,
                          dated_lines=0, standing=False),
                   needs_records=True),
    )
}

ABLATIONS: dict[str, dict[str, Any]] = {
    "buffer": {"use_buffer": False},
    "lines": {"buffer_lines_shown": False},
    "turns": {"buffer_turns": 0},
    "notes": {"notes_share": 0.0},
    "working": {"use_working": False},
    "recent": {"notes_recent": False},
    "standing": {"standing": False},
    "dated": {"dated_lines": 0},
}
"""The layers `--ablate` can take out of the default, and the `Policy` fields that do it."""


def ablated(layer: str) -> PolicySpec:
    """The default policy without one layer, named `memlane-<layer>`."""
    if layer not in ABLATIONS:
        raise UsageError(f"unknown layer {layer!r} to ablate: choose from "
                         f"{', '.join(ABLATIONS)}")
    base = POLICIES["memlane"]
    return replace(base, name=f"memlane-{layer}",
                   description=f"the default without its {layer} layer",
                   policy=replace(base.policy, **ABLATIONS[layer]))


def resolve_policies(names: str | Sequence[str] | None,
                     ablate: str | Sequence[str] | None = None) -> list[PolicySpec]:
    """Specs for a comma-separated list (or sequence) of names; None or "all" gives every one.
    `ablate` (layer names, comma-separated or a sequence) adds the default without each."""
    extra: list[PolicySpec] = []
    if ablate:
        layers = [x.strip() for x in ablate.split(",")] if isinstance(ablate, str) else ablate
        extra = [ablated(x) for x in dict.fromkeys(layers) if x]
    if names is None or names == "all":
        return list(POLICIES.values()) + extra
    items = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    out = []
    for n in items:
        if n not in POLICIES:
            raise UsageError(f"unknown policy {n!r}: choose from {', '.join(POLICIES)}")
        if POLICIES[n] not in out:
            out.append(POLICIES[n])
    if not out and not extra:
        raise UsageError(f"no policies given: choose from {', '.join(POLICIES)}")
    return out + extra


class CachedTokenizer:
    """A `Tokenizer` that remembers counts: the evaluation assembles the same turns thousands of
    times, and counting is most of an assembly's cost."""

    def __init__(self, inner: Tokenizer) -> None:
        self.inner = inner
        self.name = inner.name
        self._memo: dict[str, int] = {}

    def count(self, texts: Sequence[str]) -> list[int]:
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            for t, n in zip(todo, self.inner.count(todo), strict=True):
                self._memo[t] = n
        return [self._memo[t] for t in texts]

    def head(self, text: str, n: int) -> str:
        return self.inner.head(text, n)

    def tail(self, text: str, n: int) -> str:
        return self.inner.tail(text, n)


@dataclass(frozen=True)
class Prepared:
    """One policy at one budget on one thread: rows read once, sized, ready to assemble."""

    spec: PolicySpec
    budget: int
    policy: Policy
    rows: ContextRows
    tools: tuple[dict[str, Any], ...]
    tokenizer: Tokenizer
    now: float
    summary: str = ""
    notes: dict[int, Record] = field(default_factory=dict)
    engine: Callable[[str], Context] | None = None
    """For the engine-sized policy: `Thread.context` itself, called per question (its notes
    depend on the question, so it reads and searches per question, as a live agent's does)."""

    def context(self, question: str) -> Context:
        """The assembled context with `question` as the new message (pure unless `engine`)."""
        if self.engine is not None:
            return self.engine(question)
        return assemble(self.rows, self.policy, self.budget, self.now, self.tokenizer,
                        new_message=question, tools=self.tools)

    @property
    def window_start(self) -> int | None:
        return self.rows.window[0].seq if self.rows.window else None


def turn_token_counts(messages: Sequence[Message]) -> list[int]:
    """Tokens of each turn (a user message and what follows it) as replayed, oldest first."""
    out: list[int] = []
    for m in messages:
        if m.role == "user" or not out:
            out.append(0)
        out[-1] += m.tokens + MESSAGE_OVERHEAD
    return out


def _bisect(attempt: Callable[[int], bool], lo: int, up: int) -> int:
    """The largest window in [lo, up) that fits, given that `lo` fits and `up` does not."""
    while up - lo > 1:
        mid = (lo + up) // 2
        if attempt(mid):
            lo = mid
        else:
            up = mid
    return lo


def _from_hint(attempt: Callable[[int], bool], k: int, hi: int,
               cache: dict[int, tuple[Policy, ContextRows, bool]]) -> tuple[Policy, ContextRows]:
    """`prepare`'s fill search started at `k`: gallop to a fitting / failing pair, then bisect.
    Same edge cases as the search from scratch: `hi` if it fits, 1 if nothing fits."""
    step = 1
    if attempt(k):
        lo = up = k
        while up < hi:
            up = min(hi, lo + step)
            if not attempt(up):
                break
            lo, step = up, step * 2
        else:
            return cache[lo][0], cache[lo][1]  # everything up to `hi` fits
    else:
        lo = up = k
        while lo > 1:
            lo = max(1, up - step)
            if attempt(lo):
                break
            up, step = lo, step * 2
        else:
            return cache[1][0], cache[1][1]  # nothing fits whole, as in the search from scratch
    lo = _bisect(attempt, lo, up)
    return cache[lo][0], cache[lo][1]


def _tools(names: Sequence[str]) -> tuple[dict[str, Any], ...]:
    return tuple(t for t in TOOL_SCHEMAS if t["function"]["name"] in names)


def _fits(ctx: Context) -> bool:
    return not any(d.reason == "budget" for d in ctx.trace.dropped)


@dataclass
class _Sizer:
    """What `prepare` sizes a policy with: the thread, the budget and the probe message."""

    store: Store
    namespace: str
    thread_id: str
    spec: PolicySpec
    budget: int
    probe: str
    tokenizer: Tokenizer
    now: float
    total_turns: int
    tools: tuple[dict[str, Any], ...]
    turn_tokens: Sequence[int]
    window_hint: int | None

    def rows_for(self, policy: Policy, held: ContextRows | None = None) -> ContextRows:
        return self.store.context_rows(self.namespace, self.thread_id, policy.window_turns,
                                       policy.buffer_lines, held)

    def made(self, policy: Policy, rows: ContextRows, summary: str = "",
             pinned: dict[int, Record] | None = None) -> Prepared:
        return Prepared(self.spec, self.budget, policy, rows, self.tools, self.tokenizer,
                        self.now, summary, pinned or {})

    def fill(self, base: Policy, room: int) -> tuple[Policy, ContextRows]:
        """The largest short-term window (in turns) that fits `room` tokens without drops."""
        cache: dict[int, tuple[Policy, ContextRows, bool]] = {}

        def attempt(k: int) -> bool:
            if k not in cache:
                p = replace(base, short_term_turns=k)
                rows = self.rows_for(p)
                ctx = assemble(rows, p, room, self.now, self.tokenizer, new_message=self.probe,
                               tools=self.tools)
                cache[k] = (p, rows, _fits(ctx))
            return cache[k][2]

        # No window can fit whose raw turns alone exceed the room: start the search there, so
        # that no attempt has to drop hundreds of turns one by one.
        hi, used = 0, 0
        for n in reversed(self.turn_tokens):
            used += n
            if used > room:
                break
            hi += 1
        hi = max(1, min(self.total_turns, hi + 1))
        if self.window_hint is not None:
            return _from_hint(attempt, min(max(self.window_hint, 1), hi), hi, cache)
        if attempt(hi):
            best = hi
        elif not attempt(1):
            best = 1  # nothing fits whole: assembly's own drop order decides
        else:
            best = _bisect(attempt, 1, hi)
        return cache[best][0], cache[best][1]

    def with_summary(self, summary_for: Callable[[int, int], str] | None) -> Prepared:
        """The summary policy: a window, and the summary of what lies before it."""
        spec, budget = self.spec, self.budget
        if summary_for is None:
            raise UsageError(f"policy {spec.name!r} needs a summary source")
        cap = int(budget * SUMMARY_SHARE)
        # First pass: the window that leaves the summary its share; the summary covers what
        # lies before that window. Second pass: the window grows into whatever the summary left.
        p1, rows1 = self.fill(spec.policy, budget - cap)
        start = rows1.window[0].seq if rows1.window and rows1.truncated else 1
        summary = summary_for(start, cap) if start > 1 else ""
        base = spec.policy
        if summary:
            base = replace(base, system_prompt=f"{base.system_prompt}\n\n{SUMMARY_HEADER}\n"
                                                f"{summary}")
        p, rows = self.fill(base, budget)
        return self.made(p, rows, summary)

    def engine_sized(self, p: Policy, memory: Any) -> Prepared:
        """The engine's own sizing, exactly as `Thread.context` does it; with `memory`, the
        context of each question is `Thread.context` itself."""
        _, p2, rows = sized_context(self.rows_for, p, self.budget, self.now, self.tokenizer,
                                    new_message=self.probe, tools=self.tools)
        prep = self.made(p2, rows)
        if memory is not None:
            thread = memory.thread(self.thread_id)
            budget, now, tools = self.budget, self.now, self.tools

            def engine(question: str, policy: Policy = p) -> Context:
                ctx: Context = thread.context(budget, question, policy=policy, now=now,
                                              tools=tools)
                return ctx

            prep = replace(prep, engine=engine)
        return prep

    def with_notes(self, p: Policy, notes: Sequence[Record]) -> Prepared:
        """Notes fill what the window leaves: the core cap sized to the room left, then backed
        off until no turn has to give way to a note."""
        rows = self.rows_for(p)
        budget, now, tk = self.budget, self.now, self.tokenizer
        bare = assemble(rows, p, budget, now, tk, new_message=self.probe, tools=self.tools)
        pinned_rows = replace(rows, pinned=tuple(replace(r, pinned=True) for r in notes))
        by_id = {r.id: r for r in notes}
        room = budget - bare.trace.tokens_total - 24
        for _ in range(20):
            if room <= 0:
                return self.made(p, rows)
            pn = replace(p, core_tokens=room)
            ctx = assemble(pinned_rows, pn, budget, now, tk, new_message=self.probe,
                           tools=self.tools)
            if _fits(ctx):
                return self.made(pn, pinned_rows, pinned=by_id)
            room = int(room * 0.95) - 8
        return self.made(p, rows)


def prepare(
    store: Store,
    namespace: str,
    thread_id: str,
    spec: PolicySpec,
    budget: int,
    *,
    probe: str,
    tokenizer: Tokenizer,
    now: float,
    total_turns: int,
    summary_for: Callable[[int, int], str] | None = None,
    notes: Sequence[Record] = (),
    turn_tokens: Sequence[int] | None = None,
    window_hint: int | None = None,
    memory: Any = None,
) -> Prepared:
    """Size `spec` for `budget` on the thread and read its rows.

    `probe` is the longest new message the policy will be asked with (so every question fits).
    `summary_for(window_start_seq, max_tokens)` writes the summary of what lies before the window
    (summary policy); `notes` are the records to pin, in priority order (three-stage).
    `turn_tokens` (from `turn_token_counts`) saves a read of the whole log per call.
    `window_hint` (optional; only `benchmarks/bench_cost.py` passes it) is a first guess at the
    window of a filling policy, e.g. the one sized for the previous turn: the search then steps
    out from it instead of bisecting from scratch. The result is the same whenever fitting is
    monotone in the window (more turns never fit where fewer do not).
    `memory` (the `memlane.Memory` of the namespace), when given, makes the engine-sized policy
    call `Thread.context` per question (notes searched for each question).
    """
    tools = _tools(spec.tools) if spec.policy.use_tools else ()
    if turn_tokens is None:
        turn_tokens = turn_token_counts(store.messages(namespace, thread_id))
    sizer = _Sizer(store, namespace, thread_id, spec, budget, probe, tokenizer, now, total_turns,
                   tools, turn_tokens, window_hint)
    if spec.summary:
        return sizer.with_summary(summary_for)
    if spec.fill:
        p, rows = sizer.fill(spec.policy, budget)
        return sizer.made(p, rows)
    p = spec.policy
    if p.fill_budget and not spec.notes:
        return sizer.engine_sized(p, memory)
    if not spec.notes or not notes:
        return sizer.made(p, sizer.rows_for(p))
    return sizer.with_notes(p, notes)
