"""The context path gives exactly what it gave before, and what the plain path gives.

`Thread.context` reads a larger window as the older rows it lacks, given the rows held; its
fill rounds only tally tokens; the tokenizer memoises counts. None of that may change a context.
Two checks, both by repr (so 1 vs 1.0 or -0.0 vs 0.0 would show):

- The assembler against its own earlier output: tests/data/assembly_recorded.json holds a broad
  set of inputs and what `assemble` and `sized_context` gave on them before the assembler was
  reshaped (tests/assembly_record.py says what the inputs are and how they were recorded).
  This replaced a second, readable assembler kept here as an oracle: src keeps one assembler.
- The read path against the plain one: `Thread.context` (held reads, memoised tokenizer,
  the memory's read cache) against `sized_context` over plain reads (SQLite's `context_rows` as it
  was, one window per read, no memo), on random conversations (hypothesis), and on both
  engines for the store's `held` reads.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assembly_record import build_thread
from memlane import BudgetTooSmall, Cadence, Memory, Policy
from memlane.context.assemble import assemble, tools_json
from memlane.context.fill import sized_context, start_policy
from memlane.context.tokens import BPETokenizer, default_tokenizer
from memlane.tool_schemas import TOOL_SCHEMAS
from memlane.types import (
    ChatMessage,
    ContextRows,
    Episode,
    Message,
    make_chat_message,
    make_message,
)

NOW = 1_760_000_000.0


# ==== the plain path ============================================================================
class PlainTokenizer:
    """The BPE tokenizer without its memo."""

    def __init__(self) -> None:
        self.inner = default_tokenizer()
        self.name = self.inner.name

    def count(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        return [int(n) for n in self.inner._tk.batch_count(list(texts), self.name, threads=1)]

    def head(self, text: str, n: int) -> str:
        return self.inner.head(text, n)

    def tail(self, text: str, n: int) -> str:
        return self.inner.tail(text, n)


PLAIN = PlainTokenizer()

_MSG_COLS = "id, thread_id, seq, role, content, ts, tokens, relevance, name"
_EP_COLS = 'thread_id, start, "end", line, record_ids, date, suspect'


def ref_context_rows(mem: Memory, thread_id: str, window_turns: int,
                     buffer_lines: int) -> ContextRows:
    """SQLite's `context_rows` as it was: one window, plain constructors, no memo."""
    c = mem.store.conn  # type: ignore[attr-defined]
    ns = mem.ns

    def ep(r: Sequence[Any]) -> Episode:
        return Episode(thread_id=r[0], start=r[1], end=r[2], line=r[3],
                       record_ids=tuple(json.loads(r[4])), date=r[5], suspect=bool(r[6]))

    pinned = tuple(mem.store.records(ns, pinned_only=True))
    t = c.execute("SELECT turns, filed_to, next_seq FROM threads WHERE namespace = ? AND"
                  " thread_id = ?", (ns, thread_id)).fetchone()
    if t is None:
        return ContextRows(thread_id, (), False, None, (), 0, 0, pinned)
    turns, filed_to, next_seq = t
    start = 1
    if window_turns <= 0:
        start = next_seq
    elif turns > window_turns:
        start = c.execute("SELECT MIN(seq) FROM messages WHERE namespace = ? AND thread_id = ?"
                          " AND turn = ?", (ns, thread_id, turns - window_turns + 1)
                          ).fetchone()[0] or 1
    msgs = [Message(*r) for r in c.execute(
        f"SELECT {_MSG_COLS} FROM messages WHERE namespace = ? AND thread_id = ? AND seq >= ?"
        " ORDER BY seq", (ns, thread_id, start - 1)).fetchall()]
    truncated = bool(msgs) and msgs[0].seq < start
    window = tuple(m for m in msgs if m.seq >= start)
    if not truncated:
        return ContextRows(thread_id, window, False, None, (), 0, 0, pinned)
    first = c.execute(f'SELECT {_EP_COLS} FROM episodes WHERE namespace = ? AND thread_id = ?'
                      ' ORDER BY "end" LIMIT 1', (ns, thread_id)).fetchone()
    recent = c.execute(f'SELECT {_EP_COLS}, n FROM episodes WHERE namespace = ? AND'
                       ' thread_id = ? AND start < ? ORDER BY "end" DESC LIMIT ?',
                       (ns, thread_id, start, max(buffer_lines, 1))).fetchall()
    return ContextRows(
        thread_id=thread_id, window=window, truncated=True,
        first_episode=ep(first) if first else None,
        recent_episodes=tuple(ep(r[:7]) for r in recent),
        episodes_before_window=recent[0][7] if recent else 0,
        unfiled_before_window=max(0, (start - 1) - filed_to),
        pinned=pinned,
    )


