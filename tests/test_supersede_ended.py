"""The held value named as ended (`step/ended.py`): a statement that names the distinctive value
of one held fact (a person, a brand, a provider, a drug, a place, an activity, a position) with
an ending said of that value ("Owen and I split up", "Rolo died", "I cancelled Riverford",
"Omeprazole stopped helping", "Direct Line got too expensive") ends that fact, whoever holds it
and whatever attribute it is: the fact is superseded by the statement (which gives the
replacement, when the sentence names one). Near-misses it must refuse: the value named but not
ended, ended for someone else, a value two held facts share, a one-off, a question, a maybe, and
another holder's value. Pairs written for this rule, none copied from a held-out set."""

from __future__ import annotations

import pytest

from memlane.step.supersede import RELATED, SUPERSEDES, decide
from supersede_verdicts import message_verdicts

ENDED = [
    # (held facts, the new message, the held fact it must end)
    # a while said in another part of the sentence is not the ending's ("for a couple of months")
    (["My girlfriend Imogen works at a bakery in town."],
     "Imogen and I broke up in March; I've been seeing a lad called Kit for a few weeks.",
     "My girlfriend Imogen works at a bakery in town."),
    # a thing "gone" at a clause's end; a medicine someone "took me off"
    (["I ride a Raleigh Pioneer to work."],
     "The Raleigh's gone, someone nicked it, so I'm on a Brompton now.",
     "I ride a Raleigh Pioneer to work."),
    (["I use Duolingo for my French."], "Duolingo's gone for good, I use Babbel instead.",
     "I use Duolingo for my French."),
    (["I drive a Nissan Micra."], "The Micra's gone, I picked up a little Fabia from a neighbour.",
     "I drive a Nissan Micra."),
    (["I'm on sertraline for anxiety."],
     "The consultant took me off sertraline, I'm trying therapy instead.",
     "I'm on sertraline for anxiety."),
    (["My boyfriend is called Owen."],
     "Owen and I split up in March. I'm with a woman called Freya now.",
     "My boyfriend is called Owen."),
    (["Our cleaner is called Brenda."],
     "Brenda retired at Christmas, a lady called Iwona comes on Fridays now.",
     "Our cleaner is called Brenda."),
    (["My dog is called Rolo.", "My brother's dog is called Biscuit."],
     "Rolo died in October. We adopted a greyhound called Dash last month.",
     "My dog is called Rolo."),
    (["We get our veg box from Riverford."],
     "We cancelled Riverford, we get an Oddbox delivery now.",
     "We get our veg box from Riverford."),
    (["I'm with Three for my phone."],
     "Three kept dropping my calls so I moved over to Giffgaff.",
     "I'm with Three for my phone."),
    (["I take omeprazole for my reflux."],
     "Omeprazole stopped helping so the GP put me on lansoprazole.",
     "I take omeprazole for my reflux."),
    (["I do yoga on Monday evenings."],
     "I've given yoga up, I go swimming on Mondays instead.",
     "I do yoga on Monday evenings."),
    (["I play second row for the rugby club."],
     "I've moved out of the second row. I play flanker these days.",
     "I play second row for the rugby club."),
    (["My son's childminder is Tracy.", "My daughter's childminder is Paula."],
     "My son goes to a childminder called Debbie since Tracy retired.",
     "My son's childminder is Tracy."),
    (["I insure the car with Direct Line."],
     "The car's insured with LV now, Direct Line got too expensive.",
     "I insure the car with Direct Line."),
    (["My hairdresser is Chloe."],
     "Chloe quit hairdressing, so I go to a barber called Sami.",
     "My hairdresser is Chloe."),
    (["We go to St Mary's church on Sundays."],
     "St Mary's closed in the spring. We go to All Saints now.",
     "We go to St Mary's church on Sundays."),
    (["My mum's carer is called Denise.", "My dad's carer is called Rob."],
     "Mum has a new carer called Agnes since Denise left the agency.",
     "My mum's carer is called Denise."),
    (["My tortoise is called Shelby."],
     "Shelby passed away last week, she was 52.",
     "My tortoise is called Shelby."),
    (["I learn Spanish on Duolingo."],
     "I gave up on Duolingo, I have a tutor called Lucia now.",
     "I learn Spanish on Duolingo."),
    (["My brother's girlfriend is called Jess."],
     "My brother broke up with Jess over the summer.",
     "My brother's girlfriend is called Jess."),
    (["We rent a flat on Cavendish Road."],
     "We moved out of Cavendish Road in May, we're in a house in Hulme now.",
     "We rent a flat on Cavendish Road."),
    (["I swim at the Leisure Centre on Tuesdays."],
     "I no longer swim at the Leisure Centre, I go to the lido instead.",
     "I swim at the Leisure Centre on Tuesdays."),
    (["My accountant is Priya Desai."],
     "Priya Desai has retired, so my accountant is Tom Walsh.",
     "My accountant is Priya Desai."),
    (["Our window cleaner is Gary."],
     "Gary has called it a day, so a lad called Reece does the windows now.",
     "Our window cleaner is Gary."),
    (["Our cat sitter is called Megan."],
     "Megan handed in her notice, so Zoe looks after the cats now.",
     "Our cat sitter is called Megan."),
    (["We have a Henry hoover."], "The Henry died last week, we've bought a Shark.",
     "We have a Henry hoover."),
    (["I do Zumba on Thursdays."], "Zumba's been cancelled at our leisure centre.",
     "I do Zumba on Thursdays."),
    (["We shop at the Lidl on Mill Road."], "They closed the Lidl on Mill Road.",
     "We shop at the Lidl on Mill Road."),
    (["I use Trainline to book tickets."], "I stopped using Trainline, the fees got silly.",
     "I use Trainline to book tickets."),
    (["My boyfriend is called Owen."], "Owen dumped me for someone at work.",
     "My boyfriend is called Owen."),
    (["We drive a Vauxhall Zafira."],
     "We scrapped the Zafira and got a Kia Sportage.",
     "We drive a Vauxhall Zafira."),
]

