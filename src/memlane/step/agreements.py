"""Whether a sentence says something agreed or settled in the conversation: the `decision` kind
of the offline writer (`step/kinds.kind_of`). An agreement is said by a settling word ("Okay,
settled:", "Final call:"), by a proposal to settle ("let's go with"), by a group and a verb of
commitment ("we've settled on", "Mum and Dad agreed to"), by what a long discussion came to or
an offer accepted (`effects.AGREEMENT_MADE`), by an arrangement from now on, or by the user's own
choice told to the assistant ("I've settled on Portuguese"); and it says what was agreed
(`said_what`). Pure: reads the sentence only. Split from `step/kinds.py` by job."""

from __future__ import annotations

import re

from ..text import FACT_STOPWORDS, FACT_WORD
from .effects import AGREEMENT_MADE

# An agreement: said by a settling word at the start of a clause ("Okay, settled:", "Final
# call:", "Done deal:"), by a proposal to settle ("let's go with"), or by a group and a verb of
# commitment (`_AGREED`). One person's "I decided to ..." is not one (it is their news); the
# user's choice told to the assistant is (`_CHOSE`).
_DECISION = re.compile(
    r"(?:^|[,.;:!?]\s*|\b(?:okay|ok|alright|right|fine|so|then)\s+)"
    r"(?:settled|agreed|decided|deal|decision\s+made|decision\s+time|"
    r"final\s+(?:call|answer|decision|plan)|"
    r"done\s+deal|done\s*:|decision'?s\s+made|it'?s\s+(?:a\s+deal|settled|decided|agreed|"
    r"official|final|a\s+yes|a\s+go|sorted|happening)|that'?s\s+(?:settled|decided|final|agreed|sorted|"
    r"the\s+(?:deal|plan|decision|agreement)))\b|\bvoted\s+(?:to|for)\b|"
    r"\b(?:it'?s|it\s+has|has)\s+been\s+(?:decided|agreed|settled)\b|"
    r"\bwe(?:'ll|\s+will)\s+(?:book|take|get|use|hire|buy)\b[^.;]*\b(?:then|instead)\b|"
    r"\b(?:plan|date|it|venue|booking)(?:\s+is|'s)\s+(?:now\s+)?(?:fixed|set|final|"
    r"confirmed)\b|"
    r"\bvote\s+went\s+(?:to|for)\b|\b(?:decision|verdict|votes?)(?:'s|\s+is|\s+are)\s+in\b|"
    r"\b(?:vote|voting|ballot)(?:'s|\s+is|\s+was)\s+(?:done|over|counted)\b|"
    # what a long discussion came to, and an offer or request someone accepted
    r"\bafter\s+(?:much|a\s+lot\s+of|all\s+(?:the|that|this)|(?:weeks|months|days|lots)\s+of|"
    r"long|endless|some)\s+(?:debate|debating|discussion|discussing|deliberation|arguing|"
    r"argument|back[- ]and[- ]forth|negotiation|haggling)\b|"
    r"\b(?:offer|bid|application|proposal|request)\s+(?:\w+\s+){0,4}?(?:was|has\s+been|got|"
    r"'s\s+been)\s+(?:accepted|approved|granted)\b|"
    r"\b(?:is|are)\s+(?:now\s+)?(?:confirmed|locked\s+in|set\s+in\s+stone|finali[sz]ed)\b|"
    r"\blet'?s\s+(?:go\s+with|lock|commit|settle|stick\s+with|book|make\s+it\s+(?:the|\d)|"
    r"do\s+it\s*[,:;-]\s*\S)|"
    r"\block(?:ed)?\s+(?:it\s+)?in\b|"
    r"\blocked\s+(?:in\s+)?the\s+(?!door|car|gate|house|keys|cat|dog|bathroom)\w+")

# An agreement by its structure: a group (we, "Sarah and I", "Mum and Dad", the family, the
# committee) and a verb of commitment; a joint plan or rule ("the plan is we ...", "from now on
# we ..."); a settling word that opens an assignment or a shared future ("Right, the kitchen
# goes white", "Then that's that: Maria handles the invitations"); "<choice> it is".
# Choosing an object, not going with company or picking fruit ("we went with my parents",
# "we picked strawberries"); agreeing on a future, not an opinion of the past.
_GROUP = (r"\b(?:we|we've|we're|we'll|we'd|we\s+all|we\s+both|both\s+of\s+us|all\s+of\s+us|"
          r"me\s+and\s+(?:my\s+|our\s+|the\s+)?\w+|"
          r"the\s+(?:two|three|four|five|six|\w+)\s+of\s+us|(?:my\s+)?\w+\s+and\s+(?:i|me|us)\b|(?:my|our)\s+\w+\s+and\s+(?:my|our)\s+"
          r"\w+|(?-i:[A-Z])\w+\s+and\s+(?-i:[A-Z])\w+|between\s+us|"
          r"(?:the|our)\s+(?:whole\s+)?(?:[\w']+\s+)?(?:family|team|committee|board|group(?:\s+chat)?|club|"
          r"book\s+club|council|house|household|panel|jury|majority|parents|couple)|"
          r"(?:my|our)\s+parents|"
          r"everyone|everybody)(?:'s|'ve|'re)?")
