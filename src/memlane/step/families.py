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

The families themselves (which things, which members) are the lexicon of `step/categories.py`;
families a person may hold several of (sports, video streaming, languages, hobbies) are
left out of it on purpose. Pure: reads the claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import slots
from .broad import _OTHER
from .categories import _ANDROID, _PART, FAMILIES, OTHER_PRODUCTS, Family
from .claim import Claim
from .cues import CUES
from .endings import _ADDITIVE, _ONE_OFF, IF_SAID, STOLEN, THING_GONE
from .holders import RELATIONS

Verdict = tuple[str, int, tuple[str, ...]]
"""("supersedes" or "related", the index of the held fact, why)."""


_PRODUCT = re.compile(rf"(?:\s+[\w'-]+)?\s+(?:{OTHER_PRODUCTS})\b", re.I)
_ONE = re.compile(r"\s+ones?\b", re.I)
_PRODUCT_BEFORE = re.compile(rf"\b(?:{OTHER_PRODUCTS})\b", re.I)
_KIN = "|".join(sorted(RELATIONS, key=len, reverse=True))
_NAME = r"(?-i:[A-Z][\w'&+-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w'&+-]*)*)"
_TITLE = re.compile(r"(?-i:\b(?:Dr|Doctor|Mr|Mrs|Ms|Miss|Nurse|Prof)\.?\s*)$")
_TITLES = frozenset("dr doctor mr mrs ms miss nurse prof".split())
_PLAIN = frozenset("i i'm i've i'd we we're we've my our the a an it it's they".split())


def _compile(f: Family) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None,
                                  re.Pattern[str] | None]:
    lead = r"(?-i:(?=[A-Z0-9]))" if f.cased else ""
    members = re.compile(lead + "(?:" + "|".join(f"(?P<m{k}>\\b(?:{rx}))" for k, (_, rx) in
                                                 enumerate(f.members)) + ")", re.I) \
        if f.members else None
    suffix = re.compile(rf"(?-i:\b(?P<name>[A-Z][\w'&+.-]*(?:\s+[A-Z][\w'&+.-]*){{0,3}}))\s+"
                        rf"(?-i:(?:{f.suffix}))\b") if f.suffix else None
    noun = re.compile(rf"(?:\b{_RENAME}\s+(?:(?:my|our|the|a|an)\s+)?(?:{f.noun})\b"
                      rf"|\b(?:{f.noun})\s+(?:have|has)?\s*changed)", re.I) if f.noun else None
    return members, suffix, noun


_RENAME = r"(?:switched|switching|changed|changing|swapped|moved|moving|new|different|another)"
_COMPILED = {f.name: _compile(f) for f in FAMILIES}

_LITERAL = re.compile(r"\(\?-i:((?:[\w']|\\s\+|\\[^s]|\|)+)\)")
"""A member written as a brand is: a case-sensitive group of words and escaped marks, its
alternatives split by "|" ("(?-i:Ford\\s+Fiesta|Fiesta)")."""
_RUN = re.compile(r"[^\W_]+")


def _first_words(f: Family) -> tuple[frozenset[str], frozenset[str]] | None:
    """A word of each member as written, one of which a text must hold for any member of `f`
    to be named in it: a whole word before another ("M" of "M&S", "Bank" of "Bank of
    Ireland"), else how its last word opens (its first five letters: "Sains" of "Sainsbury's",
    "Roc" of "T-Roc"); None when a member is a pattern and not a brand's words. A family of
    long gazetteers is read only in a text that may name one of them (`_may_name`)."""
    whole: set[str] = set()
    opens: set[str] = set()
    for _, rx in f.members:
        m = _LITERAL.match(rx)
        if m is None:
            return None
        for alt in m.group(1).split("|"):
            *before, last = _RUN.findall(alt)
            word = max(before, key=len, default="")
            if len(word) >= len(last) or len(word) >= 3 > len(last):
                whole.add(word)
            else:
                opens.add(last[:5])
    return frozenset(whole), frozenset(opens)


