"""A value read by its type (`step/measures.py`, and the dose, days-a-week and scale readings of
`step/numbered.py` and `step/topics.py` it needed): a street address said as home now, a range
of working hours as the pattern now, an amount moved by a payee the sentence names, an age
celebrated as reached (`step/reached.py`: any wording, a person named or the one "she" / "he"
can be), an event's date moved, a routine with a new pattern (`step/routines.py`), a dose said
without its medicine. Each pair failed on main before these rules; each near miss is the same
type of value that is not the holder's new one (another person's, a one-off, an offer, a
target, another payee or event). Pairs written for these rules, none copied from a corrections
set."""

from __future__ import annotations

import pytest

from memlane.step import measures, numbered
from memlane.step.supersede import RELATED, SUPERSEDES, decide, read_claim
from supersede_verdicts import message_verdicts as _verdicts

PAIRS = [
    # a street address, any wording of the move
    (["We're at 8 Quayside Walk, the end terrace."],
     "Finally got the keys to the new place on Hollin Street, so that's home now."),
    (["Our house is at 61 Brambling Drive."],
     "We completed on 4 Thornfield Rise on Tuesday and we've all moved in."),
    # working hours as a range
    (["I do 6am to 2pm at the bakery, Monday to Saturday."],
     "The new owner approved earlier starts, I'm doing 5am to 1pm and get Sundays off."),
    (["I'm full-time, eight to four in the office."], "I cut down to part-time in March."),
    (["I work two days a week at the charity shop."],
     "The manager has put me on three days a week from the new year."),
    # a body weight off the scales without a unit
    (["I'm 76 kilos, give or take."],
     "Got on the scales at the leisure centre and it said 73.8, really pleased."),
    (["I weigh about 101 kilos and I want to get below 95."],
     "Hopped on the scales at the pharmacy this morning - 97.2! Nearly there."),
    # a dose without its medicine, or for a relation
    (["I'm on lansoprazole, 15mg in the morning."],
     "The pharmacist checked with the GP and I'm taking 30mg now."),
    (["My mum takes levothyroxine, 50mcg a day."],
     "Mum had her bloods done and she's on 75mcg a day now."),
    # an amount with its payee named
    (["We pay Octopus £120 a month for gas and electric."],
     "Rang Octopus about the meter and they knocked it down to £105. The cat's fine, by the way."),
    (["Netflix is $15.49 a month for us."], "Netflix put their price up, we're paying $17.99 now."),
    # an age celebrated, held by the person named
    (["My goddaughter Freya is 9.", "I'm 38."],
     "Freya's party was on Sunday, a bowling trip to celebrate her turning 10."),
    # an event's date moved
    (["My knee operation is booked for 11 February."],
     "The hospital rang and brought my surgery forward to 2 February."),
    # a dose someone keeps the speaker on, or changes ("she" the prescriber); an address settled at
    (["The consultant started me on 25mg of amitriptyline."],
     "She's upped the amitriptyline to 50mg as of this week, which is apparently normal."),
    (["My consultant has me on 5mg of ramipril a day."],
     "The GP upped my ramipril to 10mg at the check-up."),
    (["We live at 3 Kestrel Road."], "We're finally at 22 Orchard Close, the move went fine."),
    (["My van insurance renews on the 14th of March."],
     "The broker moved my renewal to the 2nd of October when I added my son as a driver."),
    (["I do 6 till 2 at the hospital kitchen."],
     "Got moved onto 12 till 8 this month, they were short on lates."),
    (["I take bisoprolol, 5mg in the morning."],
     "My cardiologist cut the bisoprolol back, so now it's 2.5mg."),
    (["My grandson Kai is 3."], "Took Kai to the zoo to celebrate him turning 4."),
    # an age reached, said of a person named or the one "she" / "he" can be
    (["My colleague Femi is 29.", "My manager Gwen is 52."],
     "Took her out for a long lunch since she turned 53 on Thursday."),
    (["My son Archie is 4.", "My daughter Isla is 7."],
     "Isla's eighth birthday party was a unicorn disco, total madness."),
    (["Our tortoise Shelby is sixty-one."],
     "Shelby had his sixty-second birthday, we gave him a dandelion."),
    (["My partner Tom is 35.", "My friend Aisha is 34."],
     "Went out for tapas because he turned 36 last night."),
    (["My nan Edna is 93."], "Edna's 94th was a lovely afternoon tea at the garden centre."),
    (["My godson Finn is 17."], "Finn's 18th was at the cricket club, they drank it dry."),
    # a routine with a new pattern
    (["I go into the office on Tuesdays and Thursdays."],
     "We've been told it's the office three days a week now."),
    (["My chiropractor appointment is every other Wednesday."],
     "The chiropractor moved me to monthly appointments from now on."),
    (["I see my personal trainer every Tuesday and Thursday."],
     "My personal trainer's cut back so we're only doing Mondays now."),
    (["My choir rehearses on the first Monday of each month."],
     "The choir meets fortnightly now the concert season's started."),
]

