"""A new message that names a day or a month points at the stretches filed then
(`memlane.context.when`, `Policy.dated_lines` / `dated_notes`): their lines join the matched
ones and their records join the notes, though the message shares no word with them. The pure
parts, and through `Thread.context` on both stores."""

from __future__ import annotations

import calendar
from typing import Any

from memlane import Policy
from memlane.context.when import DAY, MAX_SPANS, dated_stretches, named_spans
from memlane.memory import Memory
from memlane.text import fact_terms
from memlane.types import Episode
from memlane.validate import date_text

NOW = float(calendar.timegm((2024, 3, 20, 12, 0, 0)))


def _days(text: str) -> list[tuple[str, str]]:
    return [(date_text(a) or "", date_text(b - 1) or "") for a, b in named_spans(text, NOW)]


def test_it_reads_the_common_ways_of_writing_a_date() -> None:
    assert _days("What did Maria share on 16 June, 2023?") == [("2023-06-16", "2023-06-16")]
    assert _days("at the shelter on May 25, 2023") == [("2023-05-25", "2023-05-25")]
    assert _days("on 8th December, 2023") == [("2023-12-08", "2023-12-08")]
    assert _days("the forest picture of December 1,2023") == [("2023-12-01", "2023-12-01")]
    assert _days("written 2023-06-16") == [("2023-06-16", "2023-06-16")]
    assert _days("What happened in January 2022?") == [("2022-01-01", "2022-01-31")]
    assert _days("the week before 16 November 2023") == [("2023-11-16", "2023-11-16")]


def test_a_date_without_a_year_is_the_last_one_before_now() -> None:
    assert _days("on Aug 15th") == [("2023-08-15", "2023-08-15")]  # not August 2024
    assert _days("on March 3rd") == [("2024-03-03", "2024-03-03")]
    assert _days("Which spot did Joanna visit in May?") == [("2023-05-01", "2023-05-31")]
    # ... or the year another date in the message gives.
    assert _days("between August 11 and August 15 2021") == [
        ("2021-08-11", "2021-08-11"), ("2021-08-15", "2021-08-15")]


def test_words_that_only_look_like_dates_are_not_read() -> None:
    for text in ("you may 5 times", "I march 5 miles a day", "Sat 3 things on the desk",
                 "on 31 February 2023", "in 2023-02-30", "version 2.16", "the 16th one",
                 "what did we say?", ""):
        assert named_spans(text, NOW) == [], text
    # "May" and "March" are months when capitalised.
    assert _days("We met in March") == [("2024-03-01", "2024-03-31")]


def test_at_most_a_few_spans_each_once() -> None:
    text = " ".join(f"on {d} June 2023" for d in range(1, 10)) + " and on 1 June 2023"
    spans = named_spans(text, NOW)
    assert len(spans) == MAX_SPANS and len(set(spans)) == MAX_SPANS
    assert _days("on 1 June 2023 and again on 1 June 2023") == [("2023-06-01", "2023-06-01")]


def test_dated_stretches_are_the_ones_that_end_in_the_span() -> None:
    day = float(calendar.timegm((2023, 6, 16, 0, 0, 0)))

    def ep(end: int, date: float, line: str) -> Episode:
        return Episode("t", end - 9, end, line, (end,), date)

    eps = [ep(10, day - DAY + 5, "garden talk"), ep(20, day + 3600, "talked about the gym"),
           ep(30, day + 7200, "talked about a movie"), ep(40, day + DAY, "the next day")]
    spans = [(day, day + DAY)]
    got = dated_stretches(eps, spans, fact_terms("news about the movie?"), fact_terms, 5)
    assert [e.end for e in got] == [30, 20]  # the one sharing a word first, then the newest
    assert [e.end for e in dated_stretches(eps, spans, frozenset(), fact_terms, 1)] == [30]
    assert dated_stretches(eps, [], frozenset(), fact_terms, 5) == []
    assert dated_stretches(eps, spans, frozenset(), fact_terms, 0) == []


GYM = "I finally joined a gym near the office and the trainers are great."
QUESTION_DAY = 3


def _thread(store: Any) -> tuple[Memory, Any, float]:
    """Sixty days of conversation, a stretch filed each day; on day 3 the user says something
    the question will not share a word with."""
    mem = Memory(store, "ns")
    t = mem.thread("t")
    start = float(calendar.timegm((2023, 6, 1, 10, 0, 0)))
    for d in range(60):
        ts = start + d * DAY
        said = GYM if d == QUESTION_DAY else f"Day {d}: I watered the tomatoes and read a chapter."
        msgs = t.extend([
            {"role": "user", "content": said, "ts": ts},
            {"role": "assistant", "content": "Sounds good.", "ts": ts + 60},
            {"role": "user", "content": f"Also the bus was late again, number {d}.",
             "ts": ts + 120},
            {"role": "assistant", "content": "Buses are like that.", "ts": ts + 180},
        ])
        t.step(start=msgs[0].seq, end=msgs[-1].seq)
    return mem, t, start + QUESTION_DAY * DAY


def test_a_question_about_a_day_shows_what_was_said_that_day(store: Any) -> None:
    mem, t, day = _thread(store)
    question = f"What exciting news did I share on {date_text(day, '%d %B, %Y')}?"
    assert not fact_terms(question) & fact_terms(GYM)  # no word search reaches it
    gym = [r for r in mem.records(limit=1000) if "gym" in r.text]
    assert gym
    ctx = t.context(1500, question, now=day + 90 * DAY)
    notes = "\n".join(m.content for m in ctx.messages if m.layer == "notes")
    block = "\n".join(m.content for m in ctx.messages if m.layer == "buffer")
    assert f"#{gym[0].id} " in notes or "gym" in block
    dated = [b for b in ctx.trace.buffer_lines if b.start <= gym[0].source_ids[0] <= b.end]
    assert dated  # that day's line is shown
    # Off, or with no date named, the same question reaches neither.
    for policy, q in ((Policy(dated_lines=0), question),
                      (Policy(), "What exciting news did I share?")):
        ctx = t.context(1500, q, policy=policy, now=day + 90 * DAY)
        seen = "\n".join(m.content for m in ctx.messages)
        assert "gym" not in seen, q
    mem.close()