def _may_name(text: str, family: Family) -> bool:
    """Whether `text` holds a word of a member of `family` (`_first_words`; always, for a
    family with a pattern among its members)."""
    words = _FIRST_WORDS[family.name]
    if words is None:
        return True
    said = _RUN.findall(text)
    return not words[0].isdisjoint(said) or \
        not words[1].isdisjoint({w[:n] for w in said for n in range(1, 6)})


_FIRST_WORDS = {f.name: _first_words(f) for f in FAMILIES}
_BY_WHOLE: dict[str, set[str]] = {}  # a member's whole first word -> the families it opens
_BY_OPENING: dict[str, set[str]] = {}  # how a member's last word opens -> the families
for _name, _words in _FIRST_WORDS.items():
    for _w in _words[0] if _words else ():
        _BY_WHOLE.setdefault(_w, set()).add(_name)
    for _w in _words[1] if _words else ():
        _BY_OPENING.setdefault(_w, set()).add(_name)


def brand_families(text: str, among: frozenset[str] | None = None) -> set[str]:
    """The names of the families (of `among`, if given) a member of which `text` names as a
    brand (`members(..., brands=True)`), looked up by the words `_may_name` reads (families
    whose members are patterns, not words, are never found here)."""
    said = _RUN.findall(text)
    maybe = set().union(*(_BY_WHOLE.get(w, ()) for w in said),
                        *(_BY_OPENING.get(w[:n], ()) for w in said for n in range(1, 6)))
    return {f.name for f in FAMILIES if f.name in maybe and (among is None or f.name in among)
            and members(text, f, text, brands=True)}
_CONTEXT = {f.name: re.compile(f.context, re.I) for f in FAMILIES if f.context}
_CARES = {f.name: re.compile(f.care, re.I) for f in FAMILIES if f.care}
_DOCTOR = re.compile(r"(?-i:\b(?:Dr|Doctor)\.?\s+([A-Z][\w'-]+))")

# Acquiring or taking up a thing ("grabbed a Pixel 8", "picked up a Yaris", "went with Three",
# "we're with Octopus"): of a family one holds ONE of, another member so acquired is a change.
# "I've got" is having, not getting: no change by itself (`_ACQUIRED`), though it still says
# which member is the holder's (`_SWITCH_TO`).
TRADED = (r"traded\s+(?:[\w']+\s+){0,3}?in\s+for|swapped\s+(?:[\w']+\s+){0,3}?for|"
          r"part[-\s]?ex(?:changed|ed|'d)?\s+(?:[\w']+\s+){0,3}?for")
"""A thing given up in part payment for the next ("traded the Corsa in for", "part-exchanged it
for"): read by `_ACQUIRE` and `people._GOT`."""
_ACQUIRE = (r"(?:(?<!'ve\s)(?<!have\s)(?<!has\s)got|grabbed|bought|picked\s+up|ordered|"
            r"ended\s+up\s+(?:with|buying|getting|going\s+for)|(?:gone|went|opted|settled)\s+for|"
            r"upgraded\s+to|treated\s+(?:myself|ourselves)\s+to|(?:went|gone|going)\s+with|"
            rf"{TRADED})")
_HAVE = r"(?:(?:i|we)(?:'ve|\s+have)\s+got|(?:i'm|i\s+am|we're|we\s+are)\s+with|use|uses|using)"
_ACQUIRED = re.compile(rf"\b{_ACQUIRE}\b", re.I)
_GOT_THING = re.compile(rf"\b{_ACQUIRE}\s+(?:(?:myself|ourselves)\s+)?(?:a|an|the|my|our)\s+"
                        r"(?:(?:new|second-hand|secondhand|used|refurbished|shiny|brand\s+new)\s+)?"
                        r"(?-i:[A-Z])", re.I)
"""A named thing got ("picked up a Toyota Yaris"), not bits got at a shop."""
_MORE_CUES = re.compile(
    r"\b(?:instead|now|these\s+days|nowadays|since|switched|went\s+over\s+to|moved\s+over\s+to|"
    r"gone\s+over\s+to|ditched|dumped|registered\s+with|signed\s+up|signed\s+for|joined|started|been\s+\w+ing|"
    r"changed|swapped|ported|remortgaged|refinanced|(?:cancelled|left|quit)\b)", re.I)
