"""What one studies, learns, plays or does as a pastime (`step/pastimes.py` over the packaged
lexicon data/pastimes.txt): a change worded as a change that names another member of the held
one's kind (a language, an instrument, a voice part, a subject, a sport, a pastime), for the
same holder, replaces it. Hobbies are many-valued, so the near misses are most of the file: an
addition, a maybe, a wish, a question, a one-off, another holder, a past, a subject taught not
studied, a spectator, a language word as an adjective, a commute, something else replaced,
another kind. Pairs written for this change (none from a corrections data file), each
correction failing before it and each near miss kept apart; the supersede rule alone, as the
writer files a message (`supersede_verdicts.message_verdicts`)."""

from __future__ import annotations

import pytest

from memlane.step import pastimes
from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts

CORRECTIONS = [  # (held, new): the held fact replaced; each failed before (the held member
    # is not named again, so nothing read the new one as its value)
    # languages
    (["I'm learning Polish with a tutor on Zoom."], "I've switched to Czech instead."),
    (["I've been doing Arabic at night school."],
     "I've gone over to Turkish, the teacher is brilliant."),
    (["My wife is learning Welsh."], "She's gone for Irish instead, her gran was from Cork."),
    # instruments
    (["I play the clarinet in the town band."], "I've swapped to the saxophone now."),
    (["My daughter is learning the violin."], "She's moved on to the cello now."),
    (["I play the guitar in a covers band."],
     "I've switched to the bass guitar, we lost our bassist."),
    # subjects
    (["I'm studying Physics at Bristol."], "I've changed my course to Engineering."),
    (["My son is doing Geography for GCSE."],
     "He's switched his option to History, the teacher left."),
    # sports and exercise
    (["I play tennis at the club on Sundays."],
     "It's pickleball for me these days, my knees prefer it."),
    (["I do spinning classes at the leisure centre."],
     "I've switched to reformer pilates, much kinder on the knees."),
    (["My husband plays five-a-side on Tuesdays."],
     "He's moved on to walking football, his knees are shot."),
    (["I go swimming before work."], "I've swapped to rowing, there's a new club by the river."),
    (["My daughter does gymnastics."], "She's moved on to trampolining now."),
    # pastimes
    (["I'm really into pottery, I go to a class on Mondays."],
     "I've switched to life drawing now, the kiln broke."),
    (["My hobby is birdwatching."], "It's metal detecting these days, we found a Roman coin."),
]

NEAR_MISSES = [  # (held, new): nothing replaced
    (["I play tennis on Saturdays."], "I've also started padel on Wednesdays."),
    (["I'm learning Polish."], "I've started Czech as well, it's a bit similar."),
    (["I play the clarinet."], "Took up the saxophone too, just for fun."),
    (["I do yoga on Tuesdays."], "I might switch to pilates next term."),
    (["I'm studying Chemistry at Leeds."], "Thinking about switching to Pharmacy next year."),
    (["I'm learning Welsh."], "I wish I'd gone for Irish instead."),
    (["I play golf at the weekends."], "Do you reckon I should switch to tennis?"),
    (["I play squash on Thursdays."], "Played pickleball with the kids on Friday, great laugh."),
    (["I do karate on Wednesdays."], "Went bouldering today instead, my wrist was sore."),
    (["I play netball on Mondays."], "My sister's switched from netball to hockey."),
    (["My son plays the trumpet."], "I've swapped to the trombone in the works band."),
    (["I play the piano."], "My daughter has given up the piano for the drums."),
    (["I play the flute in an orchestra."], "I used to play the oboe, years ago now."),
    (["I'm studying Maths at Warwick."], "I teach Chemistry to A level students now."),
    (["I'm learning Italian."], "We've switched to Spanish wine now, it's cheaper."),
    (["I play rugby on Saturdays."], "I watch the football these days, not the rugby."),
    (["I play the cello."], "I've switched to running instead of the gym."),
    (["I do parkrun on Saturdays."], "I've switched to cycling to work now the weather's nice."),
    (["I play squash."], "I'm not switching to padel, no matter what my mate says."),
    (["I play squash.", "I play tennis."], "I've switched to padel now."),
    (["I play the cello."], "I've switched to Spanish now, the app is great."),  # another kind
    (["My wife is French."], "She's switched to German now at the evening class."),
    (["I play hockey."], "We moved to Chelsea, now it's all rugby round here."),  # a place's
]


@pytest.mark.parametrize(("held", "new"), CORRECTIONS)
def test_another_member_of_the_kind_worded_as_a_change_supersedes(held: list[str],
                                                                  new: str) -> None:
    verdicts = message_verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_pastime_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = message_verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def test_two_held_of_the_kind_are_related_to_the_newest_not_replaced() -> None:
    """Hobbies are many: a change naming neither held one links to the newest, keeps both."""
    verdicts = message_verdicts("I've switched to padel now.", ["I play squash.", "I play tennis."])
    assert verdicts == [("related", "I play tennis.")]


def test_the_lexicon_reads_each_kind_and_a_language_as_an_adjective_is_none() -> None:
    kinds = {m.term: m.kinds for m in pastimes.members(
        "Portuguese, the viola, alto, Archaeology, padel and crochet")}
    assert kinds == {"portuguese": {"language"}, "viola": {"instrument"}, "alto": {"voice"},
                     "archaeology": {"subject"}, "padel": {"sport"}, "crochet": {"pastime"}}
    assert not pastimes.members("We had Spanish food and an Italian restaurant meal.")
    assert [m.ended for m in pastimes.members("Swapped German for Japanese.")] == [True, False]
    assert [m.term for m in pastimes.members("I play the tin whistle.")] == ["tin whistle"]


def test_two_pastimes_are_two_routines_whatever_their_day() -> None:
    """"Played padel on Friday" is no new day of "I play squash on Thursdays" (a supersede by
    the weekday before: data loss)."""
    assert pastimes.two_pastimes("Played padel with work on Friday.", "I play squash on Thursdays.")
    assert not pastimes.two_pastimes("I play squash on Fridays now.", "I play squash on Thursdays.")
    assert message_verdicts("Played padel with work on Friday.",
                            ["I play squash on Thursdays."])[0][0] != SUPERSEDES
    assert message_verdicts("I play squash on Fridays now.",
                            ["I play squash on Thursdays."])[0][0] == SUPERSEDES