_COMPANY = (r"(?!(?:my|our|his|her|their|friends|family|some|a\s+few|them|him|her|us|the\s+"
            r"(?:kids|family|girls|boys|guys|gang|group|flow|dogs?))\b)")
_COMMIT = (r"(?:agreed(?!\s+(?:that\s+)?[^,.;]{0,40}?\b(?:was|were|had|did|looked|sounded|felt|"
           r"seemed|went)\b)|settled(?!\s+(?:in|into|down)\b)|"
           r"decided|voted|approved|signed\s+off|landed\s+on|sorted\s+(?:it|(?:(?:the|our|this|that)\s+"
           r"(?:\w+\s+){0,2})?out\b)|"
           r"worked\s+(?:it\s+)?out|shaken\s+(?:hands\s+)?on|(?:are|'re)\s+splitting|"
           r"tak(?:e|ing)\s+(?:it\s+in\s+)?turns|pencil+ed\s+in|"
           r"shook\s+(?:hands\s+)?on|opted|committed|confirmed|finali[sz]ed|"
           r"(?:chose|chosen|picked|selected)\s+(?=(?:the|a|an|our|to|between|it|(?-i:[A-Z])|"
           r"\w+\s+(?:as|over|for)\b))|(?:went|going|go|gone)\s+with\s+" + _COMPANY +
           r"|(?:went|going|go|gone)\s+for\s+(?=the\b|it\b|that\b|this\b|(?-i:[A-Z]))"
           # a thing chosen in the end ("went for a deep teal ... in the end"), not an outing
           r"|(?:went|gone)\s+for\s+an?\s+(?!(?:walk|run|jog|swim|drink|coffee|pint|meal|bite|"
           r"curry|ride|drive|wander|stroll|hike|nap|chat|look|scan|test|quick|cheeky)\b)"
           r"(?=[^.;?]*\b(?:in\s+the\s+end|rather\s+than|instead|after\s+all)\b)"
           r"|(?:dead\s+)?set\s+on|signed\s+(?:the|a)\s+(?:lease|contract|papers|deal|agreement)"
           r"|(?:definitely|officially|for\s+sure)\s+(?:doing|going|getting|having|booking|taking)"
           r"|going\s+ahead|sticking\s+with|stick\s+with|staying\s+with|keeping|"
           r"ended\s+up\s+(?:booking|choosing|picking|going\s+with|buying|renting|hiring)|"
           r"made\s+(?:a|the)\s+(?:call|decision)|made\s+(?:up\s+)?(?:our|their)\s+minds?|"
           r"reached\s+(?:an?\s+)?(?:agreement|decision|consensus|compromise)|compromised|"
           r"narrowed\s+it\s+down|said\s+yes|on\s+board(?:\s+with)?|all\s+in\s+on|"
           r"in\s+agreement|locked|put\s+it\s+to\s+a\s+vote|(?:gone|went|going)\s+halves|"
           r"split\s+(?:the\s+)?(?:chores|costs?|bills?|rent|driving|housework|cooking|childcare|"
           r"school\s+run|duties|tasks|weekends|holidays)|got\s+(?:it|that|this|everything)\s+sorted|(?:are\s+)?doing\s+a\s+rota|(?:set|drew|drawn)\s+up\s+a\s+rota|"
           r"(?:gave|given|giving)\s+(?:us\s+|me\s+|it\s+)?the\s+(?:nod|go-ahead|green\s+light|"
           r"thumbs[- ]up|okay|ok)|"
           # a change to an arrangement the group made is agreed too: "we pushed the dinner
           # back to Thursday", "we've switched the venue to the Crown"
           r"(?:(?:pushed|switched|changed|rescheduled|bumped)\s+(?:the|our)\s+"
           r"(?:\w+\s+){1,3}?(?:back\s+|forward\s+|up\s+)?(?:to|until|till)\b|"
           # moved to a time or a named place, not "moved the piano to the basement"
           r"(?:moved|brought)\s+(?:the|our)\s+(?:\w+\s+){1,3}?(?:back\s+|forward\s+)?"
           r"(?:to|until|till)\s+(?=next\b|tomorrow\b|the\s+\d|\d|(?:mon|tues|wednes|thurs|"
           r"fri|satur|sun)days?\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\b|"
           r"(?-i:[A-Z]))))")
