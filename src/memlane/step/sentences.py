"""Sentences as the offline writer reads them: where one ends, whether it asks for something
(`is_request`), whether it states a fact worth keeping (`is_fact`), and the word lists both the
fact writer (`step.heuristic`) and the episode lines (`step.lines`) read.
"""

from __future__ import annotations

import re

from ..text import ANY_WORD, FACT_STOPWORDS, FACT_WORD
from .holders import RELATIONS, names_my_role
from .shapes import appositive, is_fragment, names_role, without_vocative, world_fact
from .slots import counted

_PREF = re.compile(r"\b(i|we)\s+(really\s+)?(like|love|prefer|hate|enjoy|dislike|can't stand)\b"
                   r"|\bfavou?rite\b|\ballergic\b", re.I)
_FIRST = re.compile(r"\b(i|i'm|i've|i'd|my|me|we|our|mine)\b", re.I)
_EVENT = re.compile(r"\b(yesterday|today|tomorrow|last|next|ago|went|visited|started|joined|"
                    r"moved|bought|finished|got|met|took|attended|adopted|signed|ran|won|lost|"
                    r"graduated|born|married|planning|plan|will)\b", re.I)
_GREETING = re.compile(r"^\s*(hi|hey|hello|thanks|thank you|ok|okay|sure|yes|no|bye|great|"
                       r"cool|wow|nice|lol|haha)\b[\s!.,]*$", re.I)

# --- sentences -------------------------------------------------------------------------------

ABBREVIATIONS = frozenset(
    """mr mrs ms mx dr prof sr jr st mt ft rev hon gen col capt lt sgt gov pres sen rep vs etc
    eg ie cf al approx est dept univ inc ltd co corp bros assn ave blvd rd hwy apt ste bldg no nos
    vol fig ch pp ed eds jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur
    thurs fri sat sun am pm bc ad ca min max tel ext""".split()
)
"""Words that end with a period without ending a sentence (compared lower-cased, dots removed)."""

