"""The evaluation: JSON shape, honest scoring, determinism.

LoCoMo tests run on a tiny synthetic file in LoCoMo's format written into tmp_path (the real data's
licence keeps it out of the repository); needle tests use the built-in filler so they need no
corpus.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlane.cli import main
from memlane.context.tokens import default_tokenizer
from memlane.eval.needle import make_needle_thread
from memlane.eval.needle_run import run_needle
from memlane.eval.policies import POLICIES, CachedTokenizer, prepare, resolve_policies
from memlane.eval.reader import answer_in, classify, read, terms
from memlane.eval.replay import run_locomo
from memlane.memory import Memory
from memlane.store.sqlite import SQLiteStore

REQUIRED = ("reach", "in_view", "via_pointer", "via_search", "tokens_per_question",
            "model_calls_per_turn")

PETS = ["parrot", "tortoise", "ferret", "hamster", "iguana", "rabbit", "goldfish", "gecko"]
NAMES = ["Kiwi", "Marble", "Zest", "Pepper", "Quill", "Sprout", "Bramble", "Tango"]
FILLER = [
    "How was the rest of your week?", "Pretty calm, mostly work and errands.",
    "Did you get any sleep at all?", "A little, the neighbours were loud again.",
    "We should grab lunch sometime soon.", "Yes, maybe after the holidays.",
    "The traffic this morning was unbelievable.", "I took the long way round to avoid it.",
    "Have you been reading anything good?", "Only news, nothing worth mentioning.",
]


def _locomo_sample(n_sessions: int = 8) -> dict:
    conv: dict = {"speaker_a": "Ava", "speaker_b": "Ben"}
    obs: dict = {}
    summaries: dict = {}
    events: dict = {}
    qa: list = []
    for s in range(1, n_sessions + 1):
        turns = []
        for j in range(12):
            speaker = "Ava" if j % 2 == 0 else "Ben"
            text = f"{FILLER[j % len(FILLER)]} (session {s})"
            if j == 4:
                text = (f"Last week I adopted a {PETS[s - 1]} and named it {NAMES[s - 1]}, "
                        "it is very loud.")
            turns.append({"speaker": speaker, "dia_id": f"D{s}:{j + 1}", "text": text})
        conv[f"session_{s}"] = turns
        conv[f"session_{s}_date_time"] = f"1:{s:02d} pm on {s + 1} May, 2023"
        fact = f"Ava adopted a {PETS[s - 1]} named {NAMES[s - 1]}."
        obs[f"session_{s}_observation"] = {"Ava": [[fact, f"D{s}:5"]], "Ben": []}
        summaries[f"session_{s}_summary"] = f"Ava and Ben caught up. {fact}"
        events[f"events_session_{s}"] = {"Ava": [f"Ava adopts a {PETS[s - 1]}"], "Ben": [],
                                         "date": f"{s + 1} May, 2023"}
        qa.append({"question": f"What did Ava name her {PETS[s - 1]}?",
                   "answer": NAMES[s - 1], "evidence": [f"D{s}:5"], "category": 4})
    qa.append({"question": "What did Ben name his parrot?", "adversarial_answer": "Kiwi",
               "evidence": ["D1:5"], "category": 5})
    qa.append({"question": "Is there anything without evidence?", "answer": "no",
               "evidence": [], "category": 1})
    return {"sample_id": "synth-1", "conversation": conv, "observation": obs,
            "session_summary": summaries, "event_summary": events, "qa": qa}


@pytest.fixture(scope="module")
def locomo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("locomo") / "synthetic-locomo.json"
    p.write_text(json.dumps([_locomo_sample()]), encoding="utf-8")
    return p


def _check_policies(policies: dict) -> None:
    assert set(policies) == set(POLICIES)
    for name, row in policies.items():
        for key in REQUIRED:
            assert isinstance(row[key], float | int), (name, key)
        for key in ("reach", "in_view", "via_pointer", "via_search", "via_notes", "via_summary"):
            assert 0.0 <= row[key] <= 1.0, (name, key, row[key])
        parts = sum(row[k] for k in ("in_view", "via_notes", "via_summary", "via_pointer",
                                     "via_search"))
        assert row["reach"] == pytest.approx(parts, abs=1e-3)
        assert row["tokens_per_question"] >= row["context_tokens"] > 0


def test_locomo_cli_json_one_budget(locomo_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "locomo", "--data", str(locomo_file), "--budget", "1000",
                 "--source", "annotations", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    _check_policies(out["policies"])
    _check_policies(out["adversarial"])
    assert out["questions"] == 8 and out["adversarial_questions"] == 1
    assert out["skipped_no_evidence"] == 1
    pol = out["policies"]
    # Only policies with the tool search; only buffer policies follow pointers.
    for name in ("window", "summary", "three-stage", "buffer"):
        assert pol[name]["via_search"] == 0.0
    for name in ("window", "window+search", "summary", "three-stage"):
        assert pol[name]["via_pointer"] == 0.0
    assert pol["window"]["model_calls_per_turn"] == 0.0
    assert pol["memlane"]["model_calls_per_turn"] == pytest.approx(8 / 96, abs=1e-3)
    # At 1000 tokens the window holds the last session or so: the early facts are out of view,
    # and the buffer's pointers and the search tool reach further.
    assert pol["window"]["reach"] <= 0.5
    assert pol["buffer"]["reach"] > pol["window"]["reach"]
    assert pol["memlane"]["reach"] > pol["window"]["reach"]
    assert pol["window+search"]["reach"] == 1.0  # every fact is one distinct observation


def test_locomo_grid_heuristic_and_plot(locomo_file: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "reach.png"
    assert main(["eval", "locomo", "--data", str(locomo_file), "--budgets", "800,1600",
                 "--policies", "window,buffer,memlane", "--json", "--no-progress",
                 "--plot", str(png)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [g["budget"] for g in out["budgets"]] == [800, 1600]
    for g in out["budgets"]:
        assert set(g["policies"]) == {"window", "buffer", "memlane"}
    # More budget never shows the window less of the conversation.
    w = [g["policies"]["window"]["in_view"] for g in out["budgets"]]
    assert w[0] <= w[1]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_locomo_table_output(locomo_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "locomo", "--data", str(locomo_file), "--budget", "1000",
                 "--policies", "window,memlane", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "policy" in text and "memlane" in text and "category 5" in text


def test_locomo_is_deterministic(locomo_file: Path) -> None:
    a = run_locomo(locomo_file, [900], source="heuristic", progress=False)
    b = run_locomo(locomo_file, [900], source="heuristic", progress=False)
    assert a == b


def test_unknown_policy_is_a_usage_error(locomo_file: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "locomo", "--data", str(locomo_file), "--policies", "nope",
                 "--no-progress"]) == 2
    assert "unknown policy 'nope'" in capsys.readouterr().err


# --- needle -------------------------------------------------------------------------------------


def test_needle_buffer_reaches_by_pointer_where_window_cannot() -> None:
    out = run_needle([700], depths=[0.0], seeds=4, turns=40, filler="builtin", progress=False,
                     policies="window,buffer,memlane")
    pol = out["policies"]
    assert pol["window"]["reach"] == 0.0  # the fact sits in the first exchange, long evicted
    assert pol["buffer"]["via_pointer"] > 0.0  # the first stretch's line is always shown
    assert pol["memlane"]["reach"] >= pol["buffer"]["reach"]
    assert pol["buffer"]["by_depth"] == {"0.00": pol["buffer"]["reach"]}


def test_needle_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval", "needle", "--budget", "800", "--seeds", "2", "--turns", "30",
            "--depths", "0,0.5", "--filler", "builtin", "--json", "--no-progress"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == first
    _check_policies(first["policies"])


_TK = CachedTokenizer(default_tokenizer())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), depth=st.integers(0, 29),
       budget=st.integers(300, 1500))
def test_window_never_reaches_past_its_window(seed: int, depth: int, budget: int) -> None:
    """Property: window-only reaches the needle iff the needle message is in its window."""
    nt = make_needle_thread(seed, 30, depth, "builtin")
    store = SQLiteStore(":memory:")
    mem = Memory(store, "p", tokenizer=_TK)
    t = mem.thread("t")
    t.extend([{"role": r, "content": c} for r, c in nt.messages[:-1]])
    msgs = t.messages()
    needle = msgs[nt.needle_index]
    prep = prepare(store, "p", "t", POLICIES["window"], budget, probe=nt.question,
                   tokenizer=_TK, now=msgs[-1].ts, total_turns=30)
    ctx = prep.context(nt.question)
    reading = read(ctx, nt.question, _TK, open_records=lambda ids: [])
    cls = classify(reading, [needle.content], [needle.id], nt.answer)
    start = ctx.trace.window_start or 1
    dropped = {d.ref for d in ctx.trace.dropped}
    in_window = needle.seq >= start and not any(
        d.startswith("msgs ") and int(d.split()[1].split("-")[0]) <= needle.seq
        <= int(d.split()[1].split("-")[1]) for d in dropped)
    assert (cls == "in_view") == in_window
    assert cls in (None, "in_view")
    assert ctx.trace.tokens_total <= budget
    store.close()


def test_reader_helpers() -> None:
    assert terms("Melanie's dogs were painting") == ["melanie", "dog", "paint"]
    assert answer_in("She adopted a parrot named Kiwi in May 2023.", "Kiwi, May 2023")
    assert not answer_in("She adopted a parrot.", "Kiwi")
    assert not answer_in("anything", "")
    assert [s.name for s in resolve_policies("memlane,window")] == ["memlane", "window"]


def test_locomo_with_a_model_answering_with_tools(locomo_file: Path) -> None:
    """Model mode: the model's own tool calls decide reach; answers are scored by F1 and a judge."""
    from memlane.models import FunctionModel, ModelReply, ToolCall

    def answer(messages: list, tools: list | None, schema: dict | None) -> ModelReply | str:
        results = [m for m in messages if m["role"] == "tool"]
        if tools and not results:
            question = messages[-1]["content"].split("\n")[0]
            return ModelReply("", tool_calls=(ToolCall("c1", "search_memory",
                                                       {"query": question}),))
        hits = json.loads(results[-1]["content"]) if results else []
        return hits[0]["text"] if hits else "not mentioned"

    def grade(messages: list, tools: list | None, schema: dict | None) -> str:
        text = messages[-1]["content"]
        gold = text.split("Gold answer: ")[1].split("\n")[0]
        said = text.split("Generated answer: ")[1].split("\n")[0]
        return "CORRECT" if gold.lower() in said.lower() else "WRONG"

    model, judge_model = FunctionModel(answer), FunctionModel(grade)
    out = run_locomo(locomo_file, [1000], source="annotations", progress=False,
                     policies="window,window+search", model=model, judge_model=judge_model)
    pol = out["policies"]
    assert pol["window"]["f1"] == 0.0 and pol["window"]["judge"] == 0.0
    assert pol["window"]["via_search"] == 0.0
    assert pol["window+search"]["via_search"] > 0.0
    assert pol["window+search"]["judge"] > 0.5
    assert 0.2 < pol["window+search"]["f1"] < 1.0
    assert pol["window+search"]["answer_calls_per_question"] == 2.0
    assert out["adversarial"]["window"]["f1"] == 1.0  # it abstained: the right answer
    assert out["reader"]["model"] == "function"
    # The model saw names on the replayed turns (assembled messages carry none).
    sent = model.calls[0].messages
    assert any(m["content"].startswith(("Ava: ", "Ben: ")) for m in sent if m["role"] == "user")


