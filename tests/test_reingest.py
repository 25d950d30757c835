"""Ingesting or importing messages a thread holds already adds nothing (issue 41): no doubled
thread, no duplicate record, and no forgotten fact filed again from the file's copy of it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from memlane import Memory
from memlane.cli import main
from memlane.ingest import held_count, ingest
from memlane.types import Message

DATA = Path(__file__).parent / "data"

CONVO = [
    ("user", "Hi! My locker code at the gym is 4471."),
    ("assistant", "Got it, locker code 4471."),
    ("user", "My sister Ruth lives in Cardiff."),
    ("assistant", "Cardiff, noted."),
    ("user", "I'm training for a half marathon in October."),
    ("assistant", "Good luck with the training!"),
    ("user", "My dentist is Dr Okafor on Mill Road."),
    ("assistant", "Dr Okafor, Mill Road."),
    ("user", "Thanks!"),
    ("assistant", "Any time."),
]


def messages(with_ts: bool = True) -> list[dict[str, object]]:
    return [{"role": r, "content": c, **({"ts": 1.7e9 + 60 * i} if with_ts else {})}
            for i, (r, c) in enumerate(CONVO)]


def log_of(msgs: list[dict[str, object]], *, ts: float | None = None) -> list[Message]:
    return [Message(id=i + 1, thread_id="t", seq=i + 1, role=str(m["role"]),
                    content=str(m["content"]),
                    ts=float(m["ts"]) if ts is None else ts, tokens=1)  # type: ignore[arg-type]
            for i, m in enumerate(msgs)]


# the rule, as a pure function ----------------------------------------------------------------


def test_held_count_the_same_input_part_of_it_and_an_input_that_grew():
    msgs = messages()
    log = log_of(msgs)
    assert held_count(log, msgs) == 10  # the same file again
    assert held_count(log, msgs[:4]) == 4  # a prefix of what is held
    assert held_count(log, msgs[4:]) == 6  # a later part, held at the end
    assert held_count(log[:6], msgs) == 6  # an export that grew: its new part is added
    assert held_count([], msgs) == 0
    assert held_count(log, []) == 0


def test_held_count_is_not_fooled_by_a_repeat_or_a_different_time():
    msgs = messages()
    log = log_of(msgs)
    # "Thanks!" is held, but not as the first of a run that reaches the log's end or covers
    # the input: a new "Thanks!" followed by new words is new.
    new = [{"role": "user", "content": "Thanks!", "ts": 1.8e9},
           {"role": "assistant", "content": "Something else.", "ts": 1.8e9}]
    assert held_count(log, new) == 0
    # Without times the text decides, as a run: the middle of the log then new words is new.
    untimed = messages(with_ts=False)
    assert held_count(log, [untimed[2], {"role": "user", "content": "A new turn."}]) == 0
    # The same text said at another time is another message.
    moved = [dict(m, ts=float(m["ts"]) + 3600) for m in msgs]  # type: ignore[arg-type]
    assert held_count(log, moved) == 0
    # A different role is a different message.
    swapped = [dict(m, role="assistant" if m["role"] == "user" else "user") for m in msgs]
    assert held_count(log, swapped) == 0


def test_a_forgotten_sentence_still_marks_its_message_held():
    msgs = messages()
    redacted = copy.deepcopy(msgs)
    redacted[0]["content"] = "Hi! [forgotten]"
    redacted[1]["content"] = "[forgotten]"
    log = log_of(redacted)
    assert held_count(log, msgs) == 10
    other = copy.deepcopy(msgs)
    other[0]["content"] = "Bye! My locker code at the gym is 4471."  # not around the mark
    assert held_count(log, other) == 0


# through the library and the CLI, on both engines --------------------------------------------


def snapshot(mem: Memory, thread_id: str) -> tuple[object, ...]:
    t = mem.thread(thread_id)
    return (tuple((m.seq, m.role, m.content) for m in t.messages()),
            tuple((e.start, e.end, e.line) for e in t.episodes()),
            tuple((r.id, r.text) for r in mem.records(limit=10000)))


@pytest.mark.parametrize("with_ts", [True, False])
def test_ingesting_twice_adds_nothing(store, with_ts):
    mem = Memory(store)
    first = ingest(mem, "t", messages(with_ts))
    assert first["messages"] == 10 and first["held"] == 0 and first["steps"] >= 2
    before = snapshot(mem, "t")
    assert any("4471" in r for _, r in before[2])  # type: ignore[index, misc]
    again = ingest(mem, "t", messages(with_ts))
    assert (again["messages"], again["held"], again["steps"]) == (0, 10, 0)
    assert snapshot(mem, "t") == before
    # A longer copy of the conversation adds only its new part.
    more = messages(with_ts) + [
        {"role": "user", "content": "My bike is a blue Brompton.",
         **({"ts": 1.7e9 + 6000} if with_ts else {})},
        {"role": "assistant", "content": "Nice bike."}]
    grown = ingest(mem, "t", more)
    assert (grown["messages"], grown["held"]) == (2, 10)
    assert [m.content for m in mem.thread("t").messages()][-3:] == [
        "Any time.", "My bike is a blue Brompton.", "Nice bike."]
    assert any("Brompton" in r.text for r in mem.records(limit=10000))


def test_reingesting_never_brings_back_a_forgotten_record(store):
    mem = Memory(store)
    ingest(mem, "t", messages())
    locker = [r for r in mem.records(limit=10000) if "4471" in r.text]
    assert locker
    for r in locker:
        assert mem.forget(r.id)
    assert not any("4471" in m.content for m in mem.thread("t").messages()[:1])
    before = snapshot(mem, "t")
    again = ingest(mem, "t", messages())
    assert (again["messages"], again["held"]) == (0, 10)
    assert snapshot(mem, "t") == before
    assert not any("4471" in r.text for r in mem.records(limit=10000))
    assert not mem.search("locker code 4471")


def cli_target(store_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if store_kind == "sqlite":
        return str(tmp_path / "m.db")
    return str(request.getfixturevalue("pg_url"))


def test_cli_ingest_of_the_same_file_twice(store_kind, request, tmp_path, capsys):
    db = cli_target(store_kind, request, tmp_path)
    convo = tmp_path / "c.jsonl"
    convo.write_text("".join(json.dumps(m) + "\n" for m in messages(with_ts=False)))
    assert main(["--db", db, "ingest", "t1", str(convo), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["messages"] == 10 and first["problems"] == []
    with Memory.open(db) as mem:
        before = snapshot(mem, "t1")
        rid = next(r.id for r in mem.records(limit=10000) if "Okafor" in r.text)
    assert main(["--db", db, "forget", "--record", str(rid), "--yes"]) == 0
    capsys.readouterr()
    with Memory.open(db) as mem:
        forgotten = snapshot(mem, "t1")
    assert forgotten != before
    assert main(["--db", db, "ingest", "t1", str(convo)]) == 0
    with Memory.open(db) as mem:
        assert snapshot(mem, "t1") == forgotten  # nothing doubled, nothing revived
        assert not any("Okafor" in r.text for r in mem.records(limit=10000))
        assert mem.thread("t1").info().messages == 10


def test_reimporting_an_export_adds_nothing_and_a_grown_one_adds_its_new_part(store):
    from memlane.importers import import_conversations, load

    mem = Memory(store)
    raw = json.loads((DATA / "chatgpt_conversations.json").read_text())
    convs = load("chatgpt", json.dumps(raw))
    first = import_conversations(mem, convs)
    assert first["conversations"] == 2 and first["problems"] == []
    tid = convs[0].thread_id
    before = snapshot(mem, tid)
    passport = [r for r in mem.records(limit=10000) if "K4471902" in r.text]
    assert passport and mem.forget(passport[0].id)
    forgotten = snapshot(mem, tid)
    again = import_conversations(mem, load("chatgpt", json.dumps(raw)))
    assert (again["conversations"], again["messages"], again["already_imported"]) == (0, 0, 2)
    assert snapshot(mem, tid) == forgotten != before
    assert not any("K4471902" in r.text for r in mem.records(limit=10000))
    # The conversation went on: the next export holds one more exchange.
    grown = [copy.deepcopy(c) for c in convs]
    grown[0].messages.extend([
        {"role": "user", "content": "My seat is 14C.", "ts": 1.72e9},
        {"role": "assistant", "content": "Window seat, nice.", "ts": 1.72e9 + 5}])
    out = import_conversations(mem, grown)
    assert (out["conversations"], out["messages"], out["already_imported"]) == (1, 2, 1)
    msgs = mem.thread(tid).messages()
    assert [m.content for m in msgs[-2:]] == ["My seat is 14C.", "Window seat, nice."]
    assert len(msgs) == len(forgotten[0]) + 2  # type: ignore[arg-type]
    assert not any("K4471902" in r.text for r in mem.records(limit=10000))
