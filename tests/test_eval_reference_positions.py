"""The reference workload at every position: four kinds, facts at the first exchange and 5-90%,
real dialogue as filler (a LoCoMo file by path), and updates whose stale value shown alone is
counted as a failure."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from memlane.cli import main
from memlane.errors import UsageError
from memlane.eval.needle import _fold
from memlane.eval.reader import terms
from memlane.eval.reference import (
    DEFAULT_POSITIONS,
    ITEMS,
    REFERENCE_KINDS,
    generate,
    load_dialogue,
    load_reference,
    make_reference_thread,
    position_label,
    shares_terms,
    update_outcome,
)
from memlane.eval.reference_run import Breakdown, run_reference

DEV = Path(
    os.environ.get("LOCOMO_DEV")
    or Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json"
)


def test_at_least_twelve_templates_per_kind_none_sharing_a_term_with_its_question() -> None:
    for kind in REFERENCE_KINDS:
        of_kind = [i for i in ITEMS if i.kind == kind]
        assert len(of_kind) >= 12, kind
        assert len({i.question for i in of_kind}) == len(of_kind)  # varied wording
    for item in ITEMS:
        assert not shares_terms(item.fact, item.question), item
        assert set(terms(item.answer)) <= set(terms(item.fact)), item
        if item.kind == "update":
            assert not shares_terms(item.stale, item.question), item
            old, new = set(terms(item.stale_answer)), set(terms(item.answer))
            assert old and old <= set(terms(item.stale)) and not old & new, item
            assert not new & set(terms(item.stale)), item  # the stale message has no new value
        else:
            assert not item.stale and not item.stale_answer


def test_generation_is_deterministic_for_a_seed() -> None:
    a = generate(16, 7, REFERENCE_KINDS, DEFAULT_POSITIONS, None, "builtin")
    assert a == generate(16, 7, REFERENCE_KINDS, DEFAULT_POSITIONS, None, "builtin")
    b = generate(16, 8, REFERENCE_KINDS, DEFAULT_POSITIONS, None, "builtin")
    assert [t.messages for t in a] != [t.messages for t in b]


def test_every_kind_and_position_is_generated_where_it_says() -> None:
    threads = generate(48, 0, REFERENCE_KINDS, DEFAULT_POSITIONS, None, "builtin")
    cells = [(t.kind, t.position) for t in threads]
    want = {(k, position_label(p)) for k in REFERENCE_KINDS for p in DEFAULT_POSITIONS}
    assert set(cells) == want and all(cells.count(c) == 2 for c in want)  # evenly spread
    assert len({t.question for t in threads}) >= 40  # templates vary too
    for t in threads:
        n = len(t.messages) // 2
        assert 150 <= n < 250
        ex = t.evidence[0] // 2
        assert t.messages[t.evidence[0]][0] == "user"
        if t.position == "first":
            assert ex == (1 if t.kind == "update" else 0)
        else:
            p = float(t.position.rstrip("%")) / 100
            assert ex == min(max(round(p * n), 1), n - 2)
        fact = t.messages[t.evidence[0]][1]
        key = max(_fold(t.answer).split(), key=len)  # filler never says the answer's words
        assert [m for _, m in t.messages if key in _fold(m).split()] == [fact]
        if t.kind == "update":  # the stale value is said once, before the newest
            old = max(_fold(t.stale).split(), key=len)
            said = [j for j, (_, m) in enumerate(t.messages) if old in _fold(m).split()]
            assert len(said) == 1 and said[0] < t.evidence[0]


def test_a_stale_value_shown_alone_is_a_stale_failure() -> None:
    stale = "My office moved to the fourth floor of the Kellner building."
    new = "They relocated my desk again, I'm up on the ninth floor now."
    # The context holds only the stale value (a note from the first stretch, say): a failure.
    seen = ["- #3 My office moved to the fourth floor of the Kellner building.",
            "Which level should the courier bring the parcel to at work?"]
    assert update_outcome(seen, "ninth", "fourth") == "stale_only"
    assert update_outcome([stale, new], "ninth", "fourth") == "both"
    assert update_outcome([new], "ninth", "fourth") == "new_only"
    assert update_outcome(["Nice weather."], "ninth", "fourth") == "neither"
    b = Breakdown()
    b.add("update", "50%", False, update_outcome(seen, "ninth", "fourth"))
    b.add("update", "first", True, "both")
    b.add("constraint", "90%", True, None)
    out = b.to_dict()
    assert out["updates"] == {"threads": 2, "stale_only": 1, "both": 1, "new_only": 0,
                              "neither": 0, "stale_failures": 1}
    assert out["by_position"] == {"first": 1.0, "50%": 0.0, "90%": 1.0}
    assert out["after_first"] == 0.5 and out["after_first_n"] == [1, 2]
    assert out["by_kind_position"]["update"] == {"first": [1, 1], "50%": [0, 1]}


def _locomo_file(tmp_path: Path) -> Path:
    """A small file in LoCoMo's format (the real data may not be copied into the repository)."""
    def session(k: int) -> list[dict[str, Any]]:
        out = []
        for i in range(40):
            who = "Ana" if i % 2 == 0 else "Ben"
            text = (f"Ana line {k}-{i}: the hike up the ridge was lovely." if who == "Ana" else
                    f"Ben line {k}-{i}: my garden tomatoes are ripening." if i % 4 == 1 else
                    f"Ben line {k}-{i}: the match last night was close.")
            out.append({"speaker": who, "dia_id": f"D{k}:{i + 1}", "text": text})
        out.insert(5, {"speaker": "Ben", "dia_id": f"D{k}:99", "text": "Also a second line."})
        return out

    conv: dict[str, Any] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    for k in range(1, 5):
        conv[f"session_{k}_date_time"] = f"1:56 pm on {k} May, 2023"
        conv[f"session_{k}"] = session(k)
    p = tmp_path / "locomo-like.json"
    p.write_text(json.dumps([{"sample_id": "s1", "conversation": conv, "qa": []}]),
                 encoding="utf-8")
    return p


