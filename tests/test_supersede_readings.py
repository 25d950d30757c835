"""Readings the supersede rule gets from the sentence's shape, not from a listed wording: "'s"
before a titled name is "is"; a span of time is no label ("3 weeks into the new role"); a role
or post at a named place is an employer; a job is a word, so a date beside a new one is when it
changed, not another thing; a dose with no drug named is the speaker's one held dose; a rate of
work with why it changed ("since the restructure"); a dated thing pushed to a new date; a diet
said as a conclusion ("so pescatarian I suppose") and on someone's advice; a car make with a
model not listed; "second-hand" and "at the weekend" add nothing; a bus by its time; why a commute
changed, said first, is not what changed; a gym by "Leisure" or a leisure centre; a job said
before a school ("a secondary school maths teacher"); "New" opening a sentence is no name, and
"a new address for my mum" is hers; a change cue said first ("These days ..."); a member
compared with ("quicker than the train") is not the one still used; a home bought ("completed on
the house in Stockport"), by the speaker. Pairs written for the readings
first, then near-misses (another holder, a maybe, an offer, a one-off, another drug held, a
reason that names another routine), then the lead's seen examples as regression cases."""

from __future__ import annotations

import pytest

from memlane.step.supersede import SUPERSEDES
from supersede_verdicts import message_verdicts

