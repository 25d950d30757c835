"""LoCoMo replay: file each conversation into memlane, then measure every policy on its questions.

Replay (one namespace and one thread per conversation, in a private in-memory SQLite store):
- Both speakers are people, neither is an assistant, so every turn is appended as a `user`
  message with `name` set to its speaker, at the turn's own timestamp (the session's date). The
  heuristic extractor then reads both speakers (it files only user turns) and prefixes each record
  with its speaker's name. Working-memory and short-term sizes count turns, so K=3 means the last
  three utterances here.
- A stretch is a session: each session is filed by one memory step when it ends (the "on demand"
  trigger of DESIGN.md section 2: a sitting is over). Both sources file the same stretches, so the
  policies can be compared apart from the extractor:
  - `heuristic`: memlane's offline extractor, through `Thread.step` like any agent;
  - `annotations`: the step output is written from the data: one record per `observation` fact,
    with `source` = the seqs of the turns it names (filed with the session that holds its first
    source turn), the episode line from `session_episode_line` (the session's annotated events,
    under 25 words), and the heuristic extractor's relevance scores (the data has none).
    It goes through the same validation and apply path as a model's output.

Measurement: for each question, the question is the new message at the end of the whole
conversation. The rows are read from the store once per (policy, budget) and assembled per
question (assembly is pure); the reader (`memlane.eval.reader`) opens and searches; scoring
classifies how the evidence was reached. Category 5 (adversarial) is tallied apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..context.tokens import default_tokenizer
from ..errors import UsageError
from ..memory import Memory, open_store
from ..search.embed import get_embedder
from ..step.heuristic import DUPLICATE, extract
from ..store.protocol import BOUNDED, SearchBounds
from ..text import fact_terms
from ..types import Message, Record
from ..validate import date_text
from .locomo import (
    CATEGORIES,
    Conversation,
    Question,
    Session,
    Turn,
    load_locomo,
    session_episode_line,
)
from .policies import CachedTokenizer, prepare, resolve_policies, turn_token_counts
from .reader import (
    ANSWER_INSTRUCTIONS,
    READERS,
    LexicalIndex,
    answer_with_model,
    classify,
    dated,
    judge,
    pointed_at,
    read,
    token_f1,
)
from .report import Progress, Tally

__all__ = ["SOURCES", "Replayed", "annotation_step", "reader_cue", "replay", "run_locomo",
           "searcher"]

SOURCES = ("heuristic", "annotations")


@dataclass
class Replayed:
    """A conversation filed into memory, with the maps scoring needs."""

    conv: Conversation
    memory: Memory
    thread_id: str
    by_dia: dict[str, Message]
    """Evidence id ("D3:7") -> the stored message."""
    session_end: dict[int, int]
    """Session number -> seq of its last message."""
    turns: int
    steps: int
    records: dict[int, Record]
    now: float


def annotation_step(
    session: Session, msgs: Sequence[Message], conv: Conversation, by_dia: dict[str, Message]
) -> dict[str, Any]:
    """The memory step output for one session, written from the data's annotations."""
    seqs = {m.seq for m in msgs}
    records = []
    for ob in conv.observations:
        first = by_dia.get(ob.dia_id)
        if first is None or first.seq not in seqs:
            continue
        src = [by_dia[d].seq for d in ob.dia_ids if d in by_dia and by_dia[d].seq in seqs]
        records.append({"op": "add", "text": ob.text, "kind": "fact", "source": src})
    return {
        "records": records,
        "episode": session_episode_line(session),
        "relevance": extract(msgs)["relevance"],
    }