_FOR_ANOTHER = re.compile(
    rf"\b(?:for|to)\s+(?:my|our|his|her|their)\s+(?:little\s+|big\s+|old\s+)?(?:{_KIN})s?\b|"
    r"\bfor\s+(?:him|her|them)\b|\bas\s+an?\s+(?:gift|present)\b|\b(?:father|mother)['\u2019]?s\s+day\b|"
    r"\bfor\s+(?:his|her|their|(?-i:[A-Z])\w+['\u2019]s)\s+(?:birthday|christmas)\b|"
    r"\b(?:bought|got|grabbed|ordered)\s+(?:my|our|his|her)\s+"
    rf"(?:{_KIN})\b", re.I)
"""A thing got for someone else ("bought my dad a Garmin", "a Fitbit for my mum", "as a gift")."""
_REFUSE = re.compile(
    rf"\b(?:{IF_SAID}|unless|whenever|when\s+it|yesterday|last\s+night|(?:this|last)\s+(?:week|weekend|"
    r"morning|time)|just\s+for|top(?:s|ped|ping)?\s+up|for\s+(?:bits|the\s+odd|a\s+treat)|"
    r"sometimes|occasionally|some\s+days|the\s+odd|now\s+and\s+then|once\s+in\s+a\s+while|"
    r"trial|trying\s+out|thinking|considering|tempted|wish|wondering|"
    r"(?:nearly|almost)\s+(?:\w+\s+)?(?:ended|bought|got|went|gone|signed|switched|moved)|"
    r"but\s+(?:then\s+)?(?:i|we|he|she|they)?\s*did(?:n't|\s+not)|"
    r"back\s+when|back\s+(?:in|at)\s+(?:uni|college|school|the\s+day|\d{4}|my\s+\w+\s+days))\b",
    re.I)
_FOR_NOW = re.compile(r"\b(?:until|till|for\s+now|for\s+the\s+time\s+being|temporarily|"
                      r"for\s+a\s+(?:bit|while|few\s+\w+))\b", re.I)
"""For now: no change of what one does ("getting the bus in until I get a new bike")..."""
_LOST = re.compile(rf"\b(?:{THING_GONE}|{STOLEN}|stolen|lost|dropped|smashed|cracked|broke|broken|"
                   r"bust|died|packed\s+in|written\s+off|wrote\s+off|totalled|drowned)\b", re.I)
_MENDED = re.compile(r"\b(?:being|getting|get|gets)\s+(?:fixed|repaired|mended|sorted)|"
                     r"\bin\s+for\s+"
                     r"(?:repair|a\s+repair)|\b(?:until|till)\s+(?:it|mine|the\s+[\w-]+)"
                     r"(?:['\u2019]s|\s+is|\s+gets|\s+comes)\s+(?:fixed|repaired|mended|sorted|back)",
                     re.I)
_OBJECTS = frozenset({"phone", "car", "laptop", "watch"})
"""...but of a thing one has, lost or broken (`endings.THING_GONE` and `STOLEN`, the one
vocabulary of a thing gone, and a loss by accident), the stand-in is the one in hand: "Dropped
the OnePlus in the canal, so I'm using a Xiaomi until the contract's up" (a family of
`_OBJECTS`), unless it is being mended ("Smashed my screen, so I'm on an old Nokia till it's
fixed")."""


_NEGATED = re.compile(r"\b(?:not|n't|never|no\s+longer|no\s+more|stopped|gave\s+up|quit|"
                      r"cancelled|left|ditched|dumped|instead\s+of|rather\s+than)"
                      r"(?:\s+[\w'-]+){0,3}\s*$", re.I)


