"""One broad mechanism of the supersede rule (`step/supersede.py`): **values of one
single-valued family**.

A person normally has ONE current value of some things: how they get to work or school, where
the main food shop is done, their diet, their bank (current account), mobile network, energy
supplier, broadband provider, phone platform, work pattern (from home, in the office, hybrid),
shift, and the practice they use (a dentist, GP surgery, vets, pharmacy, gym or optician, by
the suffix of its name: "Bright Dental", "Oakwood Medical Centre", "Hillside Vets"). The
members of each family are small gazetteers below (regular-expression fragments, in the style
of `step/lexicon.py`); what is keyed is the VALUE, not the wording around it.

A statement replaces the one held fact of its holder that names another member of the same
family, when it is worded as a change (`step/cues.py`, "instead", "these days", "went over
to", "ditched") or names the attribute with a change ("switched dentists", "changed banks",
"a new GP"). Never when:
- it adds ("also", "as well", "a second account", "we top up at Aldi"), is once ("today",
  "this week"), may be ("thinking of switching to Octopus"), is conditional ("if it rains")
  or a question;
- another holder is said ("my sister banks with Monzo now"): the speaker's "we" and "I" are
  one holder, and "my dentist" / "our GP" is the speaker's practice;
- the new member is negated ("I'm not going vegan");
- the held member is named after the new one ("I drive in now but get the bus when it snows");
- two held facts of the holder are in the family: both are kept, the new one linked to the
  newest (`related`), never a guess.

Families a person may hold several of (sports, streaming services, languages, hobbies) are
left out on purpose. Pure: reads the claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import slots
from .broad import _OTHER
from .claim import Claim
from .cues import CUES
from .endings import _ADDITIVE, _ONE_OFF

Verdict = tuple[str, int, tuple[str, ...]]
"""("supersedes" or "related", the index of the held fact, why)."""


@dataclass(frozen=True)
class Family:
    """A family of values a person holds one of."""

    name: str
    members: tuple[tuple[str, str], ...]
    """(canonical member, regular-expression fragment), matched case-insensitively; a brand
    whose name is an everyday word is written case-sensitive ("(?-i:Three)")."""
    context: str = ""
    """A fragment the sentence must match for its members to count ("shop" for a supermarket:
    "I work at Tesco" is no food shop); empty: the members say it themselves."""
    noun: str = ""
    """The attribute's noun, named with a change ("switched dentists", "a new GP")."""
    suffix: str = ""
    """A practice named by its suffix ("... Dental"): the capitalised name before it is a member."""
    hints: str = ""
    """Words a held fact of the family is said with, searched for (`step/related.py`): "Our gas
    and electric is with British Gas" / "We're with Octopus now" share no word."""


def _brands(*names: str) -> tuple[tuple[str, str], ...]:
    """Members that are brand names, each written as said (case-sensitive)."""
    return tuple((n.lower().replace("'", ""), "(?-i:" + re.escape(n).replace(r"\ ", r"\s+") + ")")
                 for n in names)


_PART = "part of the week"
_TO = r"(?:the|a|by|on\s+the|get\w*\s+the|take\w*\s+the|took\s+the|catch\w*\s+the|caught\s+the)"
_ON = r"(?:i'm|i\s+am|we're|we\s+are|is|are|'s|be|been|being|gone|went|going|go|turned|" \
    r"became|become|now|fully|strictly|completely|totally|a|an)"