# ==== helpers ===================================================================================
def outcome(f: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """repr of `f(*args, **kwargs)`, or of the BudgetTooSmall it raised."""
    try:
        return repr(f(*args, **kwargs))
    except BudgetTooSmall as e:
        return f"BudgetTooSmall({e})"


def _P(**kw: Any) -> Policy:
    """A policy without the notes layer, the standing facts and the line index: the plain path
    here is given no notes, no standing facts and no matched lines (the recorded cases and
    tests/test_reference_assembler.py cover those layers)."""
    return Policy(notes_share=0.0, index_lines=0, standing=False, **kw)


policies = st.builds(
    Policy,
    notes_share=st.just(0.0),
    standing=st.just(False),
    index_lines=st.just(0),
    recent_lines=st.just(None),
    dedupe_lines=st.just(False),
    short_term_turns=st.integers(0, 4),
    working_turns=st.integers(0, 12),
    buffer_lines=st.integers(0, 14),
    half_life_turns=st.sampled_from([0.0, 2.0, 6.0]),
    prune_below=st.sampled_from([0.0, 0.12, 0.45]),
    max_message_tokens=st.integers(20, 1000),
    core_tokens=st.sampled_from([0, 40, 300]),
    use_buffer=st.sampled_from([True, True, False]),
    use_working=st.booleans(),
    use_tools=st.booleans(),
    memory_instructions=st.booleans(),
    fill_budget=st.sampled_from([True, True, False]),
    max_working_turns=st.sampled_from([400, 5, 10]),
)


def check_thread(mem: Memory, tid: str, policy: Policy, budget: int,
                 new_message: str | None) -> None:
    """`Thread.context` (held reads, memoised tokenizer, the memory's caches) and the evaluation's
    path (`sized_context` over the store's reads) give what `sized_context` gives over plain
    reads with a plain tokenizer and no caches."""
    tools = [dict(t) for t in TOOL_SCHEMAS]

    def ref_read(q: Policy, held: ContextRows | None = None) -> ContextRows:
        return ref_context_rows(mem, tid, q.window_turns, q.buffer_lines)

    def plain_read(q: Policy, held: ContextRows | None = None) -> ContextRows:
        return mem.store.context_rows(mem.ns, tid, q.window_turns, q.buffer_lines)

    # Where the thread's last fill at this budget and policy ended: Thread.context starts there
    # (`start_policy`), and so does the reference.
    first = start_policy(policy, mem.caches.fills.get((mem.ns, tid, budget, policy)))
    try:
        got = sized_context(ref_read, first, budget, NOW, PLAIN, new_message, tools)
        ref, ref_sized = repr(got[0]), repr(got)
    except BudgetTooSmall as e:
        ref = ref_sized = f"BudgetTooSmall({e})"
    fast = outcome(mem.thread(tid).context, budget=budget, new_message=new_message,
                   policy=policy, now=NOW)
    assert fast == ref
    fast_sized = outcome(sized_context, plain_read, first, budget, NOW, mem.tokenizer,
                         new_message, tools)
    assert fast_sized == ref_sized


# ==== the tests =================================================================================
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    seed=st.integers(0, 2**32),
    n=st.one_of(st.integers(0, 30), st.integers(60, 200)),
    cadence=st.integers(1, 6),
    cases=st.lists(st.tuples(policies, st.integers(200, 12000),
                             st.sampled_from([None, "", "Where is my order?",
                                              " ".join(["lorem ipsum"] * 700)])),
                   min_size=1, max_size=4),
)
def test_context_is_what_the_plain_reads_give(seed, n, cadence, cases):
    with tempfile.TemporaryDirectory() as d:
        with Memory.open(os.path.join(d, "m.db"),
                         cadence=Cadence(every_user_turns=cadence)) as mem:
            build_thread(mem, seed, n)
            for policy, budget, new_message in cases:
                check_thread(mem, "t", policy, budget, new_message)
            check_thread(mem, "missing", _P(), 4000, None)


