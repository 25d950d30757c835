"""The offline writer's record kinds: which facts are standing (`validate.STANDING_KINDS`).

A standing fact bears on later requests that never name it, so the context shows it on every
turn (`memlane.context.standing`). The heuristic step reads a sentence as said (its lead-in
too: "Okay, settled: ..." is what makes it a decision) and files it as:

- `constraint`: a need or limit a later request must respect: health and diet, access and
  mobility, fears, money limits, schedule limits ("I work nights, so I'm asleep until four");
- `decision`: something agreed or settled in the conversation ("Final call: ...", "we agreed
  ...", "let's go with ..."): an agreement, not one person's passing "I decided to ...";
- `profile`: who the user and the people around them are (a name, a relation, a job, a home,
  a contact detail);
- `preference`: a stable like or dislike;
- `event` (something that happened or is planned) and `fact` otherwise; neither is standing.

Patterns of families, not phrases: each names a kind of limit or agreement in general words, so
that wordings no test holds are read the same way. A model step chooses kinds itself
(`step.schema.STEP_INSTRUCTIONS`).
"""

from __future__ import annotations

import re

from ..text import FACT_STOPWORDS, FACT_WORD
from .sentences import _EVENT

__all__ = ["HELD_KINDS", "held_kind", "kind_of"]

_CONSTRAINT = re.compile(
    # health and diet
    r"\b(?:allerg\w*|intoleran\w*|coeliac|celiac|vegetarian|vegan|pescatarian|halal|kosher|"
    r"gluten|lactose|dairy[- ]free|nut[- ]free|diabet\w*|asthma\w*|epilep\w*|pregnan\w*|"
    r"medication|prescri\w*|\d+\s?mg|insulin|inhaler|epipen|blood\s+pressure|migraines?|"
    r"seasick\w*|carsick\w*|motion\s+sickness|doctor'?s\s+orders|dementia|surgery|"
    r"disease|disorder|syndrome|chronic|injur\w+|recovering\s+from|hard\s+of\s+hearing|"
    r"(?:on|taking)\s+(?:blood\s+thinners|antidepressants|meds|medicine|steroids)|"
    r"(?:makes?|gives?)\s+me\s+(?:\w+\s+)?(?:ill|sick|sneeze|itch\w*|palpitations|"
    r"headaches?|rash\w*|hives|cramps)|wrecks\s+my|upsets\s+my|gives\s+out|unwell|nauseous|"
    r"not\s+allowed\s+to|triggers?\s+my|sets?\s+off\s+my|tinnitus|ibs|\w+(?:-\w+)?\s+diet|"
    r"autis\w*|adhd|anxiety|panic\s+attacks?|overwhelm\w*|sober|walker|ramps?|cholesterol|"
    r"(?:salt|sugar|fat|calorie)\s+intake|heart\s+condition|breastfeeding|nursing|"
    r"doctor\s+(?:told|said|says|wants)|keep\s+my\s+\w+\s+(?:low|down)|"
    r"(?:take|takes|taking)\s+\w+\s+(?:once|twice|three\s+times|daily|every|each|at\s+night)|"
    r"(?:no|cut\s+out)\s+(?:meat|pork|beef|alcohol|sugar|caffeine|coffee|"
    r"dairy|nuts|shellfish|fish|eggs|wheat|spicy\s+food)|"
    r"avoid(?:s|ing)?|steer\s+clear|stay\s+away\s+from|keep\s+away\s+from|"
    # access and mobility
    r"wheelchair|step[- ]free|crutches|walking\s+stick|mobility|deaf|blind|hearing\s+aid|"
    r"(?:bad|dodgy|weak)\s+(?:knees?|back|hips?|heart)|"
    r"(?:knees?|back|hips?|heart|ears?|eyes?|joints?)\s+(?:is|are)\s+(?:bad|weak|dodgy|"
    r"not\s+great|playing\s+up)|"
    # fears
    r"afraid\s+of|scared\s+of|terrif(?:y|ies|ied)|\w*phobi\w*|fear\s+of|"
    # what the speaker cannot or will not do
    r"(?:can't|cannot|can\s+not|don't|do\s+not|doesn't|never|won't|mustn't|shouldn't)\s+"
    r"(?:eat|drink|drive|fly|climb|swim|walk|lift|afford|spend|do\s+stairs|be\s+left)|"
    r"can\s+only\s+(?:do|make|come|manage|eat|spend|afford|work|travel)|"
    # the speaker (or one of theirs) cannot do something, idioms aside
    r"(?:\bi|\bmy\s+\w+)\s+(?:can't|cannot|can\s+not)\s+(?!wait|believe|stop|help|thank|"
    r"imagine|remember|decide|tell|say|think|seem|get\s+over|complain|picture)\w+|"
    r"only\s+(?:have\s+\w+\s+(?:off|free)|free|available)|"
    r"impossible\s+for\s+(?:me|us)|(?:doesn't|don't)\s+work\s+for\s+(?:me|us)|"
    r"\bso\s+no\s+\w+|"
    # a consequence that rules something out ("..., so ibuprofen is a no", "so lifts are out")
    r"\bso\b[^.;]{0,60}?\b(?:is|are)\s+(?:a\s+no|out|off|impossible|not\s+an\s+option|a\s+no-go|"
    r"off-limits|tough|hard|difficult)|"
    # a thing ruled out for the speaker ("boats are a no for me", "no long walks for me")
    r"\bno\s+(?:[\w-]+\s+){0,4}for\s+(?:me|us)|a\s+no\s+for\s+(?:me|us)|"
    # money limits
    r"(?:money|cash|budget)(?:\s+is|'s)\s+tight|under\s+(?:a\s+)?(?:\w+\s+)?(?:hundred|thousand|"
    r"[£$€]?\d+)|budget\s+for|tight\s+budget|on\s+a\s+budget|at\s+most|"
    r"no\s+more\s+than|(?:my|our|the)\s+budget\s+(?:is|of)|limit\s+of|budget\s+is|"
    r"\d+\s*(?:max|maximum|tops)|max(?:imum)?\s+(?:of\s+)?[£$€]?\d+|saving\s+hard|"
    r"no\s+(?:big\s+)?(?:purchases|spending|splurges)|"
    # schedule limits
    r"night\s+shifts?|early\s+(?:shifts?|nights)|work\s+(?:weekends|nights|evenings|lates)|"
    r"(?:asleep|sleep)\s+(?:from|until|till|between)|"
    r"(?:busy|unavailable|not\s+available)\s+(?:every|on\s+\w+days|until)|"
    # what everything has to suit
    r"(?:has|have|needs?)\s+to\s+(?:work|be\s+ok(?:ay)?|be\s+safe|be\s+suitable)\s+(?:with|for)"
    r")\b", re.I)

