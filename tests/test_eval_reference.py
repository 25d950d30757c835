"""The reference workload (later messages that need an earlier fact without sharing its words)
and the two notes mechanisms it measures: the frame (first stretch's records) and the second
search with the user's last turn."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from memlane import Memory
from memlane.cli import main
from memlane.context.policy import Policy
from memlane.errors import UsageError
from memlane.eval.needle import _fold
from memlane.eval.reader import terms
from memlane.eval.reference import (
    ITEMS,
    REFERENCE_KINDS,
    Dialogue,
    _exchange_drawer,
    _messages,
    load_reference,
    make_reference_thread,
    shares_terms,
)
from memlane.eval.reference_items import RefItem
from memlane.eval.reference_run import run_reference


def test_every_template_needs_its_fact_without_sharing_a_word() -> None:
    assert {i.kind for i in ITEMS} == set(REFERENCE_KINDS)
    for item in ITEMS:
        assert not shares_terms(item.fact, item.question), item
        if item.cue:  # the cue names the subject; the question does not
            assert shares_terms(item.cue, item.fact) and not shares_terms(item.cue, item.question)


WRITTEN = sorted((Path(__file__).parent / "data").glob("reference_written_*.jsonl"))


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: p.name)
def test_every_written_item_keeps_the_workloads_rules(path: Path) -> None:
    """The items written outside the templates (scripts/build_reference_threads.py plants them):
    the question shares no term with the fact or an update's stale statement, the answer is in
    the fact, a cue names the subject and not the question's words, all 4 kinds (sets e, f and g
    weight the needs: g has one reference and one update; each item is planted twice)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert {r["kind"] for r in rows} == set(REFERENCE_KINDS)
    for r in rows:
        assert not shares_terms(r["fact"], r["question"]), r
        assert set(terms(r["answer"])) <= set(terms(r["fact"])), r
        if r.get("stale"):
            assert not shares_terms(r["stale"], r["question"]), r
            assert not set(terms(r["stale_answer"])) <= set(terms(r["fact"])), r
        if r.get("cue"):
            assert shares_terms(r["cue"], r["fact"]) and not shares_terms(r["cue"], r["question"])


@pytest.mark.parametrize("kind", REFERENCE_KINDS)
def test_threads_are_reproducible_and_the_fact_is_said_once(kind: str) -> None:
    a = make_reference_thread(3, 40, kind, "builtin")
    assert a == make_reference_thread(3, 40, kind, "builtin")
    assert len(a.messages) == 80 and a.messages[a.evidence[0]][0] == "user"
    fact = a.messages[a.evidence[0]][1]
    key = max(_fold(a.answer).split(), key=len)  # filler never says the answer's words
    assert [m for _, m in a.messages if key in _fold(m).split()] == [fact]
    if kind == "reference":
        assert a.messages[-2][0] == "user" and shares_terms(a.messages[-2][1], fact)
    elif kind != "update":
        assert a.evidence[0] <= 2  # in the first stretch


def test_load_reference_reads_the_documented_format_and_names_bad_lines(tmp_path: Path) -> None:
    good = {"id": "c1", "kind": "constraint", "question": "Suggest a dinner.", "evidence": [0],
            "messages": [{"role": "user", "content": "I'm allergic to shellfish."},
                         {"role": "assistant", "content": "Noted."}]}
    p = tmp_path / "ok.jsonl"
    p.write_text(json.dumps(good) + "\n\n", encoding="utf-8")
    [t] = load_reference(p)
    assert t.id == "c1" and t.evidence == (0,) and t.messages[0][0] == "user"
    for bad, says in (("{", "not JSON"), (json.dumps({**good, "evidence": [5]}), "evidence"),
                      (json.dumps({**good, "messages": []}), "messages"),
                      (json.dumps({**good, "question": ""}), "question")):
        q = tmp_path / "bad.jsonl"
        q.write_text(json.dumps(good) + "\n" + bad + "\n", encoding="utf-8")
        with pytest.raises(UsageError, match=f"bad.jsonl:2: .*{says}"):
            load_reference(q)


