"""`memlane import --from chatgpt|claude`: small exports in each provider's format
(tests/data/, written from the fields their data exports carry) into threads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlane import Memory
from memlane.cli import main
from memlane.errors import UsageError
from memlane.importers import load

DATA = Path(__file__).parent / "data"


def test_chatgpt_reads_the_current_branch_in_order_and_counts_what_it_skips():
    convs = load("chatgpt", (DATA / "chatgpt_conversations.json").read_text())
    assert [c.thread_id for c in convs] == ["chatgpt-6630a1b2-0000-4000-8000-000000000001",
                                            "chatgpt-6630a1b2-0000-4000-8000-000000000002"]
    trip = convs[0]
    assert trip.title == "Lisbon trip"
    assert [(m["role"], m["content"]) for m in trip.messages] == [
        ("user", "Hi! My passport number is K4471902 and I fly to Lisbon on May 3."),
        ("assistant", "Noted, have a good trip to Lisbon."),
        ("user", "What's the weather in Lisbon this week?"),  # the edit, not the old branch
        ("assistant", "Sunny in Lisbon, around 24C all week."),
        ("user", "Here is my boarding pass, which gate?"),
        ("assistant", "Gate 12, boarding at 09:40."),
    ]
    assert [m["ts"] for m in trip.messages] == sorted(m["ts"] for m in trip.messages)
    assert trip.messages[0]["ts"] == 1714000000.5
    assert trip.skipped == {"system": 1, "tool": 2, "attachment": 1}


def test_claude_reads_text_parts_and_counts_tools_and_attachments():
    convs = load("claude", (DATA / "claude_conversations.json").read_text())
    dog, empty = convs
    assert dog.thread_id == "claude-0b5c1d2e-1111-4222-8333-444455556666"
    assert [(m["role"], m["content"]) for m in dog.messages] == [
        ("user", "My dog is called Biscuit and needs two walks a day."),
        ("assistant", "Let me check the forecast.\n\nWalk Biscuit before 8, it rains after."),
        ("user", "Here is the vet's letter."),
        ("assistant", "Thanks, Biscuit's vaccinations are up to date."),  # `text` only
    ]
    assert dog.messages[0]["ts"] == 1714554000.0  # 2024-05-01T09:00:00Z
    assert dog.skipped == {"tool": 2, "attachment": 2}
    assert empty.messages == []


def test_the_wrong_format_is_a_clear_error():
    with pytest.raises(UsageError, match="use --from claude"):
        load("chatgpt", (DATA / "claude_conversations.json").read_text())
    with pytest.raises(UsageError, match="use --from chatgpt"):
        load("claude", (DATA / "chatgpt_conversations.json").read_text())
    with pytest.raises(UsageError, match="not valid JSON"):
        load("claude", "{nope")


@pytest.mark.parametrize(("source", "fact", "query"), [
    ("chatgpt", "K4471902", "passport number"), ("claude", "Biscuit", "dog called")])
def test_cli_imports_files_and_searches(tmp_path, capsys, source, fact, query):
    db = str(tmp_path / "m.db")
    src = DATA / f"{source}_conversations.json"
    assert main(["--db", db, "import", "--from", source, str(src), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["conversations"] >= 1 and out["messages"] >= 4 and out["steps"] >= 1
    assert out["skipped"]["tool"] == 2
    with Memory.open(db) as mem:
        threads = {t.thread_id: t for t in mem.threads()}
        assert all(t.startswith(f"{source}-") for t in threads)
        first = min(threads.values(), key=lambda t: t.created)
        msgs = mem.thread(first.thread_id).messages()
        assert msgs[0].ts < msgs[-1].ts < 1.8e9  # the original times, not now
        hits = mem.search(query)
        assert hits and fact in hits[0].record.text  # filed by the memory step
        n = len(mem.records())
    # The same export again adds nothing.
    assert main(["--db", db, "import", "--from", source, str(src), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["conversations"] == 0 and again["already_imported"] >= 1
    with Memory.open(db) as mem:
        assert len(mem.records()) == n
