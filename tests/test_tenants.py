"""No tenant stalls another: a memory step's work per message is bounded, so a huge message
(a 60,000-character base64 token, a 1,000,000-character dump) costs milliseconds, another
namespace's turns through the same `memlane serve` keep their latency, and SIGTERM stops the
server within seconds while such a step runs. The end-to-end check runs
benchmarks/bench_tenants.py against a real server process."""

from __future__ import annotations

import base64
import os
import random
import re
import time
from pathlib import Path

import pytest

from memlane.memory import Memory
from memlane.step import lines, sentences
from memlane.step.runner import STEP_VIEW_CHARS, step_view

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"

# The link pattern as it was (quadratic in a token's length): the reference for what it removes.
_QUADRATIC_LINK = re.compile(
    r"\S+@\S+|\b(?:https?://|www\.)\S+|\b\S+\.(?:com|org|net|io|dev)\b\S*", re.I)


def _blob(n: int) -> str:
    return base64.b64encode(os.urandom(n)).decode()[:n]


def test_the_link_pattern_is_linear_and_removes_what_it_removed():
    parts = ["a", "bob", "x@y", "@", ".", ".com", "com", "(", ")", "www.", "http://",
             "https://e", "ex.io", "/", "+", ",", "'", "é", " ", "  ", "\n", "net", "_", "-",
             "Ü.org", "1"]
    rnd = random.Random(7)
    words = re.compile(r"\w+")
    for _ in range(20_000):
        s = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 12)))
        assert words.findall(lines._LINK.sub(" ", s)) == \
            words.findall(_QUADRATIC_LINK.sub(" ", s)), s
    for text in [_blob(1_000_000), "a." * 500_000, "(" * 1_000_000, "a+/" * 333_333]:
        started = time.perf_counter()
        lines._LINK.sub(" ", text)
        assert time.perf_counter() - started < 2.0  # the old one: 14 s on 60,000 characters


# The patterns as they were (each quadratic on some input): what they matched is the reference.
_OLD_ASK_ME = re.compile(r"^\W*(?:\S+\s+)?(?:tell|show|give|send|remind|help|teach|get|find|"
                         r"bring|let)\s+(?:me|us)\b", re.I)


def test_the_line_patterns_are_linear_and_match_as_before():
    from memlane.safety import patterns, signals

    old_role = re.compile(patterns._LINE_ROLE.pattern.replace(r"^[^\S\n]*", r"^\s*", 1))
    old_marker = re.compile(signals._ROLE_MARKER.pattern.replace(r"^[^\S\n]*", r"^\s*", 1))
    assert old_role.pattern != patterns._LINE_ROLE.pattern
    parts = ["tell", "me", "us", "let", " ", "\n", "\n\n", "\t", "\r", "\x0c", "\u2028", "(",
             "!", "#", "###", "x", ",", "system", "assistant", "developer", ":", "you",
             "ignore", "user", "ai", "instructions", "new ", "ok", "é"]
    rnd = random.Random(11)
    for _ in range(30_000):
        s = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 10)))
        assert bool(sentences._ASK_ME.search(s)) == bool(_OLD_ASK_ME.search(s)), s
        assert bool(patterns._LINE_ROLE.search(s)) == bool(old_role.search(s)), s
        assert len(signals._ROLE_MARKER.findall(s)) == len(old_marker.findall(s)), s
    n = 1_000_000
    for text in ["(" * n, "x" + "\n" * n + "y", " " * n, "#" + "\n" * n, "system" + "\n" * n]:
        for pattern in (sentences._ASK_ME, patterns._LINE_ROLE, signals._ROLE_MARKER):
            started = time.perf_counter()
            pattern.findall(text)
            assert time.perf_counter() - started < 2.0, pattern.pattern[:40]