CORRECTIONS = [  # (held, new, the held fact replaced)
    # a car part-exchanged for another, said by "his"
    (["My dad drives a Nissan Micra.", "My mum drives a Fiat Panda."],
     "Dad part-exchanged his for a Toyota Yaris, he wanted something comfier.", 0),
    # the time one starts work (read as an employer by "work at" before)
    (["I start work at seven each morning."],
     "They've changed the rota, I don't clock on till ten now.", 0),
    (["I start work at 8am."], "I start at 9:30 now.", 0),
    # the team one plays a sport for, a sport named between; a club by "RFC", "CC"
    (["My son Kit plays cricket for Ashby CC.", "My daughter Ivy plays for Eastway Colts."],
     "He's joined Markfield CC this season.", 0),
    (["My son Kit plays rugby for Ashby Juniors.", "My daughter Ivy plays for Eastway Colts."],
     "He's joined Coalville RFC's under-14s, more game time apparently.", 0),
    # "the other thing was ..." is the old one given up, not a second one
    (["I've been doing intermittent fasting since March."],
     "I'm following a paleo diet these days, the other thing was too much hassle.", 0),
    # the one who does a routine is the routine ("my therapist" / "my therapy sessions")
    (["My counselling sessions are on Thursdays at four."],
     "My counsellor has had to rejig her week, so from next month I'm seeing her on Fridays.", 0),
    (["My physiotherapy is on Tuesdays."], "My physiotherapist has moved me to Mondays.", 0),
    # a number in a later clause is no label of the thing ("..., and there are boxes"): the
    # new address replaces the old
    (["We live at 12 Sorrel Way."],
     "Got the keys to the new house on Tuesday, 40 Alder Grove, and there are boxes all over.", 0),
    # a weight said with "currently" and a target beside it; a weight read on a day is the
    # weight now
    (["I'm currently 14 stone and aiming for 12."], "I'm down to 13 stone now.", 0),
    (["I'm currently 101 kilos and trying to get under 90."],
     "Weighed in at 96 on Saturday, slowly getting there.", 0),
    (["I weigh 80 kilos."], "I weighed 78 kilos at the gym this morning.", 0),
    (["My dentist is Dr Hughes at the Smile Centre."], "My dentist's Mr Evans now.", 0),
    (["My consultant is Dr Rao."], "My consultant's Dr Whitfield now, Dr Rao moved trusts.", 0),
    (["I work for Arup."], "Two months into the new job at Mott MacDonald and I love it.", 0),
    (["I work at Halfords."], "Started a new position with Kwik Fit last week.", 0),
    (["I'm a chef at a hotel in Bath."],
     "I'm a delivery driver now, gave up the kitchen in April.", 0),
    (["I take 20mg of citalopram every day."], "The GP has upped me to 30mg.", 0),
    (["I take 100mcg of levothyroxine."], "They dropped me down to 75mcg after my bloods.", 0),
    (["I work three days a week."], "I'm back up to four days a week since the merger.", 0),
    (["Our housewarming is on 3 May."], "We had to push the housewarming to 17 May.", 0),
    (["The christening is on 2 August."], "They're pushing the christening to 9 August.", 0),
    (["I'm vegetarian, have been since uni."],
     "Started eating chicken again on my trainer's advice, so flexitarian I guess.", 0),
    (["I drive a Ford Fiesta."], "The Fiesta died so I picked up a second-hand Kia Picanto.", 0),
    (["I drive a Nissan Micra."], "Bought a used Toyota Aygo at the weekend.", 0),
    (["I take 10mg of amlodipine."], "She's moved me up to 15mg.", 0),
    (["I'm a primary school PE teacher."], "I left teaching and I'm working as a nurse now.", 0),
    (["I catch the 8:05 train to work."],
     "Since the timetable changed I've been driving in instead.", 0),
    (["I walk to work most days."], "Because the office moved out of town, I get the bus in now.",
     0),
    (["I train at PureGym most mornings."], "I'm a member at the leisure centre these days.", 0),
    (["My gym is Snap Fitness."], "I go to Lifestyle Leisure these days, it's nearer.", 0),
    (["I live at 14 Elm Road."], "New address for you: 3 Willow Close, we moved on Tuesday.", 0),
    (["My mum lives at 14 Elm Road."], "New address for my mum: 3 Willow Close.", 0),
    (["I get the train to work."], "These days I cycle in, it's quicker than the train.", 0),
    (["I get the bus to work."], "Nowadays I walk in, it's cheaper than the bus.", 0),
    (["I live in Didsbury, near the park."],
     "We finally completed on the house in Stockport last week, so that's home now.", 0),
    (["I live in Didsbury."], "Got the keys to a flat in Hove on Friday!", 0),
    (["My daughter Ava is 9."], "Ava's ten as of yesterday, we did a sleepover.", 0),
    (["My dad is sixty-four."], "Dad had his birthday, he's sixty-five now.", 0),
    # a first clause said as so now; lived there up to now; been at a named place for years;
    # a thing bought after the old one ended; a make only phones are sold under; a dose as "it"
    (["I work as a nurse."], "I'm a midwife now, same hospital.", 0),
    (["I've lived in Leigh since 2015."], "We moved to Wigan in March.", 0),
    (["I've been at Arup for three years."], "I'm with Atkins now, started there in May.", 0),
    (["I drive a 2016 Renault Megane."],
     "The clutch went on the M6 so we ended up buying a used Kia Ceed.", 0),
    (["I use a Fairphone 4.", "My partner has an Oppo Find X."],
     "My partner smashed the Oppo. My partner has gone for a Sony Xperia instead.", 1),
    (["I take 20mg of omeprazole each morning."],
     "The GP doubled it at my review, it's 40mg daily from here on.", 0),
    (["I take 20mg of omeprazole each morning.", "My dad takes 10mg of amlodipine."],
     "I'm on 40mg now.", 0),
    # a bare name a held fact calls a school ("Ridgeway Primary"), of one who holds a school
    (["Finn is at Castle Hill Nursery.", "Isla is at Ridgeway Primary."],
     "Finn's moved up to Ridgeway with his sister now that he's four.", 0),
    (["My nephew Ollie goes to Wellsway School."], "Ollie got into the sixth form at Kingswood.",
     0),
    # the thing whose date moved is the verb's subject ("the big day", not "the venue"); the
    # hours one works, a range of the clock; a gym only gyms are called by, whatever the verb
    (["Our wedding is booked for 2 May at the golf club."],
     "The venue flooded so the big day has been pushed back to 11 July.", 0),
    (["Our wedding is booked for 14 June.", "My dentist appointment is on 3 May."],
     "The wedding has been moved to 9 August.", 0),
    (["I work 8 to 4:30, Monday to Friday, at the depot."], "My hours have changed to 6 till 2.",
     0),
    (["I work 9 to 5."], "I'm doing 10 till 6 now.", 0),
    (["I go to the Nuffield Health by the retail park before work."],
     "I'm a member at Virgin Active now, it's next to the station.", 0),
    # "Mum's been" is Mum; a car named as what ended, after the new one; "she" by the thing of
    # hers the sentence names; "she's gone into a care home"; a make whose models are unlisted
    (["My mum uses a Doro with the big buttons.", "My dad's got a Nokia."],
     "Mum's been upgraded to an Oppo - she's on WhatsApp now.", 0),
    (["My brother drives a Nissan Qashqai.", "My sister-in-law drives a Kia Rio."],
     "My brother's gone for a Skoda now the Qashqai's clutch has packed in.", 0),
    (["My grandma lives in Hove.", "My grandad's brother lives in Rye."],
     "She's gone into a care home in Lewes, nearer my aunt.", 0),
    (["My colleague Priyanka drives a Dacia Duster.", "My flatmate Tom drives a VW Golf."],
     "She's bought a BYD after the Dacia failed its MOT.", 0),
    # ", so <a fact of the speaker's>" is kept ("so the GP has bumped me up to 50mcg"); the one
    # weekly routine moved, named by no noun ("from next week I'm seeing her on Thursdays");
    # a birthday ordinal of the one holder named ("threw Rosie a party for her seventh")
    (["I take 25mcg of levothyroxine every morning."],
     "My bloods came back low, so the GP has bumped me up to 50mcg.", 0),
    (["My osteopath sessions are every Monday at 4."],
     "The practice changed its rota, so from next week I'm seeing her on Wednesdays.", 0),
    (["I see my counsellor every Wednesday afternoon."],
     "Our sessions are Friday mornings from next week.", 0),
    (["Our dog Biscuit is five.", "My niece Rosie is six."],
     "We threw Rosie a little party for her seventh birthday yesterday.", 1),
    (["Our dog Biscuit is five."], "We took Biscuit to the beach for his sixth birthday.", 0),
    # a job taken though an offer is named; training as a trade now; a trip's date by its verb
    (["My flatmate Zoe works at Pret.", "I work at Greggs."],
     "I've taken a job at Costa, they offered an extra pound an hour.", 1),
    (["I work as a sous chef at a pub in town."],
     "Left the pub in May and I'm training as an electrician with my cousin now.", 0),
    (["We're flying out to Corfu on the 3rd of July."],
     "The airline moved our flight, so we're heading out on the 9th instead.", 0),
    # a new sum as "it" after a price rise: the one held sum of that period, nothing else named
    (["Our broadband costs £27 a month with Vodafone."],
     "The price rise has kicked in, it's £31.50 a month from this bill onwards.", 0),
    (["Our broadband costs £27 a month with Vodafone."],
     "Vodafone put the price up, it's £30 a month now.", 0),
    # "'s" is "is" between a relation and the name closing the clause
    (["My partner is Callum."], "My partner's Idris now.", 0),
    (["My manager is Gareth."], "My manager's Funmi now, Gareth retired.", 0),
]

