"""The core CLI commands, run in-process on a real SQLite file."""

import json
import os
import re

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
    assert code == 2 and f"no database at {tmp_path / 'm.db'}" in err
    assert not (tmp_path / "m.db").exists(), "a failed ingest and a read create no file"
    p.write_text('{"role": "user", "content": "ok"}\n')
    assert run(capsys, "--db", str(tmp_path / "m.db"), "ingest", "t", str(p))[0] == 0
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


def test_demo_shows_fact_one_pointer_away(capsys, tmp_path):
    code, out, _ = run(capsys, "demo", "--db", str(tmp_path / "demo.db"), "--json")
    assert code == 0
    r = json.loads(out)
    assert r["window_only"]["fact_in_view"] is False
    # memlane shows the record itself as a note (it is relevant to the question), and the line
    # of the first stretch, which it came from, is in the block too (how the conversation
    # started, always shown): the fact one pointer away.
    assert r["memlane"]["fact_in_view"] is True
    notes = [m for m in r["context"]["messages"] if m.get("layer") == "notes"]
    assert notes and "TP 1353" in notes[0]["content"]
    assert r["memlane"]["in_layers"] == ["notes"], "a line is an index, not the fact"
    assert r["memlane"]["one_pointer_away"] is not None
    assert r["memlane"]["tokens"] <= r["budget"]
    from memlane import Memory
    from memlane.demo import QUESTION, THREAD

    with Memory.open(str(tmp_path / "demo.db")) as mem:
        ctx = mem.thread(THREAD).context(r["budget"], QUESTION)
    first = ctx.trace.buffer_lines[0]
    assert first.start == 1 and first.record_ids


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


@pytest.mark.parametrize("argv", [["threads"], ["records"], ["search", "seat"], ["show", "t"],
                                  ["context", "t"], ["export"], ["forget", "--record", "1",
                                                                 "--yes"]])