def test_real_dialogue_filler_keeps_speakers_and_leaves_out_the_facts_words(
        tmp_path: Path) -> None:
    dlg = load_dialogue(_locomo_file(tmp_path))
    [conv] = dlg.conversations
    assert len(conv) == 80  # 4 sessions x 20 exchanges; Ben's two lines in a row are one
    assert all(u.startswith("Ana line") and "Ben line" in b for u, b in conv)
    assert sum(b.startswith("Also a second line. Ben line") for _, b in conv) == 4
    t = make_reference_thread(1, 60, "constraint", dlg, position=0.5)
    assert t.filler_source == "locomo-like.json" and t.position == "50%"
    planted = {t.evidence[0], t.evidence[0] + 1}
    filler = [m for j, (_, m) in enumerate(t.messages) if j not in planted]
    lines = {x for pair in conv for x in pair}
    assert filler and all(m in lines for m in filler)
    assert t == make_reference_thread(1, 60, "constraint", dlg, position=0.5)
    # A fact whose words the filler says ("garden"): every exchange saying them is left out.
    decisions = [it for it in ITEMS if it.kind == "decision"]
    [garden] = [i for i, it in enumerate(decisions) if "garden" in it.fact]
    d = make_reference_thread(1, 30, "decision", dlg, position=0.25, template=garden)
    assert all("garden" not in m for j, (_, m) in enumerate(d.messages) if j != d.evidence[0])
    # A file whose every exchange says the fact's words is refused with the fix, not looped on.
    constraints = [it for it in ITEMS if it.kind == "constraint"]
    [bus] = [i for i, it in enumerate(constraints) if "bus" in it.fact]
    walks = load_dialogue(_locomo_file(tmp_path))
    walks = type(walks)(walks.name, tuple(tuple((u + " I took the bus.", b) for u, b in c)
                                          for c in walks.conversations))
    with pytest.raises(UsageError, match="no exchange of its conversations is free"):
        make_reference_thread(1, 30, "constraint", walks, position=0.5, template=bus)


def test_reference_cli_reports_kind_position_and_updates(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval", "reference", "--budgets", "600,1200", "--threads", "24", "--turns", "20",
            "--filler", str(_locomo_file(tmp_path)), "--policies", "memlane,window",
            "--no-progress"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["threads"] == 24 and out["filler"] == ["locomo-like.json"] and out["seed"] == 0
    assert out["positions"] == [position_label(p) for p in DEFAULT_POSITIONS]
    for grid in out["budgets"]:
        for row in grid["policies"].values():
            assert set(row["by_kind"]) == set(REFERENCE_KINDS)
            assert set(row["by_position"]) == set(out["positions"])
            assert row["updates"]["threads"] == 6
            n = sum(v[1] for cells in row["by_kind_position"].values() for v in cells.values())
            assert n == 24
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "budget 1200, reach by kind and position" in table and "stale-only" in table
    assert main(["eval", "reference", "--filler", str(tmp_path / "nope.json"),
                 "--no-progress"]) == 2
    assert "no LoCoMo file" in capsys.readouterr().err
    assert main(["eval", "reference", "--positions", "0,1.5", "--no-progress"]) == 2
    assert "fractions of the thread" in capsys.readouterr().err


@pytest.mark.skipif(not DEV.is_file(), reason="the LoCoMo dev split is not at ../shared")
def test_the_dev_split_gives_threads_of_300_to_500_messages() -> None:
    threads = generate(8, 0, REFERENCE_KINDS, DEFAULT_POSITIONS, None, load_dialogue(DEV))
    assert all(300 <= len(t.messages) < 500 for t in threads)
    assert {t.filler_source for t in threads} == {DEV.name}
    got = run_reference([2000], data=None, threads=4, turns=40, filler=str(DEV),
                        policies="memlane", progress=False)
    assert got["threads"] == 4 and got["filler"] == [DEV.name]


def test_a_file_may_label_positions_and_name_an_updates_stale_value(tmp_path: Path) -> None:
    row = {"kind": "update", "position": "50%", "stale": "fourth", "answer": "ninth",
           "question": "Which level should the courier bring the parcel to at work?",
           "evidence": [2],
           "messages": [{"role": "user", "content": "My office is on the fourth floor."},
                        {"role": "assistant", "content": "Noted."},
                        {"role": "user", "content": "They moved me up to the ninth floor."},
                        {"role": "assistant", "content": "Okay."}]}
    p = tmp_path / "mine.jsonl"
    p.write_text(json.dumps(row) + "\n", encoding="utf-8")
    [t] = load_reference(p)
    assert t.position == "50%" and t.stale == "fourth" and t.answer == "ninth"
    got = run_reference([2000], data=p, policies="window", progress=False)
    row_out = got["policies"]["window"]
    assert row_out["by_position"] == {"50%": 1.0}
    assert row_out["updates"]["both"] == 1 and row_out["updates"]["stale_failures"] == 0
    p.write_text(json.dumps({**row, "stale": 4}) + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match="mine.jsonl:1: 'stale' must be a string"):
        load_reference(p)