NEAR_MISSES = [  # (held, new): nothing replaced
    # whom one dealt with is not one's provider (a wrong supersede on main)
    (["I bank with HSBC."], "I complained to Monzo about my mate's account now."),
    (["I'm with Octopus for gas and electric."], "I rang British Gas about my mum's boiler now."),
    (["I drive a Vauxhall Astra."], "My brother part-exchanged his Astra for a Kia Picanto."),
    (["I start work at seven each morning."], "My sister starts work at ten now."),
    (["I start work at seven each morning."],
     "I started work at ten today because of the trains."),
    (["I start work at seven each morning."], "I work at Boots now."),
    (["I work at Boots."], "I start work at eight now."),
    (["My son Kit plays cricket for Ashby CC.", "My daughter Ivy plays for Eastway Colts."],
     "He played cricket for Markfield CC in a friendly on Sunday."),
    (["I've been doing intermittent fasting since March."],
     "My sister is on a paleo diet now, the other one got too boring."),
    (["I've been doing intermittent fasting since March."],
     "I might try a paleo diet, the other thing was too strict."),
    (["My counselling sessions are on Thursdays at four."], "My tutor comes on Fridays now."),
    (["My counselling sessions are on Thursdays at four."],
     "My sister's counsellor sees her on Fridays now."),
    (["We live at 12 Sorrel Way."],
     "My sister got the keys to her new place, 4 Elm Row, and it is lovely."),
    (["We live at 12 Sorrel Way."],
     "We viewed a place on Friday, 40 Alder Grove, and there are loads of boxes."),
    (["I weigh 80 kilos."], "My suitcase weighed 23 kg this morning."),
    (["I weigh 80 kilos."], "The baby weighed 4 kilos at the clinic today."),
    (["I weigh 80 kilos."], "I weighed 78 kilos yesterday, might be the scales though."),
    (["I'm currently 101 kilos and trying to get under 90."], "My brother weighs 96 kilos."),
    (["My GP is Dr Okafor."], "My mum's Dr Patel is lovely."),
    (["My GP is Dr Okafor."], "My sister's Dr Patel now."),
    (["I work at Sage."], "My sister has a new role at Ocado."),
    (["I work at Sage."], "I might take the role at Ocado."),
    (["I work at Sage."], "I've been offered a job at Ocado."),
    (["I work as a nurse."], "I started as a nurse in March."),
    (["My sister works as a chef."], "I'm a teaching assistant now, left the hotel in April."),
    (["I work as a chef."], "I'm a member now, left the old gym in April."),
    (["My locker 23 is 4423."], "My locker 5 is 4405 now."),
    (["I take 50mg of sertraline.", "I take 20mg of omeprazole."], "The doctor upped me to 75mg."),
    (["My dad takes 50mg of atenolol."], "They put me up to 75mg."),
    (["I take 50mg of sertraline."], "The doctor gave me 75mg of codeine for the pain."),
    (["I take 50mg of sertraline."], "They might put me up to 75mg next month."),
    (["I work four days a week."], "I've gone back up to five days a week since the gym reopened."),
    (["I work four days a week."], "My wife is back up to five days a week since the merger."),
    (["Our wedding is on 14 June."], "We pushed my sister's wedding to 6 September."),
    (["Our wedding is on 14 June."], "We're going to a wedding on 6 September."),
    (["I'm vegan."], "My sister eats fish, so pescatarian I suppose."),
    (["I'm vegan."], "My sister went pescatarian on her GP's advice."),
    (["I'm vegan."], "The restaurant was so vegan I loved it."),
    (["I drive a Vauxhall Corsa."], "My son picked up a second-hand Mazda 2 at the weekend."),
    (["I drive a Vauxhall Corsa."], "We picked up a second Mazda 2 for my wife."),
    (["I drive a Vauxhall Corsa."], "I hired a Mazda 2 at the weekend."),
    (["I take 10mg of amlodipine."], "She's moved my husband up to 15mg."),
    (["I cycle to work most days."], "Since the weekend I've been driving the kids to school."),
    (["I get the bus to work."], "Because of the strikes I drove in today."),
    (["I get the bus to work."], "My wife cycles in these days."),
    (["My gym is The Gym Group."], "My son goes to Better Leisure these days."),
    (["My gym is The Gym Group."], "I took the kids swimming at the leisure centre today."),
    (["My gym is The Gym Group."], "I've also joined the leisure centre for the pool."),
    (["I live at 14 Elm Road."], "New address for my mum: 3 Willow Close."),
    (["I live at 14 Elm Road."], "New neighbours moved in at 3 Willow Close."),
    (["I get the train to work."], "I drive in these days but I get the train when it snows."),
    (["I get the train to work."], "My wife cycles in these days, it's quicker than the train."),
    (["I live in Didsbury."], "My brother completed on the house in Stockport last week."),
    (["I live in Didsbury."], "We might complete on the house in Stockport next month."),
    (["I live in Didsbury."], "Our buyers completed on the house in Stockport."),
    (["My daughter Ava is 9."], "Ava's ten as of next week."),
    (["My daughter Ava is 9."], "Her friend's ten as of yesterday."),
    (["My dad is sixty-four."], "My uncle is sixty-five now."),
    (["I work as a nurse."], "My wife's a midwife now, same hospital."),
    (["I lived in Harrogate for a year after uni."], "We're in Lancaster these days."),
    (["I've been at Arup for three years."], "My brother is with Atkins now."),
    (["I drive a 2016 Renault Megane."], "My sister ended up buying a Kia Ceed."),
    (["I drive a 2016 Renault Megane."], "We nearly ended up buying a Kia Ceed but didn't."),
    (["I use a Fairphone 4."], "My partner has gone for a Sony Xperia."),
    (["I take 20mg of omeprazole each morning.", "I take 50mg of sertraline."],
     "I'm on 40mg now."),
    (["I take 20mg of omeprazole each morning."], "My dog is on 40mg now."),
    (["I take 20mg of omeprazole each morning."], "It's 40mg a tablet, the new box."),
    (["Finn is at Castle Hill Nursery.", "Isla is at Ridgeway Primary."],
     "We've moved to Ridgeway Road now."),
    (["Our wedding is booked for 14 June.", "My dentist appointment is on 3 May."],
     "The dentist has been moved to 9 May."),
    (["Our wedding is booked for 14 June."], "My sister's big day has been pushed back to 20 May."),
    (["I work 9 to 5:30."], "My husband's hours have changed to 7 till 3."),
    (["I work 9 to 5:30."], "The shop's hours are 10 to 4 on Sundays."),
    (["I work 9 to 5:30."], "I worked 7 till 3 yesterday to cover for Sam."),
    (["I work 9 to 5:30 Monday to Friday."], "I work 8 till 12 on Saturdays."),
    (["I work 9 to 5:30."], "The kids are at school 9 to 3 now."),
    (["I go to Virgin Active most mornings."], "My wife joined the Gym Group now."),
    (["I go to Virgin Active most mornings."], "I'm a member at Bannatyne's too now."),
    (["My colleague Priyanka drives a Dacia Duster.", "My flatmate Tom drives a VW Golf."],
     "She's bought a BYD after her Audi failed its MOT."),
    (["My grandma lives in Hove.", "My aunt lives in Rye."],
     "She's gone into a care home in Lewes."),
    (["My mum uses a Doro with the big buttons."], "Mum's friend has been upgraded to an Oppo."),
    (["I see my physio every Monday."], "I'm seeing her on Friday for a one-off extra session."),
    (["I see my physio every Monday."], "My sister's sessions are on Fridays from next week."),
    (["I see my physio every Monday."], "Might move our sessions to Fridays from next week."),
    (["I see my physio every Monday."], "My daughter is seeing her on Fridays from next week."),
    (["I see my physio every Monday.", "I do yoga every Tuesday."],
     "Our sessions are on Fridays from next week."),
    (["Our cat Pepper is three."], "We went to Pepper's vet for her fourth jab."),
    (["Our cat Pepper is three."], "We threw Molly a party for her fourth birthday."),
    (["I work at Greggs."], "I've been offered a job at Costa."),
    (["I work at Greggs."], "Costa offered me a job but I've turned it down."),
    (["We're flying out to Crete on the 14th of June."], "My parents are heading out on the 21st."),
    (["We're flying out to Crete on the 14th of June."], "Our dentist appointment is on the 21st."),
    (["I work as a pastry chef."], "My son is training as a plumber now."),
    (["Our broadband costs £29 a month with Plusnet.", "Our rent is £950 a month."],
     "The price rise has kicked in, it's £34.50 a month from this bill onwards."),
    (["Our broadband costs £29 a month with Plusnet."],
     "My sister's price went up, it's £34.50 a month now."),
    (["Our broadband costs £29 a month with Plusnet."],
     "The gym put its price up, it's £40 a month now."),
    (["My boss is Dave."], "My boss's car is a Tesla."),
    (["My boss is Dave."], "My brother's boss's Priya."),
]

