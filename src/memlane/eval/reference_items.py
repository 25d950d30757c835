"""The reference workload's templates: a fact, the later message that needs it, and its answer.

Four kinds (`REFERENCE_KINDS`), at least twelve templates each, worded differently so that no
phrasing is what a policy learns to find:

- `constraint`: a preference, need or limit the user states, needed later by a task that does
  not name it ("I'm allergic to shellfish" ... "Suggest a dinner I could cook tonight");
- `decision`: something agreed in the conversation, asked about by another name ("the offsite
  goes to Lisbon" ... "Which city are we taking everyone to for the retreat?");
- `reference`: a follow-up by reference: the user's last turn names the fact's subject in
  passing (`cue`), the question refers to it without naming it ("Who did I buy it from?");
- `update`: a value stated (`stale`, its value `stale_answer`), later a changed value of the same
  attribute (`fact`, `answer`); the question needs the newest.

In every template the question shares no content term (`reader.terms`) with the fact, nor with
the stale statement of an update; a cue shares one with the fact and none with the question.
`tests/test_eval_reference.py` checks all of it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ITEMS", "REFERENCE_KINDS", "RefItem"]

REFERENCE_KINDS = ("constraint", "decision", "reference", "update")


@dataclass(frozen=True)
class RefItem:
    """A template: the fact, the user's passing mention of its subject (follow-ups only), the
    later message, and the words that answer it."""

    kind: str
    fact: str
    """The user message that holds the answer (for `update`: the newest value)."""
    question: str
    answer: str
    """Words that answer the question; the reader's `answer_in` tests for them."""
    cue: str = ""
    """For `reference`: the user's last turn before the question, naming the fact's subject."""
    topic: tuple[str, ...] = ()
    """Words no filler message may contain (besides the fact's own content terms)."""
    stale: str = ""
    """For `update`: the earlier user message with the value that was then changed."""
    stale_answer: str = ""
    """For `update`: the words of the stale value (none of them in `answer`)."""


def _c(fact: str, question: str, answer: str, *topic: str) -> RefItem:
    return RefItem("constraint", fact, question, answer, topic=topic)


def _d(fact: str, question: str, answer: str, *topic: str) -> RefItem:
    return RefItem("decision", fact, question, answer, topic=topic)


def _r(fact: str, cue: str, question: str, answer: str, *topic: str) -> RefItem:
    return RefItem("reference", fact, question, answer, cue=cue, topic=topic)


def _u(stale: str, stale_answer: str, fact: str, answer: str, question: str,
       *topic: str) -> RefItem:
    return RefItem("update", fact, question, answer, topic=topic, stale=stale,
                   stale_answer=stale_answer)


CONSTRAINTS = (
    _c("I'm allergic to shellfish, so no prawns or crab for me ever.",
       "Suggest a dinner I could cook tonight.", "shellfish", "allergy"),
    _c("I'm vegetarian and have been for ten years.",
       "What should I order at the steakhouse on Friday?", "vegetarian", "meat", "vegan"),
    _c("I don't drive, so I get around by bus and train.",
       "Plan a day trip for me this Saturday.", "bus and train",
       "car", "driving", "licence", "license"),
    _c("Money is tight: fifty dollars at most on anything new this month.",
       "Recommend a good pair of headphones.", "fifty dollars", "budget", "cheap", "price"),
    _c("My daughter is two, so everything we do has to work with a toddler.",
       "Where should we go on holiday this summer?", "toddler", "kid", "kids", "child", "baby"),
    _c("No caffeine after noon for me, doctor's orders.",
       "What should I get at the café this afternoon?", "no caffeine",
       "coffee", "tea", "espresso"),
    _c("I'm training for a marathon in April, so early nights for me.",
       "Any ideas for a fun Friday evening?", "marathon", "run", "running", "race"),
    _c("I use a wheelchair, so step-free access matters everywhere I go.",
       "Which museum should I visit when I'm in Rome?", "step-free access",
       "stairs", "accessible"),
    _c("I'm lactose intolerant; dairy makes me really ill.",
       "Pick a dessert for me at the bakery.", "lactose", "milk", "cheese", "cream"),
    _c("Heights terrify me, I can't even stand on a balcony.",
       "Suggest an activity for my birthday weekend.", "heights", "climbing", "tall"),
    _c("I work night shifts, so I'm asleep from nine in the morning until four.",
       "When should we book the plumber to come round?", "night shifts", "sleep", "shift"),
    _c("I keep halal, so whatever I eat has to be halal.",
       "Recommend a restaurant for our team lunch.", "halal", "pork", "muslim"),
    _c("I get seasick, so boats are a no for me.",
       "What could we do on our holiday by the coast?", "seasick", "boat", "ferry", "cruise",
       "sailing"),
    _c("I'm severely allergic to peanuts and carry an EpiPen.",
       "Which snacks should I pack for the flight?", "peanuts", "nut", "nuts", "allergy"),
)

