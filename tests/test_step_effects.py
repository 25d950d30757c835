"""Needs and agreements read by what they do (`memlane.step.effects`), issue 42.

The writer's families name needs by topic and agreements by a settling word; said in passing,
a need is told by what it does to the holder's days and an agreement by the act that made it.
Each class is read in words no test template holds; ordinary talk with the same words is not.
"""

from __future__ import annotations

import json
from pathlib import Path

from memlane.step.heuristic import carry_holders
from memlane.step.kinds import kind_of
from memlane.step.sentences import split_sentences

DATA = Path(__file__).parent / "data"


def test_a_need_is_read_by_what_it_does_in_words_no_family_names() -> None:
    needs = ["Turns out I've got a stomach ulcer, so anything acidic sets it off.",
             "Cold weather brings it on, so winter walks are hard for me.",
             "My stomach goes haywire with anything creamy.",
             "My back won't take a long car journey these days.",
             "My husband has a heart condition, so he takes it slowly.",
             "I'm not allowed behind the wheel until the scan comes back.",
             "I'm stuck in a cast until the end of next month.",
             "With me between jobs, we're counting every penny.",
             "We're living off my wife's salary while I retrain.",
             "Someone has to sit with Dad after six since his carer leaves.",
             "My sister and my mum haven't spoken since the wedding.",
             "The consultant has put me on a low-iodine plan for the scan.",
             "I get really anxious in crowds, so big venues are hard.",
             "We can't do anything on Sunday mornings, that's church for us.",
             "I'm out the door by three every afternoon for the nursery pickup.",
             "Even a splash of cream does me in since the operation.",
             "These painkillers make me groggy, so I shouldn't be driving.",
             "We rely on the buses since the car went.",
             "Thirty pounds is my limit for the secret Santa.",
             "The flat has to stay cool for the baby."]
    assert [s for s in needs if kind_of(s) != "constraint"] == []


def test_an_agreement_is_read_by_the_act_that_made_it() -> None:
    agreements = ["The kids and I struck a deal: screens off at seven on school nights.",
                  "My partner and I shook hands on it, whoever cooks doesn't wash up.",
                  "The partners signed off on me leading the Oslo project from March.",
                  "The head green-lit the trip to the science museum.",
                  "Right, it's booked: the stag do is go-karting in Leeds.",
                  "I've signed up for the Manchester 10k in May.",
                  "We've paid the deposit on the venue for the christening.",
                  "We had a family chat and Christmas will be at ours this year.",
                  "The family voted and the new puppy is called Pickle.",
                  "Everyone's chipping in for Gran's new armchair.",
                  "We put our names down for the street party bake-off.",
                  "The school has approved our request for term-time leave.",
                  "The dates are settled: we fly out on the 3rd and back on the 17th.",
                  "Fine, Nando's it is for her birthday, I'll ring them tomorrow."]
    assert [s for s in agreements if kind_of(s) != "decision"] == []


def test_ordinary_talk_with_the_same_words_is_neither() -> None:
    ordinary = ["I'm not allowed to tell you what I got you for your birthday!",
                "The kids were stuck in traffic for an hour yesterday.",
                "Mum booked a haircut last Tuesday and loved it.",
                "I shook hands with the mayor at the opening.",
                "The deal on the TV was too good to pass up.",
                "We had a chat about the weather and the football.",
                "My friend's brother can't stand jazz.",
                "My colleague is on a low-carb diet and keeps talking about it.",
                "Since we last talked, work has been piling up and I've been stuck inside.",
                "It reminded me of when I couldn't walk my dogs because of a knee injury.",
                "I signed up for a newsletter about gardening years ago.",
                "Someone has to win the raffle, might as well be me."]
    assert [s for s in ordinary if kind_of(s) in ("constraint", "decision")] == []


def test_a_need_held_by_someone_named_set_by_others_hours_or_said_as_money_lost() -> None:
    needs = ["Baby Zara reacts really badly to cow's milk.",
             "Maisie came out in blotches after eating strawberries, so no more of those.",
             "Grandad Frank is on warfarin and mustn't have cranberry juice.",
             "Our flatmate works night shifts, so we keep it hushed until two.",
             "The family next door have twins now, so we tiptoe about in the evenings.",
             "My husband sleeps days on his rota, so the house stays quiet until three.",
             "The roof leak swallowed up all of our rainy-day fund.",
             "The divorce cleaned me out, honestly.",
             "Our savings are all gone after the flood."]
    assert [s for s in needs if kind_of(s) != "constraint"] == []


def test_named_people_shifts_and_money_in_ordinary_talk_are_neither() -> None:
    ordinary = ["Maisie came round for tea and we baked scones.",
                "Haha is that the one with the red door?",
                "Frank is the best darts player at the pub.",
                "My uncle works nights at the depot and likes the quiet.",
                "The band kept it low-key until the encore.",
                "The kids ate up all their dinner for once.",
                "The bank cleaned up its app at last."]
    assert [s for s in ordinary if kind_of(s) in ("constraint", "decision")] == []


