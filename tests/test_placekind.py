"""A place's kind read from its name (`step/placekind.py`), and what it keeps the supersede rule
from doing (issue 41, part B): "I started at Anytime Fitness" is a gym joined, never a new
employer in place of the held one; a school, a club or a gym said only with a verb of starting
or joining is no employer. Said with a word of work, or of an employer by name, it still is."""

from __future__ import annotations

import pytest

from memlane.step.placekind import kinds, not_an_employer
from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts


def test_a_names_words_say_its_kind() -> None:
    assert kinds("Oakfield Juniors") == {"school", "team"}
    assert kinds("Meadowbank Infants") == {"school"}
    assert kinds("Wye Valley Netball") == {"team"}
    assert kinds("Anytime Fitness") == {"gym"}
    assert kinds("Tesco") == kinds("Royal Mail") == kinds("the Crown Hotel") == frozenset()


@pytest.mark.parametrize(("held", "new"), [
    (["I work at Tesco."], "I started at Anytime Fitness last week, three sessions so far."),
    (["I work for Lloyds in Leeds."], "I joined PureGym in January."),
    (["I'm employed by Network Rail."], "Started at Snap Fitness on Monday, legs are sore."),
])
def test_a_gym_joined_replaces_no_employer(held: list[str], new: str) -> None:
    assert not_an_employer(new.split(",")[0])
    assert [v for v in message_verdicts(new, held) if v[0] == SUPERSEDES] == []


@pytest.mark.parametrize(("held", "new"), [
    (["I work at Tesco."], "I started at Aldi last week, better hours."),
    (["I work at Tesco."], "I've started work at PureGym as a trainer."),
])
def test_an_employer_started_at_still_replaces(held: list[str], new: str) -> None:
    assert {t for v, t in message_verdicts(new, held) if v == SUPERSEDES} == set(held)


def test_a_group_joined_by_its_noun_is_no_employer() -> None:
    assert not_an_employer("Gail joined the choir at St Mark's.")
    assert not_an_employer("I joined a running club in March.")
    for work in ("I joined the police.", "I joined Deloitte.", "I joined the team at Deloitte.",
                 "She joined the firm in May."):
        assert not not_an_employer(work), work