def test_read_only_commands_create_nothing_on_a_fresh_home(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("MEMLANE_DB", raising=False)
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert f"no database at {tmp_path / '.memlane' / 'memlane.db'}" in err
    assert list(tmp_path.iterdir()) == [], "nothing created under HOME"


def test_records_says_when_it_stopped_at_its_limit(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    p = tmp_path / "c.jsonl"
    # Three facts about three things (three values of one locker number would be one record,
    # superseded twice).
    p.write_text("".join(json.dumps({"role": "user", "content": f"My {thing} number is {i}42 "
                                     "at the Oslo gym."}) + "\n"
                         + json.dumps({"role": "assistant", "content": "Noted."}) + "\n"
                         for i, thing in enumerate(("locker", "member", "towel"))))
    assert run(capsys, "--db", db, "ingest", "t", str(p), "--every", "1")[0] == 0
    code, out, _ = run(capsys, "--db", db, "records", "--limit", "2")
    assert code == 0
    assert len([x for x in out.splitlines() if x.startswith("#")]) == 2
    assert "more records" in out and "--offset 2" in out
    code, out, _ = run(capsys, "--db", db, "records", "--limit", "2", "--offset", "2")
    assert len([x for x in out.splitlines() if x.startswith("#")]) == 1
    assert "more records" not in out
    code, out, err = run(capsys, "--db", db, "records", "--limit", "2", "--json")
    assert len(json.loads(out)) == 2 and "--offset 2" in err
    code, out, _ = run(capsys, "--db", db, "records", "--limit", "3")
    assert "more records" not in out


def test_show_separates_role_and_text(tmp_path, capsys, convo):
    db = str(tmp_path / "m.db")
    run(capsys, "--db", db, "ingest", "t1", str(convo))
    _, out, _ = run(capsys, "--db", db, "show", "t1")
    assert "#2     assistant: Thanks Ravi, noted." in out


def test_demo_keeps_its_thread_and_every_next_command_works(capsys, tmp_path, monkeypatch):
    import shlex

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("MEMLANE_DB", raising=False)
    code, out, _ = run(capsys, "demo")
    assert code == 0
    demo_db = tmp_path / ".memlane" / "demo.db"
    assert demo_db.exists() and str(demo_db) in out
    assert not (tmp_path / ".memlane" / "memlane.db").exists(), "the user's memory is untouched"
    from memlane.demo import program

    # The commands start with what runs memlane from this shell (`memlane` only when on PATH).
    prog = program()
    if prog != "memlane":
        assert os.access(shlex.split(prog)[0], os.X_OK), prog
        assert f"run it as {prog}" in out
    n = len(shlex.split(prog))
    tail = out.split("Next:", 1)[1].splitlines()
    cmds = [ln.strip() for ln in tail if ln.strip().startswith(prog + " --db ")
            and " serve " not in ln]
    assert len(cmds) >= 5
    for cmd in cmds:
        argv = shlex.split(cmd)
        code, got, err = run(capsys, *argv[n:])
        assert code == 0, (cmd, err)
        assert got.strip() and "(no threads)" not in got and "(no records)" not in got, cmd
    # The context command shows the demo's point: the line pointing at the flight's record.
    ctx_cmd = next(c for c in cmds if " context " in c)
    _, got, _ = run(capsys, *shlex.split(ctx_cmd)[n:])
    assert "[buffer" in got
    # A second run replaces the thread (and its records) rather than doubling it.
    first = json.loads(run(capsys, "demo", "--json")[1])
    second = json.loads(run(capsys, "demo", "--json")[1])
    for r in (first, second):
        r["memlane"].pop("one_pointer_away", None)
        r.pop("context")
    # The records' ids are new on the second run, and ids and the data markers' tags are
    # tokens: the count may move a little (a turn more or less fits), never double.
    t1, t2 = first["memlane"].pop("tokens"), second["memlane"].pop("tokens")
    assert abs(t1 - t2) <= 0.05 * t1, (t1, t2)
    assert first == second
    code, got, _ = run(capsys, "--db", str(demo_db), "records", "--json")
    assert len(json.loads(got)) == len({x["id"] for x in json.loads(got)})
    code, got, _ = run(capsys, "--db", str(demo_db), "threads", "--json")
    rows = json.loads(got)
    assert [r["thread_id"] for r in rows] == ["lisbon-trip"]
    assert rows[0]["messages"] == 120


def test_context_shows_notes_whole_and_full_shows_every_layer_whole(tmp_path, capsys, convo):
    db = str(tmp_path / "m.db")
    run(capsys, "--db", db, "ingest", "t1", str(convo))
    code, out, _ = run(capsys, "--db", db, "context", "t1", "--json",
                       "--message", "What is my passport number?")
    ctx = json.loads(out)
    notes = next(m["content"] for m in ctx["messages"] if m["layer"] == "notes")
    system = next(m["content"] for m in ctx["messages"] if m["layer"] == "system")
    assert len(notes) > 100 and len(system) > 100  # long enough that a clip would cut them
    _, text, _ = run(capsys, "--db", db, "context", "t1", "--message",
                     "What is my passport number?")
    assert notes in text and "K4471902" in text  # the notes, whole, by default
    assert " ".join(system.split()) not in text  # the system prompt clipped to a line
    _, full, _ = run(capsys, "--db", db, "context", "t1", "--full", "--message",
                     "What is my passport number?")
    assert notes in full and system in full


def test_keys_add_prints_only_the_key_on_stdout(tmp_path, capsys):
    code, out, err = run(capsys, "keys", "add", "acme", "--keys", str(tmp_path / "k.json"))
    assert code == 0
    assert out.count("\n") == 1 and out.strip().startswith("mlk_")  # `$(...)` gets the key
    assert "shown only this once" in err and "acme" in err


def test_search_scores_are_readable_and_ties_list_newest_first(tmp_path, capsys):
    from memlane import Memory

    db = tmp_path / "m.db"
    with Memory.open(db) as mem:
        for text in ["The user likes tea.", "The user likes coffee.", "The user likes water."]:
            mem.remember(text)
        hits = mem.search("user likes")
    assert len({h.score for h in hits}) == 1  # a tie: every record matches the same way
    assert [h.record.text for h in hits] == ["The user likes water.", "The user likes coffee.",
                                             "The user likes tea."]
    code, out, _ = run(capsys, "--db", str(db), "search", "user likes")
    assert code == 0 and "0.0000" not in out
    lines = out.strip().splitlines()
    assert len(lines) == 3 and "water" in lines[0] and "tea" in lines[2]
    assert float(lines[0].split()[1]) > 0  # the score as printed is not rounded to zero


def test_show_and_threads_page_with_limit_and_offset(tmp_path, capsys, convo):
    db = str(tmp_path / "m.db")
    for t in ("a", "b", "c"):
        run(capsys, "--db", db, "ingest", t, str(convo), "--no-step")
    _, out, _ = run(capsys, "--db", db, "threads", "--limit", "2")
    assert len(out.splitlines()) == 3 and "--offset 2 for the next page" in out
    _, rest, _ = run(capsys, "--db", db, "threads", "--limit", "2", "--offset", "2", "--json")
    firsts = [ln.split()[0] for ln in out.splitlines()[:2]]
    assert len(json.loads(rest)) == 1 and json.loads(rest)[0]["thread_id"] not in firsts
    _, page, _ = run(capsys, "--db", db, "show", "a", "--limit", "5", "--offset", "10", "--json")
    assert [m["seq"] for m in json.loads(page)["messages"]] == [11, 12, 13, 14, 15]
    _, text, _ = run(capsys, "--db", db, "show", "a", "--limit", "5")
    assert "#5 " in text and "#6 " not in text and "--offset 5 for the next page" in text
    code, _, err = run(capsys, "--db", db, "show", "a", "--offset", "-1")
    assert code != 0 and "--offset" in err


def test_remember_and_update_from_the_shell(tmp_path, capsys):
    from memlane import Memory

    db = str(tmp_path / "m.db")
    code, out, _ = run(capsys, "--db", db, "remember", "Prefers aisle seats.", "--kind",
                       "preference", "--json")
    rec = json.loads(out)
    assert code == 0 and rec["kind"] == "preference" and rec["text"] == "Prefers aisle seats."
    code, out, _ = run(capsys, "--db", db, "update", str(rec["id"]), "Prefers window seats.")
    assert code == 0 and "Prefers window seats." in out
    with Memory.open(db) as mem:
        (r,) = mem.records()
        assert r.text == "Prefers window seats."
        old = mem.store.record_history(mem.ns, r.id)
        assert any(h.get("text") == "Prefers aisle seats." for h in old)
    code, _, err = run(capsys, "--db", db, "update", "999", "x")
    assert code != 0 and "999" in err


def test_ingest_and_import_show_progress_on_a_terminal_only(tmp_path, capsys, convo,
                                                             monkeypatch):
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    db, out = str(tmp_path / "m.db"), str(tmp_path / "x.json")
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(["--db", db, "ingest", "t1", str(convo)]) == 0
    assert "100% 82/82" in term.getvalue() and "[####" in term.getvalue()
    assert main(["--db", db, "export", "--out", out]) == 0
    term.seek(0)
    term.truncate()
    assert main(["--db", db, "-n", "other", "import", out]) == 0
    assert "import: threads" in term.getvalue() and "100% 1/1" in term.getvalue()
    # --no-progress: nothing on stderr, even on a terminal; the summary all the same.
    term.seek(0)
    term.truncate()
    capsys.readouterr()
    assert main(["--db", db, "ingest", "t3", str(convo), "--no-progress"]) == 0
    assert term.getvalue() == ""
    assert "ingested 82 messages into 't3'" in capsys.readouterr().out
    monkeypatch.undo()
    # Not a terminal (a log, a pipe): no bar, the summary line.
    capsys.readouterr()
    code, got, err = run(capsys, "--db", db, "ingest", "t2", str(convo))
    assert code == 0 and "%" not in err and "[#" not in err and err == ""
    assert re.search(r"ingested 82 messages into 't2': \d+ memory steps, \d+ buffer lines "
                     r"\(\d+\.\ds\)", got)