def test_a_household_members_need_is_read_whatever_they_are_called() -> None:
    """A condition of anyone in the household, named by an everyday word ("the other half",
    "hubby", "the missus", "OH", "the little one"), by name ("Maya's migraines"), or as "his"
    after one of them; a limitation by its shape (had to give up, no longer able to, won't let
    me, out of the question), whatever it rules out; hours that are a rush; money budgeted to
    the penny (`lexicon.as_household`, `effects.LIMITATION`)."""
    needs = ["The missus has coeliac, so we do everything gluten-free now.",
             "My OH is diabetic and has to eat on time.",
             "Hubby's arthritis is bad in the cold.",
             "The kids both get eczema in the winter.",
             "The little one has a peanut allergy.",
             "Poor Jamie's asthma has been awful since the move.",
             "Maya's migraines are back, so screens are rationed.",
             "The other half's been signed off with a bad back.",
             "The wife's got sciatica again, she can't sit for long.",
             "The physio says no running until the tendon settles.",
             "My partner's been told his blood pressure is too high.",
             "I've had to give up cycling since the fall.",
             "Mum's had to stop driving because of her eyes.",
             "I can't kneel any more with these knees.",
             "Dad is no longer able to climb the ladder.",
             "The surgeon won't let me lift anything heavy for six weeks.",
             "Since the op, gardening is out of the question.",
             "Grandad's been banned from driving.",
             "I had to give up netball when my ankle went.",
             "The school run starts at half seven, so mornings are a mad dash.",
             "We're budgeting to the last penny until the bonus comes in.",
             "We're doing a no-spend month after Christmas."]
    assert [s for s in needs if kind_of(s) != "constraint"] == []


def test_a_stranger_a_past_illness_or_a_one_off_giving_up_is_neither() -> None:
    ordinary = ["A man at the bus stop told me about his diabetes.",
                "The kids in the next street have chickenpox.",
                "We gave up on the quiz halfway through.",
                "I had to give up my Saturday to help with the move.",
                "I had to stop at the garage for petrol.",
                "The other half of the cake is in the fridge.",
                "My partner's cold has cleared up completely.",
                "The doctor on the radio was talking about gout.",
                "I can't wait any longer for the sequel!",
                "You can't get those sweets any more.",
                "Mornings are lovely here in the summer.",
                "Toby's birthday is on Saturday.",
                "My friend's husband has had to give up work.",
                "Her indoors is a phrase my grandad used."]
    assert [s for s in ordinary if kind_of(s) in ("constraint", "decision")] == []


def test_a_failing_faculty_a_painful_act_or_a_household_short_of_someone_is_a_need() -> None:
    needs = ["Mum's memory is going, so she needs reminding about everything.",
             "My eyesight's gone downhill, so I need big print.",
             "My back's knackered from lifting at work.",
             "I've got a dodgy shoulder.",
             "I'm waiting on a hip op and walking is agony.",
             "My son's got glue ear so he struggles to hear in noisy places.",
             "The baby's teething so nights are rough.",
             "The GP's signed me off work for a fortnight.",
             "The other half's just had his gallbladder out.",
             "My husband's working away till March, so it's just me and the kids.",
             "The dog can't be left on his own for more than a few hours.",
             "The flat's on the fourth floor and there's no lift."]
    assert [s for s in needs if kind_of(s) != "constraint"] == []
    ordinary = ["The dog next door barks all night.",
                "My memory of that trip is a bit hazy.",
                "The lift in our building is being repaired.",
                "I struggle to see the point of reality TV.",
                "We've just had the kitchen replaced.",
                "My legs are going to be sore tomorrow after that hike.",
                "My mind has gone blank.",
                "We had a rough night at the pub quiz.",
                "I just had a tooth out and it's fine now.",
                "The flat white here is lovely."]
    assert [s for s in ordinary if kind_of(s) in ("constraint", "decision")] == []


def test_care_custody_waiting_lists_and_payments_are_needs() -> None:
    needs = ["The kids are with their dad Tuesdays and Thursdays.",
             "Since my divorce, I only see the kids at weekends.",
             "Our son is on the waiting list for an ADHD assessment.",
             "My mother-in-law lives with us and needs help getting dressed.",
             "The twins' nursery closes at six sharp.",
             "I'm on a payment plan for the car until next summer.",
             "My back went last week and I still can't bend."]
    assert [s for s in needs if kind_of(s) != "constraint"] == []
    ordinary = ["I still can't believe she said that.",
                "I still can't find my keys anywhere.",
                "The museum closes at six most days.",
                "The kids went to see their dad's band on Saturday.",
                "My friend needs help with her maths homework."]
    assert [s for s in ordinary if kind_of(s) in ("constraint", "decision")] == []


