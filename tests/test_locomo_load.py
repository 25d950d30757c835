"""Loading LoCoMo. The data's licence forbids copying it here, so parsing is tested on a synthetic
file in LoCoMo's format, and the real dev split only by path (skipped when it is absent)."""

from __future__ import annotations

import calendar
import json
import os
from pathlib import Path
from typing import Any

import pytest

from memlane.errors import UsageError
from memlane.eval.locomo import (
    TURN_SPACING,
    Session,
    load_locomo,
    normalise_evidence,
    parse_locomo_date,
    session_episode_line,
)

# The shared folder sits beside the checkout; LOCOMO_DEV points elsewhere if it does not.
DEV = Path(
    os.environ.get("LOCOMO_DEV")
    or Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json"
)


def synthetic_sample() -> dict[str, Any]:
    return {
        "sample_id": "syn-1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "I got a kayak!"},
                {
                    "speaker": "Ben",
                    "dia_id": "D1:2",
                    "text": "Nice, look at mine.",
                    "img_url": ["http://example.invalid/x.jpg"],
                    "blip_caption": "a photo of a red kayak on a lake",
                },
                {"speaker": "Ana", "dia_id": "D1:3", "text": "Let's paddle on Sunday."},
            ],
            "session_2_date_time": "10:04 am on 19 June, 2023",
            "session_2": [
                {"speaker": "Ben", "dia_id": "D2:1", "text": "The paddle was great."},
                {"speaker": "Ana", "dia_id": "D2:2", "text": "My arms hurt."},
            ],
            # A date with no turns: LoCoMo has these; they are not sessions.
            "session_3_date_time": "9:00 am on 1 July, 2023",
        },
        "qa": [
            {"question": "What did Ana get?", "answer": "a kayak", "evidence": ["D1:1"],
             "category": 4},
            {"question": "When did they paddle?", "answer": 2023, "evidence": ["D1:3 D2:1"],
             "category": 2},
            {"question": "What colour is Ben's kayak?", "answer": "red",
             "evidence": ["D:1:2", "D1:2; D2:2"], "category": 1},
            {"question": "What did Ana sell?", "adversarial_answer": "her kayak",
             "evidence": ["D"], "category": 5},
            {"question": "Who hurt?", "answer": "Ana", "evidence": ["D2:9", "D2:2"],
             "category": 4},
        ],
        "observation": {
            "session_2_observation": {"Ana": [["Ana's arms hurt after paddling.", "D2:2"]]},
            "session_1_observation": {
                "Ana": [["Ana bought a kayak.", "D1:1"]],
                "Ben": [
                    ["Ben owns a red kayak.", ["D1:2", "D1:2"]],
                    ["Ben and Ana plan to paddle.", "D1:2, D1:3"],
                ],
            },
        },
        "session_summary": {
            "session_1_summary": "Ana and Ben met at 1:56 pm on 8 May, 2023. Ana bought a kayak "
            "and Ben showed his. They planned a paddle.",
            "session_2_summary": "Ben and Ana talked about their paddle. Ana was sore.",
        },
        "event_summary": {
            "events_session_1": {"Ana": ["Ana buys a kayak."], "Ben": [], "date": "8 May, 2023"},
            "events_session_2": {"Ana": [], "Ben": [], "date": "19 June, 2023"},
        },
    }


def write(tmp_path: Path, data: Any) -> Path:
    p = tmp_path / "locomo.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def test_parse_dates() -> None:
    assert parse_locomo_date("1:56 pm on 8 May, 2023") == calendar.timegm(
        (2023, 5, 8, 13, 56, 0, 0, 0, 0)
    )
    assert parse_locomo_date("12:05 am on 1 January, 2022") == calendar.timegm(
        (2022, 1, 1, 0, 5, 0, 0, 0, 0)
    )
    assert parse_locomo_date("12:30 pm on 3 Feb, 2022") == calendar.timegm(
        (2022, 2, 3, 12, 30, 0, 0, 0, 0)
    )
    assert parse_locomo_date("8 May, 2023") == parse_locomo_date("May 8, 2023")
    with pytest.raises(UsageError, match="1:56 pm on 8 May, 2023"):
        parse_locomo_date("yesterday")
    with pytest.raises(UsageError, match="month"):
        parse_locomo_date("8 Mayo, 2023")


def test_normalise_evidence() -> None:
    assert normalise_evidence("D1:3") == ("D1:3",)
    assert normalise_evidence("D10:3 D10:4") == ("D10:3", "D10:4")
    assert normalise_evidence("D8:6; D9:17") == ("D8:6", "D9:17")
    assert normalise_evidence("D:11:26") == ("D11:26",)
    assert normalise_evidence("D01:05") == ("D1:5",)
    assert normalise_evidence("D") == ()


