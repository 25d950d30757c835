"""The core CLI commands, run in-process on a real SQLite file."""

import json

import pytest

from memlane.cli import main
from memlane.context.tokens import MESSAGE_OVERHEAD, default_tokenizer


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def convo(tmp_path):
    lines = [
        {"role": "user", "content": "Hi, I'm Ravi. My passport number is K4471902.", "ts": 1.7e9},
        {"role": "assistant", "content": "Thanks Ravi, noted."},
    ]
    for i in range(40):
        lines.append({"role": "user", "content": f"Question {i} about the weather in Oslo in "
                      f"week {i}, is it cold?"})
        lines.append({"role": "assistant", "content": f"Week {i} in Oslo is usually mild."})
    p = tmp_path / "c.jsonl"
    p.write_text("".join(json.dumps(m) + "\n" for m in lines))
    return p


def test_ingest_then_context_json_contract(tmp_path, capsys, convo):
    db = str(tmp_path / "m.db")
    code, out, _ = run(capsys, "--db", db, "ingest", "t1", str(convo), "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["messages"] == 82 and stats["steps"] >= 9
    code, out, _ = run(capsys, "--db", db, "context", "t1", "--budget", "1200", "--json")
    assert code == 0
    ctx = json.loads(out)
    assert {"messages", "trace"} <= set(ctx)
    assert all({"role", "content"} <= set(m) for m in ctx["messages"])
    tr = ctx["trace"]
    assert tr["tokens_total"] <= 1200
    # An independent recount of what would be sent stays within the budget too.
    tk = default_tokenizer()
    recount = sum(n + MESSAGE_OVERHEAD for n in tk.count([m["content"] for m in ctx["messages"]]))
    recount += tk.count([json.dumps(ctx["tools"], separators=(",", ":"))])[0] if ctx["tools"] else 0
    assert recount <= 1200
    lines = tr["buffer"]["lines"]
    assert lines and lines[0]["start"] == 1, "the first stretch's line is shown"
    assert all({"line", "record_ids", "start", "end"} <= set(x) for x in lines)
    assert "gap" in tr["buffer"]
    # The planted fact is one pointer away: a visible line's records hold it.
    code, out, _ = run(capsys, "--db", db, "show", "t1", "--json")
    assert code == 0


def test_no_block_when_history_fits(tmp_path, capsys):
    p = tmp_path / "short.jsonl"
    p.write_text('{"role": "user", "content": "hello"}\n{"role": "assistant", "content": "hi"}\n')
    db = str(tmp_path / "m.db")
    assert run(capsys, "--db", db, "ingest", "s", str(p))[0] == 0
    code, out, _ = run(capsys, "--db", db, "context", "s", "--json")
    tr = json.loads(out)["trace"]
    assert tr["buffer"]["lines"] == [] and tr["buffer"]["gap"] is None


def test_bad_input_gets_a_clear_error(tmp_path, capsys):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"role": "user", "content": "ok"}\nnot json\n')
    code, _, err = run(capsys, "--db", str(tmp_path / "m.db"), "ingest", "t", str(p))
    assert code == 2 and "bad.jsonl:2" in err and "not valid JSON" in err
    code, _, err = run(capsys, "--db", str(tmp_path / "m.db"), "context", "nope")
    assert code == 2 and "no thread 'nope'" in err
    p.write_text('{"role": "wizard", "content": "ok"}\n')
    code, _, err = run(capsys, "--db", str(tmp_path / "m.db"), "ingest", "t", str(p))
    assert code == 2 and "role must be one of" in err


def test_threads_and_show(tmp_path, capsys, convo):
    db = str(tmp_path / "m.db")
    run(capsys, "--db", db, "ingest", "t1", str(convo))
    code, out, _ = run(capsys, "--db", db, "threads", "--json")
    rows = json.loads(out)
    assert [r["thread_id"] for r in rows] == ["t1"] and rows[0]["messages"] == 82
    code, out, _ = run(capsys, "--db", db, "-n", "other", "threads", "--json")
    assert json.loads(out) == []


def test_demo_shows_fact_one_pointer_away(capsys):
    code, out, _ = run(capsys, "demo", "--json")
    assert code == 0
    r = json.loads(out)
    assert r["window_only"]["fact_in_view"] is False
    # The default shows the records relevant to the question as notes: the fact is in view, as
    # its record, and a visible line points at that same record.
    assert r["memlane"]["fact_in_view"] is True and r["memlane"]["fact_in_notes"] is True
    hit = r["memlane"]["one_pointer_away"]
    assert hit and "TP 1353" in hit["record"]["text"]
    assert hit["record"]["id"] in hit["line"]["record_ids"]
    assert r["memlane"]["tokens"] <= r["budget"]


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for cmd in ("ingest", "context", "threads", "show", "demo"):
        assert cmd in out


def test_ingest_accepts_iso_timestamps(tmp_path, capsys):
    p = tmp_path / "iso.jsonl"
    p.write_text('{"role": "user", "content": "hi", "ts": "2024-05-08T13:56:00Z"}\n'
                 '{"role": "assistant", "content": "hello", "ts": "2024-05-08T13:56:30"}\n')
    db = str(tmp_path / "m.db")
    assert run(capsys, "--db", db, "ingest", "t", str(p))[0] == 0
    _, out, _ = run(capsys, "--db", db, "show", "t", "--json")
    ts = [m["ts"] for m in json.loads(out)["messages"]]
    assert ts == [1715176560.0, 1715176590.0]
    p.write_text('{"role": "user", "content": "hi", "ts": "last tuesday"}\n')
    code, _, err = run(capsys, "--db", db, "ingest", "t", str(p))
    assert code == 2 and "ISO 8601" in err
