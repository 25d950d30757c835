"""What the offline writer files of everyday facts said in passing: inside a question ("Did I
tell you my brother is a paramedic now?", "..., I've got a slipped disc?"), after "by the way",
after a reason or a complaint ("..., which is why I bought a Vespa"), of a third person, a plan,
health; and small talk in similar words (a question to the assistant, a view of a film, the
weather, no view either way), which files nothing.

Written before the writer was changed for them (19 of 24 filed, 2 of 16 small talk filed on
52b3ae5). Each case is one user message filed by `extract`; a fact counts as filed when a record
holds its key words.
"""

from __future__ import annotations

import pytest

from heuristic_filed import records as _records

# (message, the key words a record must hold)
FILED = [
    # a fact inside a question
    ("Did I tell you my brother Tomas is a paramedic now?", "paramedic"),
    ("Any ideas for a birthday present for my wife, she's really into pottery?", "pottery"),
    ("What's a good stretch for lower back pain, I've got a slipped disc?", "slipped disc"),
    ("We're flying to Porto on the 3rd of June, what should we pack?", "Porto"),
    ("Since I'm coeliac, which beers can I actually drink?", "coeliac"),
    # a "by the way" aside
    ("Oh by the way, I've been made team leader at the depot.", "team leader"),
    ("btw my mum's moving in with us in September", "September"),
    ("Being asthmatic, I always get a bit nervous running in cold weather.", "I'm asthmatic"),
    ("As a primary school teacher I pick up loads of colds every September.",
     "I'm a primary school teacher"),
    ("It was grandad's birthday on Sunday, he's 89 now, so we took him out for a carvery.",
     "Grandad is 89"),
    ("Random, but my landlord is selling the flat in the spring.", "selling"),
    # a fact after a reason or a complaint
    ("Work's been chaos, so I've handed in my notice and I finish on the 28th.", "notice"),
    ("The commute was killing me, so I've started cycling to work on Tuesdays and Thursdays.",
     "cycling"),
    ("Because of my knee I've had to give up running, I swim three times a week instead.",
     "swim"),
    ("Honestly the bus is never on time, which is why I bought a Vespa last month.", "Vespa"),
    # third persons
    ("My dad's just been diagnosed with type 2 diabetes.", "diabetes"),
    ("Our neighbour Graham keeps bees in his back garden.", "bees"),
    ("My best friend Chloe is getting married in Santorini next August.", "Santorini"),
    ("The twins start reception at Holy Trinity in September.", "Holy Trinity"),
    # plans
    ("We're having the kitchen redone in March, a firm from Harrogate is doing it.", "kitchen"),
    ("Planning to run the Great North Run in September for the hospice.", "Great North Run"),
    ("Going to my cousin's wedding in Galway the weekend after next.", "Galway"),
    # health
    ("I'm on sertraline, 50mg, have been for about a year.", "sertraline"),
    ("I can't have anything with sesame in it, it makes my throat swell.", "sesame"),
    ("Been on crutches since I broke my ankle at netball.", "crutches"),
    # a routine, a possession
    ("Every Sunday we do a big roast at my in-laws' in Frome.", "roast"),
    ("Our car's an electric Kia, so charging is the main thing on long trips.", "Kia"),
    # (found after the first 24, in further sentences written the same way)
    ("Got fed up with EE's signal and went to Three last month.", "Three"),
    ("The little one starts nursery three mornings a week from January.", "nursery"),
    ("Half my salary goes on rent, it's 1,400 a month.", "1,400"),
    ("Me and the kids are off to my mum's in Cork for the summer.", "Cork"),
    ("Not much, just back from a week in Crete with my partner.", "Crete"),
    ("Only child here, and both my parents have passed.", "parents"),
    ("Can you recommend a good book for my 10 year old nephew? He's obsessed with dinosaurs.",
     "dinosaurs"),
    ("Mum's been in and out of hospital since Christmas with her heart.", "hospital"),
    ("After ten years at Barclays I've moved to a fintech startup.", "fintech"),
    ("What can I cook for my vegan sister this weekend?", "vegan"),
    ("How do I keep my sourdough starter alive while I'm in Spain for two weeks?", "Spain"),
    ("Is it safe to fly at 30 weeks pregnant?", "pregnant"),
    ("You know I'm training for a triathlon, right?", "triathlon"),
    ("ya my gran lives with us now since grandad died", "gran"),
    ("if the weather holds we're camping in Snowdonia the first weekend of August", "Snowdonia"),
    ("The school rang, Mia's been moved up to the top set for maths.", "top set"),
    ("Hey! Long time. Just wanted to say I got the job at Rolls-Royce!", "Rolls-Royce"),
    ("The wife's just started a new job at the council.", "council"),
    ("The other half works nights at the Amazon warehouse.", "Amazon"),
    ("The in-laws are moving to Spain next spring.", "Spain"),
]
NOT_FILED = [
    "Did you see the match last night?",
    "By the way, that was a great answer, thanks.",
    "Ugh, the weather's been awful all week.",
    "The film was a bit long but the ending was good.",
    "What's the best way to get from Porto to Lisbon?",
    "Honestly I don't mind either way.",
    "The traffic was terrible this morning.",
    "Any ideas what I should cook tonight?",
    "Oh by the way, the sun's finally out here.",
    "Did I mention how much I loved that recipe you gave me?",
    "My partner thinks the new Bond film is rubbish.",
    "The neighbours' dog was barking again last night.",
    "Since you asked, it's going fine.",
    "Can you remind me what we talked about earlier?",
    "That sounds like a lovely plan for the weekend.",
    "Work was so busy today, honestly.",
    "Got fed up with the rain.",
    "Not much, just chilling.",
    "If I'm honest, I'm not sure.",
    "I see what you mean.",
    "Not gonna lie, that was a tough one.",
    "What can I cook this weekend?",
    "You know what I mean, right?",
    "How do I know when my bread is done?",
    "Is it safe to fly when it's stormy?",
    "if the weather holds it'll be lovely",
    "No rush, whenever suits.",
    "The school rang, nothing to worry about.",
    "Oh and one more thing - thanks for your patience.",
    "Just wanted to say thanks for earlier.",
    "The wife's not impressed, haha.",
    "The boss is in a mood today.",
    "The other half thinks I'm mad.",
]