_AGREED = re.compile(
    _GROUP + r"(?:\s*,[^,.;]{1,40},)?(?:\s+(?:have|has|are|is|all|both|finally|just|now|"
    r"eventually|officially|"
    r"unanimously|\w+ly))*\s+" + _COMMIT + r"|"
    + _GROUP + r"\s+\w+(?:\s+\w+){0,3}\s+and\s+" + _COMMIT + r"|"
    r"\bwe\s+(?:talked|thought|discussed|chatted)\s+(?:it|this|that)\s+(?:through|over)\b|"
    r"\b(?:the|our)\s+plan\s+(?:now\s+)?is\s+(?:that\s+)?(?:we|to\s+meet|i\b[^.;]{0,60}\band\s+"
    r"\w+\s+(?:does|do|takes|will|handles|gets|picks))\b|"
    # someone the user deals with agreed to what they asked ("the school agreed to let him ...")
    r"\b(?:the|my|our)\s+(?:school|landlord|landlady|bank|employer|boss|manager|company|insurer|"
    r"council|letting\s+agent|agency|builders?|hoa|pta|management|planners)\s+(?:has\s+|have\s+|"
    r"finally\s+)*(?:agreed|approved|signed\s+off|said\s+yes|okayed|(?:gave|given)\s+(?:us\s+|"
    r"me\s+|it\s+)?the\s+(?:nod|go-ahead|green\s+light))\b|"
    r"\b(?:the|our)\s+(?:deal|agreement|arrangement)\s+(?:is|was)\b|"
    r"\b(?:house|family|new|our|the)\s+rule\s+(?:now\s+|from\s+now\s+on\s+)?is\b|"
    r"\b(?:the\s+)?(?:consensus|verdict|outcome)(?:\s+(?:is|was)\b|"
    r"\s+(?:from|of)\s+[^:;.]{1,30}:)|"
    r"\bwe'?ll\s+(?!see\b|find\s+out|talk|chat|catch\s+up|figure|be\s+fine|miss)\w+[^.;?]*"
    r"\bthen\s*[.!]*$|\bthat'?s\s+that\b|\bshook\s+on\s+it\b|"
    r"(?:^|[,:;]\s*)(?:the\s+)?[\w']+(?:\s+[\w']+)?\s+it\s+is(?:\s+(?:for|on|then)\b[^.;,]*)?"
    r"\s*[.!]*$|"
    # "<choice> it is, <when and where>": not "Yes it is, ..."
    r"(?:^|[,:;]\s*)(?!(?:yes|yeah|yep|oh|well|true|sure|so|and|but|how|what|that|this|now|"
    r"here|there|where|as|because|if|whatever|wow|indeed)\b)(?:the\s+)?[\w']+(?:\s+[\w']+)?\s+it\s+is"
    r"(?:\s+(?:for|on|then)\b[^.;,?]*)?\s*[,;:-]\s*[^?]*$", re.I)
# A standing arrangement from now on: a group's, or someone else's ("Going forward, Jess does
# the school run"); not one person's resolution ("From now on I'm running every day").
_GROUP_AT = re.compile(_GROUP, re.I)
_FROM_NOW = re.compile(r"\b(?:from\s+now\s+on|going\s+forward|as\s+of\s+(?:now|today|next))\b")
_ONE = re.compile(r"\b(?:i|i'm|i'll|i've|i'd)\b")
_SETTLING = re.compile(
    r"^\W*(?:(?:okay|ok|alright|right|fine|cool|great|good|perfect|done|sorted|deal|"
    r"sounds\s+good|fine\s+by\s+(?:me|us|both\s+of\s+us|everyone)|change\s+of\s+plans?)"
    r"(?:\s+then|\s+so)?"
    r"|then|so)(?:\s*[,:;!.-]+\s*|\s+(?=we\b|we'))(?:so\s+|then\s+)?")
# What follows a settling word when it settles something: who does what ("Priya's doing the
# cake", "Maria handles the invitations", "the kitchen goes white"), or a choice's future
# ("the baby's name is going to be Iris"), an arrangement's place or date ("the dinner will be
# at Casa Bruma"); a forecast ("the weather will be sunny") is not.
_ASSIGNED = re.compile(
    r"\b(?:\w+'s|\w+\s+is|i'm|we're|you're)\s+(?:doing|handling|driving|bringing|cooking|"
    r"hosting|paying|covering|organi[sz]ing|navigating|sorting|booking|making|picking)\b|"
    r"\b(?:handles|drives|brings|cooks|hosts|pays|covers|reads|goes|stay|stays|becomes|starts|"
    r"moves|move|keeps|comes|sleeps)\b|\b(?:we'll|we\s+will|we're\s+going\s+to)\b|"
    r"\b(?:moved|pushed\s+back|brought\s+forward|switched|changed)\s+to\b|"
    r"\b(?:is|are|'s)\s+now\s+(?:at|on|in)\b|"
    r"\bwe're\s+doing\s+(?:the|a|it)\b|"
    r"\b(?:will|'ll)\s+be\s+(?:at|on|in|held|from)\b|"
    r"\b(?:name|venue|date|plan|theme|colou?r|menu|budget|winner|destination|location|"
    r"choice|pick)(?:'s|\s+is|\s+will\s+be)\s+(?:going\s+to\s+be\s+)?\w+|"
    r"\byou\s+(?:take|do|handle|bring|drive|cook|get|grab|book|pay|sort)\b[^.;]*\band\s+"
    r"(?:i'll|i\s+will|i'm)\b|\b(?:next|then)\s*[.!]*$")