def test_load_synthetic(tmp_path: Path) -> None:
    (conv,) = load_locomo(write(tmp_path, [synthetic_sample()]))
    assert (conv.sample_id, conv.speaker_a, conv.speaker_b) == ("syn-1", "Ana", "Ben")
    assert [s.index for s in conv.sessions] == [1, 2]  # session 3 has a date but no turns

    s1, s2 = conv.sessions
    t0 = calendar.timegm((2023, 5, 8, 13, 56, 0, 0, 0, 0))
    assert s1.ts == t0 and s1.date_text == "1:56 pm on 8 May, 2023"
    assert [t.ts for t in s1.turns] == [t0, t0 + TURN_SPACING, t0 + 2 * TURN_SPACING]
    assert s2.turns[0].ts == calendar.timegm((2023, 6, 19, 10, 4, 0, 0, 0, 0))
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert all(t.session == 2 for t in s2.turns)
    assert conv.turns[1].text == (
        "Nice, look at mine. [shares a photo: a photo of a red kayak on a lake]"
    )
    assert conv.turns[0].text == "I got a kayak!"
    assert s1.summary.startswith("Ana and Ben met") and s1.events == ("Ana buys a kayak.",)
    assert s2.events == ()

    q = conv.questions
    assert [x.category for x in q] == [4, 2, 1, 5, 4]
    assert q[0].answer == "a kayak" and q[0].evidence == ("D1:1",)
    assert q[1].answer == "2023" and q[1].evidence == ("D1:3", "D2:1")
    assert q[2].evidence == ("D1:2", "D2:2")  # "D:1:2" repaired, duplicate dropped
    assert q[3].answer == "" and q[3].adversarial_answer == "her kayak" and q[3].evidence == ()
    assert q[4].evidence == ("D2:2",)  # D2:9 names no turn
    assert conv.bad_evidence == ("D", "D2:9")

    obs = conv.observations
    assert [(o.session, o.speaker, o.dia_id) for o in obs] == [
        (1, "Ana", "D1:1"), (1, "Ben", "D1:2"), (1, "Ben", "D1:2"), (2, "Ana", "D2:2")
    ]
    assert obs[1].dia_ids == ("D1:2",) and obs[2].dia_ids == ("D1:2", "D1:3")
    assert obs[0].text == "Ana bought a kayak."


def test_episode_lines(tmp_path: Path) -> None:
    s1, s2 = load_locomo(write(tmp_path, [synthetic_sample()]))[0].sessions
    assert session_episode_line(s1) == "Ana buys a kayak."
    # No events: the summary's first sentence with content (the dated preamble is skipped
    # only when it looks like one; here the first sentence is content already).
    assert session_episode_line(s2) == "Ben and Ana talked about their paddle."

    long = Session(
        index=4, date_text="", ts=0.0, turns=(), summary="",
        events=tuple(f"Ana does thing number {i} of many things today" for i in range(5)),
    )
    line = session_episode_line(long)
    assert len(line.split()) <= 24
    assert line == "; ".join(long.events[:2]) + "."  # whole events that fit, none clipped
    one_long = Session(4, "", 0.0, (), "", (" ".join(["word"] * 40) + ".",))
    clipped = session_episode_line(one_long)
    assert len(clipped.split()) == 24 and clipped.endswith("…")
    summary = "A and B met at 4:04 pm on 20 January, 2023. A lost a job."
    preamble = Session(5, "", 0.0, (), summary, ())
    assert session_episode_line(preamble) == "A lost a job."
    assert len(session_episode_line(one_long, max_words=5).split()) == 5


def test_event_without_speaker_name_gets_prefixed(tmp_path: Path) -> None:
    sample = synthetic_sample()
    sample["event_summary"]["events_session_2"]["Ben"] = ["Global Offensive with a team."]
    s2 = load_locomo(write(tmp_path, [sample]))[0].sessions[1]
    assert s2.events == ("Ben: Global Offensive with a team.",)


def test_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no LoCoMo file"):
        load_locomo(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(UsageError, match="not valid JSON"):
        load_locomo(bad)
    with pytest.raises(UsageError, match="list of samples"):
        load_locomo(write(tmp_path, {"conversation": {}}))

    s = synthetic_sample()
    del s["conversation"]["speaker_b"]
    with pytest.raises(UsageError, match=r"\(syn-1\)\.conversation: the field 'speaker_b'"):
        load_locomo(write(tmp_path, [s]))

    s = synthetic_sample()
    del s["conversation"]["session_2_date_time"]
    with pytest.raises(UsageError, match="'session_2_date_time' is missing"):
        load_locomo(write(tmp_path, [s]))

    s = synthetic_sample()
    del s["conversation"]["session_1"][0]["dia_id"]
    with pytest.raises(UsageError, match=r"session_1\[0\]: the field 'dia_id' is missing"):
        load_locomo(write(tmp_path, [s]))

    s = synthetic_sample()
    s["conversation"]["session_1_date_time"] = "sometime in May"
    with pytest.raises(UsageError, match="session_1_date_time: cannot read the date"):
        load_locomo(write(tmp_path, [s]))

    s = synthetic_sample()
    del s["qa"]
    with pytest.raises(UsageError, match="'qa' is missing"):
        load_locomo(write(tmp_path, [s]))

    s = synthetic_sample()
    del s["qa"][0]["answer"]
    with pytest.raises(UsageError, match=r"qa\[0\]: the field 'answer'"):
        load_locomo(write(tmp_path, [s]))


@pytest.mark.skipif(not DEV.is_file(), reason=f"LoCoMo dev split not at {DEV}")
def test_real_dev_split_counts() -> None:
    convs = load_locomo(DEV)
    assert len(convs) == 6
    assert [c.sample_id for c in convs] == [
        "conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44"
    ]
    assert sum(len(c.questions) for c in convs) == 1157
    assert sum(len(c.turns) for c in convs) == 3435
    for c in convs:
        ts = [t.ts for t in c.turns]
        assert ts == sorted(ts) and len(set(ts)) == len(ts)
        ids = {t.dia_id for t in c.turns}
        assert all(e in ids for q in c.questions for e in q.evidence)
        assert all(o.dia_id in ids for o in c.observations)
        for s in c.sessions:
            assert 0 < len(session_episode_line(s).split()) < 25
    # "D8:6; D9:17" and "D:11:26" are repaired; "D" and "D10:19" (no such turn) are not.
    assert sorted(e for c in convs for e in c.bad_evidence) == ["D", "D10:19"]
    assert sum("[shares a photo:" in t.text for c in convs for t in c.turns) > 500