DECISIONS = (
    _d("Okay, settled: the team offsite goes to Lisbon in May.",
       "Which city are we taking everyone to for the retreat?", "Lisbon", "portugal"),
    _d("Final call: the kitchen gets painted sage green.",
       "Which shade should I buy at the hardware store?", "sage green",
       "paint", "colour", "color"),
    _d("Let's lock it in: the launch date is the third of March.",
       "When are we shipping the product?", "third of March", "release"),
    _d("Done deal: we're adopting the rescue greyhound called Pilot.",
       "What is the name of the animal coming home with us?", "greyhound Pilot",
       "dog", "dogs", "puppy"),
    _d("Agreed, the wedding will be in Marta's garden, forty guests.",
       "Where is the ceremony happening?", "Marta's garden", "venue", "marriage"),
    _d("We agreed the grant proposal goes to the Hollis Foundation first.",
       "Which funder are we applying to before anyone else?", "Hollis Foundation", "funding"),
    _d("Decision made: we'll name the podcast Second Breakfast.",
       "What title did we pick for the show?", "Second Breakfast", "episode"),
    _d("Okay, we go with Nordvik as the new accounting vendor.",
       "Which company will handle our bookkeeping?", "Nordvik", "accountant"),
    _d("Settled then: we split the rent sixty-forty.",
       "How are we dividing the monthly housing cost?", "sixty-forty", "landlord"),
    _d("Fine, the reunion dinner will be at Casa Bruma on the 12th.",
       "Where's the get-together with the old classmates?", "Casa Bruma", "restaurant"),
    _d("Let's commit: the app will be written in Kotlin.",
       "Which programming language are we building the mobile product with?", "Kotlin",
       "java", "code"),
    _d("We settled it: Jonah will host the holiday gathering this year.",
       "Whose house are we all going to in December?", "Jonah", "christmas"),
    _d("Alright, agreed: the fence goes up in cedar.",
       "What wood should the builder order for the yard?", "cedar", "timber"),
)

