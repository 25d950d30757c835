"""Leaving the employer named ends the employer record, when the sentence gives the job one has
now in its place (issue 41, part B): "I quit the hotel, I'm a postman now" leaves "I work at the
Crown Hotel." no longer current. Never another person's leaving, nor a place two held facts
name."""

from __future__ import annotations

import pytest

from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts


@pytest.mark.parametrize(("held", "new", "replaced"), [
    (["I work at the Crown Hotel.", "My wife works at Boots."],
     "I quit the hotel, I'm a postman now.", "I work at the Crown Hotel."),
    (["I work for Greggs.", "I live in Leeds."],
     "I left Greggs in March, I'm a bus driver now.", "I work for Greggs."),
])
def test_the_employer_left_is_replaced_by_the_job_now(held: list[str], new: str,
                                                      replaced: str) -> None:
    assert {t for v, t in message_verdicts(new, held) if v == SUPERSEDES} == {replaced}


@pytest.mark.parametrize(("held", "new"), [
    (["I work at the Crown Hotel.", "My brother works at Tesco."],
     "My brother quit the hotel, he's a postman now."),
    (["I work at the Crown Hotel.", "I also work weekends at the Station Hotel."],
     "I quit the hotel, I'm a postman now."),
    (["I work at the Crown Hotel."], "I might quit the hotel, I'd be a postman then."),
])
def test_near_misses_replace_nothing(held: list[str], new: str) -> None:
    assert [v for v in message_verdicts(new, held) if v[0] == SUPERSEDES] == []