# An agreement: said by "we", or by a settling word at the start of a clause ("Okay, settled:",
# "Final call:", "Done deal:"), or by a proposal to settle ("let's go with"). One person's
# "I decided to ..." is not one (it is their news, an event).
_DECISION = re.compile(
    r"(?:^|[,.;:!?]\s*|\b(?:okay|ok|alright|right|fine|so|then)\s+)"
    r"(?:settled|agreed|decided|deal|decision\s+made|final\s+(?:call|answer|decision)|done\s+deal|"
    r"done\s*:|decision'?s\s+made|it'?s\s+(?:a\s+deal|settled|decided|official)|"
    r"that'?s\s+(?:settled|decided|final|agreed))\b|\bvoted\s+(?:to|for)\b|"
    r"\b(?:family|team|everyone|committee|board)\s+(?:has\s+|have\s+)?(?:decided|agreed)\b|"
    r"\bwe(?:'ll|\s+will)\s+(?:book|take|get|use|hire|buy)\b[^.;]*\b(?:then|instead)\b|"
    r"\b(?:plan|date|it)\s+is\s+(?:now\s+)?(?:fixed|set|final|confirmed)\b|"
    r"\bwe(?:'ve|'ll|'re|\s+have|\s+will|\s+are)?\s+(?:all\s+|both\s+)?(?:agreed|settled|"
    r"decided|chose|chosen|picked|opted|went\s+with|going\s+with|go\s+with|keeping|locked|"
    r"committed)\b|"
    r"\blet'?s\s+(?:go\s+with|lock|commit|settle|stick\s+with|book)\b|"
    r"\block(?:ed)?\s+(?:it\s+)?in\b|\blocked\s+the\s+\w+", re.I)