def test_reference_cli_generated_and_from_a_file(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "reference", "--budget", "600", "--seeds", "1", "--turns", "40",
                 "--filler", "builtin", "--policies", "memlane,retrieval,window",
                 "--ablate", "buffer", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["threads"] == len(REFERENCE_KINDS)
    assert set(out["policies"]) == {"memlane", "retrieval", "window", "memlane-buffer"}
    for row in out["policies"].values():
        assert set(row["by_kind"]) == set(REFERENCE_KINDS)
    threads = [make_reference_thread(s, 30, "reference", "builtin") for s in range(2)]
    p = tmp_path / "mine.jsonl"
    p.write_text("".join(json.dumps({
        "messages": [{"role": r, "content": c} for r, c in t.messages],
        "question": t.question, "evidence": list(t.evidence), "kind": "mine"}) + "\n"
        for t in threads), encoding="utf-8")
    got = run_reference([600], data=p, policies="memlane", progress=False)
    assert got["threads"] == 2 and got["kinds"] == ["mine"]


FILLER = [f"Today I tried recipe number {i} with {w} and it went fine." for i, w in
          enumerate(["basil", "thyme", "cumin", "paprika", "saffron", "ginger", "fennel",
                     "nutmeg", "oregano", "sumac", "mace", "clove", "anise", "dill", "sage",
                     "mint", "chives", "tarragon", "caraway", "juniper"] * 3)]


def _thread(first: str, later: list[tuple[int, str]]) -> Memory:
    mem = Memory.open(":memory:")
    t = mem.thread("t")
    said = dict(later)
    for i in range(60):
        text = first if i == 0 else said.get(i, FILLER[i % len(FILLER)])
        t.extend([{"role": "user", "content": text}, {"role": "assistant", "content": "Okay."}])
        t.maybe_step()
    return mem


def test_a_standing_fact_is_shown_when_the_request_never_names_it() -> None:
    mem = _thread("I'm allergic to shellfish, so no prawns or crab for me ever.", [])
    allergy = [r for r in mem.records() if "shellfish" in r.text]
    assert allergy and allergy[0].kind == "constraint"
    t = mem.thread("t")
    ctx = t.context(1500, "Suggest a dinner I could cook tonight.")
    core = "".join(m.content for m in ctx.messages if m.layer == "core")
    assert f"#{allergy[0].id} " in core and "Standing facts" in core
    assert ctx.trace.tokens_total <= 1500
    # Neither the standing layer nor the frame: the request shares no word with the fact.
    off = t.context(1500, "Suggest a dinner I could cook tonight.",
                    policy=Policy(use_buffer=False, standing=False))
    assert f"#{allergy[0].id} " not in "".join(m.content for m in off.messages)


def test_notes_search_includes_the_users_last_turn() -> None:
    mem = _thread("Hello there.", [(20, "I applied for a loan of forty thousand at Harbor "
                                        "Bank."), (59, "Still nervous about the loan.")])
    loan = [r for r in mem.records() if "Harbor" in r.text]
    assert loan
    t = mem.thread("t")
    q = "Any news on it? Remind me how much I asked for."
    ctx = t.context(1500, q)
    assert f"#{loan[0].id} " in "".join(m.content for m in ctx.messages if m.layer == "notes")
    alone = t.context(1500, q, policy=Policy(notes_recent=False))
    assert f"#{loan[0].id} " not in "".join(m.content for m in alone.messages
                                             if m.layer == "notes")


def test_the_line_index_shows_a_matching_old_line_in_place_of_a_recent_one() -> None:
    # Model-written lines (a model's line names what a stretch was about; the offline
    # heuristic's lines name only kinds of fact, so they give the index little to match).
    mem = Memory.open(":memory:")
    t = mem.thread("t")
    for i in range(60):
        t.extend([{"role": "user", "content": FILLER[i % len(FILLER)]},
                  {"role": "assistant", "content": "Okay."}])
    topics = ["cooking with herbs"] * 15
    topics[4] = "the user's grandmother Ottoline, who restores harpsichords in Bruges"
    for j, topic in enumerate(topics):
        t.step({"records": [], "episode": f"Talked about {topic}; it ended with thanks.",
                "relevance": []}, start=8 * j + 1, end=8 * j + 8)
    old = next(e for e in t.episodes() if "Ottoline" in e.line)
    q = "Tell me about Ottoline and the harpsichords."
    assert t.matched_lines(q, Policy())[0].end == old.end
    assert t.matched_lines(q, Policy(index_lines=0)) == []
    assert t.matched_lines(q, Policy(use_buffer=False)) == []
    small = Policy(buffer_lines=3, notes_share=0.0)
    shown = t.context(800, q, policy=small).trace.buffer_lines
    assert old.end in [b.end for b in shown] and len(shown) <= 3
    # Without the index the three lines shown are the latest: the old one is not among them.
    plain = Policy(buffer_lines=3, notes_share=0.0, index_lines=0)
    assert old.end not in [b.end for b in t.context(800, q, policy=plain).trace.buffer_lines]
    plain = t.context(800, q, policy=Policy(buffer_lines=3, notes_share=0.0, index_lines=0))
    assert old.end not in [b.end for b in plain.trace.buffer_lines]


def test_a_budget_whose_notes_fill_the_search_limit_still_gets_its_notes() -> None:
    # At a large budget the first search asks for the most the search allows; the second one
    # must stay within that limit too, and never take the first one's notes away.
    mem = _thread("Hello there.", [(20, "I applied for a loan at Harbor Bank."),
                                   (59, "Still nervous about the loan.")])
    for i in range(120):
        mem.remember(f"Fact number {i} about loan rates and Harbor Bank branch {i}.")
    ctx = mem.thread("t").context(12000, "Tell me about Harbor Bank loan rates.")
    notes = "".join(m.content for m in ctx.messages if m.layer == "notes")
    assert notes.count("\n- #") >= 50


def test_filler_never_says_a_value_as_the_reader_stems_it() -> None:
    """An update's stale value "March" is seen in a filler line that says "marched" (the
    reader's terms stem both to "march"): such a line would count as the stale value shown, so
    the generator leaves it out, as it leaves out the value's own words."""
    convo = tuple((f"We walked by the canal, lap {i}.", f"Lovely walk ({i}).") if i % 2
                  else (f"So many people marched through the streets ({i}).", "Powerful.")
                  for i in range(40))
    item = RefItem("update", "The optician's moved my eye test to 22 April.",
                   "When's my next appointment for my glasses?", "April",
                   stale="I've got my annual check-up with the optician on 4 March.",
                   stale_answer="March")
    _, nxt = _exchange_drawer(random.Random(0), Dialogue("d", (convo,)))
    said = _messages(random.Random(0), item, 20, 15, 2, nxt)
    filler = [text for i, (_, text) in enumerate(said) if i // 2 not in (2, 15)]
    assert filler and not any("march" in terms(t) for t in filler)
    assert sum("march" in terms(t) for _, t in said) == 1  # the stale statement alone