def replay(mem: Memory, conv: Conversation, source: str,
           on_turn: Callable[[Turn], None] | None = None) -> Replayed:
    """Append every session of `conv` to one thread and file each session as a stretch.

    `on_turn(turn)`, when given, is called as each turn arrives, before it is stored: the memory
    then holds what a live agent's would (the earlier turns, the sessions filed so far). Turns are
    then appended one at a time; the stored messages and the filing are the same either way."""
    if source not in SOURCES:
        raise UsageError(f"unknown source {source!r}: use {' or '.join(SOURCES)}")
    t = mem.thread(conv.sample_id)
    by_dia: dict[str, Message] = {}
    session_end: dict[int, int] = {}
    steps = 0
    turns = 0
    # Observations are filed with the session of their first source turn: map all turns first.
    for s in conv.sessions:
        rows = [{"role": "user", "content": tr.text, "ts": tr.ts, "name": tr.speaker}
                for tr in s.turns]
        if on_turn is None:
            msgs = t.extend(rows)
        else:
            msgs = []
            for tr, row in zip(s.turns, rows, strict=True):
                on_turn(tr)
                msgs.extend(t.extend([row]))
        turns += len(msgs)
        for tr, m in zip(s.turns, msgs, strict=True):
            by_dia[tr.dia_id] = m
        session_end[s.index] = msgs[-1].seq
        if source == "heuristic":
            t.step(start=msgs[0].seq, end=msgs[-1].seq)
        steps += 1
    if source == "annotations":
        # Filed after all turns are in, so an observation can be matched to any session; each
        # step still covers exactly its own session's messages.
        for s in conv.sessions:
            msgs = t.messages(by_dia[s.turns[0].dia_id].seq, session_end[s.index])
            t.step(annotation_step(s, msgs, conv, by_dia), start=msgs[0].seq, end=msgs[-1].seq)
    records = {r.id: r for r in mem.records(limit=1_000_000)}
    last = conv.sessions[-1].turns[-1].ts if conv.sessions else 0.0
    return Replayed(conv, mem, t.id, by_dia, session_end, turns, steps, records, last)


Search = Callable[[str, int], list[Record]]


def duplicates(texts: Iterable[str]) -> int:
    """Records that are near-duplicates of an earlier one of the same namespace, by the
    heuristic extractor's own test (same numbers, term overlap >= `DUPLICATE`)."""
    seen: list[frozenset[str]] = []
    n = 0
    for text in texts:
        t = fact_terms(text)
        nums = {x for x in t if x[0].isdigit()}
        if any({x for x in s if x[0].isdigit()} == nums and len(t & s) >= DUPLICATE * len(t | s)
               for s in seen):
            n += 1
        seen.append(t)
    return n


def reader_cue(reader: str, cue_terms: int) -> int | None:
    """The `cue_terms` to give `read`: None for the eager reader, `cue_terms` for the cued one."""
    if reader not in READERS:
        raise UsageError(f"unknown reader {reader!r}: use {' or '.join(READERS)}")
    if isinstance(cue_terms, bool) or not isinstance(cue_terms, int) or cue_terms < 1:
        raise UsageError(f"--cue-terms must be a whole number of at least 1, got {cue_terms!r}")
    return cue_terms if reader == "cued" else None


def searcher(mem: Memory, records: Sequence[Record]) -> tuple[str, Search]:
    """(name, search function): memlane's own `Memory.search` (lexical, or hybrid with the
    memory's embedder) when it exists, else the evaluation's own BM25."""
    fn = getattr(mem, "search", None)
    if callable(fn):
        def search(query: str, k: int) -> list[Record]:
            return [getattr(h, "record", h) for h in fn(query, k)]

        emb = getattr(mem, "embedder", None)
        return ("memlane lexical (FTS5 BM25)" if emb is None else
                f"memlane hybrid (FTS5 BM25 + {emb.name}, rank fusion)"), search
    index = LexicalIndex(records)
    return index.name, index.search


def reading_tools(mem: Memory) -> tuple[dict[int, Record], str, Search,
                                        Callable[[Sequence[int]], list[Record]], list[Record]]:
    """What the reader is given for one replayed thread (the needle and reference runs): its
    records by id, the search's name and the search memoised per query, a function opening
    records by id, and the records newest first (the notes a policy may show)."""
    records = {r.id: r for r in mem.records(limit=1_000_000)}
    name, search = searcher(mem, list(records.values()))
    found: dict[str, list[Record]] = {}

    def cached(q: str, k: int) -> list[Record]:
        if q not in found:
            found[q] = search(q, k)
        return found[q]

    def open_records(ids: Sequence[int]) -> list[Record]:
        return [records[i] for i in ids if i in records]

    return records, name, cached, open_records, sorted(records.values(), key=lambda r: -r.id)