# A candidate end: terminal punctuation (and closing quotes/brackets), then white space.
_END = re.compile(r"""[.!?\u2026]+["')\]\u201d\u2019]*(?=\s)""")
_OPENER = re.compile(r"""\s*["'(\[\u201c\u2018]*[A-Z0-9]""")
# Chat typed in lower case: "lol same. my sister Jo is a midwife. anyway, what ...?" A word
# that opens a statement (the speaker, theirs, an interjection) starts a sentence after an end.
_LOWER_OPENER = re.compile(r"""\s*(?:i|i'm|im|i've|ive|i'd|i'll|my|we|we're|we've|our|anyway|
    anyways|btw|lol|haha|oh|also|yeah|ok|okay|she|he|she's|he's|it's|they|they're|what|how|
    when|where|why|who|tbh|honestly|omg|ugh|hey|hi|thanks|sorry)(?=[\s,!?.'\u2019])""", re.X)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`: split after . ! ? (or an ellipsis) followed by space and a capital or
    a digit, and at line breaks; not after an abbreviation ("Dr.", "e.g."), an initial ("J.")
    or inside a number ("3.5", "9.30" have no space after the dot).

    Written here rather than taken from a library: pysbd (last release 2021) and syntok (2022)
    are no longer kept up and slow on chat text, and NLTK's Punkt needs a separate data
    download; chat messages need only these rules."""
    out: list[str] = []
    for block in text.splitlines():
        start = 0
        for m in _END.finditer(block):
            end = m.end()
            rest = block[end:]
            if not _OPENER.match(rest) and not _LOWER_OPENER.match(rest):
                continue  # the next word is lower case (or nothing follows): same sentence
            if m.group().rstrip("\"')]\u201d\u2019") == ".":
                before = block[start:m.start()].split()
                word = before[-1] if before else ""
                bare = word.lstrip("\"'([\u201c\u2018").replace(".", "").lower()
                if bare in ABBREVIATIONS or (len(bare) == 1 and bare.isalpha()):
                    continue  # "Dr. Okafor", "J. Smith", "e.g. Lisbon"
                if "." in word.rstrip(".") and not _OPENER.match(rest):
                    continue  # "in the U.K. and my sister ...": an initialism, lower case after
            piece = block[start:end].strip()
            if piece:
                out.append(piece)
            start = end
        piece = block[start:].strip()
        if piece:
            out.append(piece)
    return out


# --- what is not a fact ----------------------------------------------------------------------

_REQUEST = re.compile(
    r"""^\W*(?:please\b|pls\b|kindly\b
    |(?:can|could|would|will|won't)\s+you\b
    |(?:i\s+(?:want|need|would\s+like|'d\s+like)|i'd\s+like)\s+you\s+to\b
    |let'?s\b|let\s+me\s+know\b|how\s+about\b|what\s+about\b
    |(?:tell|give|show|help|explain|describe|list|suggest|recommend|find|search|look\s+up|write
      |draft|summari[sz]e|translate|remind|send|book|check|plan|make|create|compare|teach|walk
      |share|name|pick|choose|imagine|go\s+on|keep\s+going|continue)\b)""",
    re.I | re.X,
)
_PLEASE = re.compile(r"\bplease\b", re.I)
# "tell me", "remind us" anywhere: a request however it starts ("SLOW3 tell me").
# `(?=(\W*))\1` is `\W*` that gives nothing back (an atomic group, which Python 3.10 lacks):
# the same matches, and a sentence of 4,000 brackets is read once, not once per bracket.
_ASK_ME = re.compile(r"^(?=(\W*))\1(?:\S+\s+)?(?:tell|show|give|send|remind|help|teach|get|"
                     r"find|bring|let)\s+(?:me|us)\b", re.I)
# Interjections, greetings and a vocative name that open a sentence ("Hey John,", "Okay, ",
# "Wow, Caroline!"), taken off before its shape is judged.
_OPENER_WORDS = re.compile(
    r"^\W*(?:(?i:hi|hey|hello|oh|ah|ugh|ha|hah|wow|yeah|yes|yep|ya|yea|yup|no|nope|ok|okay|alright|well|so|thanks|"
    r"thank\s+you|sure|great|cool|nice|awesome|haha|lol|omg|aw+|hmm+|um+|dear|and|but|anyway|"
    r"anyways|btw|by\s+the\s+way|random\s+thing|speaking\s+of\s+which|honestly|also|heads\s+up|fyi|"
    r"(?:that\s+|which\s+|this\s+)?reminds\s+me(?=\s*[,:;.!-])|"
    r"not\s+much|nothing\s+much|"
    r"(?:as\s+for\s+|and\s+)?me(?=\s*,))\b"
    r"(?:\s+[A-Z][a-z]+)?[\s,!.:;-]*)+")
# Words a declarative sentence's subject starts with; a sentence starting with anything else
# followed by an object ("Convert 250 grams", "Write a haiku", "List the sights") is an
# imperative: its first word is the verb.
_SUBJECT_START = frozenset("""i i'm i've i'd i'll my we we're we've we'd we'll our you you're
    your he he's his she she's her it it's its they they're their this that these those the a an
    there there's here some all each every one two three no none nobody everyone someone
    something nothing anything everything morning evening last next yesterday today tomorrow
    tonight in on at after before since when while if as by for with from during about
    through until because cos although though once unless whereas half most both many
    several neither""".split())
_OBJECT_START = frozenset("""a an the me us my our this that these those some all it them him
    her your up out down about""".split())
# Words that open a statement before its subject, never a command: "Meanwhile my boiler packed
# in", "Turns out my landlord ...", "Plus our car's in the garage".
_CONNECTIVES = frozenset("""meanwhile otherwise besides plus then now also anyway anyways btw ps
    turns tbh apparently nowadays lately""".split())
# A time said first, before the subject: "These days Kev at Sharp Lines does my hair".
_TIME_LEAD = re.compile(r"^(?:these\s+days|nowadays|at\s+the\s+moment|lately|right\s+now|"
                        r"for\s+now)\s*,?\s+(?=\S)", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|mine|we|we're|we've|we'd|we'll|our|"
                           r"ours|us|me)\b", re.I)
# The speaker as subject or owner ("I ...", "my ...", "we ..."), not only as an object ("Sounds
# good to me", "It gives me an escape").
_SPEAKER_SUBJECT = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|we'd|we'll|our)\b"
                              r"|(?<!.)me(?=\s+and\s)", re.I)  # "Me and the kids are ..."
# An attitude toward the listener or the talk, not a fact: "I'm sure you'll find it", "I hope
# you...", "I can't believe it", "I'm so glad we talked". What follows the frame is judged.
_ATTITUDE = re.compile(
    r"^(?:i\s*'?m\s+(?:(?:so|really|very|super|truly|always|just|totally)\s+)*(?:sure|glad|"
    r"happy|sorry|excited|thrilled|proud|grateful|thankful|inspired|impressed|amazed|touched|here)|"
    r"i\s+(?:(?:really|do|totally|completely|fully|definitely|just|so|still)\s+)*(?:hope|think|"
    r"bet|guess|believe|wish|reckon|suppose|doubt|remember|get(?=\s+(?:how|why|what|that|it)\b)|"
    r"see(?=\s+(?:what|how|why|where|it|that|your|you)\b)|"
    r"appreciate|agree|understand|know|can't\s+believe|cannot\s+believe|can't\s+wait))\b"
    r"(?:\s+(?:that|of|for|to|about|how))?\s*", re.I)

# Talk, not a fact, when it names nothing (`_specific`): a promise to the listener ("I'll
# definitely check it out", "I'll let you know how it goes"), a maybe about "it" ("I might try
# it sometime"), a wish ("I'd love to see a photo!"), liking how the listener does something,
# "we can all make a difference", a passing state ("I'm knackered now"). A resolve ("I'm gonna
# keep at it") or support ("I'm here for you") stays: a turn's only record, it points a later
# question at what the turn said.
_TALK = re.compile(
    r"^(?:i|we)(?:'m|\s+am|'re|\s+are)?\s*(?:gonna|going\s+to|'ll|will)\s+"
    r"(?:(?:definitely|totally|def|really|just|always|also|still)\s+)*(?:"
    r"check\s+(?:it|them|that|this)\s+out|add\s+(?:it|that|them|this)\s+to|reach\s+out"
    r"|let\s+you\s+know|be\s+tuning\s+in|try\s+(?:it|that|this)|have\s+a\s+blast"
    r"|see\s+(?:what|how))"
    r"|^(?:i|we)(?:'d|\s+would)?\s+(?:might|should|need\s+to|(?:'d\s+|would\s+)?love\s+to)\s+"
    r"(?:try\s+(?:it|that|this|one)|give\s+(?:it|that|this)\s+a\s+(?:go|try|shot)|join\s+in)\b"
    r"|^(?:i|we)\s+(?:really\s+)?(?:love|like|admire|adore|respect|appreciate)\s+(?:that|how|when"
    r"|the\s+way)\s+you\b"
    r"|^(?:i|we)(?:'d|\s+would)\s+(?:really\s+|so\s+)?love\s+to\b"
    r"|^we\s+(?:can|could|should)\s+(?:(?:all|really|both|totally|still)\s+)*(?:make|build|bring"
    r"|do|keep|change)\b|^i\s+(?:can(?:'t|not)?|could(?:n't)?)\s+(?:just\s+|only\s+)?imagine\b"
    r"|^(?:i'?m|i\s+am)\s+(?:(?:so|really|absolutely|completely|totally|well|proper)\s+)?"
    r"(?:knackered|shattered|exhausted|tired|starving|stuffed|freezing|boiling|bored|sleepy|"
    r"hungry|wiped(?:\s+out)?|done\s+in)(?:\s+(?:now|today|tonight|already))?\W*$"
    # no view either way: "I don't mind either way", "I'm not sure", "I have no idea"
    r"|^(?:i|we)\s+(?:really\s+|honestly\s+|genuinely\s+)?(?:don't|do\s+not|didn't)\s+"
    r"(?:mind|care|know|remember)\b|^(?:i'?m|i\s+am)\s+not\s+(?:really\s+|too\s+|that\s+)?"
    r"sure\b|^i\s+(?:have|had)\s+no\s+idea\b", re.I)

# Someone's view of a film, a match, a meal, the weather: "My partner thinks the new Bond film is
# rubbish", "Mum said the play was too long". A verdict on a passing thing, not a fact of theirs
# (one with a specific in its verdict, "... was on at the Lyceum", is judged as any other).
_VERDICT = re.compile(
    r"^(?:(?:my|our)\s+(?:[a-z-]+\s+)?[a-z-]+|i|we|(?-i:[A-Z][a-z]+))\s+(?:really\s+|honestly\s+|"
    r"also\s+)?(?:think|thinks|thought|reckon|reckons|reckoned|found|finds|feel|feels|felt|said|"
    r"says)\s+(?:that\s+)?(?:the|this|that|these|those)\s+(?:[\w'-]+\s+){0,4}?(?:film|movie|show|"
    r"series|episode|book|novel|album|song|match|game|gig|concert|play|musical|ending|finale|"
    r"season|meal|food|restaurant|weather|party|trailer|sequel|remake|documentary|programme|"
    r"podcast)s?\s+(?:is|was|are|were)\s+(?P<verdict>[^,;:!?]{1,40})[.!]*$", re.I)


# Chat drops the subject: "Planning a trip there next month.", "Still working on a dance
# studio.", "Excited to try this." are the speaker's own news, not commands.
_PARTICIPLE = re.compile(r"(?:[A-Za-z]{2,}(?:ing|ed)|just|still|finally|currently|recently|"
                         r"already|been|got|went|started|finished|sold|bought|left|quit|"
                         r"took|made|found|lost|won|met|began|paid|spent|drove|flew|"
                         r"broke|sent|gave|kept|ran|saw|wrote|had)$", re.I)


_ADVERB_LEAD = re.compile(r"^\W*(?:(?:just|still|finally|recently|already|also|only|actually|"
                          r"really)\s+)+", re.I)
# "Got the tattoo a few years ago", "Had an audition yesterday", "Been busy volunteering": a
# common verb opens the speaker's news when an object follows it.
_COMMON_LEAD = re.compile(r"^(?:got|had|made)\s+(?:a|an|the|my|our|some|two|three|\d)\b"
                          # a complaint, then what the speaker did about it: "Got fed up with
                          # EE's signal and went to Three last month"
                          r"|^got\s+(?:fed\s+up|sick|tired|bored)\s+(?:of|with)\b(?=.*?\b(?:and|so)"
                          r"\s+[a-z]+ed\b|.*?\b(?:and|so)\s+(?:went|got|moved|left|quit|switched"
                          r"|bought|sold|joined|took)\b)"
                          r"|^been\s+(?!(?:a\s+while|ages|forever|so\s+long|too\s+long)\b)"
                          r"(?:busy|[a-z]+ing)\b"
                          # "Been on crutches since ...", "Been off work with my back"
                          r"|^been\s+(?:on|off)\s+(?!(?:it|that|this|my\s+mind|about|and)\b)"
                          r"[a-z]", re.I)


# An activity as the subject of a general remark: "Taking risks is scary", "Kickboxing is a
# perfect way to de-stress", "Volunteering and making a difference - it's so heartwarming".
_GERUND_SUBJECT = re.compile(
    r"^[A-Za-z]+ing\b[^,;:!?.\u2013\u2014]*?\b(?:is|are|was|were|can|could|would|will|should|"
    r"must|might|may|makes?|helps?|brings?|gives?|sounds?|seems?|feels?|keeps?|shows?|has|have|"
    r"means?|takes?|lets?|builds?|pushes|matters)\b"
    r"|^[A-Za-z]+ing\b[^.!?]*?(?:[,\u2013\u2014]|\s-|-\s)\s*(?:it'?s|that'?s|it\s+is|which\s+is)\b",
    re.I)
_FEELINGS = frozenset("""excited exciting thrilled stoked pumped blessed amazed interested honored
    honoured relieved worried bummed tired exhausted overwhelmed surprised shocked touched moved
    inspired""".split())


_NOUN_BEFORE = frozenset("""my our the a an his her their your some these those of with for to
    in on at and or two three four many few all more other new old""".split())


def _gerund_does(rest: str) -> bool:
    """Whether an activity opening `rest` is the subject of a verb in the next words
    ("Networking really pays off", "Building trust with them needs patience"), not the
    speaker's news ("Visiting my parents this weekend": "parents" follows "my", a noun)."""
    words = re.findall(r"[A-Za-z']+", rest)[:6]
    if not words or not words[0].lower().endswith("ing"):
        return False
    for prev, w in zip(words, words[1:], strict=False):
        low = w.lower()
        if low in ("isn't", "aren't", "wasn't", "can't", "won't", "doesn't"):
            return True
        if low.endswith("s") and not low.endswith(("ss", "'s", "us", "is")) and len(low) > 3 \
                and prev.lower() not in _NOUN_BEFORE:
            return True
    return False


_BACK_FROM = re.compile(r"^(?:back\s+from|home\s+from|off\s+to)\s+(?!bed\b)", re.I)


def dropped_subject(body: str) -> bool:
    """Whether `body` (its opener taken off) is the speaker's news with the subject dropped:
    "Planning a trip there next month.", "Just started doing aerial yoga, it's great.", "Got
    the tattoo a few years ago." Not one said to the listener ("Loved your photos")."""
    rest = _ADVERB_LEAD.sub("", body, count=1).replace("\u2019", "'")
    lead = ANY_WORD.findall(rest)[:1]
    if not lead or lead[0].lower() in _SUBJECT_START or \
            re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I):
        return False
    if _GERUND_SUBJECT.match(rest) or _gerund_does(rest) or lead[0].lower() in _FEELINGS or \
            rest.lower().startswith("looking forward"):
        return False  # "Taking risks is scary.", "Excited for this!": no news of the speaker's
    if _BACK_FROM.match(rest):
        return _specific(rest)  # "Just back from a week in Crete", "Off to Cork on Friday"
    return bool(_PARTICIPLE.match(lead[0])) and \
        (lead[0].lower() not in FACT_STOPWORDS or bool(_COMMON_LEAD.match(rest)))


# A two-word thing opening a statement ("Book club has moved to Wednesdays", "Plan B is the
# ferry"), which an imperative's first word would otherwise make a command.
_THING_SUBJECT = re.compile(r"^\W*[A-Z][a-z]+\s+(?!(?:me|us|it|him|her|them|you|your|my|our|"
                            r"the|a|an|this|that|sure|up|out|in|on|off)\b)[a-z]+\s+(?:is|are|"
                            r"was|were|has|have|had|meets|runs|starts|moved|changed|switched)\b")


def is_request(sentence: str) -> bool:
    """Whether a sentence asks for something (a question, a request, an imperative) rather than
    stating a fact."""
    s = sentence.strip()
    if _THING_SUBJECT.match(s) and not s.rstrip("\"')]\u201d\u2019").endswith("?"):
        return False  # "Book club is on Tuesdays": a thing's name, no command
    if appositive(s) is not None or names_role(s):
        return False  # "Josh, my eldest, wants to ...": someone named, no command
    if s.rstrip("\"')]\u201d\u2019").endswith("?") or bool(_REQUEST.match(s)) or \
            bool(_PLEASE.search(s)) or bool(_ASK_ME.search(s)):
        return True
    body = without_vocative(_OPENER_WORDS.sub("", s, count=1))
    if body != s and _REQUEST.match(body):
        return True  # "Okay, let's do that."
    words = ANY_WORD.findall(body.replace("\u2019", "'"))
    if len(words) >= 2 and words[0].lower() not in _SUBJECT_START and \
            not words[0][0].isdigit() and not _PARTICIPLE.match(words[0]) and \
            not _NAME_S.match(words[0]) and words[0].lower() not in _CONNECTIVES and \
            not words[0].lower().endswith("ly") and words[0].lower() not in _CUE_WORDS and \
            (words[1].lower() in _OBJECT_START or words[1][0].isdigit()) and \
            not _COPULA.search(body) and \
            not (words[0][0].isupper() and words[0][1:].islower() and words[1][0].isupper()):
        return True  # an imperative: "Convert 250 grams", "Write a haiku", "Find me..."
    return False  # (a name with "'s" is no verb: "Evie's 13 now" is Evie's age)


# A name's "'s" ("Evie's", "Rafa's"), not "Here's" or "What's".
_NAME_S = re.compile(r"^(?!(?:Here|There|That|What|Who|Where|How|When|Why|It|Let|This|Everything"
                     r"|Nothing|Something|Everyone|Someone|Nobody)'s$)(?-i:[A-Z][a-z]+)'s$")


# A pet's or a person's introduction with their name: "She's a corgi called Biscuit".
_NAMED = re.compile(r"^(?:she|he|it|they)(?:'s|\s+is|\s+are|'re)\s+(?:an?|my|our)\s+[\w\s-]{2,30}?"
                    r"\b(?:called|named)\s+(?-i:[A-Z])", re.I)


# Someone the speaker knows, by name (or someone of theirs: "Marco's son"), and what they do or
# what changed: "Lou moved to Galway in June", "Tomasz goes to Elmwood Grammar", "Dave is at
# Waitrose now". The verb is one that states a fact about a person, so a capitalised opening
# word that is no name ("Dinner was great") files nothing.
_RELATION_WORDS = "|".join(sorted(RELATIONS, key=len, reverse=True))
_NAME_FACT = re.compile(
    rf"^(?-i:([A-Z][a-z]+))(?:(?:'s|\u2019s)\s+(?:{_RELATION_WORDS})\b)?"
    r"(?:\s+|'s\s+|\u2019s\s+|(?=['\u2019]s\s))"
    r"(?:just\s+|has\s+|had\s+|now\s+|recently\s+|finally\s+|still\s+)?"
    r"(?:lives|works|goes|studies|attends|teaches|trains|plays|drives|runs|owns|moved|turned|"
    r"started|left|retired|switched|changed|transferred|joined|quit|relocated|a\s+new|"
    # a milestone: "Jas passed her driving test", "Kai graduated in July", "Nia had a baby"
    r"passed|failed|graduated|qualified|bought|sold|adopted|became|won|broke|finished|"
    r"had\s+(?:a\s+baby|twins|(?:an?\s+)?(?:op|operation|surgery|stroke|fall))|"
    r"had\s+(?:his|her|their)\s+[a-z0-9]+\s+birthday|"  # "Biscuit had her tenth birthday"
    r"been\s+(?:[a-z]+ed|made|given|told|taken|offered)|"
    r"got\s+(?:married|"
    r"a\s+(?:new\s+)?job|"
    r"engaged|promoted|a\s+new)|(?:is|'s|\u2019s|was)\s+(?:now\s+)?(?:an?|"
    # where or what they are: "Rafa's at Screwfix", "Evie's 13 now"
    r"(?P<where>at|in|with|\d|(?-i:[A-Z])\w*|on\s+(?-i:[A-Z])\w*|(?:off|moving|heading)\s+to)))\b",
    re.I)


# Someone just named, by a pronoun, and where they are now: "She works at PwC now", "He's at
# Oakfield Academy these days" (the supersede rule resolves who; unresolved, it replaces nothing).
_PRONOUN_FACT = re.compile(
    r"^(?:she|he|(?:his|her|their)\s+[a-z]+)(?:'s|\u2019s|\s+(?:is|has|just|now))*\s*"
    r"(?:lives|works|goes|studies|attends|"
    r"teaches|trains|moved|started|joined|switched|transferred|relocated|(?:is\s+)?(?:now\s+)?"
    r"(?:at|with|in))\b[^?]*?(?-i:\b[A-Z])", re.I)


# Someone just named, by a pronoun, and where they no longer are: "so she's not at the
# library anymore" (the old value, which the supersede rule reads as ended).
_AWAY = (r"(?:working\s+|living\s+|based\s+)?(?:at|with|in)\s+"
         r"(?!(?:the\s+|a\s+)?(?:mood|hurry|bit|way|rush)\b)")
_PRONOUN_GONE = re.compile(
    rf"(?:^|[,;]\s+(?:so\s+|and\s+)?)(?:she|he)(?:'s|\u2019s|\s+is)\s+"
    rf"(?:not\s+{_AWAY}[\w' -]+?\s+(?:any\s*more|now)|no\s+longer\s+{_AWAY}\w)", re.I)
# A clause of time or cause before the fact: "Since The Crown closed, book club meets at ...".
# Where a routine is held: "choir is at the church hall", "book club meets in the back room".
_HELD_AT = re.compile(r"^[a-z]+(?:\s+[a-z]+)?\s+(?:is|are|meets|meet|runs|happens)\s+(?:now\s+)?"
                      r"(?:at|on|in)\b", re.I)
_SINCE_CLAUSE = re.compile(r"^(?:ever\s+)?since\s+[^,?]{3,60},\s+([^?]{8,})$", re.I)


_THING_CHANGED = re.compile(r"\b(?:moved|switched|changed|now|no\s+longer|these\s+days)\b", re.I)
# Someone changed something of the speaker's: "The club moved me to row K".
_CHANGED_ME = re.compile(r"\b(?:moved|switched|changed|put|transferred|upgraded|downgraded|"
                         r"promoted|bumped|signed|sending|sent|relocating|relocated|posting|"
                         r"posted|seconding|seconded|moving|transferring)\s+(?:me|us)\s+(?:up\s+|over\s+|back\s+|"
                         r"on\s+)?(?:to|onto|into|on)\b(?!\s+(?:tears|laughter|action|despair|"
                         r"hold|the\s+spot|edge|notice|speaker|the\s+list))", re.I)
_THEIRS_IS = re.compile(r"^(?-i:[A-Z][a-z]+)(?:'s|\u2019s)\s+(?:[a-z]+\s+){0,2}[a-z]+\s+"
                        r"(?:is|are)\s+(?:now\s+)?(?:(?-i:[A-Z])|\d)")
_KIN_OF_THEIRS = re.compile(
    r"^(?:her|his|their)\s+(?:little\s+|big\s+|older\s+|younger\s+)?(?:brother|sister|son|"
    r"daughter|twin|husband|wife|partner|mum|dad)\s+(?-i:[A-Z][a-z]+)\s+(?:is|goes|works|lives|"
    r"plays|drives|has|started|moved)\b", re.I)
"""Someone named by their kin's pronoun ("Her brother Finn goes to Castlegate High")."""
_OWN_AGE = re.compile(r"^(?:i'?m|i\s+am)\s+\d{1,3}(?:\s+(?:now|years?\s+old))?\s*[.!]*$", re.I)


# A phrase of time or cause before the speaker's clause: "Since the knee injury I've been ...",
# "After the op on my hip I ...".
_LEAD_PHRASE = re.compile(r"^(?:ever\s+)?(?:since|after|following|because\s+of|due\s+to|"
                          r"thanks\s+to|before|during|until|as\s+of|if|unless|once|when|whenever)"
                          r"\s+(?:the|my|our|a|an|this|"
                          r"that|last|\d+|one|two|three|four|five|six|seven|eight|nine|ten|"
                          r"twelve|twenty|thirty|several|many|a\s+few)\b[^,;:?!]*$", re.I)


# A clause chain whose later clause is the speaker's: "The Corsa failed its MOT so badly I
# scrapped it and got a Honda Jazz" (with a specific after it, not "... and we talked a lot").
_CHAIN_LINK = re.compile(r"\b(?:so|and|but|then|that|so\s+(?:[a-z]+ly|much|bad|long)"
                         r"(?:\s+that)?)\s*$", re.I)
_NOT_SPECIFIC = frozenset("""i i'm i've i'd i'll we we're we've we'd we'll my our me us it it's
    this that the a an so and but honestly yeah""".split())
"""Capitalised words that name nothing (a sentence opens with them)."""


def _specific(text: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether `text` names something: a number, or a capitalised word that is neither a
    pronoun ("I", "We") nor one of `names` (the participants', lower case: "..., John" names
    no thing)."""
    return any(w[0].isdigit() or (w[0].isupper() and w.lower() not in _NOT_SPECIFIC and
                                  w.lower() not in names)
               for w in ANY_WORD.findall(text.replace("\u2019", "'")))


# A routine named with "the", moved to another day or time: "The Spanish lessons have switched
# to Thursday evenings", "the choir's moved to Mondays" (not "The meeting moved along nicely").
_THE_ROUTINE_MOVED = re.compile(
    r"^\W*the\s+(?:[A-Za-z]+\s+){0,2}(?:lessons?|class(?:es)?|club|practice|training|sessions?|"
    r"rehearsals?|group|shifts?|rota|choir|appointments?|clinic|surgery|service)(?:'s|\u2019s)?\s+"
    r"(?:has\s+|have\s+|is\s+|are\s+)?(?:been\s+)?(?:moved|switched|changed|shifted|"
    r"rescheduled)\s+(?:back\s+)?to\s+(?:the\s+)?(?:(?:first|second|third|last)\s+)?"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d|mornings|afternoons|evenings"
    r"|weekends|noon|midday)", re.I)


def routine_changed(body: str) -> bool:
    """Whether `body` says a routine of the speaker's, by its bare name, changed ("Japanese
    class has moved online", "Book club switched to Wednesdays", "The Spanish lessons have
    switched to Thursday evenings")."""
    if _THE_ROUTINE_MOVED.match(body):
        return True
    return bool(_THING_SUBJECT.match(body) and _THING_CHANGED.search(body)) and \
        not re.match(r"\W*(?:the|a|an|this|that|it|there)\b", body, re.I) and \
        not re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I) and \
        not re.match(r"\W*\w+\s+(?:has|have|had|is|was|are|were|will|would|can|could)\b", body)


def gone_from(sentence: str) -> bool:
    """Whether `sentence` says someone is no longer where they were ("so she's not at the
    library anymore"): a fact about them, said by a pronoun."""
    return _PRONOUN_GONE.search(sentence) is not None


_STANDING = re.compile(
    r"^\W*(?:(?:really\s+|just\s+)?not\s+(?:a\s+(?:big\s+|huge\s+|massive\s+)?fan\s+of|keen\s+on)"
    r"|can'?t\s+stand|never\s+(?:been\s+)?a\s+fan\s+of)\s+"
    r"(?!(?:that|this|it|those|these|them|your|the\s+(?:idea|sound|look))\b)\w"
    r"|^\W*(?:[£$€]\d[\d,.]*|\w+\s+(?:quid|pounds|dollars|euros|grand))\s+is\s+(?:the\s+most|"
    r"my\s+(?:limit|budget|max(?:imum)?|ceiling))\b", re.I)
"""A standing dislike or limit said with no subject ("Not a fan of coriander at all", "Forty
quid is the most I can stretch to"): the speaker's, and worth keeping."""


def standing(clause: str) -> bool:
    """Whether `clause` is a dislike or a limit said with no subject (`_STANDING`): kept
    whatever its score, as a need is."""
    return _STANDING.match(_OPENER_WORDS.sub("", clause.strip(), count=1)) is not None


def is_fact(sentence: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether a sentence states a fact worth keeping: a declarative (not a request, question or
    greeting) whose subject is the speaker ("I'm vegan", "My daughter Lies is 7", "Last year
    we moved to Lyon"), or, without first person, one that carries a number or date ("The rent
    went up to 1,250 euros"). Not an attitude toward the listener ("I'm sure you'll find the
    right spot, John"), nor small talk about the conversation ("something awesome happened
    since we talked"). `names`: the participants' names (lower case), which are not content."""
    if is_request(sentence) or _GREETING.match(sentence):
        return False
    body = without_vocative(_OPENER_WORDS.sub("", sentence.strip(), count=1))
    body = _TIME_LEAD.sub("", body, count=1) or body
    if _STANDING.match(body):
        return True  # "Not a fan of coriander at all", "Forty quid is the most I can spend"
    if is_fragment(body):
        return False  # "My husband.", "For the slow reply.": no verb, no fact
    verdict = _VERDICT.match(body)
    if verdict is not None and not _specific(verdict.group("verdict"), names):
        return False  # "My partner thinks the new Bond film is rubbish": a view, no fact
    words = [w for w in FACT_WORD.findall(body.replace("\u2019", "'"))
             if w.lower() not in names]
    content = [w for w in words if w.lower() not in FACT_STOPWORDS and not w[0].isdigit()]
    first = _SPEAKER_SUBJECT.search(body)
    if dropped_subject(body) and len(content) >= 2:
        return True  # the speaker's own news with the subject dropped
    if first is not None:
        if _TALK.search(body) and not _specific(body, names):
            return False  # "I'll let you know how it goes", "I'm here for you"
        frame = _ATTITUDE.match(body)
        if frame is not None:
            rest = body[frame.end():]
            rest_content = [w for w in FACT_WORD.findall(rest) if w.lower() not in FACT_STOPWORDS
                            and w.lower() not in names]
            if not _FIRST_PERSON.search(rest) or len(rest_content) < 2 or \
                    re.search(r"\byou(?:r|'re|'ll|'d)?\b", rest, re.I):
                return False
        # The speaker is the subject: first person within the first words ("Last year I ...",
        # "My ...") or opening a clause ("..., I've got news"), not deep in a trailing clause
        # ("something awesome happened since we talked").
        before = body[:first.start()]
        if content and (len(ANY_WORD.findall(before)) <= 3 or _LEAD_PHRASE.match(before) or
                        re.search(r"[,;:\u2013\u2014-]\s*$", before) or
                        (_CHAIN_LINK.search(before) and _specific(body[first.end():], names))):
            return True
    if (_PRONOUN_FACT.match(body) or _PRONOUN_GONE.search(body)) and \
            not re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I):
        return True
    since = _SINCE_CLAUSE.match(body)
    if since is not None and (_THING_SUBJECT.match(since.group(1).capitalize()) or
                              _HELD_AT.match(since.group(1)) or
                              is_fact(since.group(1), names)):
        return True  # "Since The Crown closed, book club meets at the library"
    if (_THEIRS_IS.match(body) or _KIN_OF_THEIRS.match(body)) and \
            not re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I):
        return True  # "Ella's violin teacher is Mrs Okoro": someone's, named
    if routine_changed(body):
        return True  # "Japanese class has moved online": a routine of the speaker's changed
    if _CHANGED_ME.search(body) and not re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I):
        return True  # "The optician switched me to daily lenses": the speaker's
    if world_fact(body, names):
        return True  # "The vet who did Rufus's operation was Dr. Hallorann" (`step/shapes`)
    if names_my_role(body):
        return True  # "Helen coaches me now": who the speaker's coach is
    if _OWN_AGE.match(body):
        return True  # "I'm 34.": no word but the number, and a fact
    named = _NAME_FACT.match(body)
    if (_NAMED.match(body) or (named is not None and named.group(1).lower() not in
                               FACT_STOPWORDS and named.group(1).lower() not in _CALENDAR and
                               len(content) >= (2 if named.group("where") else 3))) and \
            (not words or words[0].lower() not in names) and \
            not re.search(r"\byou(?:r|'re|'ll)?\b", body, re.I):
        return True  # "She's a corgi called Biscuit": someone of the speaker's, named
    # Not about the speaker: kept only with specifics, and not addressed to the listener. A
    # change announced with a day or month is one ("Her teacher switched her slot to Mondays").
    low = [w.lower() for w in words]
    has_value = any(ch.isdigit() for ch in counted(body)) or \
        _AGE_IN_WORDS.search(body) is not None or (  # ("four days", "six years old")
        (any(w in _CUE_WORDS for w in low) or _ON_DAYS.search(body) is not None)
        and any(w in _CALENDAR or w.rstrip("s") in _CALENDAR for w in low))
    return has_value and len(content) >= 2 and not re.search(r"\byou(?:r|'re|'ll)?\b", body,
                                                             re.I)


_AGE_IN_WORDS = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                           r"twelve|thirteen|fourteen|fifteen)\s+years?\s+old\b", re.I)
"""An age in words ("six years old"), a value as a number is ("four days": `counted`)."""


# --- one copy of each fact -------------------------------------------------------------------

_CUE_WORDS = frozenset("correction actually moved changed change longer anymore instead "
                       "rescheduled postponed update updated now switched turns out wrong "
                       "earlier mistake scratch meant".split())
_CUE_WORDS = _CUE_WORDS | {w[:-2] for w in _CUE_WORDS if w.endswith("ed")}  # as stemmed

_CALENDAR = frozenset("""january february march april may june july august september october
    november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday
    thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun""".split())
_COPULA = re.compile(r"\s(?:is|are|was|were|=)\s|:\s", re.I)
# A routine's day: "Book club is on the first Tuesday", "Bins are collected every Monday".
_ON_DAYS = re.compile(r"\b(?:is|are)\s+(?:\w+\s+)?(?:on|every)\b|\b(?:on|every)\s+(?:mon|tues|"
                      r"wednes|thurs|fri|satur|sun)days?\b", re.I)


def _words(text: str) -> list[str]:
    return FACT_WORD.findall(text)
