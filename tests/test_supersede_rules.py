"""The supersede rule's readings for routines, endings, kinds, slots and named people
(`step/supersede.py`), the clauses the writer cuts them into (`step/clauses.py`), and whether
it files them (`step/heuristic.is_fact`). Pairs written for the rules, none from the held-out
set (`test_corrections_heldout.py`)."""

from __future__ import annotations

import pytest

from memlane.step.clauses import carry_holders, clauses
from memlane.step.heuristic import is_fact
from memlane.step.supersede import NEW, RELATED, SUPERSEDES, decide, read_claim


@pytest.mark.parametrize(("old", "new"), [
    # the same routine to the same place, by another means
    ("I walk to the station every day.", "Nowadays I take the bus to the station instead."),
    ("I drive to the depot.", "I've switched to cycling to the depot."),
    # endings: the thing held is said to have stopped
    ("I play squash on Thursdays.", "I don't play squash anymore."),
    ("I take the ferry to the island.", "I no longer take the ferry to the island."),
    ("I eat meat.", "I gave up meat in March."),
    ("My uncle works at the Ford plant.", "My uncle retired from Ford last year."),
    ("I volunteer at Oxfam.", "I left Oxfam, I help at the food bank now."),
    # a change named by its kind, the value after it
    ("Noor goes to Parkside Academy.", "Noor switched schools, she's at Westfield High now."),
    ("My optician is Mr Lowe.", "I changed opticians, it's Ms Kaur now."),
    # schools by an institution's name
    ("My son attends Hollybank Primary.", "My son moved to Fernhill Primary in June."),
    # slots of the same routine
    ("I see my osteopath every Monday.", "My osteopath sessions are on Fridays now."),
    ("I bake bread twice a week.", "I only bake bread once a week now."),
    # what the holder does for a living
    ("I'm a junior accountant.", "I got promoted to senior accountant."),
    ("My cousin is a plumber.", "My cousin switched careers and is an electrician now."),
    # a generic "my X is Y" with a cue
    ("My favourite sport is rugby.", "These days my favourite sport is cricket."),
    # an age by a birthday
    ("My goddaughter Isla is 9.", "Isla had her 10th birthday last week."),
    # a reported correction
    ("My cat weighs 6 kg.", "The vet says my cat is down to 5 kg."),
    # "rather than X" ends X as "instead of X" does; "moved up from X" as "moved from X"
    ("We buy our veg at Thornbury Market.",
     "We get our veg boxed from Greenvale now rather than Thornbury Market."),
    ("My son Arlo is in Beavers.", "Arlo moved up from Beavers to Cubs this term."),
    # a day for a day of one routine; an ending by "ditched / dumped X for", "out of <place>",
    # a named thing that died; one diet for another
    ("I play tennis at Northgate on Mondays.", "I've moved my tennis to Wednesdays."),
    ("Our gas is with Ovo.", "We dumped Ovo for E.ON after the price rise."),
    ("I ride a blue Vespa.", "The Vespa finally packed up."),
    ("We rent a flat on Kings Road.", "We're out of Kings Road."),
    ("I'm vegan.", "I started eating eggs again, so I'm vegetarian now."),
])
def test_a_correction_in_these_shapes_supersedes(old: str, new: str) -> None:
    d = decide(new, [old])
    assert d.verdict == SUPERSEDES, (d, read_claim(old), read_claim(new))
    assert d.reasons