def _another_one(text: str, m: re.Match[str], sentence: str) -> bool:
    """Whether the brand `m` of `text` is followed by "one" that stands for another product
    named before it in the sentence ("My Lenovo monitor packed up, so I ordered a Dell one")."""
    said = sentence or text
    return bool(_ONE.match(text, m.end()) and
                _PRODUCT_BEFORE.search(said[:max(0, said.find(m.group(0)))]))


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
    # (no member counts without the context unless switched to or a brand: none is looked for)
    if rx is not None and (said or brands or (switched and family.name not in _EMPLOYERS_TOO)) \
            and _may_name(text, family):
        for m in rx.finditer(text):
            if _PRODUCT.match(text, m.end()) or _another_one(text, m, sentence):
                continue  # "a Dell monitor", "my monitor packed up, so I ordered a Dell one"
            k = int(next(g for g, v in m.groupdict().items() if v is not None)[1:])
            if not said and not (switched and family.name not in _EMPLOYERS_TOO and
                                 _SWITCH_TO.search(text[max(0, m.start() - 80):m.start()]) and
                                 not _claimed(text, sentence, family, m.start())) and \
                    not (brands and family.members[k][1].startswith("(?-i:")):
                continue
            out.setdefault(family.members[k][0], m.start())
    if family.care and _CARES.get(family.name) and [f.name for f in FAMILIES if f.care and
                                                    _CARES[f.name].search(sentence or text)] \
            == [family.name]:
        for m in _DOCTOR.finditer(text):  # ("I see Dr Lindqvist for my teeth nowadays")
            out.setdefault("dr " + m.group(1).lower(), m.start())
    if suffix is not None and said:
        for m in suffix.finditer(text):
            name = " ".join(w for w in m.group("name").split() if w.lower() not in _PLAIN)
            if name and not _TITLE.search(text[:m.start()]) and \
                    not any(name.lower() in k.split() for k in out):  # ("Snap Fitness")
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
    r"(?:over\s+)?(?:to|onto)|joined|signed\s+up\s+(?:with|at|to|for)|registered\s+(?:with|at)"
    rf"|{_ACQUIRE}|{_HAVE})"
    r"\s+(?:(?:myself|ourselves)\s+)?(?:(?:the|a|an|my|our)\s+)?"
    r"(?:(?:new|old|second-hand|secondhand|used|refurbished|shiny|cheap|little|brand\s+new|"
    r"\d{2,4})\s+)*$", re.I)
def _claimed(text: str, sentence: str, family: Family, at: int) -> bool:
    """Whether a member switched to at `at` is another family's, said with that family's
    context: "I moved my current account over to Halifax" is a bank's, not a mortgage lender's;
    "I switched my phone network to Virgin" is no broadband; "We've got Sky for the TV" is TV."""
    for other in FAMILIES:
        ctx = _CONTEXT.get(other.name)
        if other is family or ctx is None or not (ctx.search(text) or ctx.search(sentence)):
            continue
        rx, _, _ = _COMPILED[other.name]
        if (rx is not None and rx.match(text, at)) or \
                (other.noun and re.search(rf"\b(?:{other.noun})\b", text, re.I)):
            return True
    return False


_EMPLOYERS_TOO = frozenset({"food shop", "pharmacy", "football club"})
"""Families a member said as switched to does not count for without their context: a shop or
a pharmacy may be an employer, a club's name a town ("we moved to Leeds")."""
_SECOND_HAND = re.compile(r"\bsecond[-\s]?hand\b", re.I)
_WHEN_GOT = re.compile(r"\b(?:yesterday|today|(?:this|last)\s+(?:week|weekend|month|morning))\b",
                       re.I)
"""When a thing was got: not a one-off use of it."""
_SWITCHED_TO = re.compile(r"\b(?:switched|changed|swapped|moved|went|gone)\s+(?:over\s+)?to\s+"
                          r"(?:a|an|the)?\s*(?-i:[A-Z]|i[A-Z])", re.I)
_WHEN_SWITCHED = re.compile(r"\b(?:last\s+(?:week|weekend|month)|a\s+(?:week|month|few\s+"
                            r"(?:weeks|months))\s+ago)\b", re.I)
"""When a switch to a named thing was made ("switched to an iPhone last week"): it holds now."""


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


_ADVICE = re.compile(r"\b(?:on|at|by)\s+(?:my|our|the)\s+[\w-]+['\u2019]s\s+(?:advice|"
                     r"recommendation|suggestion|orders|insistence|request)\b", re.I)


_TOLD = re.compile(r"\b(?:(?:don['\u2019]?t|do\s+not|never)\s+)?(?:tell|telling|let)\s+"
                   r"(?:my|our)\s+(?:[\w'-]+\s+)?[\w'-]+(?:\s+know)?\b(?=\s*(?:[,.;!]|$))", re.I)