NEAR_MISSES = [
    # a teacher's age, said in a sentence about the child's class: far above the child's
    (["My son Leo is 12."], "Leo's class had a leaving party for Mr Evans, he turned 60."),
    (["My home insurance renews on the 4th of May."],
     "They moved my car insurance renewal to the 30th of August."),
    (["We live at 30 Larch Close."], "My brother just moved into 9 Pelham Road, round the corner."),
    (["We live at 30 Larch Close."], "We've put an offer on a cottage on Mill Lane, wish us luck."),
    (["We live at 30 Larch Close."], "Our office moved to 12 Canal Street last week."),
    (["We live at 30 Larch Close."], "We're viewing the new place on Ash Grove tomorrow."),
    (["I work 9 till 5 at the library."], "I'm working 9 till 9 tonight for the late opening."),
    (["I work 9 till 5 at the library."], "The pool is open 7 till 10 now, handy after work."),
    (["I work 9 till 5 at the library."], "My husband's started doing 6 till 2 at the port."),
    (["I work 9 till 5 at the library."], "New starters do 8 till 4 now, which seems unfair."),
    (["I work 9 till 5 on weekdays."], "I do 10 till 4 on Saturdays as well, at the market."),
    (["I weigh 88 kilos."], "I'm aiming for 80 by Christmas."),
    (["I weigh 88 kilos."], "My suitcase came in at 21 on the scales, just under."),
    (["I weigh 88 kilos."], "Weighed the dog at the vets - 31! He's a unit."),
    (["I take metoprolol, 50mg twice a day."], "The GP started me on atorvastatin as well, 20mg."),
    (["I take sertraline, 50mg a day."], "My sister's been put up to 100mg on hers now."),
    (["Our broadband with BT is £38 a month."], "Sky put our TV package up to £30 a month."),
    (["My gym membership with PureGym is £25 a month."],
     "Paid £40 for a day pass at a spa hotel on Saturday."),
    (["Our wedding is on 12 September."], "The stag do has been moved to 5 September."),
    (["My dentist appointment is on 3 April."], "The school moved sports day to 8 April."),
    (["The christening is on 20 May."], "We might push the christening back to June if it rains."),
    (["My son Ollie is 6."], "We went to a party for Ollie's friend Jack turning 7."),
    (["I'm 52."], "The pub is turning 200 this year, they're having a festival."),
    (["We live at 30 Larch Close."], "We used to live at 2 Park Lane before we moved here."),
    (["We live at 30 Larch Close."], "The new place on Bell Street is done, we move in next week."),
    (["I work 8 till 4 at the depot."], "I'm on 7 till 3 this week, covering for Dave."),
    (["Our phone contract with EE is £32 a month."], "EE charged me £12 for roaming in Spain."),
    (["My daughter Mia is 5."], "Mia's friend Ella had a party to celebrate turning 6."),
    # an age of another person, an anniversary, a plan, an ordinal of another thing, two "she"
    (["My cousin Leah is 26."], "My colleague Leah turned 27, we got her a cake."),
    (["My son Theo is 10."], "Theo drew us a card for our eleventh wedding anniversary."),
    (["My brother Sam is 30."], "Sam will be 31 next week, so I need a gift idea."),
    (["My niece Evie is 6."], "Evie's 7th swimming lesson went much better."),
    (["My aunt Rose is 60.", "My sister Jo is 58."], "We all went out because she turned 61."),
    (["My daughter is 16."], "My goddaughter had her 17th on Saturday."),
    # a routine: a one-off, another person's, a maybe, another routine
    (["I'm in the office on Mondays."], "I'm in every day just this week for the stocktake."),
    (["I have a massage every other Friday."],
     "My massage is on Saturday instead this week, the therapist is off."),
    (["My cleaner comes every Wednesday."], "The cleaner's coming Thursday instead this week."),
    (["I go to the climbing wall on Tuesday nights."],
     "My daughter goes to the climbing wall every Saturday now."),
    (["I do spin on Thursday mornings."],
     "I might switch spin to Saturdays if the timetable changes."),
    (["My chess club meets on Tuesdays."], "Our running club meets every Sunday now."),
    (["I go to the gym on Mondays and Thursdays."], "The gym is open every day now, even Sundays."),
    (["I work from home on Fridays."], "My husband's in the office every day now, poor thing."),
]


