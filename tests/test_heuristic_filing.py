"""What the offline writer files of a sentence with no "I" in it: a household thing with its
provider, place or time; someone named and their news; a rule that binds the speaker, said
impersonally; a recurring arrangement. And small talk in the same words, which files nothing.

Each case is one user message filed by the offline writer (`extract`, the function every
heuristic step runs); a fact counts as filed when a record holds its key words.
"""

from __future__ import annotations

import pytest

from heuristic_filed import records as _records

# (message, the key words a record must hold)
FILED = [
    # a household thing (the, our, or a bare noun) and who provides it, where or since when
    ("The gas and electric are with Octopus these days.", "Octopus"),
    ("The car insurance renewed with Admiral last week, the old quote was silly.", "Admiral"),
    ("The mortgage is with Nationwide, fixed for five years.", "Nationwide"),
    ("Dog food comes from Pets at Home, they deliver.", "Pets at Home"),
    ("Repeat prescriptions go through the Co-op pharmacy now.", "Co-op"),
    # someone named and their news
    ("Priya's got a place on the nursing course at Keele.", "Keele"),
    ("Hannah's landed an internship with a law firm in Leeds.", "internship"),
    ("Jamie's got a girlfriend now, they met at uni.", "girlfriend"),
    ("Zara's found a flat in Clapham, she moves in next month.", "Clapham"),
    ("Marcus has got a new puppy, a little spaniel.", "spaniel"),
    ("Leanne's expecting twins in the autumn.", "expecting twins"),
    ("Femi's starting at the Met Office in January.", "Met Office"),
    ("Rosie's pregnant.", "pregnant"),
    # a rule that binds the speaker, said of everyone
    ("The new rota means two late shifts a week for everyone.", "late shifts"),
    ("The hospital's new rule means staff park off site from June.", "park off site"),
    ("The office policy is four days in and Fridays at home.", "four days"),
    # a recurring arrangement of a group, no "I"
    ("Five-a-side runs on alternate Sundays at the leisure centre.", "Sundays"),
    ("Choir rehearses every Wednesday evening in the school hall.", "Wednesday"),
    ("Pub quiz is the last Friday of every month.", "last Friday"),
    ("The eye test is every two years.", "two years"),
    ("The van's insured through Hiscox, it's cheaper for trade.", "Hiscox"),
    # (found after the first 16) when a thing falls due; a visit on a day; news near a place
    ("The car's MOT is due in March.", "March"),
    ("The window cleaner comes every other Thursday.", "Thursday"),
    ("Nina's found a new flat near the station.", "flat"),
    # the household's pet or children by "the", and what they have had to do or now have; a
    # pronoun after it is theirs
    ("the cat's had to come off dry food, she's got a dodgy kidney apparently", "dodgy kidney"),
    ("The kids have got a new teacher this term.", "new teacher"),
    # a relative clause is no question: the sentence around it is kept
    ("Our lodger Kasia, who works nights at the Royal, is moving out in May.", "Kasia"),
    # a verbless restatement after "so" is the fact, not the conversation's
    ("I've cut out meat and dairy, so basically vegan.", "vegan"),
    # a routine named with "the", moved to another day or time, after "Heads up," / "FYI"
    ("Heads up, the French lessons have switched to Monday evenings.", "Monday"),
    ("FYI the swimming club has moved to Saturday mornings.", "Saturday"),
    # who does something for the speaker, a time said first
    ("Nowadays a woman called Bea at Curl Up does my hair.", "Curl Up"),
    ("Mr Osei from the garage services our van.", "Osei"),
    # a place the speaker belongs to changed how it runs
    ("The surgery has moved its blood tests to the Tuesday clinic.", "blood tests"),
    # health, a professional's advice, a plan settled: the speaker's without "I" or "my"
    ("Cholesterol's come back borderline, they want to retest in March.", "borderline"),
    ("Sciatica has been bad again since the long drive.", "Sciatica"),
    ("The GP reckons no caffeine after lunch for a month.", "caffeine"),
    ("Our anniversary trip is sorted, two nights in Bath.", "Bath"),
    ("The twins are due in early June.", "June"),
    # the job a request for help with an application rests on
    ("Could you look over my cover letter for the Greggs shift supervisor job?", "Greggs"),
    ("Help me get ready for an interview for the Arup graduate role.", "Arup graduate role"),
    # a dislike or a limit said with no subject, before a question
    ("Not a big fan of fennel at all, it tastes like liquorice. What goes in a slaw instead?",
     "fennel"),
    ("Can't stand olives, never could. Any pizza ideas?", "olives"),
    ("Thirty quid is the most I can stretch to for the wedding gift. Ideas?", "Thirty quid"),
    ("£300 is my limit for the new fridge.", "£300"),
    # ", so <the speaker's own news>" is part of the fact, not a consequence trimmed away
    ("My bloods came back low, so the GP has bumped me up to 50mcg.", "50mcg"),
    # someone named by their kin's pronoun
    ("Her brother Alfie goes to Priory Academy.", "Priory Academy"),
    ("His sister Maya works at the council.", "council"),
    # someone named and the job they do now by its title, or its end, or the club they follow
    ("Priya's a data scientist now.", "data scientist"),
    ("Gran's a lollipop lady these days.", "lollipop lady"),
    ("Tom's retired now.", "retired"),
    ("Callum's gone over to Hibs.", "Hibs"),
]

# The same words, no one's fact: the world, a passing remark, a name's "'s got" of no news.
NOT_FILED = [
    "The weather these days is just miserable.",
    "Ollie's got a point about that.",
    "Sam's got a lot on his plate.",
    "Tom's got a point, to be fair.",
    "The new season means loads of good telly.",
    "The storm means more rain for everyone tomorrow.",
    "Traffic comes from everywhere at rush hour.",
    "Everyone's got an opinion these days.",
    "Good music comes from the heart these days.",
    "Kids grow up so fast these days.",
    "The best stuff comes from Japan anyway.",
    "The problem is with Windows.",
    "The recipe is from Nigella.",
    "The dog's got a point.",
    "The kids have got a lot of homework.",
    "The dog's had a lovely walk.",
    "The company released a new phone.",
    "The school closed for snow today.",
    "These days everything costs a fortune.",
    "Write a cover letter for a job.",
    "The ball is with Arsenal now.",
    "Sophie's won a raffle at the fete.",
    "Jack's found a tenner in his coat.",
    "The dog's got a new toy.",
    "The weather's been awful lately.",
    "The doctor says it's nothing serious.",
    "Sleep is overrated.",
    "Dinner's sorted, pizza tonight.",
    "Tom's having a laugh.",
    "Sarah's having a great time.",
    "Jess is leaving.",
    "Heads up, the meeting moved along nicely.",
    "The match has switched to another channel.",
    "Not a fan of that idea.",
    "Can't stand it when that happens.",
    "Her brother is lovely.",
    "Tom's a legend now.",
    "Sam's a natural these days.",
    "Jack's a big softie now.",
]


@pytest.mark.parametrize(("text", "key"), FILED)
def test_a_fact_without_i_is_filed(text: str, key: str) -> None:
    records = _records(text)
    assert any(key.lower() in r.lower() for r in records), (text, records)


@pytest.mark.parametrize("text", NOT_FILED)
def test_small_talk_in_the_same_words_files_nothing(text: str) -> None:
    assert _records(text) == [], text
