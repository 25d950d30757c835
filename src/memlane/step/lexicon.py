"""Field words for needs: what an intake form lists, by family.

`kinds` reads a need by its structure (a holder and a limit); a clause that says a condition,
a medication, an allergen, a diet, an aid, a fear, a care duty or a legal limit is a need by
what it names, whatever the verb around it ("I take lithium", "I'm on warfarin", "the lights
can bring on my seizures", "I get around with a cane these days"). The words are the common
ones a clinician's or a travel agent's intake form asks about; `kinds._holds` reads one only
with a holder (the speaker or one of theirs), in a clause said of the present.

Terms are regular-expression fragments, matched lower-case between word boundaries. A term
that is also an everyday word ("cane" sugar, "frame" of a picture, "pill" as a person) is
left out or written with the word that makes it a need ("mobility scooter", "zimmer frame").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib.resources import files


def data_rows(name: str) -> Iterator[list[str]]:
    """The rows of a word list packaged in memlane/data (`name`: "places.tsv"), each split at
    its tabs: blank lines and "#" comments skipped. Read by the modules that keep a list once
    (first names, job titles, pastimes, places)."""
    text = files("memlane").joinpath(f"data/{name}").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            yield line.split("\t")

__all__ = ["FAMILIES", "TERM", "as_household"]

_KIN = (r"(?:dad|mum|mom|mother|father|parents|nan|gran|grandma|grandpa|grandmother|"
        r"grandson|granddaughter|grandchild|niece|nephew|"
        r"grandfather|wife|husband|partner|son|daughter|brother|sister|kids?|children|baby|"
        r"twins|grandchildren|grandkids|\w+-in-law)\b")
CONDITIONS = (
    r"asthma\w*", r"eczema", r"psoriasis", r"diabet\w+", r"type\s+(?:1|2|one|two)",
    r"epilep\w+", r"seizures?", r"migraines?", r"arthritis", r"osteoarthritis",
    r"multiple\s+sclerosis", r"(?:have|has|got|with)\s+ms", r"parkinson'?s", r"crohn'?s",
    r"colitis", r"ibs", r"coeliac", r"celiac", r"lupus", r"fibromyalgia", r"long\s+covid",
    r"copd", r"emphysema", r"angina", r"heart\s+(?:murmur|failure|condition|problems?)",
    r"a-?fib", r"atrial\s+fibrillation", r"arrhythmia", r"hypertension",
    r"(?:high|low\s+)?blood\s+pressure", r"an(?:a)?emi[ac]", r"sickle\s+cell",
    r"ha?emophilia", r"(?:an\s+)?(?:under|over)active\s+thyroid", r"hypothyroid\w*",
    r"hyperthyroid\w*", r"kidney\s+(?:disease|failure|problems|stones)", r"dialysis",
    r"cancer", r"chemo(?:therapy)?", r"radiotherapy", r"dementia", r"alzheimer'?s",
    r"autis\w+", r"adhd", r"dyslexi\w+", r"dyspraxi\w+", r"tourette'?s", r"ocd",
    r"ptsd", r"bipolar", r"schizophreni\w+", r"eating\s+disorder", r"anorexi\w+",
    r"bulimi\w+", r"insomnia", r"sleep\s+apno?ea", r"narcolepsy", r"vertigo", r"tinnitus",
    r"hearing\s+loss", r"glaucoma", r"macular\s+degeneration", r"cataracts?",
    r"colou?r[- ]?blind\w*", r"cerebral\s+palsy", r"spina\s+bifida", r"muscular\s+dystrophy",
    r"down'?s?\s+syndrome", r"slipped\s+disc", r"sciatica", r"scoliosis", r"osteoporosis",
    r"gout", r"hernia", r"ulcers?", r"gall\s*stones", r"kidney\s+stones",
    r"endometriosis", r"pcos", r"menopaus\w+", r"hiv", r"hepatitis",
    r"cystic\s+fibrosis", r"hay\s*fever", r"raynaud'?s", r"ehlers-danlos", r"me/cfs",
    r"gastric\s+(?:band|bypass|sleeve)", r"stoma", r"colostomy", r"ileostomy",
    r"pacemaker", r"hip\s+replacement", r"knee\s+replacement", r"prosthe\w+",
    r"amputee", r"paralys\w+", r"paraplegic", r"quadriplegic", r"tetraplegic",
    r"incontinen\w+", r"overactive\s+bladder", r"(?:acid\s+)?reflux", r"heartburn", r"gerd",
    r"concussion", r"brain\s+injury", r"(?:a|his|her|my|their|the)\s+stroke(?!\s+of)",
    r"heart\s+attack", r"immunocompromised", r"immune\s+system", r"transplant",
    r"anaphyla\w+", r"hives", r"(?:panic|anxiety)\s+(?:attacks?|disorder)",
    r"social\s+anxiety", r"depression", r"sensory\s+(?:processing|overload|issues)",
    r"light\s+sensitivity", r"photosensitiv\w+", r"hypermobil\w+", r"chronic\s+\w+",
    r"back\s+pain", r"bad\s+back", r"seasick\w*", r"carsick\w*",
    r"(?:motion|travel|altitude|morning)\s+sickness", r"cholesterol", r"\w+\s+disease",
    r"\w+\s+disorder", r"\w+\s+syndrome", r"surgery", r"recovering\s+from",
    # injuries and passing conditions that rule things out while they last
    r"(?:sprained|twisted|broken|fractured|dislocated)\s+(?:ankle|wrist|knee|shoulder|arm|leg|"
    r"finger|thumb|toe|rib|elbow|collarbone)", r"torn\s+(?:ligament|cartilage|meniscus|acl|"
    r"hamstring|muscle|calf|rotator\s+cuff)", r"pulled\s+(?:muscle|hamstring|calf|groin)",
    r"trapped\s+nerve", r"whiplash", r"tennis\s+elbow", r"frozen\s+shoulder", r"shingles",
    r"carpal\s+tunnel", r"repetitive\s+strain", r"glandular\s+fever", r"chest\s+infection",
    r"stitches", r"c-section", r"(?:post-?natal|postpartum)\s+\w+", r"pre-?diabet\w+",
    r"(?:high|raised)\s+blood\s+sugar", r"dodgy\s+ticker", r"glue\s+ear", r"teething",
)
MEDICATIONS = (
    r"warfarin", r"lithium", r"insulin", r"metformin", r"methotrexate", r"predniso\w+",
    r"steroids", r"blood\s+thinners?", r"anticoagulants?", r"apixaban", r"rivaroxaban",
    r"clopidogrel", r"beta[- ]blockers?", r"\w+statins?", r"ssris?", r"maois?", r"\d+\s?mg",
    r"prescri\w+", r"sertraline", r"fluoxetine", r"citalopram", r"venlafaxine",
    r"antidepressants?", r"antipsychotics?", r"antibiotics", r"penicillin", r"amoxicillin",
    r"sulfa\s+drugs", r"codeine", r"morphine", r"opioids?", r"methadone", r"levothyroxine",
    r"immunosuppressants?", r"antihistamines?", r"epi-?pens?",
    r"adrenaline\s+(?:pen|shot|injector)s?", r"auto-?injectors?", r"inhalers?",
    r"nebuli[sz]er", r"hrt", r"anti-?seizure", r"anticonvulsants?", r"ritalin", r"adderall",
    r"medication", r"meds",
)
ALLERGENS = (
    r"allerg\w+(?!\s+to\s+(?:mondays|work|exercise|mornings|effort|housework|cleaning|"
    r"maths?|commitment|adulting))",
    r"intoleran\w+", r"(?:gluten|lactose)(?![- ]free)", r"latex", r"peanuts?",
    r"tree\s+nuts", r"shellfish", r"sesame", r"bee\s+stings?", r"wasp\s+stings?", r"pollen",
    r"dust\s+mites?", r"msg", r"sulphites?", r"sulfites?",
)
# A diet is said of someone ("I'm vegan", "we keep halal", "a vegan diet", "sober eleven
# months now"), not of a dish ("a dairy-free chocolate cake"): a diet word followed by another
# word is a dish's, but for a word that says how long or how strictly.
_OF_SOMEONE = (r"(?!\s+(?!(?:for|since|now|and|so|but|too|these|at|because|though|household|"
               r"home|family|diet(?!\s+\w)|thing|plan|regime|kick|options?\s+only|only|mostly|strictly|all|as|or|"
               r"nowadays|anymore|lately|which|who|to|by|with|from|in|on|myself|ourselves|"
               r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
               r"several|a\s+few|few|over|almost|nearly|about)\s+(?:days?|weeks?|months?|"
               r"years?))\b)[a-z])")
_DIETS = (
    r"vegan", r"vegetarian", r"pescatarian", r"halal", r"kosher", r"keto", r"low[- ]fodmap",
    r"fodmap", r"low[- ](?:sodium|salt|sugar|carb|fat|protein|potassium|iodine)",
    r"teetotal\w*", r"sober", r"jain", r"ramadan", r"fasting",
    r"(?:dairy|gluten|nut|egg|meat|sugar|lactose|wheat|alcohol|soy)[- ]free",
    r"plant[- ]based", r"veganuary", r"counting\s+carbs", r"carb\s+counting", r"calorie\s+counting",
    r"(?:no|without)\s+(?:pork|beef|alcohol)",
)
DIETS = tuple(f"(?:{d}){_OF_SOMEONE}" for d in _DIETS)
AIDS = (
    r"wheelchairs?", r"walking\s+(?:stick|frame|aid)", r"(?:using|uses|on|with)\s+a\s+frame",
    r"crutch(?:es)?", r"walkers?",
    r"zimmer(?:\s+frame)?", r"rollator", r"mobility(?:\s+(?:scooter|aid|issues|problems))?",
    r"power\s*chair", r"electric\s+wheelchair", r"guide\s+dog", r"assistance\s+dog",
    r"service\s+dog", r"hearing\s+aids?", r"cochlear\s+implants?",
    r"oxygen\s+(?:tank|cylinder|concentrator)", r"catheter", r"feeding\s+tube",
    r"(?:knee|back|leg|wrist|neck)\s+brace", r"(?:a|my|with\s+a)\s+cane", r"blue\s+badge",
    r"disabled\s+parking", r"registered\s+(?:blind|disabled)", r"partially\s+sighted",
    r"visually\s+impaired", r"deaf\w*", r"hard\s+of\s+hearing",
    r"blind(?!\s+(?:date|spot|eye|faith|tasting))", r"step[- ]free", r"ramps?",
    r"level\s+access", r"ground[- ]floor", r"lip[- ]?read\w*",
)
# A fear of something, not of what someone will say ("terrified of what my boss will say").
_OF_THING = (r"of(?!\s+(?:what|how|whether|the\s+thought|being\s+(?:late|wrong|judged)|"
             r"missing\s+out))")
FEARS = (
    r"\w*phobi\w+", r"claustrophob\w+", r"agoraphob\w+", r"freak(?:s|ed)?\s+me\s+out",
    r"(?:gives?|give)\s+me\s+(?:the\s+)?(?:creeps|heebie-jeebies|panic\s+attacks?)",
    r"(?:terrified|petrified|scared\s+(?:stiff\s+)?|afraid|frightened|fear)\s*" + _OF_THING,
    r"terrif(?:ies|y)\s+(?:me|us|(?:my|our)\s+\w+)", r"panic\s+(?:when|if|around|in|on)",
    r"pass(?:es)?\s+out", r"faint(?:s)?\s+at", r"go(?:es)?\s+to\s+pieces",
)
PREGNANCY = (
    r"pregnan\w+", r"expecting(?=\s*(?:[.,!;]|$)|\s+(?:a\s+baby|twins|our\s+\w+|in\s+"
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|the\s+(?:spring|summer|autumn|fall|winter))\b))",
    r"\w+\s+(?:weeks|months)\s+along", r"(?:first|second|third)\s+trimester",
    r"due\s+(?:date|in\s+\w+)", r"breastfeeding", r"nursing\s+(?:mum|mom|mother)",
    r"ivf", r"trying\s+(?:for\s+a\s+baby|to\s+conceive)",
)
CARE = (
    r"(?:full[- ]time\s+|unpaid\s+)?carer", r"caregiver",
    r"(?:care|caring)\s+for\s+my\s+" + _KIN, r"look(?:s|ing)?\s+after\s+my\s+" + _KIN,
    r"single\s+(?:parent|mum|mom|dad|father|mother)", r"school\s+(?:run|pick-?up|drop-?off)",
    r"childcare", r"nap\s*time", r"respite", r"care\s+home", r"shared\s+custody", r"custody",
    r"night\s+feeds?",
    # who has the children when ("with their dad Tuesdays", "only see the kids at weekends")
    r"with\s+their\s+(?:dad|mum|mom|father|mother)\s+(?:on\s+|every\s+(?:other\s+)?)?"
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|alternate|half\s+the\s+week)",
    r"(?:only|just)\s+(?:see|have|get)\s+(?:the|my|our)\s+(?:kids|children|son|daughter|boys|"
    r"girls)\s+(?:at|on|every)",
    r"(?:has|have|gets?|takes?)\s+(?:them|the\s+kids|our\s+kids)\s+every\s+other",
)
SCHEDULE = (
    r"(?:night|early|late|long|split|double|weekend|\d+-hour|twelve-hour)\s+shifts?",
    r"(?:my|our)\s+shifts", r"shift\s+work", r"on\s+call",
    r"(?:on|my|our|work|shift)\s+(?:the\s+)?rota",
    r"work\s+(?:nights|weekends|lates|earlies)", r"shabbat", r"sabbath",
)
LEGAL = (
    r"probation", r"parole", r"on\s+bail", r"bail\s+conditions", r"curfew", r"tagged",
    r"ankle\s+tag", r"restraining\s+order", r"court\s+order",
    r"licen[cs]e\s+(?:was\s+|got\s+|has\s+been\s+|'s\s+been\s+)?(?:suspended|revoked|taken)",
    r"(?:my|our|a|on\s+a\s+\w+)\s+visa(?!\s+(?:card|requirements?))", r"work\s+permit",
    r"residence\s+permit", r"asylum", r"(?:driving\s+)?ban(?:ned)?\s+from\s+driving",
    r"(?:lost|losing)\s+my\s+licen[cs]e", r"licen[cs]e\s+(?:suspended|revoked|taken)",
    r"(?:suspended|revoked)\s+licen[cs]e",
    r"passport(?:'s|\s+is|\s+has|\s+has\s+been)?\s+(?:expired|seized|held|out\s+of\s+date)",
    r"can't\s+leave\s+the\s+country", r"jury\s+(?:duty|service)",
)
SENSORY = (
    r"loud\s+(?:noise|noises|music|places|rooms|sounds)",
    r"(?:flashing|bright|strobe|fluorescent)\s+lights?", r"strobes?",
    r"ear\s+(?:defenders|plugs|protectors)", r"noise[- ]cancelling",
    r"strong\s+(?:smells|scents|perfume)", r"crowds",
)
MONEY = (
    r"paycheck", r"pay\s*cheque", r"payday", r"overdraft", r"overdrawn", r"in\s+debt",
    r"universal\s+credit", r"student\s+loan", r"rent\s+(?:ate|takes|eats)",
    r"(?:bucks|quid|dollars|pounds|euros)\s+to\s+last", r"to\s+last\s+(?:till|until|me)",
    r"zero[- ]hours?(?:\s+contract)?",
    r"scraping\s+by", r"making\s+ends\s+meet", r"(?:every|each)\s+(?:spare\s+)?penny",
    r"counting\s+(?:the\s+|every\s+)?pennies", r"penny[- ]pinching", r"pinching\s+pennies",
    r"tighten(?:ing)?\s+(?:our|my|the)\s+belts?", r"(?:on|living\s+on)\s+a\s+shoestring",
    r"living\s+(?:pay\s*cheque|paycheck)\s+to\s+(?:pay\s*cheque|paycheck)",
    r"budget\w*\s+(?:down\s+)?to\s+the\s+(?:last\s+)?(?:penny|pound|cent|dollar)",
    r"no[- ]spend\s+(?:month|week|year|january|challenge)", r"watching\s+the\s+pennies",
    r"payment\s+plan", r"repayments", r"paying\s+off\s+(?:the|a|my|our)\s+(?:\w+\s+)?"
    r"(?:loan|debt|car|card|overdraft|credit\s+card)",
)

FAMILIES: dict[str, tuple[str, ...]] = {
    "condition": CONDITIONS, "medication": MEDICATIONS, "allergen": ALLERGENS, "diet": DIETS,
    "aid": AIDS, "fear": FEARS, "pregnancy": PREGNANCY, "care": CARE, "schedule": SCHEDULE,
    "legal": LEGAL, "sensory": SENSORY, "money": MONEY,
}
"""The need families, each a tuple of term fragments (lower-case regular expressions)."""

TERM = re.compile(r"\b(?:" + "|".join(t for ts in FAMILIES.values() for t in ts) + r")\b")
"""Any term of any family, matched on lower-cased text."""


# How a household names its own without "my": "the other half", "hubby", "the missus", "OH",
# "the kids", "the physio", "since the op", "the school run". `kinds` reads a need by a holder
# ("my partner", "our kids"); these say the same holder in everyday words, so `as_household`
# writes them as those. "The other half of the pizza", "the kids in her class", "the doctor on
# the radio" and "the doctor's surgery" (a place) are not the household's.
_NOT_OURS = r"(?!\s+(?:of|in|at|from|next|down|across|on|who|that|upstairs|downstairs|outside)\b)"
_HOUSEHOLD = tuple((re.compile(p, re.I), said) for p, said in (
    (r"\b(?:(?:the|my|our)\s+)?(?:other|better)\s+half\b" + _NOT_OURS +
     r"|\b(?:(?:the|my|our)\s+)?(?-i:OH)\b|\b(?:the|my)\s+significant\s+other\b", "my partner"),
    (r"\b(?:(?:the|my)\s+)?hubby\b|\bthe\s+husband\b" + _NOT_OURS, "my husband"),
    (r"\b(?:(?:the|my)\s+)?(?:missus|missis|wifey)\b|\bthe\s+(?:wife|mrs)\b" + _NOT_OURS +
     r"|\bher\s+indoors\b", "my wife"),
    (r"\bthe\s+(kids|children|twins|baby|toddler|little\s+ones?|youngest|eldest|oldest|"
     r"grandkids|grandchildren|in-laws)\b" + _NOT_OURS, r"our \1"),
    (r"\bthe\s+(doctor|doc|gp|physio|physiotherapist|consultant|specialist|surgeon|midwife|"
     r"dietitian|dietician|nutritionist|[a-z]{3,}ologist)\b(?!'s)" + _NOT_OURS, r"my \1"),
    (r"\b(since|after|before|until|till)\s+the\s+(op|operation|surgery|accident|fall|stroke|"
     r"diagnosis|crash|injury|birth|c-section|transplant|heart\s+attack)\b" + _NOT_OURS,
     r"\1 my \2"),
    (r"\bthe\s+school\s+(run|bus)\b", r"our school \1"),
    (r"\bthe\s+(dog|cat|puppy|kitten|flat)\b(?!\s+white)" + _NOT_OURS, r"our \1"),
))


def as_household(sentence: str) -> str:
    """`sentence` with the household's everyday names for its own written as a holder:
    "The other half's been told ..." as "my partner's been told ...", "the kids" as "our
    kids", "since the op" as "since my op"."""
    for pattern, said in _HOUSEHOLD:
        sentence = pattern.sub(said, sentence)
    return sentence


