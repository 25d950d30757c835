"""The attributes the supersede rule names (`step/supersede.py`), and how each is read: where
someone lives, whom they work for, what they do, their age, rent, car, shift, a routine's day,
an appointment by its kind, how they get to work, ... Tried in order; the first that matches a
statement names its attribute. Pure data and one predicate (`_occupation`); the rule that uses
them is in supersede.py.
"""

from __future__ import annotations

import re

from .endings import LEFT_WORK
from .lexicon import NUMBER_WORD
from .occupations import NOT_A_THING, RETIRED, role, trade

_INSTITUTION = r"(?:school|primary|academy|grammar|college|university|uni|nursery|juniors|" \
               r"infants|secondary|high|kindergarten|prep|sixth\s+form|boys|girls)"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTHS = r"(?:january|february|march|april|may|june|july|august|september|october|november|" \
          r"december)"
# "I'm at Aldi now", "Mum's with Ocado now": an employer, unless said as where one is at the
# moment (`where_one_is`).
_AT_NOW = (r"^\W*(?:(?:i'?m|i\s+am|she'?s|he'?s|is|are|s)\s+)?(?:at|with)\s+"
           r"(?!(?-i:Dr|Mr|Mrs|Ms|Miss|Prof)\b)(?-i:[A-Z])\w*(?:\s+\w+)?\s+now\b")
# A street address: a house number and a street by its suffix ("42 Marsh Lane", "7a Elm Road").
_STREET = (r"\d{1,4}[a-z]?,?\s+(?-i:[A-Z][\w'-]+)(?:\s+(?-i:[A-Z][\w'-]+)){0,2}\s+"
           r"(?-i:Road|Rd|Street|St|Lane|Ln|Avenue|Ave|Close|Drive|Way|Crescent|Place|Grove|"
           r"Terrace|Gardens|Court|Hill|Row|Square|Park|Mews|Walk|View|Rise|Green|Parade)\b")
# How the holder gets somewhere regular ("I cycle to the office", "I take the tram to work"):
# the destination names the attribute ("travel to office"), the means is its value; read before
# the car ("drive") and a medication ("take").
_TRAVEL = re.compile(
    r"\b(?:(?:walk|cycl|bik|driv|rid|run|jog|commut|car-shar)\w*|drive|ride|cycle|bike"
    r"|(?:take|takes|taking|took|get|gets|getting|catch|catches|catching)\s+(?:the\s+|a\s+)?"
    r"(?:[\d:.]+\s+)?(?:bus|train|tram|tube|metro|subway|ferry|car|bike|taxi|coach|boat))"
    r"(?:\s+(?:in|it|there))?\s+(?:to|into)\s+(?:the\s+|my\s+|our\s+)?(work|office|school|college"
    r"|uni|university|station|campus|city|town|hospital|site|depot|studio|lab|shop|warehouse)\b",
    re.I)
_AGE_WORDS = r"(?!zero\b)(?:" + NUMBER_WORD.replace(" ", r"\s+") + r")\b"
"""An age in words ("she's ten!", "Pickle is seven."), one to ninety-nine."""
_RANGE = (r"(?:from\s+)?\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)?\s*(?:to|till|til|until|-|\u2013)\s*"
          r"\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm)?\b")