HOSTILE = {"base64": None, "letters": "a", "brackets": "(", "newlines": "\n", "spaces": " ",
           "hashes": "#", "images": "![", "hyphens": "a-", "so-clauses": "so it "}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_every_hostile_shape_costs_a_step_little(tmp_path, shape):
    n = 1_000_000
    unit = HOSTILE[shape]
    text = _blob(n - 2) if unit is None else (unit * (n // len(unit)))[:n - 2]
    with Memory.open(tmp_path / "m.db") as m:
        warm = m.thread("warm")
        warm.extend([{"role": "user", "content": "I like tea."},
                     {"role": "assistant", "content": "ok"}])
        warm.flush()
        t = m.thread("t")
        t.extend([{"role": "user", "content": f"x{text}y"}, {"role": "assistant",
                                                            "content": "ok"}])
        started = time.perf_counter()
        t.flush()
        assert time.perf_counter() - started < 1.0  # 0.02-0.06 s measured; before: minutes


def test_a_step_reads_a_bounded_head_and_tail(tmp_path):
    with Memory.open(tmp_path / "m.db") as m:
        t = m.thread("t")
        head, tail = "My sister lives in Oslo.\n", "\nMy brother lives in Rome."
        t.extend([{"role": "user", "content": head + "x" * 50_000 + tail},
                  {"role": "assistant", "content": "ok"}])
        big, small = t.messages()
        seen = step_view([big, small])
        assert seen[1] is small and len(seen[0].content) <= STEP_VIEW_CHARS + 3
        assert seen[0].content.startswith(head) and seen[0].content.endswith(tail)
        assert (seen[0].id, seen[0].seq) == (big.id, big.seq)
        assert len(t.messages()[0].content) == len(big.content)  # the log keeps it whole


def _step_time(m, thread: str, blob: int, towns: tuple[str, str]) -> float:
    t = m.thread(thread)
    t.extend([{"role": "user", "content": f"My sister lives in {towns[0]}.\n" + _blob(blob)},
              {"role": "assistant", "content": "ok"},
              {"role": "user", "content": f"My brother lives in {towns[1]}."},
              {"role": "assistant", "content": "ok"}])
    started = time.perf_counter()
    t.flush()
    return time.perf_counter() - started


@pytest.mark.parametrize("n", [60_000, 1_000_000])
def test_a_huge_token_costs_a_step_milliseconds(tmp_path, n):
    with Memory.open(tmp_path / "m.db") as m:
        warm = m.thread("warm")
        warm.extend([{"role": "user", "content": "I like tea."},
                     {"role": "assistant", "content": "ok"}])
        warm.flush()  # imports, first queries
        # The same stretch with a 1,000-character token, timed in this run: on a loaded machine
        # both slow together, so the bound is a second or 25 times that, whichever is more
        # (before: 5-15 s at 60,000 characters, a hundred times and more).
        base = _step_time(m, "base", 1_000, ("Lima", "Kyiv"))
        took = _step_time(m, "t", n - 30, ("Oslo", "Rome"))
        assert took < max(1.0, 25 * base), (took, base)
        texts = " ".join(r.text for r in m.records(limit=100))
        assert "Oslo" in texts and "Rome" in texts  # the stretch is still read


@pytest.mark.parametrize("run", [" " * 7_000, "." * 7_000, "\t " * 3_500, "!?" + "?" * 7_000])
def test_a_long_run_of_spaces_or_one_mark_costs_a_step_milliseconds(tmp_path, run):
    """Runs of spaces or of one punctuation mark are squeezed before the step reads them (10,000
    spaces inside a sentence cost the heuristic 30 s of pattern matching before)."""
    with Memory.open(tmp_path / "m.db") as m:
        warm = m.thread("warm")
        warm.extend([{"role": "user", "content": "I like tea."},
                     {"role": "assistant", "content": "ok"}])
        warm.flush()
        t = m.thread("t")
        text = f"My gym is{run}PureGym now. My sister lives in Oslo."
        t.extend([{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}])
        started = time.perf_counter()
        t.flush()
        took = time.perf_counter() - started
        assert took < 1.0, took
        assert "Oslo" in " ".join(r.text for r in m.records(limit=100))
        assert run in t.messages()[0].content  # the log keeps the message as it was


def test_another_tenant_is_not_stalled_and_sigterm_stops_the_server(monkeypatch):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    monkeypatch.syspath_prepend(str(BENCH))
    import bench_tenants

    rows = bench_tenants.run(BENCH.parent / "src", [60_000, 1_000_000], [])
    *hostile, stop = rows
    for row in hostile:
        # target 1 s (0.1 s measured); generous for a busy shared test machine.
        assert row["b_turns"] >= 5 and row["b_worst_s"] < 3.0, row
    assert stop["sigterm_to_exit_s"] < 10.0, stop
