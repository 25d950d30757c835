"""The honest baselines (`retrieval`, `retrieval+search`), the ablations (`--ablate`) and the
strict temporal reach (`reader.dated`)."""

from __future__ import annotations

import calendar
import json
from pathlib import Path

import pytest

from memlane.cli import main
from memlane.context.tokens import default_tokenizer
from memlane.eval.policies import POLICIES, CachedTokenizer, ablated, resolve_policies
from memlane.eval.reader import dated, read
from memlane.eval.replay import run_locomo
from memlane.types import BufferLine, ChatMessage, Context, Record, Trace
from test_eval import _locomo_sample

DAY = float(calendar.timegm((2023, 5, 8, 0, 0, 0)))


def _ctx(messages: list[tuple[str, str]], lines: tuple[BufferLine, ...] = ()) -> Context:
    return Context(messages=tuple(ChatMessage("system" if layer == "notes" else "user", text,
                                              layer) for layer, text in messages),
                   tools=(), trace=Trace(budget=1000, tokens_total=10, tokens_by_layer={},
                                         buffer_lines=lines))


def _rec(i: int, src: int) -> Record:
    return Record(id=i, namespace="n", text="Ava adopted a parrot.", source_ids=(src,))


def test_retrieval_is_the_default_without_buffer_pruning_or_tools() -> None:
    r = POLICIES["retrieval"]
    assert not r.policy.use_buffer and not r.policy.use_working and not r.policy.use_tools
    assert r.policy.notes_share == POLICIES["memlane"].policy.notes_share and not r.search
    rs = POLICIES["retrieval+search"]
    assert rs.search and rs.tools == ("search_memory",) and rs.policy.use_tools
    names = [s.name for s in resolve_policies("memlane", "buffer,notes,working")]
    assert names == ["memlane", "memlane-buffer", "memlane-notes", "memlane-working"]
    assert not ablated("buffer").policy.use_buffer
    assert ablated("notes").policy.notes_share == 0.0
    assert not ablated("working").policy.use_working
    # The days a question names are the default's: off in the baselines and in its ablation.
    assert POLICIES["memlane"].policy.dated_lines > 0
    assert ablated("dated").policy.dated_lines == 0
    assert POLICIES["retrieval+turns"].policy.dated_lines == 0


def test_dated_needs_the_evidence_date_in_the_item_that_reaches_it() -> None:
    tk = CachedTokenizer(default_tokenizer())
    rec = _rec(7, 3)
    notes = {7: rec}
    want = ["2023-05-08"]

    def reading(ctx: Context):  # type: ignore[no-untyped-def]
        return read(ctx, "When did Ava adopt a parrot?", tk, open_records=lambda ids: [],
                    notes=notes)

    bare = _ctx([("notes", "Records:\n- #7 Ava adopted a parrot.")])
    assert not dated(reading(bare), bare, ["x"], [3], want)
    # The note's own line shows the date (the format notes take when facts carry one).
    with_date = _ctx([("notes", "Records:\n- #7 (2023-05-08) Ava adopted a parrot.")])
    assert dated(reading(with_date), with_date, ["x"], [3], want)
    # Another day's date on the line is not the evidence's date.
    other = _ctx([("notes", "Records:\n- #7 (2023-06-01) Ava adopted a parrot.")])
    assert not dated(reading(other), other, ["x"], [3], want)
    # A visible buffer line of that day listing the record: the model joins them by id.
    line = BufferLine(line="Ava's new pet", record_ids=(7,), start=1, end=4, date=DAY)
    joined = _ctx([("notes", "Records:\n- #7 Ava adopted a parrot.")], (line,))
    assert dated(reading(joined), joined, ["x"], [3], want)
    # The line alone, without the record reached, is no reach at all.
    alone = _ctx([], (line,))
    assert not dated(reading(alone), alone, ["x"], [3], want)
    # A replayed turn counts only when its own text carries the date.
    turn = _ctx([("short_term", "Ava adopted a parrot.")])
    assert not dated(reading(turn), turn, ["Ava adopted a parrot."], [3], want)


@pytest.fixture(scope="module")
def temporal_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sample = _locomo_sample()
    sample["qa"].append({"question": "When did Ava adopt the parrot?", "answer": "May 2023",
                         "evidence": ["D1:5"], "category": 2})
    p = tmp_path_factory.mktemp("locomo") / "temporal.json"
    p.write_text(json.dumps([sample]), encoding="utf-8")
    return p


def test_locomo_baselines_ablations_and_strict_temporal(temporal_file: Path) -> None:
    out = run_locomo(temporal_file, [1000], source="annotations", progress=False,
                     policies="memlane,retrieval,retrieval+search,window", ablate="buffer")
    pol = out["policies"]
    assert list(pol) == ["memlane", "retrieval", "retrieval+search", "window", "memlane-buffer"]
    for row in pol.values():
        assert 0.0 <= row["temporal_strict"] <= row["temporal_lenient"] <= 1.0
    # Notes carry the date each fact was stated (`- #id (YYYY-MM-DD) text`), so retrieval's
    # reach of the dated evidence is strict too; the window's turns carry no date.
    assert pol["retrieval"]["temporal_strict"] == pol["retrieval"]["temporal_lenient"] == 1.0
    assert pol["window"]["temporal_strict"] == 0.0
    assert pol["retrieval"]["via_search"] == 0.0 and pol["retrieval"]["via_pointer"] == 0.0


def test_unknown_layer_to_ablate_is_a_usage_error(temporal_file: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "locomo", "--data", str(temporal_file), "--ablate", "summary",
                 "--no-progress"]) == 2
    assert "unknown layer 'summary' to ablate" in capsys.readouterr().err
