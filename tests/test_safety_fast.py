"""The injection scan's fast paths (#22) say what the slow ones said.

`safety._scan` skips a pattern's search when the text lacks a string every match needs
(`_needs`, read from the parsed pattern, found for all patterns in one pass: `_Literals`), finds
the rules' word leads in one regex pass (`_LEAD_RX`), and rewrites a few steps without changing
their result. Each is checked here against the step it replaced, on generated and real texts;
`benchmarks/scan_trees.py` checks the whole scan against the tree before, text by text.
"""

from __future__ import annotations

import codecs
import json
import random
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlane import safety
from memlane.safety import _needs

DATA = Path(__file__).parent / "data"

# Every pattern a pre-check gates, and `_ORDER` (gated by nothing, a hard one to read).
GATED = [rule[1] for rule in safety._COMPILED] + [
    safety._AI_WORDS, safety._ROLEPLAY, safety._PROMPT_REFERENCE, safety._CONTEXT_OBJECT,
    safety._READER_ORDER, safety._DECODE_ASK, safety._INLINE_HUMAN, safety._INLINE_AI,
    safety._QUOTED, safety._ROT13_OVERRIDE, safety._ORDER]


def _texts(n: int) -> list[str]:
    """`n` texts of the injection corpora, attacks and benign, in a fixed sample."""
    texts: list[str] = []

    def walk(x: object) -> None:
        if isinstance(x, str) and len(x) > 3:
            texts.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for name in ("injection_corpus.jsonl", "garak_injections.jsonl", "safety_families.jsonl",
                 "garak_encoding_tune.jsonl", "benign_model_records.jsonl"):
        raw = (DATA / name).read_text(encoding="utf-8")
        try:
            walk(json.loads(raw))
        except ValueError:
            for line in raw.split("\n"):  # (not splitlines: texts hold \u2028)
                if line.strip():
                    walk(json.loads(line))
    return random.Random(7).sample(sorted(set(texts)), n)


def test_needs_reads_the_strings_every_match_holds() -> None:
    def groups(pattern: str, flags: int = 0) -> set[tuple[str, ...]]:
        return set(_needs(re.compile(pattern, flags)))

    assert groups(r"\bab(?:c|d)e") == {("abce", "abde")}
    assert groups(r"x[^y]*z") == {("x",), ("z",)}
    assert groups(r"a?b") == {("b",)}  # "ab" holds "b": it adds nothing
    assert groups(r"(?:ab){2,}c") == {("ab",), ("c",)}
    assert groups(r"foo|\w+") == set()  # one branch needs nothing: nor does the pattern
    assert groups(r"foo|bar\s+baz") == {("bar", "foo")}
    assert groups(r"ignore", re.IGNORECASE) == set()  # no case-blind pre-check
    assert groups(r"(?i)ignore") == set()
    assert groups(r"(?=x)") == set()


@pytest.mark.parametrize("rx", GATED, ids=lambda rx: rx.pattern[:40])
def test_a_text_a_pattern_matches_passes_its_pre_check(rx: re.Pattern[str]) -> None:
    needs = _needs(rx)

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=True)
    @given(st.from_regex(rx))
    def check(text: str) -> None:
        assert rx.search(text)
        assert safety._may(text, needs), (rx.pattern[:60], text)

    check()


def test_gates_read_real_pre_checks() -> None:
    # A pre-check that needs nothing would pass everything and prove nothing above.
    pc = safety._PRECHECKS
    gates = [*pc.rules, pc.ai_words, pc.roleplay, pc.prompt_reference, pc.context_object,
             pc.reader_order, pc.decode_ask, pc.inline, pc.quoted, pc.rot13_override]
    assert all(gates)
    assert not safety._may("hello there, how was the trip?", _needs(safety._ROLEPLAY))


def test_the_literal_pass_finds_exactly_the_groups_a_text_holds() -> None:
    rng = random.Random(1)
    pc = safety._PRECHECKS
    strings = sorted({s for group in pc.groups for s in group})
    pieces = strings + ["x", " ", "e", "the ", "you ", "\u00e9", "'", ":"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces)[:rng.randint(1, 12)] for _ in range(rng.randint(0, 12)))
        expected = {gid for gid, group in enumerate(pc.groups)
                    if any(s in text for s in group)}
        assert pc.literals.present(text) == expected, text