def test_context_is_what_the_plain_reads_give_on_a_long_thread(tmp_path):
    """Hundreds of turns, so the fill runs its rounds and the buffer continues its reads."""
    with Memory.open(tmp_path / "m.db") as mem:
        build_thread(mem, 7, 700)
        for budget in (1000, 2000, 4000, 8000, 16000, 30000):
            for policy in (_P(), _P(buffer_lines=2), _P(short_term_turns=1,
                                                                    working_turns=1)):
                check_thread(mem, "t", policy, budget, None)
                check_thread(mem, "t", policy, budget, "and the new question?")


def test_context_rows_held_reads_what_plain_reads_give(store):
    """On both engines: every window read given the rows of the last one (`held`) comes back
    exactly as a call with that `window_turns` alone gives it (growing, shrinking, past the
    thread's start), overlapping episodes included."""
    mem = Memory(store, "ns")
    build_thread(mem, 3, 160)
    windows = [2, 5, 9, 30, 31, 12, 60, 500, 0, 4]
    for buffer_lines in (0, 1, 3, 12):
        seen: list[tuple[int, ContextRows]] = []
        held: ContextRows | None = None
        for w in windows:
            held = store.context_rows("ns", "t", w, buffer_lines, held)
            seen.append((w, held))
        assert [w for w, _ in seen] == windows
        assert held is seen[-1][1]
        for w, rows in seen:
            assert rows == store.context_rows("ns", "t", w, buffer_lines)
    empty = store.context_rows("ns", "nothing", 4, 3, held=None)
    assert empty == store.context_rows("ns", "nothing", 4, 3)
    # Rows of another thread, or rows whose messages are gone, are read whole.
    other = store.context_rows("ns", "t", 2, 3)
    assert store.context_rows("ns", "nothing", 8, 3, other) == empty
    mem.thread("t2").extend([{"role": "user", "content": f"m{i}"} for i in range(12)])
    stale = store.context_rows("ns", "t2", 2, 3)
    mem.thread("t2").delete()
    mem.thread("t2").extend([{"role": "user", "content": f"n{i}"} for i in range(12)])
    assert store.context_rows("ns", "t2", 6, 3, stale) == store.context_rows("ns", "t2", 6, 3)


def test_context_matches_the_plain_reads_on_both_engines(store):
    """Thread.context (its store-driven rounds, held reads) against the fill loop run over the
    same store's plain reads: the PostgreSQL store fills the budget the same way."""
    mem = Memory(store, "ns")
    build_thread(mem, 5, 300)
    tools = [dict(t) for t in TOOL_SCHEMAS]

    def read(q: Policy, held: ContextRows | None = None) -> ContextRows:
        return store.context_rows("ns", "t", q.window_turns, q.buffer_lines)

    for budget in (800, 3000, 9000):
        for policy in (_P(), _P(prune_below=0.3, buffer_lines=3)):
            fast = outcome(mem.thread("t").context, budget=budget, policy=policy, now=NOW)
            ref = outcome(lambda *a: sized_context(*a)[0], read, policy, budget, NOW,
                          PLAIN, None, tools)
            assert fast == ref