def test_an_agreement_paid_for_made_a_rule_booked_help_or_chosen_in_the_end() -> None:
    agreements = ["It's Cornwall for the summer holiday, we've paid for it.",
                  "The kids and I have a new rule: no phones at the table.",
                  "We've got the builders starting on the 12th.",
                  "In the end we booked the cottage in Whitby for half term.",
                  "We're sending Leo to the Catholic school after all."]
    assert [s for s in agreements if kind_of(s) != "decision"] == []
    ordinary = ["In the end we got soaked and went home.",
                "We paid for the drinks last night.",
                "There's a rule about parking on the verge here.",
                "I'm going to need some new shoes after all these games though.",
                "In the end I fell asleep on the sofa."]
    assert [s for s in ordinary if kind_of(s) in ("constraint", "decision")] == []


def test_a_rule_the_household_lives_under_is_a_need() -> None:
    needs = ["Our tenancy says no pets, so that's that.",
             "The landlord won't let us paint the walls.",
             "The school won't let the kids wear trainers, it's the uniform.",
             "Our car is off the road till the MOT gets sorted.",
             "My partner works from home and needs the spare room quiet nine to five.",
             "Since Dad's fall, he's using a frame to get around the house."]
    assert [s for s in needs if kind_of(s) != "constraint"] == []
    ordinary = ["The museum rules say no flash photography.",
                "The picture looks better with a frame.",
                "The teacher needs the classroom quiet during the test."]
    assert [s for s in ordinary if kind_of(s) in ("constraint", "decision")] == []


def test_probe_sets_nine_to_eleven() -> None:
    """tests/data/standing_kinds.jsonl set 9 (24 needs, 16 agreements, 20 ordinary), written
    before `effects` and measured once on main bfc6448 (the clean number: 13, 8, and 18 of 20
    ordinary as neither); sets 10 (20, 10, 10) and 11 (20, 10, 10), each written after the
    classes before it and measured once (10: 15, 4, 10 of 10; 11: 14, 7, 10 of 10; main the
    same); each then tuned on. The council's approval of a park in another town is read as an
    agreement (as main reads it); 'Cigarette smoke brings on an asthma attack' names no holder.
    Set 12 (12 needs held by someone named, set by someone else's hours, or said as money lost;
    8 ordinary), written before those classes: main 742a81b read 5 of 12, 8 of 8 as neither.
    Set 13 (16 needs of a household member named in everyday words, limitations by their
    shape, hours that are a rush; 10 ordinary), written before those classes: main b8549cb
    read 1 of 16, 10 of 10 as neither."""
    rows = [json.loads(x) for x in (DATA / "standing_kinds.jsonl").read_text().splitlines()
            if x.strip()]
    for n, needs, agreements, ordinary in ((9, 24, 16, 19), (10, 20, 10, 10), (11, 19, 10, 10),
                                           (12, 12, 0, 8), (13, 16, 0, 10)):
        said = [r for r in rows if r["set"] == n]
        for kind, least in (("constraint", needs), ("decision", agreements)):
            missed = [r["text"] for r in said if r["kind"] == kind and kind_of(r["text"]) != kind]
            assert sum(r["kind"] == kind for r in said) - len(missed) >= least, missed
        assert sum(kind_of(r["text"]) not in ("constraint", "decision")
                   for r in said if r["kind"] == "other") >= ordinary


def test_the_written_reference_sets_d_to_g() -> None:
    """tests/data/reference_written_d.jsonl to g.jsonl, said in passing in longer messages,
    measured before they were tuned on (d: 1 of 4 needs, 1 of 4 agreements; e: 8 of 12 and 4
    of 6; f: 5 of 8 and 4 of 4; g: 4 of 8 and 1 of 2): some sentence of each need is filed as
    a need, of each agreement as an agreement."""
    for name in ("d", "e", "f", "g"):
        rows = [json.loads(x) for x in (DATA / f"reference_written_{name}.jsonl")
                .read_text(encoding="utf-8").splitlines() if x.strip()]
        missed = [r["fact"] for r in rows if r["kind"] in ("constraint", "decision")
                  and r["kind"] not in {kind_of(s) for s in
                                        carry_holders(split_sentences(r["fact"]))}]
        assert missed == [], (name, missed)


def test_the_held_out_written_set_h_at_what_it_reached() -> None:
    """tests/data/reference_written_h.jsonl, written after the classes above and committed
    before it was measured once (27bc228): 6 of 8 needs and 1 of 2 agreements read; never
    tuned on, so its bar is that number."""
    rows = [json.loads(x) for x in (DATA / "reference_written_h.jsonl")
            .read_text(encoding="utf-8").splitlines() if x.strip()]
    for kind, least in (("constraint", 6), ("decision", 1)):
        read = [r for r in rows if r["kind"] == kind and kind in
                {kind_of(s) for s in carry_holders(split_sentences(r["fact"]))}]
        assert len(read) >= least, kind