@pytest.mark.parametrize(("held", "new"), PAIRS)
def test_a_value_read_by_its_type_replaces_the_held_one(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert any(v == SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_value_of_the_type_that_is_not_the_holders_new_one_replaces_nothing(
        held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


def test_two_held_addresses_of_the_holder_are_kept_linked() -> None:
    """Two held street addresses of the speaker: a new one is `related` to the newest, never a
    guess at which it replaces."""
    held = [read_claim("We live at 3 Orchard Way."), read_claim("I live at 40 Quarry Lane.")]
    d = decide(read_claim("Got the keys to 12 Fern Street, so that's home now."), held)
    assert (d.verdict, d.target) == (RELATED, 1), d


def test_the_celebrated_age_is_the_named_persons_not_the_speakers() -> None:
    """"... to celebrate him turning 12": the clause's subject is "we", the age is Callum's (a
    model's replace of the speaker's age is refused, of the named person's accepted)."""
    held = ["My nephew Rory is 11.", "I'm 40."]
    new = "Rory's birthday was on Saturday, we had a cake to celebrate him turning 12."
    assert _verdicts(new, held)[-1] == (SUPERSEDES, "My nephew Rory is 11."), _verdicts(new, held)
    assert decide(new, [held[1]], claimed=0).verdict == RELATED
    assert decide(new, [held[0]], claimed=0).verdict == SUPERSEDES


def test_search_marks_meet_a_held_value_that_shares_no_word() -> None:
    """`measures.marks`: a street address and a dated event are marked so that the related
    search (`step/related.py`) shows a step the held one; plain text has no mark."""
    assert measures.marks("We got the keys to 5 Alder Mews.") == {measures.STREET_MARK}
    assert measures.marks("They've shifted us to 9 August.") == {measures.DATED_MARK}
    assert measures.marks("Our wedding is on 18 July.") == {measures.DATED_MARK}
    assert measures.marks("I'm on 8am to 4pm at the call centre.") == {measures.HOURS_MARK}
    assert measures.marks("I like walking on the beach in July.") == frozenset()


def test_a_dose_clause_is_filed_with_the_drug_its_sentence_names() -> None:
    """`numbered.with_drug`: "it's 2.5mg" replaces the held bisoprolol dose as the whole
    sentence, so the record says which drug; a clause that names it, or a sentence that does
    not, keeps its own text."""
    held = "I take bisoprolol, 5mg in the morning."
    sentence = "My cardiologist cut the bisoprolol back, so now it's 2.5mg."
    assert numbered.with_drug("It's 2.5mg.", sentence, held) == sentence
    assert numbered.with_drug("Bisoprolol is 2.5mg now.", sentence, held) == \
        "Bisoprolol is 2.5mg now."
    assert numbered.with_drug("It's 2.5mg.", "So now it's 2.5mg.", held) == "It's 2.5mg."