# Tried in order; the first that matches names the attribute. Specific nouns come before the
# verbs that could carry them ("my rent is 950" is rent, not an age).
_ATTRIBUTES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx, re.I)) for name, rx in (
        ("rent", r"\brent\b(?!\s+(?:a|an|our|my|the)\s)"),  # not "we rent a flat in ..."
        ("mortgage", r"\bmortgage\b"),
        # (what one is paid by any word: "my pay went up to £35,000", "I'm on £36,000")
        ("salary", r"\b(?:salary|pay\s+rise|paid\s+\S+\s+an?\s+(?:hour|year)|earn|earns|wages?)\b"
                   r"|\b(?:my|our|his|her|their)\s+(?:take-home\s+|hourly\s+|basic\s+)?pay\b"
                   r"(?!\s+(?:for|off|back|day|slip))"
                   r"|\b(?:i'?m|i\s+am)\s+(?:now\s+)?on\s+(?:[£$€]\d[\d,.]*k?|\d+(?:\.\d+)?k)\b"
                   r"|^\W*(?:is|'s|are)\s+(?:now\s+)?on\s+(?:[£$€]\d{1,3},\d{3}|[£$€]?\d+(?:\.\d+)?k)\b"
                   r"(?!\s+(?:a|per)\s+(?:week|month|day)\b|\s+(?:steps|miles|words|followers))"),
        # A weight said of the holder, not any weight ("I can lift 80 kg now" is no weight).
        ("weight", r"\b(?:weigh|weighs|weight)\b|\bweighed\s+in\s+at\b|"
                   r"(?:'m|\bam|\bis|\bare|\bdown\s+to|\bup\s+to|"
                   r"\bat|\bnow|\blost|\bgained|\bput\s+on)\s+"
                   r"(?:about\s+|around\s+|another\s+|currently\s+|roughly\s+)?"
                   r"\d+(?:\.\d+)?\s*(?:kg|kilos?|lbs?|stone)\b"),
        ("height", r"\b(?:height|tall|cm)\b"),
        ("date of start", r"\bstart(?:s|ing)?\s+(?:date|day|on)\b|\bstart\s+date\b"),
        # The time one starts work ("I start work at eight", "I don't clock on till eleven
        # now"), not whom one works for.
        ("start time", rf"\b(?:i|we)\s+(?:now\s+|usually\s+|normally\s+|don't\s+|do\s+not\s+|"
                       rf"won't\s+)?(?:start|begin|clock\s+(?:on|in))\s+(?:work\s+|my\s+shift\s+)?"
                       rf"(?:at|till|until|from)\s+(?:\d|half\s|noon|midday|{_AGE_WORDS})"),
        ("shift", r"\b(?:shift|shifts|rotas?|(?:work|working|works|on)\s+nights|earlies|lates"
                  r"|(?:switched|moved|changed|went|gone|back)\s+(?:on\s+)?to\s+(?:days|nights|earlies"
                  r"|lates)|(?:i'?m|i\s+am)\s+(?:now\s+|back\s+)?on\s+days(?!\s+off))\b"),
        # What a pet or a person is fed, by a brand ("eats Felix pouches", "on Purina renal food").
        # The hours one works, a range of the clock ("I work 9 to 5:30", "my hours have changed
        # to 7 till 3"): before a weekday "Monday to Friday" would read as.
        ("hours", rf"\b(?:work|works|working|(?:i'?m|i\s+am)\s+(?:now\s+)?(?:doing|on))\s+"
                  rf"(?:now\s+)?{_RANGE}|\b(?:my|our|his|her|their|work(?:ing)?)\s+hours\b"),
        ("food", r"\b(?:eats?|fed|feeds?|on)\s+(?-i:[A-Z])\w*(?:\s+\w+)?\s+"
                 r"(?:food|pouch(?:es)?|kibble|biscuits|tins|formula)\b"
                 # a brand eaten ("eats Lily's Kitchen"), or one a pet is on (`PET_FOOD`)
                 r"|^\W*(?:eats?|eating|fed|feeds?)\s+(?:on\s+)?(?-i:[A-Z])"),
        ("diet", r"\b(?:i'?m|i\s+am|we'?re|we\s+are|is|are|became|become|went|gone|going|"
                 r"turned|call\s+myself|consider\s+myself)\s+(?:now\s+|a\s+|fully\s+|strictly\s+|not\s+|no\s+longer\s+)*"
                 r"(?:vegetarian|vegan|pescatarian|keto|carnivore)\b|\beat\s+meat\b"
                 r"|\b(?:(?:on|to|follow\w*|start\w*|try\w*)\s+(?:a|an|the)\s+(?:[\w-]+\s+)?"
                 r"|my\s+)diet\b"),
        # Where a person studies, by an institution's name ("goes to Brookside Primary", "is
        # at Oakfield Academy now"): before the employer and the residence it would read as.
        ("school", rf"\b(?:(?:goes|go|going|stud(?:y|ies|ying)|started|starts|is|'s|are|moved|"
                   rf"moving|transferred|transferring)\s+(?:up\s+)?"
                   rf"(?:(?:reception|nursery|year\s+\d+|\w+\s+form)\s+)?(?:to|at|in)|attends?|"
                   rf"attending)\s+(?:the\s+)?(?:{_INSTITUTION}\b|(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])"
                   rf"[\w'-]*){{0,3}}\s+{_INSTITUTION}\b)|\bstud(?:y|ies|ying)\s+at\b"
                   # a school year started at a place by name: "started reception at St Mary's"
                   rf"|\b(?:started|starts|starting|into)\s+(?:the\s+)?(?:reception|year\s+\d+|nursery|"
                   rf"sixth\s+form)\s+"
                   rf"(?:at|in)\s+(?:the\s+)?(?-i:[A-Z])"),
        # "Kofi transferred to Newcastle": where they study or work, whichever is held.
        ("transfer", r"\b(?:transferred|transferring)\s+(?:to|from)\b"),
        # (lower case: "22 Rowan Drive" is a street, not a car)
        # (the noun is no car: "boost my drive to keep dreaming", "a long drive", "the drive home";
        # nor work: "drives for a courier firm")
        ("car", r"(?<!\bmy\s)(?<!\bour\s)(?<!\bthe\s)(?<!\ba\s)(?<!\bhis\s)(?<!\bher\s)"
                r"(?<!\byour\s)(?<!\blong\s)(?<!\bshort\s)(?<!\blonger\s)(?<!\bshorter\s)"
                r"(?-i:\b(?:drive|drives|driving)\b)(?!\s+(?:instructor|examiner|test|lessons?|"
                r"school|range|for))|\b(?:car(?!\s+park)|sold\s+the|van)\b"),
        # A bike is not the car: "My bike is a Brompton" leaves "I drive a Skoda" as it is.
        ("bike", r"\b(?:bike|bicycle|motorbike|scooter|e-bike)\b"),
        # The team one plays for ("plays for Hartley Juniors", "signed for Crossbridge Rovers",
        # "joined Northfield Juniors"): before the employer "joined" would read as.
        # (a sport may be named between: "plays rugby for Brookhill Juniors")
        ("team", r"\b(?:plays?|playing|signed|signs|signing|turns?\s+out)\s+(?:now\s+)?"
                 r"(?:(?:football|rugby|cricket|hockey|netball|basketball|volleyball|water\s+polo)"
                 r"\s+)?for\s+(?:the\s+)?(?-i:[A-Z])|\b(?:joined|joining|joins|moved\s+to)\s+"
                 r"(?:the\s+)?(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?\s+(?-i:FC|AFC|RFC|RUFC|"
                 r"CC|HC|United|Rovers|Juniors|Colts|City|Town|Athletic|Wanderers|Rangers|Albion|"
                 r"Harriers|Under-?\d+s?|U\d+s?)\b"),
        ("employer", r"^(?:\W*['\u2019]s)?\s*(?:(?:has|have|had|just|now|finally)\s+)*"
                     r"jump(?:ed|s)?\s+ship\s+to\b"  # "Ravi's jumped ship to EY"
                     r"|\b(?:work(?:s|ing)?\s+(?:(?:in|on)\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,3}?"
                     r"(?:team|department|dept|office|division|unit|section|side)\s+)?(?:at|for)"
                     r"|employer|(?:job|role|position|post)\s+(?:at|with)\s+(?-i:[A-Z])\w*|employed|"
                     r"hired\s+by|joined|company|started\s+(?:at|with)\s+(?-i:[A-Z])\w*)\b"
                     # a named place one has been at for years ("I've been at Arup for three
                     # years"; a school, a club or a gym is told by its name: placekind)
                     r"|(?:'ve|\bhave|'s|\bhas)\s+been\s+(?:at|with)\s+(?-i:[A-Z])[\w&'-]*"
                     r"(?:\s+(?-i:[A-Z])[\w&'-]*){0,3}\s+(?:for|since)\s+(?:about\s+|nearly\s+|"
                     r"almost\s+|over\s+|the\s+(?:last|past)\s+)?(?:\w+\s+)?(?:years?|months?|\d{4})\b"
                     # ("'s at Aldi now" / " at Aldi now": the rest of "Ravi's at ...", "Mum's at")
                     rf"|{_AT_NOW}"),
        ("job", r"\bwork(?:s|ing)?\s+as\b|\bjob\s+(?:is|as)\b|\bpromoted\s+to\b"
                r"|\b(?:qualified|retrained|trained|started|starting|starts|training|retraining)"
                r"\s+as\s+an?\s"
                # ("does a few hours a week as a driving instructor")
                r"|\b(?:does|doing|do)\s+(?:a\s+few|some|\w+)\s+(?:hours|days|shifts)\s+"
                r"(?:a\s+week\s+)?as\s+an?\s"
                r"|\b(?:training|retraining|studying)\s+to\s+(?:be|become)\s+an?\s"
                r"|\bteach(?:es|ing)?\s+(?:at|in)\b"
                r"|\b(?:job\s+)?title\b|\bcareers?\b"),
        ("residence", r"\b(?:live|lives|living)\s+(?:with\s+(?:my|our)\s+\w+\s+)?(?:in|at|on)\b"
                      # lived there up to now ("I've lived in Harrogate for six years")
                      r"|(?:'ve|\bhave|'s|\bhas)\s+(?:\w+\s+)?lived\s+(?:in|at|on)\b"
                      # a street address by its shape ("We're at 42 Marsh Lane now", "our new
                      # place is on Kingsway"), said of the speaker's home
                      # ("I'm at 3 Church Street till five": where one is, not one's home)
                      rf"|\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+(?:at|on)\s+{_STREET}|"
                      rf"(?:officially|finally|properly)\s+(?:now\s+)?(?:at|on)\s+{_STREET}|"
                      rf"(?:at|on)\s+{_STREET}(?=[\s,]+(?:now|these\s+days)\b))"
                      r"|(?:\b(?:my|our)\s+|^\W*)(?:new\s+)?(?:place|house|flat|home|apartment|"
                      r"address)\s+(?:is|'s)\s+(?:now\s+)?(?:at|on|in)\s+(?-i:[A-Z0-9])"
                      r"|(?<!email\s)\baddress\b"
                      r"|\b(?:rent|rents|renting|own|owns|bought|buy|buying)\s+(?:a|an|our|my)"
                      r"\s+(?:[\w-]+\s+){0,2}(?:flat|house|home|apartment|place|bungalow|cottage"
                      r"|semi|terrace|maisonette|bedsit|townhouse|condo)"
                      r"\s+(?:in|on|at)\b"
                      r"|\b(?:moved|move|moving|relocat(?:ed|ing)(?:\s+again,?)?(?:\s+(?:down|up))?)"
                      r"\s+(?:back\s+|over\s+|out\s+)?(?:to|into|in\s+with)\b"
                      rf"(?!\s+(?:the\s+)?(?:\d|{_WEEKDAY}s?\b|{_MONTHS}\b))"
                      r"|\bbased\s+in\b|\bmoved\s+(?:house|home)\b"
                      # (settled in a place by name: "Maelle has settled in Ullapool now")
                      r"|\b(?:settled|settling)\s+(?:down\s+)?in\s+(?-i:(?!Primary|Year|Reception|"
                      r"Nursery|Sixth)[A-Z])"
                      # a home bought ("completed on the house in Stockport", "got the keys to a
                      # flat in Hove")
                      r"|(?:^\W*|\b(?:we|i)(?:'ve|\s+have)?\s+(?:\w+\s+)?)"
                      r"(?:completed\s+on|got\s+the\s+keys\s+(?:to|for))\s+(?:the|a|an|our|my)\s+"
                      r"(?:new\s+)?(?:house|flat|place|home|bungalow|cottage)\s+(?:in|on|at)\b"
                      # "Marcus is in Phoenix now" (not "in Paris now for the week", a trip)
                      r"|\b(?:is|are|'s|'re)\s+in\s+(?-i:[A-Z])[a-z]+(?:\s+(?-i:[A-Z])[a-z]+)?"
                      r"\s+(?:now|these\s+days|nowadays)\b(?!\s+(?:for|on|visiting|with|until|till)\b)"
                      # "renting in Bath now", "in a care home in Broadstairs"
                      r"|\b(?:is|are|'s|'re|now)\s+renting\s+in\s+(?-i:[A-Z])"
                      r"|^(?:\W*(?:she|he)?['\u2019]s)?\s*(?:(?:is|are|has|have|had|been|gone|went|now|"
                      r"living)\s+)*in(?:to)?\s+(?:a\s+|the\s+)?(?:care|nursing|residential|"
                      r"retirement)\s+home\b"
                      r"|\bkeys\s+(?:to|for)\s+(?:my|our|the)\s+(?:[\w-]+\s+){0,2}(?:flat|house|home"
                      r"|place|apartment)\s+in\b"
                      # moved in, said by its end: "settled into the new house in Oxford"
                      r"|\bsettled\s+in(?:to)?\s+(?:the|our|my)\s+(?:new\s+)?(?:flat|house|home"
                      r"|place|apartment)\s+in\b"
                      # an address one has been at since ("We've been at 3 Willow Court since
                      # March"; not "I've been at 3 Church Street all day")
                      rf"|\b(?:i|we)(?:'ve|\s+have)\s+been\s+(?:at|on)\s+{_STREET}"
                      r"(?=[^.;]*\b(?:since|now|these\s+days)\b)"
                      # "moved down to Stirling" (a place by name; not "moved up to teach")
                      r"|\b(?:moved|moving|relocated)(?:\s+again,?)?\s+(?:down|up|across|away)\s+to\s+"
                      r"(?!(?-i:Year|Grade|Level|Set)\b)(?-i:[A-Z][a-z]+)"
                      # an address: "moved round the corner to 3 Mill Lane"
                      r"|^\W*(?:(?:i|we|they|he|she)(?:'ve|'d|'s)?\s+)?(?:(?:have|has|had|just|"
                      r"now|finally|recently|all|got)\s+)*(?:moved|move|moving)\s+(?:[a-z]+\s+){0,4}?"
                      r"(?:to|into)\s+"
                      r"(?:number\s+)?\d+[a-z]?,?\s+(?-i:[A-Z][a-z]+\s+[A-Z][a-z]+)\b"
                      r"|\bhome\s+is\b"),
        ("phone", r"\b(?:phone|mobile|cell)(?:\s+number)?\b|\biphone\b"
                  r"|\b(?:pixel\s+|galaxy\s+[a-z]?|samsung\s+(?:galaxy\s+)?[a-z]?)\d{1,2}\b"),
        ("email", r"\bemail\b"),
        ("school", r"\b(?:school|nursery|grade|year\s+\d)\b"),
        ("name", r"\b(?:called|named|name\s+is|name's)\b"),
        ("age", r"\b(?:turned|turns|turning|aged?)\s+\d{1,3}\b|\b\d{1,3}\s*(?:years?|yrs?)\s+old\b"
                rf"|(?:\b(?:is|am|are)|'s|\u2019s|'m)\s+(?:now\s+)?(?:\d{{1,3}}|{_AGE_WORDS})"
                r"(?:\s+(?:now|already))?\s*(?:[.!,;]|$)"
                r"|^\W*(?:i'?m|i\s+am)\s+(?:now\s+)?\d{1,2}(?:\s+now)?\s*[.!]*$"
               r"|(?<!'s\s)(?<!\u2019s\s)(?<!\ba\s)(?<!\ban\s)\b\d{1,3}(?:st|nd|rd|th)\s+birthday\b"),
        # A routine's day or rate: the same attribute only for the same routine (`_SLOTS`):
        # "I see my physio every Tuesday" / "My physio sessions are on Thursdays now".
        ("weekday", rf"\b(?:every|on|each|to)\s+{_WEEKDAY}s?\b|\b{_WEEKDAY}s\b"),
        ("rate", r"\b(?:once|twice|(?:\w+|\d+)\s+times|(?:\d+|one|two|three|four|five|six|"
                 r"seven|eight|nine|ten|a\s+couple\s+of|a\s+few)\s+(?!pounds|dollars|euros|"
                 r"quid|grand)\w+)\s+(?:a|per|each|every)\s+(?:day|week|month|night|year)\b"),
    ))