FAMILIES: tuple[Family, ...] = (
    Family(
        "commute", hints="work commute bus train cycle drive walk tube tram bike",
        members=(
            ("cycle", r"(?<!motor)(?:cycl(?:e|es|ed|ing)|bik(?:e|es|ing)|(?:push\s*)?bicycle)"),
            ("walk", r"walk(?:s|ed|ing)?(?!\s+(?:the|my|our|his|her|their)\b)|on\s+foot"),
            ("bus", rf"{_TO}\s+(?:school\s+)?bus(?:es)?|buses"),
            ("train", rf"{_TO}\s+trains?|trains"),
            ("tube", rf"{_TO}\s+(?:tube|underground|metro|subway)"),
            ("tram", rf"{_TO}\s+trams?"),
            ("ferry", rf"{_TO}\s+ferry"),
            ("drive", r"driv(?:e|es|ing)(?!\s+(?:a|an|the|my)\b)|drove(?!\s+(?:a|an|the|my)\b)|"
                      r"by\s+car"),
            ("scooter", r"(?:e-?)?scooter(?:s|ing)?"),
            ("motorbike", r"motor\s*bik(?:e|es|ing)|motorcycl\w+|moped"),
            ("lift share", r"lift[-\s]?shar\w*|car[-\s]?shar\w*|car\s*pool\w*|"
                           r"(?:get|got|getting)\s+a\s+lift"),
        ),
        context=r"\b(?:to|into|in\s+to|from)\s+(?:work|school|college|uni|the\s+office)\b|"
                r"\bcommut\w*|\bschool\s+bus|\binto\s+(?:town|the\s+city|(?-i:[A-Z])\w+)|"
                r"\b(?:ride|rides|riding|drive|driving|walk|walking|cycle|cycling)\s+in\b|\bin\s+(?:now|instead|these|most|every|each|daily)\b|"
                r"\bin\s*[.,!;]|\bin\s*$"),
    Family(
        "food shop", hints="shop shopping food groceries supermarket weekly",
        members=(
            *_brands("Sainsbury's", "Sainsburys", "Asda", "Morrisons", "Aldi", "Lidl", "Waitrose",
                     "Co-op", "Iceland", "M&S", "Marks and Spencer", "Ocado", "Walmart", "Kroger",
                     "Safeway", "Whole Foods", "Trader Joe's", "Costco", "Publix", "Albert Heijn",
                     "Carrefour", "Rewe", "Edeka", "Mercadona", "Spar", "Booths", "Farmfoods"),
            ("tesco", r"(?-i:Tesco)(?:'s)?(?!\s+(?:Mobile|Bank))"),
        ),
        context=r"\bshop(?:s|ping)?\b|\bgrocer\w*|\bfood\b|\bsupermarket|\bweekly\b",
        noun=r"supermarkets?"),
    Family(
        "diet", hints="vegetarian vegan pescatarian diet meat",
        members=(*(
            (name, rf"{_ON}\s+(?:a\s+)?(?:{rx})(?=\s*(?:[.,;!]|$|now\b|these\b|since\b|again\b|"
                   rf"for\b|from\b|diet\b|and\b|after\b|because\b|as\b|so\b|but\b|last\b|this\b|in\b|"
                   rf"at\b|when\b|recently\b|lately\b))")
            for name, rx in (("vegan", "vegan"), ("vegetarian", "vegetarian|veggie"),
                             ("pescatarian", "pesc[ae]tarian"), ("flexitarian", "flexitarian"),
                             ("keto", "keto|ketogenic"), ("paleo", "paleo"))),
            ("meat", r"(?:eat|eats|eating|ate)\s+meat(?!\s+(?:free|substitutes?))|"
                     r"meat[-\s]eaters?|omnivore"))),
    Family(
        "bank", hints="bank banking account",
        members=_brands(
            "Barclays", "Lloyds", "HSBC", "NatWest", "Santander", "Halifax", "Nationwide",
            "Monzo", "Starling", "Revolut", "TSB", "Metro Bank", "first direct", "First Direct",
            "Co-operative Bank", "Virgin Money", "Chase", "Bank of Scotland", "RBS",
            "Wells Fargo", "Bank of America", "Citibank", "Capital One", "Chime", "N26",
            "Triodos", "Danske Bank"),
        context=r"\bbank(?:s|ing|ed)?\b(?!\s+holiday)|\b(?:current\s+)?account\b",
        noun=r"banks?|current\s+accounts?|bank\s+accounts?"),
    Family(
        "mobile network", hints="phone mobile network contract sim",
        members=(
            *_brands("EE", "O2", "Vodafone", "Three", "giffgaff", "Giffgaff", "Tesco Mobile",
                     "Sky Mobile", "Voxi", "VOXI", "Lebara", "iD Mobile", "Smarty", "SMARTY",
                     "Lyca", "Lycamobile", "BT Mobile", "Verizon", "AT&T", "T-Mobile",
                     "Mint Mobile"),
        ),
        context=r"\bphone\w*|\bmobile\b|\bnetworks?\b|\bsim\b|\bcontract\b|\bsignal\b",
        noun=r"networks?|(?:mobile|phone)\s+(?:providers?|networks?|contracts?)"),
    Family(
        "energy supplier", hints="energy gas electric electricity supplier",
        members=_brands(
            "British Gas", "Octopus", "EDF", "E.ON", "E.ON Next", "OVO", "Ovo", "Scottish Power",
            "SSE", "Bulb", "Shell Energy", "Good Energy", "Ecotricity", "So Energy", "Outfox",
            "Utility Warehouse", "Con Edison", "Con Ed", "PG&E", "Duke Energy"),
        context=r"\benergy\b|\bgas\b|\belectric\w*|\bsupplier|\btariff|\bpower\b",
        noun=r"(?:energy\s+)?suppliers?|energy\s+(?:compan(?:y|ies)|providers?)"),
    Family(
        "broadband", hints="broadband internet wifi fibre",
        members=_brands(
            "BT", "Virgin Media", "Virgin", "Sky", "TalkTalk", "Plusnet", "Vodafone",
            "Hyperoptic", "Community Fibre", "Zen", "EE", "Comcast", "Xfinity", "Spectrum",
            "Verizon Fios", "Starlink"),
        context=r"\bbroadband\b|\binternet\b|\bwi-?fi\b|\bfib(?:re|er)\b|\brouter\b",
        noun=r"(?:broadband|internet)(?:\s+(?:providers?|compan(?:y|ies)))?"),
    Family(
        "phone", hints="phone iphone android mobile",
        members=(
            ("iphone", r"i-?phone"), ("android", r"android"),
            ("samsung", r"(?-i:Samsung|Galaxy)(?!\s+(?:TV|Tab|Watch|Buds|tablet|telly|fridge))"),
            ("pixel", r"(?-i:Pixel)"), ("oneplus", r"(?-i:OnePlus)"),
            ("motorola", r"(?-i:Motorola|Moto)"), ("xiaomi", r"(?-i:Xiaomi)"),
            ("nokia", r"(?-i:Nokia)"), ("huawei", r"(?-i:Huawei)"), ("oppo", r"(?-i:Oppo)"),
        ),
        context=r"\bphone\w*|\bmobile\b|\biphone\b|\bandroid\b|\bhandset\b",
        noun=r"(?:smart)?phones?|handsets?"),
    Family(
        "work pattern", hints="work home office remote hybrid",
        members=(
            ("hybrid", r"hybrid|(?:one|two|three|four|[1-4])\s+days?\s+(?:a\s+week\s+)?"
                       r"(?:in|at)\s+(?:the\s+)?office"),
            # a day's routine beside the pattern ("from home on Fridays"): not the pattern
            (_PART, r"(?:(?:work\w*|based)\s+)?(?:from\s+home|in\s+the\s+office|remote(?:ly)?)"
                    r"\s+(?:on\s+\w+days?|(?:one|two|three|four|[1-4])\s+days?|once|twice|"
                    r"some\s+days|part\s+of\s+the\s+week)"),
            ("home", r"(?:work\w*|based)\s+(?:from|at)\s+home|wfh|home[-\s]based|"
                     r"(?<!the\s)remote(?:ly)?(?!\s+control)"),
            ("office", r"(?:in|into|at|to)\s+the\s+office"
                       r"(?!\s+(?:on|one|two|three|once|twice)\b)|office[-\s]based|on[-\s]site"),
        ),
        context=r"\bwork\w*|\bjob\b|\boffice\b|\bremote\b|\bwfh\b"),
    Family(
        "shift", hints="shift shifts nights days earlies lates",
        members=(
            ("nights", r"night\s*shifts?|(?<=\bon\s)nights|(?:work\w*|doing)\s+nights"),
            ("days", r"day\s+shifts?|(?<=\bon\s)days(?!\s+(?:off|out|a\s+week))|(?:doing)\s+days"),
            ("earlies", r"earlies|early\s+shifts?"), ("lates", r"lates|late\s+shifts?"),
        )),
    Family(
        "hours", hints="hours full-time part-time",
        members=(("full-time", r"full[-\s]?time"
                               r"(?!\s+(?:job\s+)?(?:mum|mom|dad|parent|carer|student))"),
                 ("part-time", r"part[-\s]?time(?!\s+(?:job\s+)?(?:student|course))")),
        context=r"\bwork\w*|\bjob\b|\bhours\b|\bcontract\b|\bgone\s+back\b|\bgo\s+back\b|"
                r"\bback\s+to\b|\bdropped\b|\bcut\b"),
    Family(
        "dentist", hints="dentist dental",
        members=(), noun=r"dentists?|dental\s+practices?",
        suffix=r"Dental(?:\s+(?:Practice|Care|Clinic|Centre|Center|Surgery|Studio))?|Dentistry"
               r"|Dentists"),
    Family(
        "GP", hints="gp doctor surgery medical",
        members=(), noun=r"GPs?|doctors?|surger(?:y|ies)|practices?",
        suffix=r"Surgery|Medical\s+(?:Centre|Center|Practice|Group)|Health\s+Cent(?:re|er)"),
    Family(
        "vets", hints="vet vets",
        members=(), noun=r"vets?|veterinar\w+",
        suffix=r"Vets?|Veterinary(?:\s+(?:Practice|Centre|Clinic|Surgery|Hospital))?|"
               r"Animal\s+Hospital"),
    Family(
        "pharmacy", hints="prescription prescriptions pharmacy chemist",
        members=_brands("Boots", "Lloyds Pharmacy", "LloydsPharmacy", "Superdrug", "CVS",
                        "Walgreens", "Rite Aid"),
        context=r"\bprescriptions?\b|\bpharmac\w+|\bchemist|\bmeds\b|\bmedication",
        noun=r"pharmac(?:y|ies)|chemists?", suffix=r"Pharmacy|Chemists?"),
    Family(
        "gym", hints="gym member membership fitness",
        members=_brands("PureGym", "The Gym Group", "David Lloyd", "Virgin Active",
                        "Nuffield Health", "Planet Fitness", "Equinox", "Gold's Gym", "Crunch",
                        "Bannatyne", "Bannatynes", "Snap Fitness", "LA Fitness"),
        context=r"\bgym\b|\bmember(?:ship)?\b|\btrain(?:s|ing)?\s+at\b|\bwork\s*out\b|"
                r"\bclasses\b|\bfitness\b",
        noun=r"gyms?", suffix=r"Fitness|Gym"),
    Family(
        "optician", hints="optician opticians",
        members=_brands("Specsavers", "Vision Express"), noun=r"opticians?",
        suffix=r"Opticians?|Eyecare|Optometry"),
)
"""The families of values a person holds one current value of."""

