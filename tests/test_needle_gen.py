"""Needle threads: reproducible, well-formed, and the answer only where it was planted."""

from __future__ import annotations

import importlib.util
import re

import pytest

from memlane.errors import UsageError
from memlane.eval.needle import FACT_KINDS, NeedleThread, make_needle_thread

HAS_CHITCHAT = importlib.util.find_spec("chitchat_dataset") is not None
SOURCES = ["builtin", pytest.param("chitchat", marks=pytest.mark.skipif(
    not HAS_CHITCHAT, reason="chitchat-dataset not installed (memlane[eval])"))]


def fold(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


def holds(message: str, value: str) -> bool:
    return fold(value) in fold(message)


@pytest.mark.parametrize("source", SOURCES)
def test_same_seed_same_thread(source: str) -> None:
    a = make_needle_thread(11, 20, 3, filler_source=source)  # type: ignore[arg-type]
    b = make_needle_thread(11, 20, 3, filler_source=source)  # type: ignore[arg-type]
    c = make_needle_thread(12, 20, 3, filler_source=source)  # type: ignore[arg-type]
    assert a == b
    assert a.messages != c.messages
    expected = "chitchat-dataset" if source == "chitchat" else "builtin"
    assert a.filler_source == expected


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("seed", range(12))
def test_shape_and_answer_only_at_the_needle(source: str, seed: int) -> None:
    n_turns, depth = 15, seed % 15
    t = make_needle_thread(seed, n_turns, depth, filler_source=source)  # type: ignore[arg-type]
    assert isinstance(t, NeedleThread) and t.seed == seed
    assert len(t.messages) == 2 * n_turns + 1
    assert [r for r, _ in t.messages] == ["user", "assistant"] * n_turns + ["user"]
    assert t.needle_index == 2 * depth
    assert t.messages[-1] == ("user", t.question) and t.question.endswith("?")
    assert t.answer and t.answer in t.fact
    needle_text = t.messages[t.needle_index][1]
    assert t.fact[1:] in needle_text  # a lead-in may lower-case the first letter
    where = [i for i, (_, text) in enumerate(t.messages) if holds(text, t.answer)]
    assert where == [t.needle_index]
    assert all(text.strip() for _, text in t.messages)


def test_depth_zero_and_last() -> None:
    first = make_needle_thread(3, 5, 0, filler_source="builtin")
    last = make_needle_thread(3, 5, 4, filler_source="builtin")
    assert first.needle_index == 0 and last.needle_index == 8
    assert holds(first.messages[0][1], first.answer)
    assert holds(last.messages[8][1], last.answer)


@pytest.mark.parametrize("source", SOURCES)
def test_several_needles_are_distinct_and_separately_placed(source: str) -> None:
    t = make_needle_thread(5, 30, 2, filler_source=source, n_needles=4)  # type: ignore[arg-type]
    assert len(t.needles) == 4
    assert t.needles[0].index == t.needle_index == 4 and t.needles[0].answer == t.answer
    assert len({n.index for n in t.needles}) == 4
    assert len({n.kind for n in t.needles}) == 4
    for n in t.needles:
        assert n.index % 2 == 0 and t.messages[n.index][0] == "user"
        where = [i for i, (_, text) in enumerate(t.messages) if holds(text, n.answer)]
        assert where == [n.index], n
    assert t.messages[-1][1] == t.needles[0].question  # only the first is asked for


def test_fact_kinds_are_well_formed() -> None:
    assert len(FACT_KINDS) >= 30
    assert len({k.key for k in FACT_KINDS}) == len(FACT_KINDS)
    for k in FACT_KINDS:
        assert "{v}" in k.fact and k.question.endswith("?") and k.topic
    # Each kind gets asked about over enough seeds, with varied values.
    kinds, values = set(), set()
    for seed in range(300):
        t = make_needle_thread(seed, 2, 0, filler_source="builtin")
        kinds.add(t.needles[0].kind)
        values.add(t.answer)
    assert kinds == {k.key for k in FACT_KINDS}
    assert len(values) > 150


def test_bad_arguments() -> None:
    with pytest.raises(UsageError, match="at least one exchange"):
        make_needle_thread(1, 0, 0)
    with pytest.raises(UsageError, match="0 <= depth < n_turns"):
        make_needle_thread(1, 5, 5)
    with pytest.raises(UsageError, match="n_needles"):
        make_needle_thread(1, 3, 0, n_needles=4)
    with pytest.raises(UsageError, match="filler_source"):
        make_needle_thread(1, 3, 0, filler_source="wiki")  # type: ignore[arg-type]


@pytest.mark.skipif(not HAS_CHITCHAT, reason="chitchat-dataset not installed (memlane[eval])")
def test_auto_prefers_chitchat_and_filler_is_short() -> None:
    t = make_needle_thread(9, 40, 10)
    assert t.filler_source == "chitchat-dataset"
    filler = [text for i, (_, text) in enumerate(t.messages) if i not in (20, 21, 80)]
    assert all(len(text.split()) <= 60 for text in filler)
    # Real dialogue, not the template lines.
    assert len(set(filler)) > 70


def test_auto_falls_back_to_builtin_without_chitchat(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from memlane.errors import MissingExtra
    from memlane.eval import needle

    real_import = builtins.__import__

    def no_chitchat(name: str, *args: object, **kwargs: object) -> object:
        if name == "chitchat_dataset":
            raise ImportError("No module named 'chitchat_dataset'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    needle._chitchat_conversations.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_chitchat)
    try:
        t = make_needle_thread(4, 6, 1)
        assert t.filler_source == "builtin"
        assert t == make_needle_thread(4, 6, 1, filler_source="builtin")
        with pytest.raises(MissingExtra, match=r"pip install .*\[eval\]"):
            make_needle_thread(4, 6, 1, filler_source="chitchat")
    finally:
        needle._chitchat_conversations.cache_clear()