SEEN = [  # the lead's s13 and s14 misses, tuned on
    (["My GP is Dr Okafor at the Elm Tree surgery."],
     "My GP's Dr Lindqvist now, the previous one retired.", 0),
    (["I work at Sage."], "Three weeks into the new role at Ocado Technology and honestly the "
     "canteen alone was worth the move.", 0),
    (["I work as a dental nurse at a practice in Harrogate."],
     "I'm a receptionist at a vet's now, left the dental place back in March.", 0),
    (["I take 50mg of levothyroxine every morning."],
     "Bloods came back low again so the doctor's bumped me up to 75mg.", 0),
    (["I work four days a week, Monday to Thursday."],
     "I've gone back up to five days a week since the restructure.", 0),
    (["Our wedding is on 14 June next year."],
     "We've had to push the wedding to 6 September because the venue double-booked us.", 0),
    (["I'm vegan and have been for about three years."],
     "I've started eating fish again on my GP's advice, so pescatarian I suppose.", 0),
    (["I drive a Vauxhall Corsa, a 2012 one with a dodgy clutch."],
     "The gearbox on my old banger finally gave up, so I picked up a second-hand Mazda 2 at "
     "the weekend.", 0),
    (["I get the 7:40 bus into work every morning."], "Since they scrapped the number 12 route "
     "I've been cycling in, takes about twenty-five minutes.", 0),
    (["I cycle to work most days, it's about twenty minutes along the towpath."], "Since the "
     "office relocated out to the business park I've had to start driving in every day.", 0),
    (["I go to the Anytime Fitness on Queen Street three times a week."],
     "I'm a member at the council leisure centre now, cheaper and a lot closer.", 0),
    (["My gym is The Gym Group on Broad Street."],
     "I go to Better Leisure these days, the one by the station.", 0),
    (["I take 50mg of sertraline each morning."], "Went back to the GP. She's bumped me up to "
     "100mg.", 0),
    (["I'm a secondary school maths teacher."], "I left teaching in the summer and I'm working "
     "as a data analyst for the council now.", 0),
]


def _replaced(held: list[str], new: str) -> list[str | None]:
    return [target for verdict, target in message_verdicts(new, held) if verdict == SUPERSEDES]


@pytest.mark.parametrize(("held", "new", "target"), CORRECTIONS + SEEN)
def test_a_new_value_read_by_its_shape_replaces_the_held_fact(
        held: list[str], new: str, target: int) -> None:
    assert _replaced(held, new) == [held[target]]


@pytest.mark.parametrize(("held", "new"), NEAR_MISSES)
def test_a_near_miss_replaces_nothing(held: list[str], new: str) -> None:
    assert _replaced(held, new) == []
