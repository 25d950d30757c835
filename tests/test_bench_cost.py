"""The cost benchmark (benchmarks/bench_cost.py) counts what it says it counts: on small synthetic
conversations, the invariants of each policy's calls and tokens hold, and the replay it drives is
the evaluation's own."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from memlane.context.tokens import default_tokenizer
from memlane.eval.locomo import load_locomo
from memlane.eval.policies import POLICIES, CachedTokenizer, resolve_policies
from memlane.eval.replay import replay
from memlane.memory import Memory, open_store

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
BUDGETS = (700, 1400)
ALL = ",".join(POLICIES)

_TOPICS = ["the garden", "a marathon", "the new job", "tax forms", "a trip to Osaka",
           "the piano", "a broken bike", "the wedding", "sourdough", "a chess club"]


@pytest.fixture()
def bench_cost(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_cost as mod

    return mod


def _chat(exchanges: int) -> list[dict[str, Any]]:
    """A user/assistant conversation with a fact now and then, well past the budgets above."""
    out: list[dict[str, Any]] = []
    for i in range(exchanges):
        topic = _TOPICS[i % len(_TOPICS)]
        user = (f"My sister Ana moved to Lisbon on day {i}; we talked about {topic} for an hour."
                if i % 3 == 0 else f"What do you think I should do about {topic} this week?")
        out.append({"role": "user", "content": user, "ts": 1_700_000_000.0 + 60 * i})
        out.append({"role": "assistant", "ts": 1_700_000_000.0 + 60 * i + 5,
                    "content": f"For {topic}, start small and keep notes; check back in a week."})
    return out


def _locomo(tmp_path: Path, sessions: int = 6, turns: int = 12) -> Path:
    conv: dict[str, Any] = {"speaker_a": "Ava", "speaker_b": "Ben"}
    summaries: dict[str, str] = {}
    for s in range(1, sessions + 1):
        conv[f"session_{s}"] = [
            {"speaker": "Ava" if j % 2 == 0 else "Ben", "dia_id": f"D{s}:{j + 1}",
             "text": f"In session {s} I said that {_TOPICS[(s + j) % len(_TOPICS)]} took "
                     f"{j + 2} hours on Friday with my friend Chen."}
            for j in range(turns)
        ]
        conv[f"session_{s}_date_time"] = f"1:{s:02d} pm on {s + 1} May, 2023"
        summaries[f"session_{s}_summary"] = f"Ava and Ben talked in session {s} about plans."
    sample = {"sample_id": "synth-cost", "conversation": conv, "observation": {},
              "session_summary": summaries, "qa": []}
    p = tmp_path / "synthetic-locomo.json"
    p.write_text(json.dumps([sample]), encoding="utf-8")
    return p


def _tk() -> CachedTokenizer:
    return CachedTokenizer(default_tokenizer())


def _check_invariants(meter: Any, turns: int, stretches: int) -> None:
    for (name, budget), c in meter.cost.items():
        spec = POLICIES[name]
        assert c.turns == turns, (name, budget)
        assert 0 < c.answer_max <= budget, (name, budget, c.answer_max)
        assert c.answer_tokens <= budget * turns
        row = c.row()
        assert row["model_calls_per_turn"] == pytest.approx(1 + c.extra_calls / turns)
        assert row["total_tokens_per_turn"] == pytest.approx(
            (c.answer_tokens + c.extra_tokens) / turns)
        if name == "window":
            assert (c.extra_calls, c.extra_tokens) == (0, 0)
        if spec.needs_records:
            # One memory step per stretch, with something sent and something returned.
            assert c.step_calls == stretches, (name, budget)
            assert c.step_in > c.step_calls * meter.recorder.fixed
            assert c.step_out > 0
        else:
            assert c.step_calls == 0
        if spec.summary:
            # The conversation outgrows both budgets: the summary is updated, at most once a
            # stretch, and every update reads and writes something.
            assert 0 < c.summary_calls <= stretches, (budget, c.summary_calls)
            assert c.summary_in > c.summary_calls * meter._instr
            assert c.summary_out > 0
        else:
            assert c.summary_calls == 0


def test_chat_costs_hold_their_invariants(bench_cost: Any) -> None:
    chat = _chat(48)
    meter = bench_cost.measure_messages(chat, resolve_policies(ALL), BUDGETS, _tk(),
                                        check_every=1)
    users = sum(m["role"] == "user" for m in chat)
    # The default cadence files a stretch every 4 user turns; the unfiled tail is not due.
    _check_invariants(meter, users, math.floor(users / 4))
    assert meter.checked > 0 and meter.mismatched == 0
    # A smaller budget never costs more answer tokens.
    for name in POLICIES:
        assert meter.cost[(name, 700)].answer_tokens <= meter.cost[(name, 1400)].answer_tokens


def test_locomo_costs_hold_their_invariants(bench_cost: Any, tmp_path: Path) -> None:
    path = _locomo(tmp_path)
    conv = load_locomo(path)[0]
    meter = bench_cost.measure_locomo(conv, resolve_policies(ALL), BUDGETS, _tk(),
                                      check_every=1)
    # Every utterance is a user turn; one memory step per session, as the evaluation files.
    _check_invariants(meter, len(conv.turns), len(conv.sessions))
    assert meter.checked > 0 and meter.mismatched == 0


def test_the_window_policy_alone_costs_only_its_prompt(bench_cost: Any) -> None:
    # Nothing a memory step or a summary would cost leaks into a run without those policies.
    meter = bench_cost.measure_messages(_chat(20), resolve_policies("window"), (700,), _tk())
    (c,) = meter.cost.values()
    assert c.extra_calls == c.extra_tokens == 0
    assert c.row()["model_calls_per_turn"] == 1.0


def test_a_short_conversation_needs_no_summary(bench_cost: Any) -> None:
    meter = bench_cost.measure_messages(_chat(12), resolve_policies("summary"), (8000,), _tk())
    c = meter.cost[("summary", 8000)]
    assert c.summary_calls == 0 and c.turns == 12


def test_replay_turn_by_turn_stores_and_files_the_same(tmp_path: Path) -> None:
    conv = load_locomo(_locomo(tmp_path))[0]
    seen: list[str] = []
    out = []
    for hook in (None, lambda tr: seen.append(tr.dia_id)):
        store = open_store(":memory:")
        mem = Memory(store, conv.sample_id)
        rep = replay(mem, conv, "heuristic", on_turn=hook)
        msgs = mem.thread(rep.thread_id).messages()
        out.append(([(m.seq, m.role, m.content, m.ts, m.name) for m in msgs],
                    [(e.start, e.end) for e in mem.thread(rep.thread_id).episodes()],
                    [(r.id, r.text) for r in rep.records.values()], rep.session_end))
        store.close()
    assert out[0] == out[1]
    assert seen == [t.dia_id for t in conv.turns]


def test_report_and_section(bench_cost: Any, tmp_path: Path) -> None:
    # No LoCoMo file: the bundled demo conversation is measured instead.
    report = bench_cost.run(str(tmp_path / "missing.json"), [2000], "window,summary,buffer",
                            progress=False)
    assert report["workload"] == "demo" and report["turns"] > 0
    assert set(report["rows"]) == {"window@2000", "summary@2000", "buffer@2000"}
    body = bench_cost.section(report, "python benchmarks/bench_cost.py --write")
    assert body.startswith(bench_cost.SECTION)
    assert "| policy | budget | answer prompt tokens/turn (mean) |" in body
    doc = tmp_path / "PERFORMANCE.md"
    doc.write_text("# Performance\n\n## Other\n\nkept\n")
    bench_cost.write_section(bench_cost.SECTION, body, doc)
    text = doc.read_text()
    assert "## Other\n\nkept" in text and text.count(bench_cost.SECTION) == 1