_ANDROID = frozenset({"samsung", "pixel", "oneplus", "motorola", "xiaomi", "nokia", "huawei",
                      "oppo"})
_NAME = r"(?-i:[A-Z][\w'&+-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w'&+-]*)*)"
_TITLE = re.compile(r"(?-i:\b(?:Dr|Doctor|Mr|Mrs|Ms|Miss|Nurse|Prof)\.?\s*)$")
_TITLES = frozenset("dr doctor mr mrs ms miss nurse prof".split())
_PLAIN = frozenset("i i'm i've i'd we we're we've my our the a an it it's they".split())


def _compile(f: Family) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None,
                                  re.Pattern[str] | None]:
    members = re.compile("|".join(f"(?P<m{k}>\\b(?:{rx}))" for k, (_, rx) in
                                  enumerate(f.members)), re.I) if f.members else None
    suffix = re.compile(rf"(?-i:\b(?P<name>[A-Z][\w'&+.-]*(?:\s+[A-Z][\w'&+.-]*){{0,3}}))\s+"
                        rf"(?-i:(?:{f.suffix}))\b") if f.suffix else None
    noun = re.compile(rf"(?:\b{_RENAME}\s+(?:(?:my|our|the|a|an)\s+)?(?:{f.noun})\b"
                      rf"|\b(?:{f.noun})\s+(?:have|has)?\s*changed)", re.I) if f.noun else None
    return members, suffix, noun