def _summary_source(rep: Replayed, tokenizer: CachedTokenizer) -> Callable[[int, int], str]:
    """Summaries of the sessions wholly before the window, newest first until the cap."""
    sessions = [s for s in rep.conv.sessions if s.summary.strip()]

    def summary_for(window_start: int, cap: int) -> str:
        chosen: list[str] = []
        used = 0
        for s in reversed(sessions):
            if rep.session_end[s.index] >= window_start:
                continue
            text = f"[{s.date_text}] {s.summary.strip()}"
            n = tokenizer.count([text])[0] + 1
            if used + n > cap:
                break
            chosen.append(text)
            used += n
        return "\n".join(reversed(chosen))

    return summary_for


_ABSTAIN = ("not mentioned", "no information", "not say", "does not mention", "unknown",
            "not stated", "doesn't say", "don't know")


def _score(q: Question, answer: str, judge_model: Any) -> tuple[float, bool | None]:
    """(F1, judge's verdict). Category 5 has no answer: abstaining scores 1 (LoCoMo's rule)."""
    if q.category == 5:
        return float(any(p in answer.lower() for p in _ABSTAIN)), None
    verdict = judge(judge_model, q.question, q.answer, answer) if judge_model else None
    return token_f1(answer, q.answer), verdict


@dataclass
class _Questions:
    """One replayed conversation's questions, and what measuring them needs."""

    rep: Replayed
    questions: list[Question]
    evidence: dict[int, tuple[list[str], list[int]]]
    """Question index -> (the evidence turns' texts, their message ids)."""
    recorded: dict[int, bool]
    """Question index -> whether any record was filed from an evidence turn."""
    when: dict[int, list[str]]
    """Temporal question index -> the date strings of its evidence sessions."""
    asked: list[str]
    """Each question as the new message (with the answer instructions for a model)."""
    search_name: str
    search: Search

    def open_records(self, ids: Sequence[int]) -> list[Record]:
        return [self.rep.records[i] for i in ids if i in self.rep.records]


def _questions(rep: Replayed, model: Any) -> _Questions:
    """The questions of a replayed conversation with evidence, and the maps scoring needs."""
    conv, records = rep.conv, rep.records
    name, search_fn = searcher(rep.memory, list(records.values()))
    cache: dict[str, list[Record]] = {}

    def search(q: str, k: int) -> list[Record]:
        if q not in cache:
            cache[q] = search_fn(q, k)
        return cache[q]

    questions = [q for q in conv.questions if q.evidence]
    evidence = {
        i: ([rep.by_dia[d].content for d in q.evidence], [rep.by_dia[d].id for d in q.evidence])
        for i, q in enumerate(questions)
    }
    # Whether any record was filed from an evidence turn: when none was, only a replayed turn
    # can reach the question (the per-question rows say so).
    cited = {s for r in records.values() for s in r.source_ids}
    recorded = {i: bool(cited.intersection(ids)) for i, (_, ids) in evidence.items()}
    # The date strings of each temporal question's evidence sessions: as memlane shows a date
    # (YYYY-MM-DD), and as the data writes it (what the summaries carry).
    label = {tr.dia_id: s.date_text for s in conv.sessions for tr in s.turns}
    when = {
        i: [x for d in q.evidence for x in (date_text(rep.by_dia[d].ts) or "", label.get(d, ""))]
        for i, q in enumerate(questions) if CATEGORIES.get(q.category) == "temporal"
    }
    asked = [q.question if model is None else f"{q.question}\n{ANSWER_INSTRUCTIONS}"
             for q in questions]
    return _Questions(rep, questions, evidence, recorded, when, asked, name, search)


@dataclass
class _Run:
    """What stays the same across a run: how each question is read and where it is tallied."""

    budgets: Sequence[int]
    specs: list[Any]
    tk: CachedTokenizer
    main: dict[tuple[int, str], Tally]
    adv: dict[tuple[int, str], Tally]
    open_lines: int
    search_k: int
    cue: int | None
    model: Any
    judge_model: Any
    per_question: list[dict[str, Any]] | None