def test_bulk_constructors_make_the_dataclass_objects():
    args = (7, "t", 3, "user", "hi", 1.5, 2, 0.25, "ana")
    fast, slow = make_message(*args), Message(*args)
    assert [f.name for f in fields(Message)] == [
        "id", "thread_id", "seq", "role", "content", "ts", "tokens", "relevance", "name",
        "scanned"]
    assert fast == slow and repr(fast) == repr(slow) and hash(fast) == hash(slow)
    assert fast.__dict__ == slow.__dict__
    tagged = make_message(*args, 12345)
    assert tagged.__dict__ == Message(*args, 12345).__dict__
    assert tagged == slow and hash(tagged) == hash(slow)  # a verdict is not part of the value
    chat = make_chat_message("user", "hi", "new")
    assert [f.name for f in fields(ChatMessage)] == ["role", "content", "layer"]
    assert chat == ChatMessage("user", "hi", "new") and repr(chat) == repr(ChatMessage(
        "user", "hi", "new"))
    with pytest.raises(AttributeError):
        fast.seq = 4  # type: ignore[misc]  # still frozen


def test_token_memo_is_exact_and_bounded():
    tk = BPETokenizer()
    texts = ["hello world", "", "hello world", "naïve café " * 40, "x" * 50]
    assert tk.count(texts) == PLAIN.count(texts)
    assert tk.count(texts) == PLAIN.count(texts)  # from the memo now
    assert tk.count(list(reversed(texts))) == PLAIN.count(list(reversed(texts)))
    tk.MEMO_CHARS = 100
    for i in range(50):
        assert tk.count([f"text number {i}"]) == PLAIN.count([f"text number {i}"])
        assert tk._memo_chars <= 100
    assert sum(len(t) for t in tk._memo) == tk._memo_chars
    tk.MEMO_TEXT_CHARS = 10
    tk.count(["a text longer than ten characters"])
    assert "a text longer than ten characters" not in tk._memo


def test_one_by_one_counts_are_the_batch_counts():
    """A few texts are counted one by one (toktok's one-text count), many in a batch: the same
    numbers, special-token strings counted as ordinary text as the batch does, on both
    encodings; `tail`'s search counts through the same path."""
    import random

    import toktok

    rng = random.Random(5)
    pieces = ["a", "b", " ", "\n", "é", "🧠", "<|endoftext|>", "<|fim_prefix|>", "123", "Hello",
              "'s", "\t", "日本"]
    texts = ["", "<|endoftext|>", "x" * 5000] + [
        "".join(rng.choice(pieces) for _ in range(rng.randint(0, 80))) for _ in range(400)]
    for enc in ("cl100k_base", "o200k_base"):
        tk = BPETokenizer(enc)
        assert tk._one is not None  # this toktok has its one-text count
        want = toktok.batch_count(texts, enc, threads=1)
        assert [tk.count([t])[0] for t in texts] == want  # one by one
        assert BPETokenizer(enc).count(texts) == want  # one batch
        long = "".join(texts[:60])
        cut = tk.tail(long, 40)
        assert long.endswith(cut) and toktok.batch_count([cut], enc)[0] <= 40
        assert toktok.batch_count([long[len(long) - len(cut) - 1:]], enc)[0] > 40


def test_tools_json_is_compact_json():
    for tools in ([{"x": True}], [{"x": 1}], [{"x": 1.0}], [{"x": -0.0}], [{"x": (1,)}],
                  [{"b": 2, "a": 1}]):
        assert tools_json(tools) == json.dumps(tools, separators=(",", ":"))

    class Custom(dict):  # type: ignore[type-arg]
        pass

    assert tools_json([Custom(x=1)]) == '[{"x":1}]'


