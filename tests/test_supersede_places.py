"""Where one lives, read by a place gazetteer (`step/places.py`, issue 41): "I'm in
Southampton", "we're a Bristol family", "I'm London-based", "we're down in Brighton now" are
the speaker's residence, and a move worded as a change replaces the held one of the same
holder. A stay, a commute, a plan, a second home, someone else's town and a month replace
nothing. The near-misses come first; every correction here was left beside the held fact
before the gazetteer (the held place was read as no attribute)."""

from __future__ import annotations

import pytest

from memlane.step import places
from memlane.step.supersede import RELATED, SUPERSEDES, read_claim
from supersede_verdicts import message_verdicts

# (held facts, the later message): nothing held may be replaced.
NEAR_MISSES = [
    (["My friend Torin lives in Portree."], "Torin moved to Ullapool for the summer season."),
    (["The twins live with their dad in Perth."], "The twins have settled in Primary 2 well."),
    (["My friend Ailbhe lives in Clonakilty."], "Ailbhe settled in Kinsale for the summer season."),
    (["My brother works in Bantry."], "My brother has settled in Kinsale now."),
    (["I'm in Southampton, near the docks."], "I'm in Rome for the weekend, the food is unreal."),
    (["I'm in Dublin, Rathmines."], "I'm in Galway this week for work, back Friday."),
    (["We're a Melbourne family."], "We're in Sydney on holiday till Sunday."),
    (["We're in Perth, down by the river."], "I'm in Darwin for work until Friday."),
    (["I'm in Seattle."], "We're in Portland for my cousin's wedding this weekend."),
    (["I'm in Harrogate, near the Stray."], "I'm in Leeds on Tuesdays for the office."),
    (["I'm in Harrogate, near the Stray."], "I work in Leeds, the train's forty minutes."),
    (["I'm Oxford-based."], "My office is in London, I go in twice a week."),
    # someone else's town, or their move: theirs
    (["I'm in Bristol, Clifton way."], "My sister is in Leeds now, she loves it."),
    (["We're in Nottingham."], "My brother moved to Hull last month."),
    (["I'm in Cardiff, Roath."], "My daughter's just moved to Swansea for uni."),
    (["I'm Toronto-based."], "My parents are in Ottawa, so we visit a lot."),
    # a plan, a second home, the past
    (["I'm in Leicester, near the university."], "We might move to York if the job comes through."),
    (["I live in Auckland."], "Thinking about moving to Christchurch one day."),
    (["I live in Leeds."], "We're moving to York in June, the sale's agreed."),  # (main: replaced)
    (["I'm in Bolton."], "We're relocating to Preston next month."),
    (["I live in Glasgow."], "We've also got a flat in Edinburgh for the kids."),
    (["I'm in Limerick."], "We moved to Ennis when I was ten, lovely spot."),
    (["I'm in Brighton."], "I was born in Lewes, just up the road."),
    (["I'm in Leeds, Headingley way."], "We went to Rome in June, what a city."),
    # a month, a word that is a town only with its capital
    (["I'm in Manchester, Didsbury."], "We're in March now, so the clocks go forward soon."),
    (["I'm in Derby."], "I'm in bath now, then bed."),
    # home said as a saying, for a while, or someone else's
    (["I live in Hexham."], "Home is where the heart is, as my gran used to say."),
    (["I live in Hexham."], "Home's Alnmouth for the summer, we've rented a cottage."),
    (["I live in Hexham."], "My sister's home is Morpeth these days."),
]

# (held facts, the later message, the held fact it replaces)
CORRECTIONS = [
    (["My friend Torin is a glazier.", "My friend Torin's girlfriend Maelle lives in Portree."],
     "Maelle has settled in Ullapool now, right by the harbour.",
     "My friend Torin's girlfriend Maelle lives in Portree."),
    # another holder's move by a verb of settling
    (["My friend Ailbhe lives in Clonakilty.", "My cousin Ruairi lives in Bantry."],
     "Ailbhe has settled in Kinsale now, she loves the harbour.",
     "My friend Ailbhe lives in Clonakilty."),
    (["I'm in Southampton, right by the water."], "We've moved up to Sheffield for my wife's job.",
     "I'm in Southampton, right by the water."),
    (["We're a Bristol family, born and bred."], "We relocated to Cardiff in the spring.",
     "We're a Bristol family, born and bred."),
    (["I'm London-based, for what it's worth."], "We're down in Brighton now, the sea air helps.",
     "I'm London-based."),
    (["We're in Auckland, just over the harbour bridge."], "We shifted down to Wellington.",
     "We're in Auckland, just over the harbour bridge."),
    (["I'm based in Leeds these days."], "I've relocated to Newcastle, the rent's half of Leeds'.",
     "I'm based in Leeds these days."),
    (["I'm in Boston, close to the Common."], "We're in Denver now, getting used to the altitude.",
     "I'm in Boston, close to the Common."),
    (["I'm in Reading, near the station."], "We upped sticks to Bath in May.",
     "I'm in Reading, near the station."),
    # home said as a place ("Home" opening the sentence is no one's name)
    (["I live in Hexham, near the abbey."], "Home is Alnwick these days.",
     "I live in Hexham, near the abbey."),
    (["I live in Hexham."], "Home's Morpeth now, we've been here since June.",
     "I live in Hexham."),
    # the same holder only: the brother's town, not the speaker's
    (["I'm in Leeds.", "My brother lives in York."], "My brother moved to Hull last month.",
     "My brother lives in York."),
]


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_near_misses_replace_nothing(held: list[str], new: str) -> None:
    assert [v for v in message_verdicts(new, held) if v[0] == SUPERSEDES] == []


@pytest.mark.parametrize(("held", "new", "replaced"), CORRECTIONS)
def test_a_move_replaces_the_held_residence(held: list[str], new: str, replaced: str) -> None:
    assert {t for v, t in message_verdicts(new, held) if v == SUPERSEDES} == {replaced}


def test_a_place_said_with_no_change_is_kept_beside_the_held_one() -> None:
    """"I'm in York" may be a visit: linked to the held home as newer, never in its place."""
    assert message_verdicts("I'm in York.", ["I live in Leeds."]) == [(RELATED, "I live in Leeds.")]


@pytest.mark.parametrize(("said", "place"), [
    ("I'm in Southampton, right by the water.", "Southampton"),
    ("We're a Bristol family.", "Bristol"),
    ("I'm a London-based designer.", "London"),
    ("We're up in Newcastle upon Tyne now.", "Newcastle upon Tyne"),
    ("I'm Stoke-on-Trent-based.", "Stoke-on-Trent"),
    ("We're in Reading.", "Reading"),
    ("i'm in leeds", "leeds"),
    ("We shifted down to Wellington at Christmas.", "Wellington"),
    ("I'm in reading group tonight.", None),  # a word without its capital: no town
    ("I'm in Boston Market.", None),  # part of a longer name
    ("I'm in March.", None),
    ("I'm in a meeting.", None),
    ("We're a Leeds United family.", None),
])
def test_a_place_is_read_only_where_a_frame_names_it(said: str, place: str | None) -> None:
    assert places.lives(said) == place


def test_the_speakers_residence_only() -> None:
    assert read_claim("I'm in Southampton.").attribute == "residence"
    assert read_claim("My sister is in Leeds.").attribute != "residence"  # no "now": a visit?
    assert places.marks("We've moved up to Sheffield.") == {places.MARK}
    assert places.marks("My brother moved to Hull.") == frozenset()