"""Someone said as told of it, closing a clause ("..., don't tell my dad"): not its holder."""


def _holder_fits(holder: str, theirs: str, said: str, held_said: str, family: Family) -> bool:
    """The same holder, or the speaker for a held fact of the speaker's practitioner ("Our GP
    is at ..." / "We've registered with a new GP ..."), when the sentence names no other
    person than the held fact does ("my son's account" is not mine)."""
    prefix, _, who = holder.rpartition("|")
    their_prefix, _, them = theirs.rpartition("|")
    who, them = _brand_holder(who, said, family), _brand_holder(them, held_said, family)
    if prefix != their_prefix:
        return False
    said = _ADVICE.sub(" ", said)  # ("on my GP's advice": whose advice, not whose diet)
    said = _TOLD.sub(" ", said)  # ("don't tell my dad": who is told, not whose club)
    theirs_too = {m.group(0).lower() for m in _OTHER.finditer(held_said)} | _NO_ONE
    held_words = {w.lower() for w in re.findall(r"[\w-]+", held_said)}  # ("the Yeti's gearbox")
    others = {m.group(0) for m in _OTHER.finditer(said) if m.group(0).lower() not in theirs_too
              and re.sub(r"['\u2019]s$", "", m.group(0)).lower() not in held_words}
    mine = set(who.split()) | set(family.hints.split())  # ("Hannah's" of "girlfriend hannah")
    others = {o for o in others if not members(o, family, said) and
              not (who != "i" and o.lower() in _PRONOUNS) and  # ("Sainsbury's"; "she": my girl)
              not {RELATIONS.get(w, w) for w in re.findall(r"[a-z]+", o.lower())} & mine}
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
    plain = _SECOND_HAND.sub("used", said)  # ("a second-hand Yaris" adds no second car)
    if _GOT_THING.search(said):  # (when a thing was got: "picked up a Yaris last weekend")
        plain = _WHEN_GOT.sub("", plain)
    elif _SWITCHED_TO.search(said):
        plain = _WHEN_SWITCHED.sub("", plain)
    if "?" in said or (new.additive and plain == said) or _ADDITIVE.search(plain) or \
            slots.hypothetical(new.said) or _CONDITION.search(said) or _ONE_OFF.search(plain) or \
            _REFUSE.search(plain) or _FOR_ANOTHER.search(said):
        return None
    cued = bool(new.cue or CUES.search(new.said) or _MORE_CUES.search(new.said) or
                _ACQUIRED.search(new.said))
    for_now = bool(_FOR_NOW.search(plain))
    lost = bool(_LOST.search(said)) and not _MENDED.search(said)  # (not while it is mended)
    for family in FAMILIES:
        # (a record vetted alone has lost its sentence, and the loss with it: "for now" of a
        # thing in hand is no certain difference)
        stand_in = (lost or (vet and for_now)) and family.name in _OBJECTS
        if for_now and not stand_in:
            continue
        cued = cued or stand_in
        mine = members(new.said, family, ctx, switched=True)
        if not mine and lost:  # the kind read from the holder's own thing that ended ("Mine
            # got written off, so I'm in a Seat Ibiza now" / "My car's a Peugeot 208")
            mine = members(new.said, family, " ".join([said] + [c.said for c in claims
                                                                if c.holder == holder]),
                           switched=True)
        own = not mine and bool(mine := _own(new.said, family, said))
        if not mine or not (cued or _named_change(family, said) or _became(new.said, mine)):
            continue
        fits = [(i, theirs) for i, c in enumerate(claims)
                if c.said and c.said != new.said and not c.ends and not _LOST.search(c.said) and
                (not own or _CONTEXT[family.name].search(c.said)) and
                _holder_fits(holder, c.holder, said, c.said, family) and
                not _another(new.said, c.said, family.name) and
                not _WORKS_THERE.search(c.said) and  # ("I work for British Gas": no supplier)
                (theirs := members(c.said, family, switched=True)) and
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


_WORKS_THERE = re.compile(r"\bwork(?:s|ing)?\s+(?:at|for|in)\b|\bemployed\s+(?:by|at)\b|"
                          r"\bjob\s+(?:at|with)\b", re.I)
"""A held fact of working at a member: an employer, never the holder's own supplier or bank."""
_CONDITION = re.compile(rf"\b(?:{IF_SAID}|unless)\b", re.I)
"""A condition anywhere in the sentence holds its every clause ("If the deal's good, we'll go
with Octopus"); a maybe holds its own clause only ("Dad part-exchanged his for an Outlander,
he wants to tow a caravan": the wanting is another statement)."""


_NO_CUSTOMER = re.compile(r"\b(?:work(?:s|ed|ing)?\s+(?:at|for|in)|job|jobs|employ\w*|hired|role|"
                          r"position|career|shifts?|staff|colleagues?|interview\w*|"
                          r"start(?:s|ed|ing)?\s+at|shares?|invest\w*|stocks?|news|article|"
                          r"complain\w*|wrote|writ(?:e|ing)|letter|emailed|rang|phoned|called)\b",
                          re.I)
"""What says the speaker works at the brand, owns a part of it or only dealt with it once."""


def _own(text: str, family: Family, said: str) -> dict[str, int]:
    """The members of `family` that `text` names by a brand no other thing is called
    (`Family.own`: "We've been with E.ON since May", no "gas" or "electric" said) after a
    customer's word (`_CUSTOMER`), unless its sentence `said` says work there ("a new job at
    Ovo") or another dealing (`_NO_CUSTOMER`): a held fact of the family that says the context
    is then the only one they may replace (`one_value`)."""
    if not family.own or _NO_CUSTOMER.search(said):
        return {}
    return {k: at for k, at in members(text, family, brands=True).items()
            if k in family.own and (_CUSTOMER.search(text[max(0, at - 20):at]) or
                                    _SUPPLIES.match(text[at:at + 50]))}


_CUSTOMER = re.compile(r"\b(?:with|on|in|into)\s+$", re.I)
"""A customer's word before the brand ("been with E.ON", "money lands in Revolut"), not news of
it ("Utilita are in the news")."""
_SUPPLIES = re.compile(r"[\w&'-]+(?:\s+[\w&'-]+){0,2}?\s+(?:now\s+)?(?:supply|supplies|provide|"
                       r"provides|power|powers)\s+(?:us|me|our|my)\b", re.I)
"""A supplier's verb after the brand ("Octopus supply us from this month")."""


_DESTINATION = re.compile(r"\b(?:(work|job|office)|(school|college|uni|nursery))\b", re.I)
_ANOTHER = re.compile(r"\b(?:joint|savings?|isa|credit\s+cards?|mortgage|loan|pension|business|"
                      r"work\s+phone|second(?![-\s]?hand)|spare|kids'?|children's|holiday|"
                      # ("at the weekend", "this weekend": when, not a weekend one)
                      r"(?<!last\s)(?<!this\s)(?<!the\s)weekend|saturday|"
                      r"sunday)\b", re.I)


_WHY_FIRST = re.compile(r"^\W*(?:since|because|now\s+that|after)\s+[^,]*?"
                        r"(?:,\s*|\s+(?=(?-i:I|I've|I'm|I'd|we|we've|We)\b))", re.I)
"""Why a change came, before it ("Since they scrapped the 12, I've been cycling in")."""


def _another(new: str, held: str, family: str) -> bool:
    """Whether `new` is about another thing of the family than `held`: another destination
    ("I walk the kids to school" / "I drive to work now"), another account or phone ("a joint
    account with Nationwide", "my work phone"), a time of its own ("at weekends"; a journey or
    a work pattern "on Fridays", not a practice "open on Saturdays")."""
    new = _WHY_FIRST.sub("", new)  # ("Since the office moved to the business park I drive")
    dest = [{"work" if m.group(1) else "school" for m in _DESTINATION.finditer(t)}
            for t in (new, held)]
    if dest[0] and dest[1] and not dest[0] & dest[1]:
        return True
    if family in ("commute", "work pattern") and "weekday" in slots.values(new) and \
            "weekday" not in slots.values(held):
        return True  # "I cycle in on Fridays now": a day's routine beside it
    if family == "club":
        sports = _sports(new), _sports(held)
        if sports[0] and sports[1] and not sports[0] & sports[1]:
            return True  # "Signed for Clapton Rovers" / "I play cricket for Barnes CC"
    if family == "drink" and (_drinks(new) and _drinks(held) and not _drinks(new) &
                              _drinks(held) and not _SWAPPED.search(new) or
                              _NOT_MY_CUP.search(new) or _dayparts(new) - _dayparts(held)):
        return True  # "These days I take my coffee black" / "I drink my tea with milk"; "the
        # office machine"; "decaf in the afternoons" / "a flat white in the morning"
    extra = {m.group(0).lower() for m in _ANOTHER.finditer(new)} - \
        {m.group(0).lower() for m in _ANOTHER.finditer(held)}
    return bool(extra) or slots.another_of(new, held)


_SPORTS = (("football", r"football|soccer|five-a-side|sunday\s+league",
            r"A?FC|United|Rovers|Athletic|Wanderers|Albion|Rangers"),
           ("cricket", r"cricket", r"CC"), ("rugby", r"rugby", r"RU?FC"),
           ("hockey", r"hockey", r"HC"), ("netball", r"netball", r""))


def _sports(text: str) -> set[str]:
    """The sports `text` names, by word, else by its club's suffix ("Barnes CC": cricket)."""
    said = {name for name, words, _ in _SPORTS if re.search(rf"\b(?:{words})\b", text, re.I)}
    return said or {name for name, _, suffix in _SPORTS
                     if suffix and re.search(rf"(?-i:\b(?:{suffix})\b)", text)}


def _drinks(text: str) -> set[str]:
    """The drinks, tea or coffee, `text` names (a latte is coffee, a green tea tea)."""
    return {name for name, rx in (("tea", r"tea|teas|chai|cuppa"), ("coffee", r"coffee|lattes?|"
            r"flat\s+whites?|cappuccinos?|americanos?|espressos?|mochas?|cortados?|decaf"))
            if re.search(rf"\b(?:{rx})\b", text, re.I)}


_NOT_MY_CUP = re.compile(r"\b(?:machines?|office|menu|sells?|serves?|serving)\b", re.I)
"""A drink of a place's or a machine's ("switched the office coffee machine to oat lattes")."""


def _dayparts(text: str) -> set[str]:
    """The parts of the day `text` names ("in the mornings": morning)."""
    return {m.group(1).lower() for m in re.finditer(r"\b(morning|afternoon|evening|night|"
                                                    r"lunch(?:time)?|breakfast)s?\b", text, re.I)}


_SWAPPED = re.compile(r"\b(?:instead|switched|swapped|replaced|rather\s+than|moved\s+(?:over\s+)?"
                      r"to|gone\s+over\s+to)\b", re.I)


def two_sports(new: str, held: str) -> bool:
    """Whether `new` and `held` name clubs of two sports ("Signed for Hanwell Rovers" / "I play
    cricket for Ealing CC"): two teams, neither replacing the other."""
    sports = _sports(new), _sports(held)
    return bool(sports[0] and sports[1] and not sports[0] & sports[1])


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
    return all(a < at or _SAID_OF.match(text[a:]) or _COMPARED.search(text[:a])
               for a in again) and bool(theirs)


_COMPARED = re.compile(r"\b(?:quicker|faster|cheaper|better|easier|slower|nicer|greener|"
                       r"safer|more\s+\w+|less\s+\w+)\s+than\s+(?:the\s+|my\s+|a\s+)?$", re.I)
"""The held member compared with, not used: "I cycle in, it's quicker than the train"."""
_SAID_OF = re.compile(r"(?:the\s+)?[\w']+(?:['\u2019]s\s+[a-z]+)?\s+(?:is|are|was|were|got|keep|"
                      r"kept|have\s+been|has\s+been|has\s+(?:packed|died|failed|gone|broken)|"
                      r"(?:packed|died|failed|broke)\b)\b", re.I)
"""(and what ended it: "... now the Kuga's gearbox has packed in")"""


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
    return [w for f in FAMILIES if members(clause, f, said, switched=True, brands=True) or
            _named_change(f, said)
            for w in f.hints.split()]