# "I'm a sous chef", "My sister is a teacher (at ...)": what the holder does, when the noun is
# an occupation's (`occupations.trade`: a title of the lexicon, or by its ending), not a hobby
# or a habit ("a member", "a runner", "a night owl"). The copula may be gone with the holder,
# as a space ("My nan's a lollipop lady now": " a lollipop lady now"); a clause of its own
# opening "a" is no predicate ("Evie's 13 now, a proper teenager").
_PREDICATE = re.compile(r"^(?:\W*(?:i'?m|i\s+am|is|are|was|'s)\s+|\s+)(?:now\s+)?an?\s+"
                        r"((?:(?!(?:at|in|on|for|with)\b)[a-z-]+\s+){0,3}([a-z-]+?))"
                        r"(?:\s+(?:at|in|on|for|with)\b.*)?[\s.!]*$", re.I)
def _occupation(rest: str) -> bool:
    """Whether `rest` ("is a teacher at ...") says what the holder does for a living."""
    m = _PREDICATE.match(re.sub(r"\s+(?:now|these\s+days|nowadays|at\s+the\s+moment)\s*([.!]*)"
                                r"\s*$", r"\1", rest, flags=re.I))
    return m is not None and trade(m.group(1))


# Change of a thing named by its kind ("switched schools", "changed dentists"): the attribute
# is the kind's; its value follows ("..., he's at Oakfield now", "it's Dr Varga now").
_SWITCHED = re.compile(r"\b(?:switched|changed|swapped)\s+([a-z]+?)(?:e?s)\b", re.I)
_KIND_ATTRIBUTE = {"school": "school", "nursery": "school", "nurseri": "school",
                   "college": "school", "uni": "school", "universiti": "school",
                   "job": "employer", "employer": "employer", "career": "job", "car": "car",
                   "phone": "phone", "address": "residence", "home": "residence",
                   "house": "residence", "flat": "residence"}