_RENAME = r"(?:switched|switching|changed|changing|swapped|moved|moving|new|different|another)"
_COMPILED = {f.name: _compile(f) for f in FAMILIES}
_CONTEXT = {f.name: re.compile(f.context, re.I) for f in FAMILIES if f.context}

_MORE_CUES = re.compile(
    r"\b(?:instead|now|these\s+days|nowadays|since|switched|went\s+over\s+to|moved\s+over\s+to|"
    r"gone\s+over\s+to|ditched|dumped|registered\s+with|signed\s+up|joined|started|been\s+\w+ing|"
    r"changed|swapped|ported|(?:cancelled|left|quit)\b)", re.I)
_REFUSE = re.compile(
    r"\b(?:if|unless|whenever|when\s+it|yesterday|last\s+night|(?:this|last)\s+(?:week|weekend|"
    r"morning|time)|just\s+for|top(?:s|ped|ping)?\s+up|for\s+(?:bits|the\s+odd|a\s+treat)|"
    r"sometimes|occasionally|some\s+days|the\s+odd|now\s+and\s+then|once\s+in\s+a\s+while|"
    r"trial|trying\s+out|thinking|considering|tempted|wish|wondering|until|till|for\s+now|"
    r"for\s+the\s+time\s+being|temporarily|for\s+a\s+(?:bit|while|few\s+\w+))\b", re.I)