NUMBER_WORDS = {w: n for n, w in enumerate("""zero one two three four five six seven eight nine
    ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen
    twenty""".split())}
"""Numbers in words, zero to ninety-nine ("forty-three", "forty three"), as a statement of an
age or a count spells them (`step/numbered.py`, `step/broad.py`)."""
_TENS = {w: 10 * n for n, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(),
                                          3)}
NUMBER_WORDS |= _TENS | {f"{t}{sep}{u}": n + NUMBER_WORDS[u]
                         for t, n in (("twenty", 20), *_TENS.items())
                         for u in "one two three four five six seven eight nine".split()
                         for sep in ("-", " ")}
NUMBER_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
"""`NUMBER_WORDS` as a regular-expression alternation, longest first ("forty-three" before
"forty")."""
BY_PERIOD = r"(?:a|an|per|each|every)\s+(?:week|fortnight|month|year)\b"
BARE_SUM = rf"\b[1-9]\d[\d,]*(?:\.\d+)?(?=\s+{BY_PERIOD})"
"""A sum with its currency left out, as people do in chat: a number of 10 or more paid by the
period ("we pay 1200 a month"); a count is smaller ("3 a week") or says its unit ("40 hours a
week"), also elsewhere in the text (`sums_bare`: "cut my hours, it's only 22 a week now")."""
_COUNTED = re.compile(r"\b(?:hours?|hrs|shifts?|days?|nights?|miles|km|times|sessions?|lessons?|"
                      r"classes|units|drinks|cigarettes|steps|visits|runs|trips|pages|books|"
                      r"kids|children|people|patients|clients|calls|deliveries|loads)\b", re.I)


def sums_bare(text: str) -> bool:
    """Whether a number paid by the period in `text` is a sum (`BARE_SUM`): no count's noun."""
    return _COUNTED.search(text) is None

EVENT_KINDS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "flight plane train ferry boat crossing sailing sail departure take-off takeoff boarding",
    "match game fixture kick-off kickoff",
    "appointment appt session slot booking reservation table check-up checkup consultation "
    "scan op operation surgery procedure treatment haircut",
    "class lesson session course workshop practice rehearsal",
    "meeting call review catch-up session",
    "delivery slot",
    "exam test",
    "interview",
    "shift",
))
"""Words for one kind of event, as `occasions.plain` reads them: a flight, a match, a booking,
a class, a meeting, ..."""
EVENT_WORDS = "|".join(sorted({re.escape(w) for g in EVENT_KINDS for w in g}, key=len,
                              reverse=True))
"""`EVENT_KINDS`' words as one alternation of a pattern."""