# Kinds of appointment (the attribute is "appointment <kind>"): the dentist's is not the GP's.
_APPOINTMENT = re.compile(r"\b(appointment|appt|check-?up|booking|reservation|interview|"
                          r"flight|meeting|surgery)\b", re.I)
_APPOINTMENT_KIND = re.compile(r"\b(dentist|dental|doctor|gp|hospital|vet|hair|haircut|barber|"
                               r"eye|optician|physio|therap\w*|job|flight|visa|mot|car)\b", re.I)
SAME_KIND = {"doctor": "gp", "surgery": "gp", "dental": "dentist", "haircut": "hair",
             "barber": "hair", "optician": "eye"}
"""Words of one appointment kind ("the Lordswood surgery" / "changed GP surgery")."""
# Several at once: an allergy, a medication and a pet are told apart by what they name.
_MULTI = re.compile(r"\b(allerg\w*|intoleran\w*|medication|take|takes|taking)\s+(?:to\s+)?"
                    r"(?:\d+\s?(?:mg|ml|mcg|g)\s+(?:of\s+)?|an?\s+|my\s+|the\s+)?(\w+)", re.I)


# What a pet is on, by a brand ("Bruno is on Royal Canin now", "the vet put Luna on Hill's"):
# its food, unless a medicine is named ("on Metacam tablets").
PET_FOOD = re.compile(r"^\W*(?:is|'s|are|has\s+been|was)?\s*(?:now\s+|just\s+)?on\s+"
                      rf"(?!(?:{_WEEKDAY}|{_MONTHS}|weekends?|weekdays?)s?\b)(?-i:[A-Z])"
                      r"(?![^.;]*\b(?:tablets?|pills?|meds|medication|medicine|mg|antibiotics?|"
                      r"injections?|drops|steroids?|painkillers?)\b)", re.I)