_NEGATED = re.compile(r"\b(?:not|n't|never|no\s+longer|no\s+more|stopped|gave\s+up|quit|"
                      r"cancelled|left|ditched|dumped|instead\s+of|rather\s+than)"
                      r"(?:\s+[\w'-]+){0,3}\s*$", re.I)


def members(text: str, family: Family, sentence: str = "", switched: bool = False,
            brands: bool = False) -> dict[str, int]:
    """The members of `family` that `text` names, each with where it first stands (none but a
    practice's name when the family's context is in neither `text` nor its `sentence`).
    `switched`: a brand said as switched to ("moved everything over to Monzo", "joined
    Virgin Active") counts without the context (not a shop's: it may be an employer).
    `brands`: every brand name (written as a brand is, "EDF", "Monzo") counts without it."""
    ctx = _CONTEXT.get(family.name)
    said = ctx is None or bool(ctx.search(text) or (sentence and ctx.search(sentence)))
    rx, suffix, _ = _COMPILED[family.name]
    out: dict[str, int] = {}
    if rx is not None:
        for m in rx.finditer(text):
            k = int(next(g for g, v in m.groupdict().items() if v is not None)[1:])
            if not said and not (switched and family.name not in _EMPLOYERS_TOO and
                                 _SWITCH_TO.search(text[:m.start()])) and \
                    not (brands and family.members[k][1].startswith("(?-i:")):
                continue
            out.setdefault(family.members[k][0], m.start())
    if suffix is not None:
        for m in suffix.finditer(text):
            name = " ".join(w for w in m.group("name").split() if w.lower() not in _PLAIN)
            if name and not _TITLE.search(text[:m.start()]):
                out.setdefault(name.lower(), m.start())
        _, _, noun = _COMPILED[family.name]
        if not out and noun is not None and re.search(rf"\b(?:{family.noun})\b", text, re.I):
            for m in re.finditer(rf"(?<=\s){_NAME}(?=[\s.,!;]|$)", text):
                name = m.group(0)
                if name.split()[0].lower() in _PLAIN | _TITLES or name in ("GP", "GPs", "I") or \
                        _TITLE.search(text[:m.start()]) or len(name) < 3 or \
                        slots._WEEKDAY.match(name) or slots._MONTH.match(name):
                    continue
                if not any(name.lower() in k or k in name.lower() for k in out):
                    out.setdefault(name.lower(), m.start())
    return out


_SWITCH_TO = re.compile(
    r"\b(?:(?:moved|switched|changed|swapped|ported|transferred|gone|went)\s+(?:[\w']+\s+){0,3}?"
    r"(?:over\s+)?(?:to|onto)|joined|signed\s+up\s+(?:with|at|to|for)|registered\s+(?:with|at))"
    r"\s+(?:the\s+)?$", re.I)
_EMPLOYERS_TOO = frozenset({"food shop", "pharmacy"})


def _named_change(family: Family, said: str) -> bool:
    """Whether `said` names the family's attribute with a change ("switched dentists", "a new
    GP", "changed banks")."""
    noun = _COMPILED[family.name][2]
    return noun is not None and noun.search(said) is not None


_BECOME_VERB = r"(?:gone|went|turned|become|became|becoming)"
_BECAME = re.compile(rf"\b{_BECOME_VERB}\s+(?:fully\s+|full\s+|completely\s+|totally\s+|"
                     r"properly\s+)?$", re.I)
"""What the holder became, said just before a member ("gone fully vegan")."""


_BOUNDED = re.compile(r"\bfor\s+(?:a|an|one|two|three|four|a\s+few|a\s+couple\s+of|\d+)\s+"
                      r"(?:days?|weeks?|months?|years?|while)\b|\bnever\s+again\b|\btried\b|"
                      r"\bused\s+to\b", re.I)
_BECOMING = re.compile(rf"{_BECOME_VERB}\s", re.I)
"""The same verb opening the member's own match (a diet's pattern takes "gone" in)."""