SEEN = [
    # the lead's checks this rule was asked for (regressions; the pairs above came first)
    (["My girlfriend is called Hannah."],
     "Hannah and I broke up in the summer. I'm seeing a guy called Marcus now.",
     "My girlfriend is called Hannah."),
    (["Our vet is Greenacres in Hove."],
     "We've registered the dogs with Vets4Pets instead, Greenacres got too expensive.",
     "Our vet is Greenacres in Hove."),
    (["My GP is Dr Patel.", "My wife's GP is Dr Moore."],
     "My wife's been moved to Dr Evans since Dr Moore retired.", "My wife's GP is Dr Moore."),
    (["My sister's boyfriend is called Sam."], "My sister split up with Sam.",
     "My sister's boyfriend is called Sam."),
    (["My cat is called Smudge.", "My neighbour's cat is called Tiger."],
     "Smudge passed away in the spring. We've since got a kitten called Pip.",
     "My cat is called Smudge."),
    (["I do all my banking with Lloyds."],
     "I've moved everything over to First Direct, Lloyds kept closing branches.",
     "I do all my banking with Lloyds."),
    (["I take cetirizine for my hay fever."],
     "Cetirizine stopped working so the pharmacist put me on loratadine.",
     "I take cetirizine for my hay fever."),
    (["I play badminton on Wednesday nights."],
     "I've given badminton up and joined a climbing wall instead.",
     "I play badminton on Wednesday nights."),
    (["I play in goal for my Sunday league team."],
     "I've moved out of goal. I play centre back now.",
     "I play in goal for my Sunday league team."),
    (["My team lead is Gareth."],
     "Gareth got moved to another project, Sophie is my team lead now.",
     "My team lead is Gareth."),
    (["My cat is called Smudge.", "My neighbour's cat is called Tiger."],
     "My neighbour's cat Tiger passed away.", "My neighbour's cat is called Tiger."),
]