def test_locomo_without_data_says_where_it_comes_from(capsys):
    assert main(["eval", "locomo"]) == 2
    err = capsys.readouterr().err
    assert "https://github.com/snap-research/locomo" in err and "CC BY-NC 4.0" in err
    assert "--data" in err and "shared" not in err


def test_cue_counts_shared_content_terms_not_names() -> None:
    from memlane.eval.reader import cue

    q = "What did Ava name her parrot last spring?"
    assert cue(["Ava got a parrot in the spring."], q, 2, names=["Ava", "Ben"])
    # "Ava" is a participant: it does not count, so one shared term is not enough for 2.
    assert not cue(["Ava bought a parrot."], q, 2, names=["Ava", "Ben"])
    assert cue(["Ava bought a parrot."], q, 1, names=["Ava", "Ben"])
    assert cue(["Ava bought a parrot."], q, 2)  # without names, Ava counts
    # One item must carry the terms: two items with one term each do not cue at 2.
    assert not cue(["a parrot", "in spring"], "parrot spring?", 2)
    assert not cue([], q, 1)


def _ctx(messages: list[tuple[str, str]], lines: tuple = ()) -> object:
    from memlane.types import ChatMessage, Context, Trace

    return Context(messages=tuple(ChatMessage("user" if layer != "core" else "system", text, layer)
                                  for layer, text in messages),
                   tools=(), trace=Trace(budget=1000, tokens_total=10, tokens_by_layer={},
                                         buffer_lines=lines))


