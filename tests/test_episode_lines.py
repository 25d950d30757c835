"""Offline episode lines read as one sentence (issue 45): what the stretch was about, in a few
noun phrases with their articles, and how it ended; never a keyword list, a number, a secret or
four words of a user message in a row. `readable` is the check, and it must catch the lines the
extractor wrote before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlane.step.heuristic import extract
from memlane.step.lines import _quotes, episode_line, readable
from memlane.step.schema import EPISODE_MAX_WORDS
from memlane.types import Message

DATA = Path(__file__).parent / "data"
LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")

# What the extractor wrote before: keyword lists, verbs as nouns.
OLD_LINES = [
    "The user talked about Lisbon, bringing, adapter, jacket, hills and plugs; it ended with a "
    "question from the user's talk of Boston and bring.",
    "Caroline and Melanie talked about painting, photo, support, group, work, kids and shares; "
    "it ended with Melanie on swimming and care.",
    "Jon and Gina talked about dance, studio, dream, scary, photo, place and dancing; it ended "
    "with Gina on prob and wait.",
]

LISBON = ["I'm flying to Lisbon next week for a conference.",
          "What should I bring? I hear the hills are steep.",
          "I always forget my travel adapter for the plugs.",
          "Should I pack a rain jacket for the hills?",
          "My sister lives in Boston, what should I bring her from Lisbon?"]


def _messages(texts: list[str], name: str | None = None) -> list[Message]:
    return [Message(id=i, thread_id="t", seq=i, role="user", content=x, ts=0.0, tokens=9,
                    name=name) for i, x in enumerate(texts, 1)]


def _check(line: str, msgs: list[Message]) -> None:
    assert readable(line) == [], (readable(line), line)
    assert len(line.split()) <= EPISODE_MAX_WORDS, line
    assert not any(ch.isdigit() for ch in line), line
    assert not _quotes(line, msgs), line


def test_the_check_catches_keyword_lists() -> None:
    for line in OLD_LINES:
        assert readable(line), line
    assert "a verb as a noun" in readable(OLD_LINES[0])
    assert readable("Talked about it.") == ["no subject and verb"]
    assert readable("The user shared their plans. It ended with thanks.") == ["not one sentence"]
    assert readable("The user talked about " + "the weather and " * 10 + "tea.") == [
        "25 words or more"]
    assert readable("The user talked about the trip, the jacket and the plugs; it ended with "
                    "thanks.") == []


def test_the_issues_stretch_reads_as_a_sentence() -> None:
    msgs = _messages(LISBON)
    line = episode_line(msgs)
    _check(line, msgs)
    assert line.startswith("The user talked about ") and "Lisbon" in line
    assert "bringing" not in line and "bring" not in line
    assert line.endswith(("?", ".")) and "it ended with a question" in line


def test_every_conversation_of_the_fact_data_reads_as_sentences() -> None:
    threads: dict[str, list[str]] = {}
    for name in ("fact_conversations.jsonl", "fact_conversations_heldout.jsonl"):
        for row in map(json.loads, (DATA / name).read_text().splitlines()):
            threads.setdefault(row["thread"], []).append(row["text"])
    lines = 0
    for texts in threads.values():
        for i in range(0, len(texts), 4):  # a stretch every four user turns, as filed
            msgs = _messages(texts[i:i + 4])
            _check(extract(msgs)["episode"], msgs)
            lines += 1
    assert lines >= 15


def test_named_speakers_and_a_secret() -> None:
    msgs = _messages(["My wifi password at the cabin is X2144R.",
                      "We took the kids to the lake cabin again.",
                      "The kids loved the old rowing boat and the lake.",
                      "Thanks, see you soon!"], name="Ana")
    line = episode_line(msgs, frozenset({"ana"}))
    _check(line, msgs)
    assert line.startswith("Ana talked about ") and "X2144R" not in line
    assert "their wifi password" in line  # what was given, never its value
    assert line.endswith("it ended with thanks.")


@pytest.mark.skipif(not LOCOMO.exists(), reason="the LoCoMo dev split is not on this machine")
def test_every_locomo_dev_line_is_readable() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
    from episode_lines import session_lines

    lines = session_lines(str(LOCOMO))
    assert len(lines) > 100
    for line, msgs in lines:
        _check(line, msgs)