_PEOPLE = (r"wife|husband|partner|spouse|fianc[ée]e?|boyfriend|girlfriend|son|daughter|kids?|"
           r"children|child|baby|mum|mom|mother|dad|father|parents?|brother|sister|siblings?|"
           r"twin|cousin|aunt|uncle|nephew|niece|grand(?:ma|pa|mother|father|son|daughter)|"
           r"boss|manager|colleague|coworker|roommate|flatmate|neighbou?r|best\s+friend|"
           r"landlord|landlady|doctor|gp|dentist|therapist|emergency\s+contact|dog|cat|pet")
_PROFILE = re.compile(
    r"\bmy\s+(?:" + _PEOPLE + r")(?:'s)?\s+(?:name\s+is|is\s+called|is\s+named|is|are|'s)\b|"
    r"\bmy\s+(?:name|surname|pronouns|birthday|address|email|phone(?:\s+number)?|number|"
    r"job|job\s+title|occupation|profession|employer|nationality|home\s+town|hometown)\s+"
    r"(?:is|are|ends)\b|"
    r"\b(?:i|we)\s+live\s+in\b|\bi(?:'m|\s+am)\s+(?:from|based\s+in|married|divorced|single|"
    r"widowed|retired|a\s+(?:nurse|teacher|doctor|student|developer|engineer|lawyer|chef|"
    r"designer|writer|manager|driver|pilot))\b|"
    r"\bi\s+work\s+(?:at|for|as)\b", re.I)

# A need is someone's: the speaker's or one of theirs ("Dance floors help avoid injuries" is
# about dancing, not a limit of anyone's).
_HOLDER = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|us|"
                     r"(?:" + _PEOPLE + r")|here|money|budget|cash|quid|dollars|euros|"
                     r"pounds)\b", re.I)

# The fact writer's preference cue without its "allergic" (a need here, read first, and only
# when someone holds it); the event cue is the fact writer's own (`sentences._EVENT`).
_PREF = re.compile(r"\b(i|we)\s+(really\s+)?(like|love|prefer|hate|enjoy|dislike|can't stand)\b"
                   r"|\bfavou?rite\b", re.I)


def kind_of(sentence: str) -> str:
    """The kind the offline writer files `sentence` (a clause as said) under: the first of
    constraint, decision, profile, preference, event that reads it, else fact. An agreement
    says what was agreed: "Agreed, Mel!" is assent, not a decision."""
    if _CONSTRAINT.search(sentence) and _HOLDER.search(sentence):
        return "constraint"
    if _DECISION.search(sentence) and _said_what(sentence):
        return "decision"
    if _PROFILE.search(sentence):
        return "profile"
    if _PREF.search(sentence):
        return "preference"
    if _EVENT.search(sentence):
        return "event"
    return "fact"


HELD_KINDS = frozenset({"constraint", "decision"})
"""Kinds a sentence passes to its clauses: in "I don't drive, so I get around by bus and train"
the second clause is the need too, and "Okay, settled: the offsite goes to Lisbon" loses its
cue when the lead-in is trimmed. The writer keeps such a clause whatever its shape."""


def held_kind(clause: str, sentence_kind: str) -> str:
    """The kind of a clause of a sentence of `sentence_kind`: its own when it reads as a need
    or an agreement, else the sentence's when that is one ("My daughter is two, so everything
    has to work with a toddler": the daughter's age is why), else its own."""
    own = kind_of(clause)
    if own in HELD_KINDS or sentence_kind not in HELD_KINDS:
        return own
    return sentence_kind


_CUES = frozenset("""okay ok alright right fine so then settled agreed agree decided decision
    deal done final call answer made lock locked commit committed official let let's lets go
    going went with we all both""".split())


def _said_what(sentence: str) -> bool:
    """Whether an agreement names what was agreed (two content words besides its cue words):
    "Agreed, Mel!" is assent to someone, not a decision."""
    words = [w for w in FACT_WORD.findall(sentence)
             if w.lower() not in FACT_STOPWORDS and w.lower() not in _CUES]
    return len(words) >= 2