def _measure(run: _Run, qs: _Questions, i: int, prep: Any, spec: Any, budget: int) -> None:
    """Read question `i` in the context `prep` assembles for it, classify how its evidence was
    reached, and tally it (and its per-question row)."""
    q, rep, records = qs.questions[i], qs.rep, qs.rep.records
    conv = rep.conv
    ctx = prep.context(qs.asked[i])
    tally = (run.adv if q.category == 5 else run.main)[(budget, spec.name)]
    search = qs.search if spec.search else None
    if run.model is None:
        reading = read(ctx, q.question, run.tk, open_records=qs.open_records, search=search,
                       notes=records, summary=prep.summary, m=run.open_lines, k=run.search_k,
                       cue_terms=run.cue, names=(conv.speaker_a, conv.speaker_b))
    else:
        speaker_of = {m.content: m.name or "" for m in rep.by_dia.values()}
        ans = answer_with_model(run.model, ctx, run.tk, open_records=qs.open_records,
                                search=search, speaker_of=speaker_of, notes=records,
                                summary=prep.summary)
        reading = ans.reading
        f1, verdict = _score(q, ans.text, run.judge_model)
        tally.add_answer(f1, ans.calls, verdict)
    texts, ids = qs.evidence[i]
    cls = classify(reading, texts, ids, q.answer)
    strict = dated(reading, ctx, texts, ids, qs.when[i], q.answer) if i in qs.when else None
    category = CATEGORIES.get(q.category, str(q.category))
    tally.add(cls, reading, category, listed=pointed_at(ctx, records, ids), dated=strict)
    if run.per_question is not None:
        run.per_question.append({
            "conversation": conv.sample_id, "q": i, "category": category,
            "question": q.question, "evidence": list(q.evidence),
            "policy": spec.name, "budget": budget, "reached": cls,
            "dated": strict, "tokens": reading.tokens,
            "listed": pointed_at(ctx, records, ids),
            "lines": len(ctx.trace.buffer_lines),
            "opened_lines": len(reading.opened_lines),
            "layers": dict(ctx.trace.tokens_by_layer),
            "recorded": qs.recorded[i],
        })


def _measure_conversation(run: _Run, store: Any, qs: _Questions, bar: Progress) -> None:
    """Every question of one replayed conversation, under every policy at every budget."""
    rep, tk = qs.rep, run.tk
    conv, mem = rep.conv, rep.memory
    probe = max(qs.asked, key=lambda s: tk.count([s])[0], default="?")
    notes = sorted(rep.records.values(), key=lambda r: -r.id)  # the newest notes first
    summary_for = _summary_source(rep, tk)
    turn_tokens = turn_token_counts(mem.thread(rep.thread_id).messages())
    for budget in run.budgets:
        for spec in run.specs:
            prep = prepare(
                store, conv.sample_id, rep.thread_id, spec, budget, probe=probe,
                tokenizer=tk, now=rep.now, total_turns=rep.turns,
                summary_for=summary_for if spec.summary else None,
                notes=notes if spec.notes else (), turn_tokens=turn_tokens,
                memory=mem,
            )
            for i in range(len(qs.questions)):
                _measure(run, qs, i, prep, spec, budget)
            bar.step(f"{conv.sample_id} {spec.name} @{budget}")


def _grid(run: _Run, totals: dict[str, int]) -> list[dict[str, Any]]:
    """The report's rows: each budget's tallies by policy, the adversarial ones apart."""
    step_rate = totals["steps"] / max(totals["turns"], 1)
    for tallies in (run.main, run.adv):
        for (_, name), t in tallies.items():
            spec = next(s for s in run.specs if s.name == name)
            # The memory step files a stretch per session; a summarizer writes one per stretch.
            t.model_calls_per_turn = step_rate if (spec.needs_records or spec.summary) else 0.0
    return [
        {
            "budget": b,
            "policies": {s.name: run.main[(b, s.name)].to_dict("by_category") for s in run.specs},
            "adversarial": {s.name: run.adv[(b, s.name)].to_dict("by_category")
                            for s in run.specs},
        }
        for b in run.budgets
    ]


def _check(source: str, budgets: Sequence[int]) -> None:
    if source not in SOURCES:
        raise UsageError(f"unknown source {source!r}: use {' or '.join(SOURCES)}")
    if not budgets or any(b <= 0 for b in budgets):
        raise UsageError("budgets must be positive token counts, e.g. --budgets 2000,4000,8000")


def _conversations(data: str | Path, limit: int | None) -> list[Conversation]:
    """The conversations of `data` to replay (the first `limit`)."""
    convs = load_locomo(data)
    if limit is not None:
        convs = convs[:limit]
    if not convs:
        raise UsageError(f"{data}: no conversations to replay")
    return convs