def _became(said: str, mine: dict[str, int]) -> bool:
    """Whether a member is said as what the holder became ("Hannah's gone vegan", "Dad went
    veggie", "turned pescatarian"): a change, whatever cue the sentence lacks."""
    if _BOUNDED.search(said):
        return False  # ("I went vegan for a week in January, never again": an episode)
    return any(_BECAME.search(said[:at]) or _BECOMING.match(said, at) for at in mine.values())


def _fresh(mine: dict[str, int], theirs: dict[str, int]) -> set[str]:
    """The members `mine` names that `theirs` does not (a phone's brand is no other platform
    than "Android"; a practice's name within the other's is the same practice)."""
    out = set()
    for m in mine:
        if m == _PART or m in theirs or \
                any(m in t or t in m for t in theirs if len(m) > 3 and len(t) > 3):
            continue
        if (m in _ANDROID and "android" in theirs) or (m == "android" and _ANDROID & set(theirs)):
            continue
        out.add(m)
    return out


def _brand_holder(who: str, said: str, family: Family) -> str:
    """The speaker for a holder that is a member the sentence names ("Octopus is our energy
    supplier": the parse's holder is "Octopus") or the verb it opens with."""
    if who.startswith("named ") and (any(who[6:] in m.split() for m in members(said, family))
                                     or who[6:] in family.hints.split()
                                     or (who[6:] in _OPENERS and
                                         said.lower().startswith(who[6:]))):
        return "i"  # (and "Switched networks to Voxi", "Energy's with E.ON now": not names)
    return who


_OPENERS = frozenset("""moved switched changed swapped ditched dropped ported joined started
    finally went gone got signed registered transferred cancelled""".split())


_NO_ONE = frozenset("it's that's there's here's what's let's who's".split())
_PRONOUNS = frozenset("he she he's she's his her".split())


def _holder_fits(holder: str, theirs: str, said: str, held_said: str, family: Family) -> bool:
    """The same holder, or the speaker for a held fact of the speaker's practitioner ("Our GP
    is at ..." / "We've registered with a new GP ..."), when the sentence names no other
    person than the held fact does ("my son's account" is not mine)."""
    prefix, _, who = holder.rpartition("|")
    their_prefix, _, them = theirs.rpartition("|")
    who, them = _brand_holder(who, said, family), _brand_holder(them, held_said, family)
    if prefix != their_prefix:
        return False
    others = {m.group(0).lower() for m in _OTHER.finditer(said)} - \
        {m.group(0).lower() for m in _OTHER.finditer(held_said)} - _NO_ONE
    mine = set(who.split()) | set(family.hints.split())  # ("Hannah's" of "girlfriend hannah")
    others = {o for o in others if not members(o, family, said) and
              not (who != "i" and o in _PRONOUNS) and  # ("Sainsbury's"; "she" of my daughter)
              not set(re.findall(r"[a-z]+", o.lower())) & mine}
    if any(re.search(rf"\b(?:{family.noun})$", o, re.I) for o in others if family.noun):
        others = set()  # ("my dentist" is the speaker's practice, not another person)
    if others:
        return False
    if who == them:
        return True
    practitioner = family.noun and (re.fullmatch(f"(?:{family.noun})", them, re.I) or
                                    re.fullmatch(f"(?:{family.noun})", who, re.I) or
                                    (them == "doctor" and family.name == "GP") or
                                    (who == "doctor" and family.name == "GP"))
    weak = {who, them} <= {"i", "?they", "?it", "?we"}
    return bool(practitioner and "i" in (who, them)) or (weak and "i" in (who, them))


