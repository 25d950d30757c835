"""The embedder is a property of the memory: recorded in the store when first chosen, used by
every open that names none, another one refused with the fix; `reindex` switches."""

from __future__ import annotations

import json

import pytest

from memlane import Memory
from memlane.cli import main
from memlane.errors import UsageError
from memlane.memory import EMBEDDER_SETTING


def test_settings_first_writer_wins_and_replace_overwrites(store):
    assert store.setting("embedder") is None
    assert store.put_setting("embedder", "a") == "a"
    assert store.put_setting("embedder", "b") == "a"  # already chosen: kept
    assert store.setting("embedder") == "a"
    assert store.put_setting("embedder", "b", replace=True) == "b"
    assert not store.has_records()


def test_first_choice_is_recorded_and_used_by_later_opens(tmp_path):
    db = tmp_path / "m.db"
    with Memory.open(db, embedder="hash") as mem:
        assert json.loads(mem.store.setting(EMBEDDER_SETTING))["spec"] == "hash"
        mem.remember("Prefers aisle seats.")
    with Memory.open(db) as mem:  # no embedder named: the recorded one
        assert mem.embedder is not None and mem.embedder.name == "hash-256"
        (hit,) = mem.search("aisle seat")
        assert hit.vector_rank is not None
    with pytest.raises(UsageError, match=r"embedder is 'hash'.*reindex --embedder hash:64"):
        Memory.open(db, embedder="hash:64")


def test_choosing_one_for_records_written_without_is_refused_until_reindex(tmp_path):
    db = tmp_path / "m.db"
    with Memory.open(db) as mem:
        mem.remember("Prefers aisle seats.")
    with pytest.raises(UsageError, match="written without an embedder.*memlane reindex"):
        Memory.open(db, embedder="hash")
    with Memory.open(db, embedder="hash", switch_embedder=True) as mem:
        assert mem.reindex() == 1
    with Memory.open(db) as mem:
        assert mem.search("aisle")[0].vector_rank is not None


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_every_surface_uses_the_recorded_embedder(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MEMLANE_EMBEDDER", raising=False)
    convo = tmp_path / "c.jsonl"
    msgs = [{"role": "user", "content": "My passport number is K4471902."},
            {"role": "assistant", "content": "Noted."}]
    for i in range(4):  # enough user turns that a stretch is filed (records exist)
        msgs += [{"role": "user", "content": f"I live in Oslo since {2010 + i}."},
                 {"role": "assistant", "content": "Nice."}]
    convo.write_text("".join(json.dumps(m) + "\n" for m in msgs))
    lex, vec = tmp_path / "lex.db", tmp_path / "vec.db"
    assert run(capsys, "--db", lex, "ingest", "t", convo)[0] == 0
    # Lexical memory: search --embedder does not quietly search lexically; it names the fix.
    code, out, err = run(capsys, "--db", lex, "search", "passport", "--embedder", "hash")
    assert code != 0 and not out and "memlane reindex --embedder hash" in err
    code, out, _ = run(capsys, "--db", lex, "reindex", "--embedder", "hash", "--json")
    assert code == 0 and json.loads(out)["embedded"] >= 1
    code, out, _ = run(capsys, "--db", lex, "search", "passport", "--json")
    assert json.loads(out)[0]["vector_rank"] is not None
    # Chosen at ingest: search without the flag is hybrid; another embedder is refused.
    assert run(capsys, "--db", vec, "ingest", "t", convo, "--embedder", "hash")[0] == 0
    code, out, _ = run(capsys, "--db", vec, "search", "passport", "--json")
    assert json.loads(out)[0]["vector_rank"] is not None
    code, _, err = run(capsys, "--db", vec, "ingest", "t2", convo, "--embedder", "hash:64")
    assert code != 0 and "embedder is 'hash'" in err
    assert run(capsys, "--db", vec, "context", "t")[0] == 0