def test_cued_reader_searches_only_when_an_item_in_view_cues_it() -> None:
    from memlane.types import BufferLine, Record

    tk = CachedTokenizer(default_tokenizer())
    rec = Record(id=7, namespace="n", text="Ava's parrot name is Kiwi.", kind="fact",
                 source_ids=(3,), thread_id="t", created=0.0, updated=0.0)
    calls: list[str] = []

    def search(query: str, k: int) -> list[Record]:
        calls.append(query)
        return [rec]

    def open_records(ids: object) -> list[Record]:
        return []

    q = "What is the name of Ava's parrot?"
    quiet = _ctx([("short_term", "The traffic was unbelievable this morning.")])
    eager = read(quiet, q, tk, open_records=open_records, search=search)
    assert eager.searched == (rec,) and eager.cued is None
    cued = read(quiet, q, tk, open_records=open_records, search=search, cue_terms=2,
                names=["Ava", "Ben"])
    assert cued.searched == () and cued.cued is False and len(calls) == 1
    # The same rule for every kind of item: a replayed turn, a buffer line, a shown note.
    for ctx in (
        _ctx([("working", "My parrot has a new name now.")]),
        _ctx([], (BufferLine(line="Ava talked about her parrot's name", record_ids=(),
                             start=1, end=4, date=0.0),)),
        _ctx([("core", "Core memory (notes, not the user's words):\n- #7 Ava's parrot name "
                       "is Kiwi.")]),
    ):
        got = read(ctx, q, tk, open_records=open_records, search=search, cue_terms=2,
                   names=["Ava", "Ben"], notes={7: rec})
        assert got.cued is True and got.searched == (rec,)
    # Names do not cue: a turn sharing only the participants' names leaves the reader quiet.
    named = _ctx([("working", "Ava and Ben met again.")])
    assert read(named, "Did Ava and Ben meet?", tk, open_records=open_records, search=search,
                cue_terms=1, names=["Ava", "Ben"]).cued is False