@pytest.mark.parametrize(("old", "new"), [
    # another holder doing the same routine
    ("I cycle to the office.", "My flatmate takes the tram to the office instead of cycling."),
    ("I play squash on Thursdays.", "My dad doesn't play squash anymore."),
    # a person's fact said of something of the speaker's no relation word names
    ("I live in Ripon.", "My office moved to Leeds."),
    ("I live in Ripon.", "Our lodger has moved to Selby."),
    ("I work at Boots.", "My housemate works at Superdrug now."),
    ("I live in Ripon.", "My family moved to Thirsk."),
    ("I live in Ripon.", "My old buddy just moved to Ripon from Hull."),
    # another destination, another routine, another slot
    ("I take the train to work.", "I take the bus to the station instead."),
    ("I go to the gym on Tuesdays.", "I go to choir on Fridays now."),
    ("My pottery class is on Mondays.", "My yoga class moved to Wednesdays."),
    ("I run three times a week.", "I swim twice a week now."),
    # "moved to" a day is no move of home
    ("We live in Frome.", "The book club moved to Thursdays."),
    # leaving for the day, leaving a thing: no ending
    ("I work at Boots.", "I left Boots at 6 today, shattered."),
    ("My phone is a Pixel 7.", "I left my phone on the bus."),
    # a named person's relative is not that person
    ("My friend Omar is 33.", "Omar's son turned 4 on Monday."),
    ("My manager is Ines Roy.", "Ines's manager is now Paul Burke."),
    # more, not instead
    ("My hobby is chess.", "My other hobby is fencing now."),
    ("I work at Lidl.", "I also work at a pub now."),
    # ending another thing of the same kind
    ("My car is a Renault Clio.", "I sold my old scooter on Sunday."),
    # naming fewer of the same names is no new value
    ("My tortoise Shelby is a Greek Hermann and loves lettuce.", "My tortoise Shelby is so slow."),
    # a hobbyist is no occupation
    ("I'm a member at the tennis club.", "I got promoted to team lead."),
    # the holder of a sentence opening with what it replaces is its subject, not the speaker
    ("We buy our veg at Thornbury Market.",
     "Rather than Thornbury Market, my neighbour buys his veg at Greenvale."),
    ("We buy our veg at Thornbury Market.",
     "Instead of Thornbury Market, my sister buys her veg at Greenvale."),
    # once is no change
    ("I cycle to the depot.", "I took the train this morning instead of cycling."),
    # a relation "-in-law" is another person
    ("My mum lives in Whitby.", "My mother-in-law just moved to Scarborough."),
    # "out of" a thing that is no name, a thing of no held fact, another holder's diet, once
    ("We buy bread at Greggs.", "We're out of bread."),
    ("I have a dog called Max.", "The old kettle finally died."),
    ("I'm vegetarian.", "My brother stopped eating meat, he's vegan now."),
    ("I play tennis at Northgate on Mondays.", "I played tennis on Wednesday this week."),
])
def test_a_near_miss_never_supersedes(old: str, new: str) -> None:
    d = decide(new, [old])
    assert d.verdict in (NEW, RELATED), (d, read_claim(old), read_claim(new))


def test_readings() -> None:
    assert read_claim("I cycle to the office every morning.").attribute == "travel to office"
    assert read_claim("I take the tram to work.").attribute == "travel to work"
    assert read_claim("I take 20mg of citalopram.").attribute != "travel to work"
    assert read_claim("Our new address is 3 Elm Row.").attribute == "residence"
    assert read_claim("My email address is a@b.org.").attribute == "email"
    assert read_claim("The meeting moved to Friday.").attribute != "residence"
    assert read_claim("Kai is at Oakfield Academy now.").attribute == "school"
    assert read_claim("Kai is at Aldi now.").attribute == "employer"
    assert read_claim("Marco's son turned 2.").holder == "named marco's son"
    assert read_claim("I don't smoke anymore.").ends == frozenset({"smok"})
    assert read_claim("I left my keys at home.").ends == frozenset()
    assert read_claim("I also swim.").additive


@pytest.mark.parametrize(("said", "records"), [
    # a change without its value stays with the clause that gives it
    ("Tomasz switched schools, he's at Oakfield Academy now.",
     ["Tomasz switched schools, he's at Oakfield Academy now."]),
    ("I don't cycle anymore, I take the bus.", ["I don't cycle anymore, I take the bus."]),
    # a one-word piece runs on into the next; the rest still splits
    ("Sam and I broke up; my boyfriend now is Idris.",
     ["Sam and I broke up.", "My boyfriend now is Idris."]),
    # a named holder stands in for the pronoun of the next clause
    ("Dave moved to Leeds, he's at Aldi now.", ["Dave moved to Leeds.", "Dave is at Aldi now."]),
    # a one-word reply opening a sentence: no cut at all (as before), nothing dropped
    ("Yeah, I've wanted to, but it's hard since Biscuit is still so young.",
     ["Yeah, I've wanted to, but it's hard since Biscuit is still so young."]),
    # a capitalised common word is no holder
    ("The kids went to bed, they're exhausted.",
     ["The kids went to bed, they're exhausted."]),
])
def test_clauses(said: str, records: list[str]) -> None:
    assert clauses(said) == records


def test_a_pronoun_is_carried_to_the_next_sentence_only_for_a_person() -> None:
    assert carry_holders(["My son changed schools.", "He's at Ashgrove now."]) == \
        ["My son changed schools.", "My son is at Ashgrove now."]
    assert carry_holders(["Dave changed jobs.", "He's at Screwfix now."])[1] == \
        "Dave is at Screwfix now."
    assert carry_holders(["My son changed schools.", "She's at Ashgrove now."])[1] == \
        "She's at Ashgrove now."  # not the son
    assert carry_holders(["Dancing is my life.", "It's where I'm most alive."])[1] == \
        "It's where I'm most alive."
    assert carry_holders(["My furry pals were running.", "Here is a pic."])[1] == "Here is a pic."


@pytest.mark.parametrize(("sentence", "fact"), [
    ("Dave works at Sainsbury's.", True),
    ("Tomasz switched schools, he's at Oakfield Academy now.", True),
    ("Omar's manager is now Beth Carter.", True),
    ("Kofi studies at Durham.", True),
    ("Dinner was great.", False),
    ("Monday was a long day.", False),
    ("Sarah, can you help me with this?", False),
])
def test_named_people_are_filed(sentence: str, fact: bool) -> None:
    assert is_fact(sentence) is fact
