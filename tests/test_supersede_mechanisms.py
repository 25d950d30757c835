"""Corrections read by mechanism, not by phrase, with the near-misses each must refuse: someone the
speaker moved is the holder ("We moved her to ..."); what one is paid by any word; a thing a
capitalised opener names that the held fact writes in lower case; one thing in other words
(broadband / internet, office / branch) and one place by "at", "in" or "from"; an amount of one
unit in two statements of one doing; a grade's noun; a person by a title, named again as the one
who left; a modifier swapped for the one said to have ended; the team one plays for; a rota; the
held value named again as what ended; what someone did to the speaker is the speaker's; "she" or
"he" only for a relation of that gender. Each clause is read as the writer reads it: with the
sentence it was cut from. Pairs written for these rules, none copied from a held-out set
(`test_corrections_heldout.py`)."""

from __future__ import annotations

import pytest

from memlane.step.supersede import SUPERSEDES, read_claim
from supersede_verdicts import verdicts as _verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["My grandad lives in Whitby."], "We've moved Grandad into a nursing home in Scarborough."),
    (["My daughter goes to Hillside Primary."], "We moved her to Brook Lane Primary in September."),
    (["My salary is £41,000."], "My pay went up to £44,500 in the review."),
    (["I earn £19 an hour."], "Since the new contract I'm on £21 an hour."),
    (["I do spin class on Mondays."], "Spin is on Wednesdays for me now."),
    (["Our internet is with Sky."], "We've switched over to Vodafone for the broadband."),
    (["I'm working from the Leeds office at the moment."],
     "They've moved me, I'm based at the York branch from this week."),
    (["I walk 3 miles a day."], "I'm up to 5 miles on my walks now."),
    (["I buy monthly bus passes."], "I switched to annual bus passes."),
    (["My optician is Mr Patel."], "Mr Patel moved away, so I go to Mrs Green now."),
    (["I always order a beef burrito."],
     "I've gone off beef, so it's a chicken burrito for me now."),
    (["My daughter plays for Kirkby Ladies."],
     "My daughter signed for Ormskirk Town in the summer."),
    (["I'm on the early rota."], "They moved me to the late rota."),
    # the held value named again as what ended, a new one of its type beside it
    (["I read on a Kindle."],
     "My sister gave me a Kobo, so the Kindle's gone to the charity shop."),
    (["We bank with Nationwide."],
     "We closed the Nationwide account and opened one with Starling."),
    # "goodbye X" ends X; a home by a hyphenated size; pay as "k"; a diet one calls oneself
    (["We rent a three-bed semi in Acocks Green."],
     "We've bought a flat in Harborne, so goodbye Acocks Green."),
    (["I'm on 28k a year."], "After the promotion I'm on 32k now."),
    (["I'm pescatarian."], "These days I'd call myself vegan."),
    # a role with a word before it, either way round; one kind of appointment by two words;
    # where one lives said with whom, and a home one got the keys to
    (["My line manager is Tom."], "Priya is my line manager now."),
    (["I'm registered at the Oak Tree surgery."],
     "We switched GP surgery to Kingsway Health Centre."),
    (["I'm living with my mum in Shirley."], "We've got the keys to our new house in Hall Green!"),
])
def test_a_correction_by_mechanism_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert (SUPERSEDES, held[0]) in verdicts, verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["My grandad lives in Whitby."], "We might move Grandad into a nursing home in Scarborough."),
    (["My son goes to Hillside Primary."], "We moved him to the front of the queue."),
    (["My salary is £41,000."], "My brother's pay went up to £44,500."),
    (["I do spin class on Mondays."], "Yoga is on Wednesdays for me now."),
    (["Our internet is with Sky."], "My mum switched over to Vodafone for her broadband."),
    (["I'm working from the Leeds office at the moment."],
     "My sister is based at the York branch now."),
    (["I weigh 70 kg."], "I can lift 80 kg now."),
    (["I weigh 70 kg."], "My suitcase weighed 23 kg at the airport."),
    (["I pay for the annual Netflix plan."], "I switched to the monthly gym plan."),
    (["My optician is Mr Patel."], "Mr Patel moved away, so my mum sees Mrs Green now."),
    (["My optician is Mr Patel."], "I met Mrs Green at the school gate."),
    (["I always order a beef burrito."],
     "My son has gone off beef, so it's a chicken burrito for him now."),
    (["My daughter plays for Kirkby Ladies."], "My niece signed for Ormskirk Town in the summer."),
    (["My daughter plays for Kirkby Ladies."],
     "My daughter is playing for Kirkby Ladies against Ormskirk Town on Sunday."),
    (["Our bins go out on Tuesdays."], "The bins went out on Thursday this week."),
    (["We bank with Nationwide."], "The Nationwide branch in town closed, so we use the app now."),
    (["We bank with Nationwide."],
     "My parents closed their Nationwide account and moved to Starling."),
    (["We bank with Nationwide."], "Nationwide is still great, and we also got a Starling card."),
    (["I read on a Kindle."],
     "My Kindle's gone flat, so I'm reading a Penguin paperback this week."),
    (["I read on a Kindle."], "The library closed, so I buy books from Waterstones now."),
    # the owner of what ended, one's own thing left somewhere, a day's routine beside it
    (["I drive a Golf."], "I sold the Golf's roof box and bought a Thule one."),
    (["I read on a Kindle."],
     "I left my Kindle on the train, so I read a Penguin paperback instead this time."),
    (["I work from the Leeds office."], "I'm in the York office on Fridays now."),
    # "she" is never "my son"; a colour before a name is no thing of its own
    (["My son lives in Leeds."], "We moved her into halls in Exeter for uni."),
    (["My son lives in Leeds."], "She moved to Exeter."),
    (["I have a black Labrador."], "I've gone off black coffee, it's a white Americano now."),
    # a held value said as kept: a change of something else about it; a count that is no pay
    (["My choir meets on Thursdays."],
     "Choir is still on Thursdays, but the conductor changed to Mr Ellis."),
    (["I'm on 28k a year."], "I'm on 12k steps a day now."),
    (["We rent a three-bed semi in Acocks Green."], "Goodbye to the old sofa, we got a new one."),
    (["I live with my sister in York."], "My sister moved to Leeds."),
    (["My line manager is Tom."], "Priya is my mum's line manager now."),
    (["I'm registered at the Oak Tree surgery."], "My dentist moved to the Kingsway centre."),
])
def test_a_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("sentence", "holder", "attribute"), [
    ("We moved her to Brook Lane Primary.", "?she", "school"),
    ("We've had to move Dad into sheltered housing in Ripon.", "father", "residence"),
    ("I've transferred my son to Kings Academy.", "son", "school"),
    ("We moved my son's bedtime to 8pm.", "son", None),
    ("My pay went up to £35,000.", "i", "salary"),
    ("My son signed for Crossbridge Rovers.", "son", "team"),
    ("My sister gave me a Kobo.", "i", None),
    ("My sister gave her car to a neighbour.", "sister", "car"),
])
def test_the_holder_and_attribute_read(sentence: str, holder: str, attribute: str | None) -> None:
    c = read_claim(sentence)
    assert (c.holder, c.attribute) == (holder, attribute)