def test_the_lead_pass_visits_the_rules_the_prefix_set_did() -> None:
    rng = random.Random(2)
    leads = sorted(safety._BY_PREFIX)
    pieces = [*leads, "'", "'s", "a", "i", "\u00e9", "x", "1", "_", "-", " ", ", ", ".", "ignore"]
    for _ in range(3000):
        view = "".join(rng.choice(pieces) + rng.choice(["", "", " ", "'", "s", "x"])
                       for _ in range(rng.randint(0, 10)))
        prefixes = {w[:k] for w in safety._WORD.findall(view) for k in (2, 3, 4)}
        old = {i for lead in safety._BY_PREFIX.keys() & prefixes for i in safety._BY_PREFIX[lead]}
        new = {i for lead in safety._LEAD_RX.findall(view) for i in safety._LEAD_RULES[lead]}
        assert old == new, view


def test_rewritten_steps_are_the_same_steps() -> None:
    rng = random.Random(3)
    joiners = re.compile(r"(?<=[a-z])[._*\-]+(?=[a-z])")
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    alphabet = [*"ab.-_*zZ1 ", "\u00e9", "\u0430", "\u200b", *spaces]
    for _ in range(5000):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        assert safety._JOINERS.sub(" ", t) == joiners.sub(" ", t), t
        assert " ".join(t.split()) == re.sub(r"\s+", " ", t).strip(), t
        assert t.translate(safety._ROT13) == codecs.encode(t, "rot13"), t
    for text in _texts(400):
        if not safety._long_run(text):  # no long run, no base64 (the looser pass skips those)
            assert not safety._BASE64.search(text) and not safety._BASE32.search(text)
        folded = safety._fold(text + "\n\nok?\tyes.  no")
        ends = folded.count(". ") + folded.count("! ") + folded.count("? ")
        assert len(safety._sentences(folded)) <= ends + 1  # the bound `_structural` uses


def test_the_scan_says_the_same_with_every_pre_check_passed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts(600)
    texts += [codecs.encode(t, "rot13") for t in texts[:60]]
    texts += [t.translate(str.maketrans("aeio", "4310")) for t in texts[60:120]]
    fast = [safety._scan(t) for t in texts]
    pc = safety._PRECHECKS
    everything = frozenset(range(len(pc.groups)))
    monkeypatch.setattr(pc.literals, "present", lambda view: everything)
    slow = [safety._scan(t) for t in texts]
    assert fast == slow
    assert sum(map(bool, fast)) > 100  # attacks among them, flagged both ways


def _tainted_as_written(text: str, sources: list[str], words: int = 4) -> bool:
    """`safety.tainted` as it was written before `carried` (the reference)."""
    from memlane.safety import _RUN_WORD, _fold

    if not sources:
        return False
    mine = _RUN_WORD.findall(_fold(text))
    if len(mine) < words:
        return any(" ".join(mine) in " ".join(_RUN_WORD.findall(_fold(s)))
                   for s in sources) if mine else False
    runs = {" ".join(mine[i:i + words]) for i in range(len(mine) - words + 1)}
    for src in sources:
        theirs = _RUN_WORD.findall(_fold(src))
        if any(" ".join(theirs[i:i + words]) in runs for i in range(len(theirs) - words + 1)):
            return True
    return False


_WORDS = ["ignore", "previous", "instructions", "the", "boiler", "is", "in", "attic", "IGNORE",
          "Prévious", "ｉｎｓｔｒｕｃｔｉｏｎｓ", "you", "are", "DAN", "cat",
          "concatenate", "a", "", "!", "--", "\n", "straße", "STRASSE"]
_TEXT = st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_TEXT, max_size=4), sources=st.lists(_TEXT, max_size=6))
def test_carried_is_tainted_source_by_source(texts: list[str], sources: list[str]) -> None:
    """A memory step reads for instructions only the stretch messages its written texts carry
    (`safety.carried`): each source is carried exactly when `tainted` finds a text carrying it,
    so whichever messages are flagged, every text's taint is the same when the others are left
    out."""
    from memlane.safety import carried, tainted

    near = carried(texts, sources)
    assert near == [any(_tainted_as_written(t, [s]) for t in texts) for s in sources]
    for t in texts:
        assert tainted(t, sources) == _tainted_as_written(t, sources)
        assert tainted(t, [s for s, c in zip(sources, near, strict=True) if c]) == \
            _tainted_as_written(t, sources)