def last_occupation(rest: str) -> bool:
    """Whether the last clause of `rest`, after a comma, says what the holder does now ("left
    the school in July, I'm a receptionist now", "..., he's an electrician now"): the job is
    what the sentence gives."""
    head, comma, last = rest.rpartition(",")
    last = re.sub(r"^\s*(?:he|she|they)(?='s\b|\s+(?:is|are|was)\b)", "", last, flags=re.I)
    return bool(comma) and bool(head.strip()) and _occupation(last.strip())


_LEFT_AFTER = re.compile(r"^\s*(?:and\s+|having\s+)?(?:(?:i|i've|i\s+have)\s+)?"
                         rf"(?:{LEFT_WORK}|handed\s+in|finished\s+(?:at|with))\b", re.I)


def first_occupation(rest: str) -> bool:
    """Whether the first clause of `rest` says what the holder does now and the next one what
    they left ("I'm a teaching assistant now, left the hotel in April"): the job is the first
    clause's, and a date beside it is when the old one ended."""
    head, comma, tail = rest.partition(",")
    return bool(comma) and _occupation(head.strip()) and bool(
        _LEFT_AFTER.match(tail) or _NOW_END.search(head))


_NOW_END = re.compile(r"\b(?:now|these\s+days|nowadays)\s*$", re.I)
"""A first clause that says it is so now ("I'm a project manager now, same firm though")."""