def _settled(sentence: str) -> bool:
    """Whether a settling word opens an assignment or a shared future in `sentence`
    (lower-cased): "Right, the kitchen goes white", "Sounds good, we'll do the barbecue at
    Jake's then"; not a question."""
    m = _SETTLING.match(sentence)
    rest = sentence[m.end():] if m else ""
    return bool(rest) and not rest.rstrip().endswith("?") and bool(_ASSIGNED.search(rest))


# A one-off done in the past ("We decided on a whim to drive to the coast last Sunday") is
# news, not an agreement that stands, unless something of it stands ahead; what was chosen
# at a past meeting ("approved the new logo at last night's meeting") stands.
_ONE_OFF = re.compile(r"\b(?:on\s+a\s+whim|yesterday|\w+\s+ago|this\s+(?:morning|afternoon)|"
                      r"last\s+(?:night|week|weekend|month|year|time|summer|winter|spring|"
                      r"autumn|fall|\w+day))\b(?!'|\s+of\b)")
_ASSENT = re.compile(r"^\W*(?:i\s+|totally\s+|absolutely\s+|so\s+|fully\s+)?agreed?\s*[,!.]+\s*")
_AHEAD = re.compile(r"\b(?:will|going\s+to|gonna|next|tomorrow|from\s+now\s+on|going\s+"
                    r"forward|every|each|is|are|now|still|stays?|moves?|goes|until|till)\b|'ll\b")


_CHOSE = re.compile(
    r"\b(?:i(?:'ve|\s+have|'m|\s+am)?)(?:\s+(?:finally|now|just|eventually|officially|already))?\s+"
    r"(?:settled\s+on|opted\s+(?:for|to)|plumped\s+for|landed\s+on|made\s+up\s+my\s+mind|"
    r"decided\s+(?:on|against)|(?:chosen|picked)\s+(?=the\b|a\b|an\b|(?-i:[A-Z]))|"
    r"(?:gone|going)\s+with\s+(?=(?:the|that)\s+(?!(?:kids|family|girls|boys|lads|"
    r"gang|group|team|others|rest|dog|dogs)\b)))", re.I)
"""The user's own choice, told to the assistant: in a conversation of two, what the user settled
on is what was settled ("I've settled on Portuguese", "I'm going with the Tuesday slot"); not a
reason told of the past ("I chose to write about this because ..."), nor company ("going with
Sarah", "gone with the kids")."""


def agreed(sentence: str, low: str) -> bool:
    """Whether `sentence` (`low`: lower-cased) reads as an agreement (`_DECISION`, `_AGREED`,
    `_FROM_NOW`, `_settled`); a question is not one, nor a one-off of the past."""
    if low.rstrip().endswith("?"):
        return False  # a proposal or a question, not yet agreed
    if _ONE_OFF.search(low) and not _AHEAD.search(low):
        return False
    assent = _ASSENT.match(low)
    if assent:  # "Agreed, nature has a way of being so inspiring!" agrees with an opinion
        rest = low[assent.end():]
        return bool(_ASSIGNED.search(rest)) or agreed(sentence[assent.end():], rest)
    return bool(_DECISION.search(low) or AGREEMENT_MADE.search(low) or _AGREED.search(sentence)
                or _settled(low) or _CHOSE.search(sentence)
                or (_FROM_NOW.search(low)
                    and (_GROUP_AT.search(sentence) or not _ONE.search(low))))


_CUES = frozenset("""okay ok alright right fine so then settled agreed agree decided decision
    deal done final call answer made lock locked commit committed official let let's lets go
    going went with we all both""".split())


def said_what(sentence: str) -> bool:
    """Whether an agreement names what was agreed (two content words besides its cue words):
    "Agreed, Mel!" is assent to someone, not a decision."""
    words = [w for w in FACT_WORD.findall(sentence)
             if w.lower() not in FACT_STOPWORDS and w.lower() not in _CUES]
    return len(words) >= 2