@pytest.mark.parametrize(("text", "key"), FILED)
def test_a_fact_said_in_passing_is_filed(text: str, key: str) -> None:
    records = _records(text)
    assert any(key.lower() in r.lower() for r in records), records


@pytest.mark.parametrize("text", NOT_FILED)
def test_small_talk_in_similar_words_files_nothing(text: str) -> None:
    assert _records(text) == []


@pytest.mark.parametrize(("text", "record"), [
    ("Did I mention my partner Sunita is a civil engineer?",
     "My partner Sunita is a civil engineer."),
    ("Any ideas for a birthday present for my wife, she's really into pottery?",
     "My wife is really into pottery."),
    ("Since I'm coeliac, which beers can I actually drink?", "I'm coeliac."),
    ("Random, but my landlord is selling the flat in the spring.",
     "My landlord is selling the flat in the spring."),
    ("Not gonna lie, I've put on a stone since the op.", "I've put on a stone since the op."),
    ("Oh and I'm lactose intolerant, forgot to say.", "I'm lactose intolerant."),
    ("As a Type 1 diabetic, what snacks are good before a run?", "I'm a Type 1 diabetic."),
    ("Can you suggest a gift for my diabetic dad?", "My dad is diabetic."),
    ("Oh and one more thing - my daughter has a severe egg allergy.",
     "My daughter has a severe egg allergy."),
    ("Worth knowing: we have two cats and a rabbit.", "We have two cats and a rabbit."),
    # "reminds me" opens; a clinician's order is the fact, not news of what they said
    ("Reminds me, my GP told me to cut out salt.", "My GP told me to cut out salt."),
    ("That reminds me: my sister is a nurse in Leeds.", "My sister is a nurse in Leeds."),
    # a need before "so no ... please"; what one is, opening "Being" / "As a"; "grandad's" then "he"
    ("I'm allergic to sesame so no sesame oil or seeds please.", "I'm allergic to sesame."),
    ("As a kid I loved horses.", "As a kid I loved horses."),
    # "there" after a question naming one place is that place
    ("Remind me what time zone Singapore is in? I'm moving there for work in March.",
     "I'm moving to Singapore for work in March."),
    ("What's the weather usually like in Krakow in December? We're going for my 40th.",
     "We're going to Krakow for my 40th."),
    ("Ever been to Cornwall? My parents live there.", "My parents live in Cornwall."),
    # the question before "while" is no record
    ("How do I keep my sourdough starter alive while I'm in Spain for two weeks?",
     "I'm in Spain for two weeks."),
])
def test_the_record_says_the_fact_without_the_question_or_the_filler(text: str,
                                                                      record: str) -> None:
    assert _records(text) == [record]