def now_occupation(rest: str) -> bool:
    """Whether `rest` says what the holder does for a living now: as its last clause ("left the
    school in July, I'm a receptionist now"), its first ("I'm a teaching assistant now, left
    the hotel"), or whole ("I'm a secondary school maths teacher": a job before a school); as
    a role taken ("'s moved into a product owner role", not "moved into a new flat") or as
    retired ("'s retired now", "retired from the library": its value is "retired")."""
    return last_occupation(rest) or first_occupation(rest) or _occupation(rest) or \
        role(rest) or RETIRED.match(rest) is not None


_WORKS_AS = re.compile(r"\bwork(?:s|ing|ed)?\s+(?:\w+\s+){1,2}as\s+an?\s+((?:[a-z-]+\s+){0,2}?"
                       r"[a-z-]+)\b(?:\s+(?:at|in|on|for|with)\b|[\s.!]*$)", re.I)


def works_as(said: str) -> bool:
    """Whether `said`, read as a shift ("I work nights as a security guard"), names the job
    done on it too: a new job replaces it."""
    m = _WORKS_AS.search(said)
    return m is not None and trade(m.group(1))


def work_alike(new: str, held: str, new_attribute: str | None,
               held_attribute: str | None) -> bool | None:
    """Whether a job and a shift, or a job and an employer (the attributes of the statements
    `new` and `held`), are one attribute of the holder's work: a shift said with the job done
    on it ("I work nights as a security guard"), else not certain; an employer and a job are
    one when either says its holder retired ("My dad retired from Nissan" / "My dad works at
    the Nissan plant"), else two."""
    if "shift" in (new_attribute, held_attribute):
        return works_as(held if held_attribute == "shift" else new) or None
    return bool(_RETIRED_WORD.search(new) or _RETIRED_WORD.search(held))