def test_own_tool_schemas_are_dumped_once_and_handed_out_as_copies(tmp_path):
    """memlane's own schemas (passed as the constant itself when a caller gives none) are
    dumped once: the same text as any other schemas' dump; the context hands the caller
    copies, so a caller editing them changes nothing of the next turn's."""
    assert tools_json(TOOL_SCHEMAS) == json.dumps(list(TOOL_SCHEMAS), separators=(",", ":"))
    assert tools_json(TOOL_SCHEMAS) == tools_json([dict(t) for t in TOOL_SCHEMAS])
    with Memory.open(str(tmp_path / "m.db")) as mem:
        th = mem.thread("t")
        th.add("user", "hello")
        ctx = th.context(budget=4000, new_message="again")
        assert list(ctx.tools) == list(TOOL_SCHEMAS)
        assert all(a is not b for a, b in zip(ctx.tools, TOOL_SCHEMAS, strict=True))
        ctx.tools[0]["type"] = "edited"
        assert TOOL_SCHEMAS[0]["type"] == "function"
        assert list(th.context(budget=4000, new_message="again").tools) == list(TOOL_SCHEMAS)


def test_drop_order_is_lowest_score_first_oldest_on_ties():
    import random

    from memlane.context.working import drop_order

    rnd = random.Random(3)
    for _ in range(200):
        scores = [rnd.choice([0.5, 0.25, 1.0, 0.1 + 1e-12, 0.1]) * rnd.choice([1, 1, 0.5])
                  for _ in range(rnd.randint(0, 30))]
        assert drop_order(scores) == sorted(range(len(scores)),
                                            key=lambda i: (round(scores[i], 9), i))


# ==== the recorded output =======================================================================
def _recorded() -> tuple[Any, list[dict[str, Any]]]:
    from assembly_record import FIXTURE, Tables

    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return (Tables(data), data["tools"]), data["cases"]


_TABLES_TOOLS, _CASES = _recorded()


def _replay(case: dict[str, Any]) -> dict[str, Any] | str:
    """The case's output now, in the recorded form (or the BudgetTooSmall message)."""
    from assembly_record import NOW as REC_NOW

    tables, tools = _TABLES_TOOLS
    policy = tables.get_policy(case["policy"])
    tools_ = tools if case["tools"] else []
    notes = [tables.get_record(i) for i in case["notes"]]
    tk = default_tokenizer()
    try:
        if case["kind"] == "assemble":
            ctx = assemble(tables.get_rows(case["rows"]), policy, case["budget"], REC_NOW, tk,
                           new_message=case["new"], tools=tools_, notes=notes)
            return {"repr": repr(ctx)}
        reads = {int(k): tables.get_rows(v) for k, v in case["reads"].items()}
        matched = [tables.get_episode(i) for i in case["matched"]]

        def read(q: Policy, held: ContextRows | None) -> ContextRows:
            return reads[q.window_turns]

        ctx, p2, rows = sized_context(read, policy, case["budget"], REC_NOW, tk,
                                      new_message=case["new"], tools=tools_, notes=notes,
                                      matched=matched)
        return {"repr": repr(ctx), "working_turns": p2.working_turns, "rows": repr(rows)}
    except BudgetTooSmall as e:
        return str(e)


def _expected(case: dict[str, Any]) -> dict[str, Any] | str:
    from assembly_record import expected_repr

    tables, tools = _TABLES_TOOLS
    out = case["out"]
    if "error" in out:
        return str(out["error"])
    want: dict[str, Any] = {"repr": expected_repr(tables, out, tools)}
    if case["kind"] == "sized":
        want["working_turns"] = out["working_turns"]
        want["rows"] = repr(tables.get_rows(out["rows"]))
    return want


@pytest.mark.parametrize("i", range(len(_CASES)),
                         ids=[f"{i}-{c['source'].replace(' ', '-')}" for i, c in enumerate(_CASES)])
def test_assembly_is_what_was_recorded(i):
    """`assemble` and `sized_context` give, byte for byte, what they gave when the inputs were
    recorded (tests/assembly_record.py)."""
    case = _CASES[i]
    assert _replay(case) == _expected(case)