def test_locomo_cued_reader_and_bad_cue_terms(locomo_file: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    eager = run_locomo(locomo_file, [1000], source="annotations", progress=False,
                       policies="window+search")
    cued = run_locomo(locomo_file, [1000], source="annotations", progress=False,
                      policies="window+search", reader="cued", cue_terms=3)
    assert cued["reader"]["reader"] == "cued" and cued["reader"]["cue_terms"] == 3
    assert eager["reader"]["cue_terms"] is None
    # The cued reader searches for a subset of the questions the eager one searches for.
    assert cued["policies"]["window+search"]["via_search"] <= \
        eager["policies"]["window+search"]["via_search"]
    assert main(["eval", "locomo", "--data", str(locomo_file), "--budget", "1000",
                 "--reader", "cued", "--cue-terms", "0", "--no-progress"]) == 2
    assert "--cue-terms" in capsys.readouterr().err


def test_diff_compares_two_policies_per_category_and_per_question(tmp_path):
    import json

    from memlane.errors import UsageError
    from memlane.eval.diff import compare, load

    def row(q, policy, reached, cat="single-hop", listed=False):
        return {"conversation": "c", "q": q, "category": cat, "question": f"q{q}?",
                "evidence": ["D1:1"], "policy": policy, "budget": 2000, "reached": reached,
                "dated": None, "tokens": 100, "listed": listed, "lines": 2, "opened_lines": 1}

    rows = [row(0, "a", "via_pointer", listed=True), row(0, "b", None),
            row(1, "a", None), row(1, "b", "in_view"),
            row(2, "a", "via_notes", "temporal"), row(2, "b", "via_notes", "temporal")]
    path = tmp_path / "pq.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = compare(load(str(path)), "a", "b")
    assert "single-hop    50.0% vs  50.0%  (+0 of 2)" in text
    assert "only b: 1 by {'in_view': 1}" in text
    assert "only a: 1 by {'via_pointer': 1}" in text
    assert "a line lists the evidence for 1, reached through a line 1" in text
    assert "c#1 [single-hop] in_view: q1?" in text
    assert "by layer" not in text and "no record" not in text  # rows written before those were
    for r, n in zip(rows, (300, 100, 500, 100, 400, 100), strict=True):
        r["layers"] = {"notes": n, "new": 10}
        r["recorded"] = r["q"] != 1  # question 1's evidence has no record: only b's turn has it
    text = compare(rows, "a", "b")
    assert "no record cites the evidence of 1 (only a replayed turn reaches them): a reaches 0, " \
        "b 1; of the 1 only b reaches, 1" in text
    assert "a context tokens/q by layer: notes 400, new 10" in text
    assert "b context tokens/q by layer: notes 100, new 10" in text
    with pytest.raises(UsageError, match="need rows of 'a' and 'zz'"):
        compare(rows, "a", "zz")
    with pytest.raises(UsageError, match="--per-question"):
        load(str(tmp_path / "missing.jsonl"))