_RETIRED_WORD = re.compile(rf"\bretired\b{NOT_A_THING}|\btook\s+(?:early\s+)?retirement\b",
                           re.I)


_PASSING_BY = re.compile(
    r"\?|\b(?:waiting|queu(?:e|ing)|sat|sitting|standing|having|grabbing|getting|picking|"
    r"meeting|browsing|shopping|eating|drinking|killing\s+time|stuck)\b|"
    r"\b(?:want|fancy|need)\s+anything\b|\bfor\s+(?:a\s+|my\s+)?(?:coffee|lunch|dinner|"
    r"breakfast|brunch|drinks?|pint|bite|cuppa)\b", re.I)


def where_one_is(said: str, sentence: str = "") -> bool:
    """Whether "I'm at X now" (`said`) says where the speaker is at the moment, not who
    employs them: a passing activity or a question in its sentence ("I'm at Caffe Nero now
    waiting for my sister", "I'm at Costa now, want anything?"). "I'm at Aldi now" alone, or
    "..., pretty similar role though", stays an employer."""
    return re.match(_AT_NOW, said, re.I) is not None and \
        _PASSING_BY.search(sentence or said) is not None


_EVENT_VERBS = (
    (re.compile(r"\b(?:get|gets|getting|got)\s+married\b|\bmarrying\b", re.I), "wedding"),
    (re.compile(r"\b(?:fly|flying|flies|head|heading|heads|jetting|setting)\s+(?:out|off)\b", re.I),
     "trip"),
    (re.compile(r"\bgraduat(?:e|es|ing)\b", re.I), "graduation"))


_MOVED_THING = re.compile(
    r"\b(?:the|my|our)\s+(big\s+day|[a-z]{3,})\s+(?:has\s+been\s+|'s\s+been\s+|was\s+|is\s+|got\s+|"
    r"had\s+to\s+be\s+)(?:pushed|moved|put|postponed|brought|rescheduled)\s+(?:back\s+|forward\s+)?"
    r"(?:to|till|until)\b", re.I)
"""The thing whose date moved, by the verb's subject ("The venue flooded so the big day has
been pushed back to 20 September": the big day, not the venue)."""


def event_named(rest: str) -> str | None:
    """The event a verb names ("we're getting married on 20 September": the wedding) or a
    date was moved for ("the big day has been pushed back to ..."), whose date a statement may
    give: the same attribute as "our wedding is on 14 June"."""
    moved = _MOVED_THING.search(rest)
    if moved is not None:
        thing = " ".join(moved.group(1).lower().split())
        return "wedding" if thing == "big day" else thing
    return next((event for rx, event in _EVENT_VERBS if rx.search(rest)), None)


_DAYS = re.compile(rf"\b({_WEEKDAY})s?\b", re.I)


def other_days(new: str, held: str) -> bool:
    """Whether `new` names a day `held` does not ("I work 8 till 12 on Saturdays" beside "I
    work 9 to 5:30 Monday to Friday"): that day's own hours, not a change of the held ones."""
    days = [{d.lower() for d in _DAYS.findall(t)} for t in (new, held)]
    return bool(days[0] - days[1])
