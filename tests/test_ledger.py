"""The quality ledger: a row per answer, signals, append-only, report and export."""

import json
import sqlite3

import pytest

from memlane import Memory
from memlane.agent import Agent
from memlane.cli import main
from memlane.ledger import (
    Ledger,
    default_ledger_path,
    detect_asked_again,
    detect_correction,
    question_keys,
)
from memlane.models.scripted import ScriptedModel
from memlane.types import Message


@pytest.fixture
def mem(tmp_path):
    m = Memory.open(tmp_path / "mem.db")
    yield m
    m.close()


def _agent(mem, model, ledger):
    # The heuristic files memory, so the scripted queue holds only the answers.
    return Agent(mem, model, ledger=ledger, extractor=mem.extractor, background=False)


def test_one_row_per_answer_and_repeat_question_named_in_report(tmp_path, mem, capsys):
    ledger = Ledger.for_memory(mem)
    assert ledger.path == str(tmp_path / "mem.db") + ".ledger.db"
    model = ScriptedModel(
        "I'm sorry to hear that. I'll look into it.",
        "Sure. What's your order number?",          # asks for what the user already gave
        "Thanks, I can see it now.",
        "It ships Tuesday.",
    )
    agent = _agent(mem, model, ledger)
    agent.turn("support", "Hi, my order number is 81-3319 and it hasn't arrived.")
    r2 = agent.turn("support", "Can you check where it is?")
    agent.turn("support", "I already told you, it's 81-3319.")
    agent.turn("support", "When does it ship?")

    answers = ledger.rows(kind="answer")
    assert [r.seq for r in answers] == [2, 4, 6, 8]
    assert all(r.thread_id == "support" and r.namespace == "default" for r in answers)
    assert all(r.model == "scripted" and r.agent_version.startswith("memlane-agent/")
               and len(r.prompt_version) == 10 and r.answer_tokens > 0 for r in answers)
    flagged = answers[1]
    assert r2.signals["asked_again"]["asked_for"] == "order number"
    assert flagged.signals["asked_again"]["at_seq"] == 1
    assert flagged.score == pytest.approx(0.3)
    assert answers[0].score is None and answers[3].score is None
    # "I already told you" in the next message judges answer #4 again, as its own row.
    (corr,) = ledger.rows(kind="signal")
    assert corr.seq == 4 and "user_correction" in corr.signals

    rep = ledger.report("signal")
    assert rep["answers"] == 4
    groups = {g["key"]: g for g in rep["groups"]}
    assert groups["asked_again"]["answers"] == 1
    assert groups["asked_again"]["examples"][0]["seq"] == 4
    assert groups["user_correction"]["answers"] == 1
    assert groups["(none)"]["answers"] == 3

    ledger.close()
    db = str(tmp_path / "mem.db")
    assert main(["--db", db, "ledger", "report"]) == 0
    text = capsys.readouterr().out
    assert "asked_again" in text and "What's your order number?" in text
    assert "support #4" in text and "4 answers" in text
    assert main(["--db", db, "ledger", "report", "--json", "--by", "version"]) == 0
    rep_v = json.loads(capsys.readouterr().out)
    assert rep_v["answers"] == 4 and len(rep_v["groups"]) == 1
    assert rep_v["groups"][0]["signals"] == {"asked_again": 1, "user_correction": 1}
    assert main(["--db", db, "ledger", "report", "--json", "--by", "day"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][0]["answers"] == 4


def test_append_only_enforced_by_the_database(tmp_path):
    path = tmp_path / "l.db"
    lg = Ledger(path)
    rid = lg.record_answer(namespace="n", thread_id="t", seq=2, agent_version="a",
                           prompt_version="p", model="m", answer_tokens=3)
    lg.feedback("t", 2, 0.0, "wrong airport", namespace="n")
    lg.feedback("t", 2, 1.0, "fixed on review", namespace="n")
    lg.close()
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE ledger SET score = 1 WHERE id = ?", (rid,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM ledger")
    conn.close()
    lg = Ledger(path)  # reopening does not re-run the migration
    rows = lg.rows()
    assert [r.kind for r in rows] == ["answer", "feedback", "feedback"]
    (view,) = lg.report()["groups"]
    assert view["mean_score"] == 1.0, "the latest feedback wins, earlier rows stay"
    with pytest.raises(Exception, match="score must be"):
        lg.feedback("t", 2, 1.5)
    lg.close()


