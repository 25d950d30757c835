"""Corrections worded as events (issue #41), read offline by the supersede rule:

- a held value named, then ended by an event said of it ("The Astra conked out", "Flogged the
  Boardman", "gave up the ghost", "got nicked", "went bust"), often with the new value in the same
  message (`step/endings.py`'s shared vocabulary, read by `step/ended.py` and `_ended`);
- a dated or timed thing moved ("they've moved my pilates to Thursdays", "pushed the boiler
  service back to 9 April", "brought my eye test forward", "it's been rebooked for the 11th")
  (`step/anchored.py`: the same anchor, or a pronoun and one dated held fact).

Near-misses it must refuse: another holder's thing ("my dad's Astra", "my wife's pilates"), a
one-off, a maybe, a question, another thing of the same brand ("the Surface keyboard"), a part of
the value closed ("closed the branch"), another topic rebooked, and "it" when two dated facts
could be meant. Pairs written for these mechanisms, none copied from a corrections set."""

from __future__ import annotations

import pytest

from memlane.step.supersede import RELATED, SUPERSEDES
from supersede_verdicts import message_verdicts

ENDED = [
    # (held facts, the new message, the held fact it must end)
    (["I drive a Vauxhall Astra."],
     "The Astra conked out on the ring road, so I'm in a Skoda Octavia now.",
     "I drive a Vauxhall Astra."),
    (["I ride a Boardman road bike."],
     "Flogged the Boardman on Marketplace and got a Cube instead.", "I ride a Boardman road bike."),
    (["My laptop is a Surface Pro."],
     "The Surface gave up the ghost last week, I've got a ThinkPad now.",
     "My laptop is a Surface Pro."),
    (["I read on a Kindle Paperwhite."],
     "Someone pinched my Kindle on the train, I read on a Kobo now.",
     "I read on a Kindle Paperwhite."),
    (["We get our bits and bobs from Wilko."], "Wilko went bust so we go to B&M now.",
     "We get our bits and bobs from Wilko."),
]

MOVED = [
    (["Pilates is on Tuesday evenings."], "They've moved my pilates to Thursday evenings.",
     "Pilates is on Tuesday evenings."),
    (["My smear test is on the 4th."], "The surgery rang, it's been rebooked for the 11th.",
     "My smear test is on the 4th."),
    (["The boiler service is on 2 April."],
     "The engineer pushed the boiler service back to 9 April.",
     "The boiler service is on 2 April."),
    (["Band practice starts at 8pm."], "They've brought band practice forward to 7.30pm.",
     "Band practice starts at 8pm."),
]

REFUSED = [
    (["I drive a Vauxhall Astra."], "My dad's Astra conked out, so I drove him to work."),
    (["I drive a Vauxhall Astra."], "The bus conked out so I walked home today."),
    (["I drive a Vauxhall Astra."], "I might flog the Astra next spring."),
    (["My laptop is a Surface Pro."],
     "My Surface keyboard packed up, so I ordered a Logitech one."),
    (["I wear a Fitbit Charge on my wrist."],
     "My Fitbit charging cable packed up, so I ordered an Anker one."),
    (["My phone is a Sony Xperia."], "The Sony telly in the kitchen died, so we got a Hisense."),
    (["I bank with HSBC."], "HSBC closed the branch on the high street, annoying."),
    (["Pilates is on Tuesday evenings."], "They moved my wife's pilates to Thursdays."),
    (["Pilates is on Tuesday evenings."], "Do you think they'd move pilates to Thursdays?"),
    (["My eye test is at 3pm."], "The garage rang, the car's been rebooked for 10am."),
    (["My smear test is on the 4th.", "My daughter's school play is on the 6th."],
     "It's been moved to the 11th."),
]


@pytest.mark.parametrize(("held", "new", "ended"), ENDED + MOVED)
def test_an_event_supersedes_the_held_fact_it_ends_or_moves(held: list[str], new: str,
                                                            ended: str) -> None:
    verdicts = message_verdicts(new, held)
    assert (SUPERSEDES, ended) in verdicts, verdicts
    assert all(t == ended for v, t in verdicts if v == SUPERSEDES), verdicts


@pytest.mark.parametrize(("held", "new"), REFUSED)
def test_an_event_of_another_holder_or_thing_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = message_verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def test_it_moved_with_two_dated_facts_held_keeps_both_linked() -> None:
    verdicts = message_verdicts("It's been moved to the 11th.",
                                ["My smear test is on the 4th.",
                                 "My daughter's school play is on the 6th."])
    assert [v for v, _ in verdicts] == [RELATED], verdicts