REFUSED = [
    # the value named, not ended
    (["My girlfriend Imogen works at a bakery in town."],
     "Imogen and I split up for a few weeks; we're back together now."),
    (["My girlfriend Imogen works at a bakery in town."],
     "Imogen and I broke up for a couple of weeks, but we're fine again."),
    (["My boyfriend is called Owen."], "Owen and I went to Lisbon for the weekend."),
    (["My hairdresser is Chloe."], "Chloe cut my hair really short this time."),
    # ended for someone else
    (["My boyfriend is called Owen."], "My friend Tom broke up with his boyfriend."),
    (["My dad takes statins."], "The doctor took me off ibuprofen."),
    (["We pay £900 a month rent."], "Landlord's fixing the boiler on Monday at last."),
    (["I ride a Raleigh Pioneer to work."], "The Raleigh has gone in for a service."),
    (["I ride a Raleigh Pioneer to work."], "The Raleigh's gone up in value, funnily enough."),
    (["My boyfriend is called Owen."], "Tom split up with Owen's sister."),
    (["I insure the car with Direct Line."],
     "Direct Line got too expensive for my brother, so he moved to LV."),
    (["My mum's carer is called Denise."], "Denise's husband retired last month."),
    (["My dog is called Rolo."], "Rolo's favourite squeaky toy finally died."),
    # a value held by two facts: never guess
    (["My sister's boyfriend is called Sam.", "My son's football coach is called Sam."],
     "Sam has retired."),
    # a one-off, for a while, long ago
    (["I do Zumba on Thursdays."], "Zumba's been cancelled this week."),
    (["We shop at the Lidl on Mill Road."], "They closed the Lidl car park for resurfacing."),
    (["I'm with Three for my phone."], "The Three app stopped working this morning."),
    (["We get our veg box from Riverford."], "Riverford cancelled this week's delivery."),
    (["My dentist is Dr Shah."], "Dr Shah left the practice for a month on maternity leave."),
    (["We shop at Aldi."], "Aldi closed early on Sunday."),
    (["I take cetirizine for my hay fever."],
     "Cetirizine stopped working for a week in June but it's fine again."),
    (["Our vet is Greenacres in Hove."], "I left Hove when I was 18."),
    # a person held as family ended by no death nor break-up, a value within a longer name
    (["My girlfriend is called Hannah."], "Hannah quit her job at the bank."),
    (["My husband is called Dev."], "Dev retired from the police last year."),
    (["My girlfriend is called Hannah."], "Hannah's dad passed away last month."),
    (["I bank with Lloyds."], "We cancelled the Lloyds credit card."),
    (["I bank with Lloyds."], "I sold some of my Lloyds shares."),
    (["My phone is a Pixel 7."], "I left my phone on the bus."),
    # a question, and a denial
    (["My hairdresser is Chloe."], "Chloe retired? No, she's just on holiday for a month."),
    # a maybe, a plan, a refusal
    (["I do yoga on Monday evenings."], "I might give up yoga if my knee gets worse."),
    (["My son's childminder is Tracy."], "Tracy is retiring next year, so we'll need someone."),
    (["I play squash on Thursdays."], "I'll never give up squash, it keeps me sane."),
    # another holder's value
    (["My dog is called Rolo."], "My neighbour's dog Biscuit died last week."),
    (["We drive a Vauxhall Zafira."], "My brother scrapped his Zafira."),
    (["My son plays football on Sundays."], "I gave up football years ago."),
    (["I play football on Sundays."], "My son gave up football."),
    # the lead's guards
    (["My girlfriend is called Hannah."], "Hannah and I went to Paris."),
    (["My girlfriend is called Hannah."], "Tom broke up with his girlfriend."),
    (["I do all my banking with Lloyds."], "The Lloyds app stopped working this morning."),
    (["My wife's GP is Dr Moore."], "Dr Moore retired? No, she's just on leave."),
    (["I play badminton on Wednesday nights."], "I might give up badminton."),
    (["My cat is called Smudge."], "My neighbour's cat Tiger passed away."),
]


@pytest.mark.parametrize(("held", "new", "ended"), ENDED + SEEN)
def test_the_held_value_named_as_ended_is_superseded(held: list[str], new: str,
                                                     ended: str) -> None:
    verdicts = message_verdicts(new, held)
    assert (SUPERSEDES, ended) in verdicts, verdicts
    assert all(t == ended for v, t in verdicts if v == SUPERSEDES), verdicts


@pytest.mark.parametrize(("held", "new"), REFUSED)
def test_a_value_not_ended_by_its_holder_is_kept(held: list[str], new: str) -> None:
    verdicts = message_verdicts(new, held)
    assert all(v != SUPERSEDES for v, _ in verdicts), verdicts


@pytest.mark.parametrize(("new", "held", "verdict"), [
    ("Brenda retired at Christmas.", "Our cleaner is called Brenda.", SUPERSEDES),
    ("My brother broke up with Jess.", "My brother's girlfriend is called Jess.", SUPERSEDES),
    ("Hannah retired from the bank.", "My girlfriend is called Hannah.", RELATED),
    ("My neighbour's cat Tiger passed away.", "My cat is called Smudge.", RELATED),
])
def test_a_replace_claimed_by_a_model_is_vetted_by_the_same_rule(new: str, held: str,
                                                                  verdict: str) -> None:
    """A model's "this replaces #N" (and the heuristic's own, vetted again in `step/apply.py`)
    stands when the statement names the held value as ended, though the holders read apart."""
    assert decide(new, [held], claimed=0).verdict == verdict