def one_value(new: Claim, holder: str, claims: Sequence[Claim], vet: bool = False) -> \
        Verdict | None:
    """The one held fact of the holder that `new` names another member of its family in place
    of (see the module docstring); `related` to the newest when two or more held facts of the
    holder are in the family; None when nothing fits. `vet`: a record's text vetted alone
    (`supersede._vet_claim`), its sentence gone ("I'm with Nationwide now." of "I changed
    banks, ..."): the held fact's words may say the family ("My current account is with ...")."""
    said = new.context or new.said
    ctx = f"{said} {claims[0].said}" if vet and len(claims) == 1 else said
    if "?" in said or new.additive or _ADDITIVE.search(said) or slots.hypothetical(said) or \
            _ONE_OFF.search(said) or _REFUSE.search(said):
        return None
    cued = bool(CUES.search(new.said) or _MORE_CUES.search(new.said))
    for family in FAMILIES:
        mine = members(new.said, family, ctx, switched=True)
        if not mine or not (cued or _named_change(family, said) or _became(new.said, mine)):
            continue
        fits = [(i, theirs) for i, c in enumerate(claims)
                if c.said and c.said != new.said and not c.ends and
                _holder_fits(holder, c.holder, said, c.said, family) and
                not _another(new.said, c.said, family.name) and
                (theirs := members(c.said, family)) and
                c.said.rstrip(".!").lower() not in said.lower()]
        if not fits:
            continue
        i, theirs = fits[-1]
        fresh = _fresh(mine, theirs)
        if len(fresh) != 1 or not _placed(new.said, mine, fresh, theirs):
            continue
        if len(fits) > 1:
            return "related", i, (f"another {family.name} ({fresh.pop()}) given, but "
                                  f"{len(fits)} held facts of the holder are in the family: "
                                  "both kept, the new one marked newer",)
        return "supersedes", i, (
            f"same holder ({holder})", f"one {family.name} held ({', '.join(sorted(theirs))})",
            f"another {family.name} given ({fresh.pop()})",
            "worded as a change" if cued else "the attribute named with a change",
            "the only held fact of this holder in the family")
    return None


_DESTINATION = re.compile(r"\b(?:(work|job|office)|(school|college|uni|nursery))\b", re.I)
_ANOTHER = re.compile(r"\b(?:joint|savings?|isa|credit\s+cards?|mortgage|loan|pension|business|"
                      r"work\s+phone|second|spare|kids'?|children's|holiday|weekend|saturday|"
                      r"sunday)\b", re.I)


def _another(new: str, held: str, family: str) -> bool:
    """Whether `new` is about another thing of the family than `held`: another destination
    ("I walk the kids to school" / "I drive to work now"), another account or phone ("a joint
    account with Nationwide", "my work phone"), a time of its own ("at weekends"; a journey or
    a work pattern "on Fridays", not a practice "open on Saturdays")."""
    dest = [{"work" if m.group(1) else "school" for m in _DESTINATION.finditer(t)}
            for t in (new, held)]
    if dest[0] and dest[1] and not dest[0] & dest[1]:
        return True
    if family in ("commute", "work pattern") and "weekday" in slots.values(new) and \
            "weekday" not in slots.values(held):
        return True  # "I cycle in on Fridays now": a day's routine beside it
    extra = {m.group(0).lower() for m in _ANOTHER.finditer(new)} - \
        {m.group(0).lower() for m in _ANOTHER.finditer(held)}
    return bool(extra) or slots.another_of(new, held)


def _placed(text: str, mine: dict[str, int], fresh: set[str], theirs: dict[str, int]) -> bool:
    """Whether the new member stands as the value: not negated ("I'm not going vegan"), not
    what is replaced ("instead of the bus"), and after any held member the sentence names
    again ("The buses got so unreliable that I drive in now"; not "I drive in now but get the
    bus when it snows"), unless named after it as what is complained of ("..., the trains are
    a joke")."""
    new = next(iter(fresh))
    at = mine[new]
    if _NEGATED.search(text[:at]):
        return False
    again = [mine[m] for m in mine if m not in fresh]
    return all(a < at or _SAID_OF.match(text[a:]) for a in again) and bool(theirs)


_SAID_OF = re.compile(r"(?:the\s+)?[\w']+\s+(?:is|are|was|were|got|keep|kept|have\s+been|"
                      r"has\s+been)\b", re.I)


def denied(new: str, held: str) -> bool:
    """Whether each member of a family `new` names in place of the one `held` names is negated
    ("I'm not going vegan" / "I'm vegetarian"): no new value, whatever else reads one."""
    for family in FAMILIES:
        mine = members(new, family, new)
        fresh = _fresh(mine, members(held, family)) if mine else set()
        if fresh and all(_NEGATED.search(new[:mine[m]]) for m in fresh):
            return True
    return False


def search_words(clause: str, sentence: str = "") -> list[str]:
    """The words a held fact of each family `clause` names a member of (or names with a
    change: "switched dentists") is said with (`Family.hints`), searched for beside its own
    (`step/related.py`). A brand counts without its family's context here ("My money's all
    with Monzo these days" is searched with "bank"): only the rule decides, with it."""
    said = sentence or clause
    return [w for f in FAMILIES if members(clause, f, said, brands=True) or _named_change(f, said)
            for w in f.hints.split()]