def run_locomo(
    data: str | Path,
    budgets: Sequence[int],
    *,
    source: str = "heuristic",
    policies: str | Sequence[str] | None = None,
    limit_conversations: int | None = None,
    open_lines: int = 3,
    search_k: int = 5,
    progress: bool = True,
    model: Any = None,
    judge_model: Any = None,
    embedder: str | None = None,
    reader: str = "eager",
    cue_terms: int = 2,
    search_bounds: SearchBounds | None = BOUNDED,
    ablate: str | Sequence[str] | None = None,
    per_question: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Replay and measure; returns the report dict (see `memlane.eval.report`).

    `per_question`, when given, receives one row per question, policy and budget (conversation,
    question index, category, how it was reached, strict temporal reach, tokens): what
    `memlane.eval.diff` compares between two policies.

    `ablate`: layers ("buffer", "notes", "working") to take out of the default one at a time,
    each run as one more policy (`memlane-<layer>`).

    `reader` is the offline reader: "eager" searches whenever the policy offers the tool, "cued"
    only when a visible item shares `cue_terms` content terms with the question (names of the
    conversation's two speakers not counting; see `memlane.eval.reader.read`).

    With `model` (a `memlane.models.Model`) the model answers each question with the memory
    tools instead of the offline reader, and answers are scored by token F1 (and by
    `judge_model`, an LLM judge, when given); reach then counts what the model itself opened.
    """
    _check(source, budgets)
    cue = reader_cue(reader, cue_terms)
    specs = resolve_policies(policies, ablate)
    emb = get_embedder(embedder)
    convs = _conversations(data, limit_conversations)
    tk = CachedTokenizer(default_tokenizer())
    run = _Run(budgets, specs, tk,
               main={(b, s.name): Tally() for b in budgets for s in specs},
               adv={(b, s.name): Tally() for b in budgets for s in specs},
               open_lines=open_lines, search_k=search_k, cue=cue, model=model,
               judge_model=judge_model, per_question=per_question)
    bar = Progress(len(convs) * len(budgets) * len(specs), f"locomo/{source}", enabled=progress)
    store = open_store(":memory:")
    # None: every search ranks all its matches (the exhaustive side of the bounded search's
    # side-by-side, `benchmarks/bench_search_reach.py`).
    store.search_bounds = search_bounds
    totals = {"turns": 0, "steps": 0, "questions": 0, "adversarial": 0, "no_evidence": 0,
              "records": 0, "duplicates": 0}
    search_name = ""
    try:
        for conv in convs:
            rep = replay(Memory(store, conv.sample_id, tokenizer=tk, embedder=emb), conv, source)
            qs = _questions(rep, model)
            search_name = qs.search_name
            totals["turns"] += rep.turns
            totals["steps"] += rep.steps
            totals["records"] += len(rep.records)
            totals["duplicates"] += duplicates(r.text for r in rep.records.values())
            totals["no_evidence"] += len(conv.questions) - len(qs.questions)
            totals["questions"] += sum(q.category != 5 for q in qs.questions)
            totals["adversarial"] += sum(q.category == 5 for q in qs.questions)
            _measure_conversation(run, store, qs, bar)
    finally:
        bar.close()
        store.close()
    reader_info = ({"reader": reader, "cue_terms": cue, "open_lines": open_lines,
                    "search_k": search_k, "search": search_name}
                   if model is None else {"model": model.name, "search": search_name,
                                          "judge": getattr(judge_model, "name", None)})
    return _report(data, source, convs, totals, _grid(run, totals), reader_info)


def _report(data: str | Path, source: str, convs: Sequence[Conversation], totals: dict[str, int],
            grid: list[dict[str, Any]], reader: dict[str, Any]) -> dict[str, Any]:
    """The report dict of a LoCoMo run (see `memlane.eval.report`)."""
    out: dict[str, Any] = {
        "workload": "locomo",
        "data": str(data),
        "source": source,
        "conversations": [c.sample_id for c in convs],
        "turns": totals["turns"],
        "stretches": totals["steps"],
        "records": totals["records"],
        "duplicate_records": totals["duplicates"],
        "questions": totals["questions"],
        "adversarial_questions": totals["adversarial"],
        "skipped_no_evidence": totals["no_evidence"],
        "reader": reader,
    }
    if len(grid) == 1:
        out.update(grid[0])
    else:
        out["budgets"] = grid
    return out