FOLLOW_UPS = (
    _r("I applied for a loan of forty thousand at Harbor Bank for the bakery.",
       "Still nervous about the loan, honestly.",
       "Any news on it? Remind me how much I asked for.", "forty thousand",
       "mortgage", "credit"),
    _r("My mother's surgery is booked at St. Luke's on the 14th.",
       "Mum's surgery is on my mind again.", "Which hospital was it again?", "St. Luke's",
       "operation", "doctor"),
    _r("I ordered a walnut desk from Oakline, it ships in three weeks.",
       "Still no sign of the desk.", "Who did I buy it from?", "Oakline",
       "furniture", "delivery"),
    _r("At Luigi's I always get the mushroom risotto with extra parmesan.",
       "Thinking of going to Luigi's tonight.", "Order my regular dish for me, what was it?",
       "mushroom risotto", "italian", "pasta"),
    _r("The landlord promised to fix the boiler by the end of the month.",
       "The boiler is making that noise again.", "When did they say it would be sorted?",
       "end of the month", "heating", "repair"),
    _r("My passport renewal went in on Monday; it takes six weeks.",
       "I keep checking the mail for the passport.", "How long did they tell me it would take?",
       "six weeks", "visa", "travel"),
    _r("My car is at Dalton's garage for a new clutch, they quoted 900.",
       "Still waiting to hear about the car.", "What did the mechanic say it would cost?",
       "900", "repair"),
    _r("I sent my novel manuscript to the agent Felicity Rowe last week.",
       "No reply about the manuscript yet.", "Who has it right now, remind me?",
       "Felicity Rowe", "book", "publisher"),
    _r("The vet said Biscuit needs his booster shot on the 22nd.",
       "Biscuit seems a bit off today.", "When is his next jab due?", "22nd",
       "vaccine", "dog"),
    _r("I lent my camping tent to my cousin Arjun for his festival.",
       "I might want the tent back soon.", "Who has it at the moment?", "Arjun", "camp"),
    _r("My job interview at Brightwell is on Thursday morning.",
       "Prepping for the interview tonight.", "Which day is it, remind me?", "Thursday",
       "job", "hiring"),
    _r("I put my tax refund, 2300 in total, into the savings account.",
       "Thinking about that refund again.", "How much did I get back?", "2300", "taxes"),
    _r("My brother's band plays The Velvet Room on Saturday.",
       "Excited for my brother's gig.", "Which venue is it at?", "Velvet Room",
       "concert", "music"),
)

UPDATES = (
    _u("My office moved to the fourth floor of the Kellner building.", "fourth",
       "They relocated my desk again, I'm up on the ninth floor now.", "ninth",
       "Which level should the courier bring the parcel to at work?"),
    _u("My sister's flight lands on Thursday evening.", "Thursday",
       "Her plane got rescheduled; she arrives Saturday morning instead.", "Saturday",
       "When do I need to be at the airport to pick up my sibling?"),
    _u("The book club meets at Dana's place this month.", "Dana",
       "Change of venue: the book club is at Priya's flat now.", "Priya",
       "Whose home am I going to for the reading group?"),
    _u("My new phone number ends in 4417.", "4417",
       "I had to switch carriers, so my number ends in 8302 now.", "8302",
       "Which digits should my colleague use to text me?"),
    _u("We booked the Harbourview Hotel for the conference trip.", "Harbourview",
       "We cancelled that and we're at the Alder Inn instead.", "Alder Inn",
       "Where are we sleeping when we go to the summit?"),
    _u("My gym membership is at FitZone on Elm Street.", "FitZone",
       "I quit that place and joined Ironworks across town.", "Ironworks",
       "Where do I work out these days?"),
    _u("Our rent is 1200 a month.", "1200",
       "The landlord raised it; we pay 1350 from now on.", "1350",
       "How much goes to the owner of our flat each period?"),
    _u("My daughter's piano lesson is on Wednesdays at four.", "Wednesdays",
       "Her teacher switched her slot to Mondays at five.", "Mondays",
       "Which afternoon does my kid have music class?"),
    _u("I'm driving a blue Corolla at the moment.", "Corolla",
       "Sold the old one; I've got a grey Civic now.", "Civic",
       "What vehicle should my friend look for when I pick her up?"),
    _u("The project deadline is the 20th of June.", "June",
       "Management pushed it back to the 8th of July.", "July",
       "By when does the team have to deliver?"),
    _u("My emergency contact is my brother Tomas.", "Tomas",
       "I changed that to my neighbour Ines.", "Ines",
       "Who would the hospital call if something happened to me?"),
    _u("We're having the party at the bowling alley.", "bowling",
       "Plans changed, the party moved to the rooftop bar on Vine.", "rooftop",
       "Where should guests show up for the celebration?"),
    _u("My favourite tea right now is jasmine green.", "jasmine",
       "I've gone off that one, it's all rooibos for me lately.", "rooibos",
       "Pick a drink to bring me from the shop."),
)

ITEMS: tuple[RefItem, ...] = (*CONSTRAINTS, *DECISIONS, *FOLLOW_UPS, *UPDATES)
"""The templates the generator draws from."""