def test_export_jsonl(tmp_path, capsys):
    path = tmp_path / "x.db.ledger.db"
    with Ledger(path) as lg:
        for seq in (2, 4):
            lg.record_answer(namespace="n", thread_id="t", seq=seq, agent_version="a",
                             prompt_version="p", model="m", answer_tokens=1,
                             signals={"tool_errors": ["open_memory"]} if seq == 4 else None)
    out = tmp_path / "rows.jsonl"
    assert main(["--db", str(tmp_path / "x.db"), "ledger", "export", "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["seq"] for r in rows] == [2, 4]
    assert rows[1]["signals"] == {"tool_errors": ["open_memory"]} and rows[1]["score"] == 0.6
    capsys.readouterr()
    assert main(["--db", str(tmp_path / "x.db"), "ledger", "--ledger", str(path), "export"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_missing_ledger_is_a_clear_error(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "none.db"), "ledger", "report"]) == 2
    assert "no quality ledger" in capsys.readouterr().err


def test_default_path(monkeypatch, tmp_path):
    monkeypatch.delenv("MEMLANE_LEDGER", raising=False)
    assert default_ledger_path(str(tmp_path / "a.db")) == str(tmp_path / "a.db") + ".ledger.db"
    assert default_ledger_path(":memory:") == ":memory:"
    assert default_ledger_path("postgresql://h/db").endswith("ledger.db")
    monkeypatch.setenv("MEMLANE_LEDGER", str(tmp_path / "elsewhere.db"))
    assert default_ledger_path(str(tmp_path / "a.db")) == str(tmp_path / "elsewhere.db")


def _msg(seq, text, role="user"):
    return Message(id=seq, thread_id="t", seq=seq, role=role, content=text, ts=0.0, tokens=1)


@pytest.mark.parametrize("answer,said,expected", [
    ("What's your order number?", "My order number is 81-3319.", "order number"),
    ("Could you give me your order number, please?", "order number: 55", "order number"),
    ("Can you tell me the email address on the account?", "My email is a@b.co", "email address"),
    ("What is your name?", "I'm Ravi and my name is Ravi Shah.", "name"),
    # not asked again: the user never gave a value, or it is not a question for them
    ("What's your order number?", "I have a question about an order.", None),
    ("What's your order number?", "What is an order number?", None),
    ("How are you today?", "My order number is 81-3319.", None),
    ("Your order number is 81-3319.", "My order number is 81-3319.", None),
])
def test_asked_again_detector(answer, said, expected):
    hit = detect_asked_again(answer, [_msg(1, said)])
    assert (hit["asked_for"] if hit else None) == expected


def test_asked_again_from_a_stored_record():
    from memlane.types import Record

    rec = Record(id=7, namespace="n", text="The user's passport number is K4471902.")
    hit = detect_asked_again("Sure, what is your passport number?", [], [rec])
    assert hit and hit["record"] == 7
    assert question_keys("Thanks! Which seat do you prefer?") == []


@pytest.mark.parametrize("text,hit", [
    ("No, I said Tuesday.", True), ("That's wrong.", True), ("Actually it's 42.", True),
    ("that is not what I asked", True), ("I already told you my name", True),
    ("Thanks, that's great!", False), ("No worries.", False), ("Is that right?", False),
])
def test_correction_detector(text, hit):
    assert bool(detect_correction(text)) is hit


def test_namespace_is_chosen_like_everywhere_else(tmp_path, capsys):
    path = tmp_path / "x.db.ledger.db"
    with Ledger(path) as lg:
        for ns, seq in (("acme", 2), ("acme", 4), ("globex", 2)):
            lg.record_answer(namespace=ns, thread_id="t", seq=seq, agent_version="a",
                             prompt_version="p", model="m", answer_tokens=1)
    db = str(tmp_path / "x.db")

    def count(*argv):
        capsys.readouterr()
        assert main(["--db", db, *argv]) == 0
        return len(capsys.readouterr().out.splitlines())

    assert count("ledger", "export") == 3  # no namespace given: every namespace
    assert count("-n", "acme", "ledger", "export") == 2  # the global option
    assert count("ledger", "export", "--namespace", "acme") == 2
    assert count("ledger", "export", "-n", "globex") == 1
    assert count("ledger", "export", "--ns", "acme") == 2  # the old spelling still works
    assert main(["--db", db, "-n", "acme", "ledger", "export", "-n", "globex"]) == 2
    assert "two namespaces given" in capsys.readouterr().err
