"""Corrections in everyday wording read by mechanism, with the near-misses each must refuse: a
number said as a word ("three days a week" / "four days a week"); a job ended by naming its
workplace ("handed in my notice at the practice"); a product replaced, the held one named as
gone; a person in a role replaced by another at the same place; an event entered "instead"; a
bedtime said as staying up; a holder after "Can't believe"; a correction sharing no word with
what it corrects ("I'm 41" / "I turned 42", a promotion). Near-misses: a service used over a
held provider, an hourly rate beside a salary, a second person of one relation, a one-off.
Pairs written for these rules, none copied from a held-out set (`test_corrections_heldout.py`)."""

from __future__ import annotations

import pytest

from memlane.step.related import related_query
from memlane.step.slots import values
from memlane.step.supersede import SUPERSEDES, read_claim
from supersede_verdicts import verdicts as _verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["I volunteer two days a week at the food bank."],
     "I'm doing three days a week at the food bank now."),
    (["I go to the office two days a week."], "I'm going to the office three days a week now."),
    (["I'm a receptionist at a dental practice."],
     "I handed in my notice at the practice, I'm training as a plumber now."),
    (["I'm a chef at a hotel in Bath."],
     "I jacked in the hotel job, I'm driving for a delivery firm now."),
    (["My watch is a Garmin Forerunner."],
     "Lost the Garmin on a hike, so I wear an Apple Watch now."),
    (["My hairdresser is a lad called Josh at Snips."],
     "Josh moved to a salon in town, so I go to Kerry at Snips now."),
    (["I swim twice a week."], "I'm up to three times a week now."),
    (["I'm entered in the sprint triathlon in July."],
     "I'm doing the olympic triathlon in August instead."),
    (["Our toddler is in bed by 6:30."], "Our toddler stays up until 7:30 now."),
    (["My nephew is 9."],
     "Can't believe my nephew is 10 already, he had a party at the bowling alley."),
    (["I'm an assistant manager."], "I got promoted to branch manager in the spring."),
    # a heading before a colon; a move "again"; the rent a landlord asks is the speaker's
    (["My line manager is Helen Marsh."], "Reorg happened: I report to Dev Kapoor now."),
    (["We moved to Carlisle last spring, still unpacking."],
     "We've relocated again, down to Bristol, for my wife's job."),
    (["My landlord wants 1200 a month for rent."],
     "The landlord's putting the rent up to 1350 from May."),
    # a switch to a named thing some weeks ago holds now
    (["I've been using a Samsung for years, love it."],
     "I switched to an iPhone last week, finally caved."),
    (["I bank with Barclays."], "I moved over to Monzo a few weeks ago."),
    # a named thing moved, a comment after it; the landlord's "it"; a relative's flat
    (["Our daily standup's at 9:30, bang on, and the boss hates lateness."],
     "They've shifted the standup to 10:15 from Monday, which honestly suits me way better."),
    (["Rent's £850 a month on this place."],
     "Landlord's put it up to £925 from next month, I got the letter this morning."),
    (["My sister's flat is in Dunmere, just off the high street."],
     "My sister is properly moved to Corrisk now, lovely little terrace by the canal."),
    # a company car for the held company car; a held value named as the reason, "too far"
    (["My wife drives a Qashqai, it's her company car."],
     "My wife's company car got swapped at renewal, she's got a Kuga now instead."),
    (["My eldest, Freya, goes to Oakfield Primary just round the corner."],
     "Freya's moved schools, she's at Greenway Primary now because Oakfield was just too far."),
    # a dose another changed, of the relation it names; a job got
    (["My mother-in-law takes 5mg of amlodipine.", "My father-in-law takes 40mg of simvastatin."],
     "They've put my mother-in-law up to 10mg of amlodipine."),
    (["My friend Tamsin works at Boots.", "My friend Rory works at Currys."],
     "Tamsin got a job at the council."),
    # a sum with its currency left out, paid by the month
    (["I'm paying 35 a month for my gym membership."], "It's 42 a month from now on, cheeky."),
    (["We pay about 90 a month for the broadband alone."],
     "I finally switched internet providers, it's 45 a month now and actually faster."),
])
def test_an_everyday_correction_supersedes(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert (SUPERSEDES, held[0]) in verdicts, verdicts


@pytest.mark.parametrize(("held", "new"), [
    (["Our broadband is with BT."], "I watch Netflix over the broadband now."),
    (["My salary is £32,000 a year."], "They pay £25 an hour for weekend shifts now."),
    (["Sam is my brother."], "Joe is my brother."),
    (["My phone is a Samsung Galaxy."], "My daughter dropped her iPhone, so she's on a Pixel now."),
    (["My physio is Tom at Riverside."],
     "Tom was off last week, so I saw Aisha at Riverside just the once."),
    (["My son goes to bed at 7."], "My son stayed up till 9 on Saturday for the fireworks."),
    # a workplace named with no ending; something else packed in; another holder's count, age
    (["I'm a nurse at the Royal Infirmary."],
     "The infirmary opened a new car park, so parking is easier now."),
    (["I'm a barista at a cafe."], "I packed in the gym, I'm doing yoga now."),
    (["I work four days a week."], "My daughter goes to nursery three days a week now."),
    (["I swim twice a week."], "I cycle three times a week now."),
    (["I'm 34."], "My son turned 5 last week."),
    (["Ana is my sister."], "Beth is my sister, she lives in Leeds."),
    (["Ana is my sister."], "My sister Beth is coming to stay now."),
    (["My water bill is £42."], "I pay the gas bill by card instead."),
    (["My son goes to bed at 7."], "My son is up at 6 for swimming now."),
    (["Our internet is with Sky."], "I stream films from Netflix on the internet now."),
    (["My salary is £36,000."], "I get paid £27 an hour for bank holiday overtime now."),
    # "my drive" is ambition, not a car; the car in a "when" clause has no value to replace with
    (["Running the bakery boosts my drive to keep painting at weekends."],
     "The broker moved my renewal date to the 3rd of June when I changed cars."),
    # a held fact's words inside a longer statement about something else (LoCoMo dev, conv-42)
    (["I grew up in Ravensworth, a fishing village in Yorkshire."],
     "My new novel is a ghost story set in a remote fishing village on the coast of Cornwall."),
    # a heading naming another's news; a teacher's fee is not the speaker's; a trip "again"
    (["My manager is Helen Marsh."], "Big news at my sister's firm: she reports to Omar now."),
    # a speaker's name before the colon is no heading (LoCoMo's turns are filed so)
    (["Caroline: My manager is Helen Marsh."], "Melanie: I report to Dev Kapoor now."),
    (["My rent is 900 a month."], "My sister charges 30 a month for piano lessons."),
    (["I live in Carlisle."], "My brother relocated again, down to Bristol, for his job."),
    (["My phone is a Samsung."], "My son switched to an iPhone last week, finally caved."),
    (["My phone is a Samsung."], "I switched to an iPhone this morning just to try it."),
    (["My rent is 900 a month."], "My sister pays 700 a month for hers now."),
    (["I take 5mg of amlodipine."], "They've put my wife up to 10mg of amlodipine."),
    (["My dad is 70."], "They've moved my dad to 12 Oak Lane."),
    (["I work at Boots."], "I got a job at Tesco on Saturdays."),
    (["I live in York."], "My sister's flat is in Leeds now."),
    (["My rent is £850 a month."], "My landlord's dog cost him £925 at the vet."),
    (["I work at Boots."], "I got a job at the council for the summer."),
    # a place's move is its own; "it" moved of another thing the sentence names
    (["I live on Kelso Street."], "The bakery moved to Pine Street."),
    (["I live on Kelso Street."],
     "The workshop's been moved to the community hall on Pine Street."),
    (["My haircut is on Friday at 3."], "The garage rang, they've moved it to Monday."),
    (["I do 3 a week at the gym."], "I'm up to 4 a week now, and it's 40 a month."),
])


def test_an_everyday_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    verdicts = _verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("sentence", "key"), [
    ("I work four days a week.", {"4"}),
    ("I swim twice a week.", {"2"}),
    ("I went back to full time, five days a week.", {"5"}),
])
def test_a_count_in_words_is_a_number(sentence: str, key: set[str]) -> None:
    assert set(read_claim(sentence).key) == key


@pytest.mark.parametrize(("text", "word"), [
    ("I turned 35 last week.", "34"),
    ("Can't believe my daughter is 5 already.", "4"),
    ("I got promoted to store manager.", "leader"),
    # A brand names its family without the family's word: "bank" is searched for.
    ("All my wages go into Starling these days.", "bank"),
])
def test_a_correction_is_searched_with_the_words_of_what_it_replaces(text: str, word: str) -> None:
    assert word in related_query([text]).split()


@pytest.mark.parametrize(("text", "kind"), [
    ("My son goes to bed at 7.", "time"),
    ("He stays up until 8 now.", "time"),
    ("I live at 7 Mill Lane.", "number"),
    ("We went to bed at 10.5 degrees.", "number"),
])
def test_a_bedtime_hour_is_a_time(text: str, kind: str) -> None:
    assert kind in values(text)
