"""Whether an organisation a statement is "with", "at" or has "joined" is one the holder uses
or studies at, not one that employs them: a provider ("I'm with Three now for my phone"), an
app ("just joined Strava, trying to log my runs"), a gym ("I've joined F45 in town"), a bank
or a shop one uses, a place of study ("started at Leeds Beckett, doing a part-time masters").
Read before the supersede rule takes such a statement for a new employer (`placekind.reread`)
and by `step/orgs.py` for the employer a frame gives: a wrong employer replaces the held one,
and that is data loss. A word of work in the sentence ("started at PureGym as a trainer",
"I'm with Monzo now, same job") keeps it an employer. Pure: reads the texts only.
"""

from __future__ import annotations

import re

from . import families
from .categories import FAMILIES

_WORK = re.compile(r"\b(?:work\w*|job|jobs|role|staff|shifts?|hired|employ\w*|career|colleagues?|"
                   r"boss|manager|wages?|salary|pay|payroll|team|office|department|site|"
                   r"as\s+an?\s+[a-z-]+)\b", re.I)
"""A word of work: the organisation is where the holder works, whatever it is."""
_NOT_USED = frozenset({"food shop", "pharmacy", "optician", "club", "football club", "commute",
                       "diet", "work pattern", "shift", "hours"})
"""Families whose members are no service one uses: a shop is an employer too ("started at
Lidl"); a club's name is a town's ("started at Bolton Council": `placekind` reads clubs)."""
_FOR_MINE = re.compile(
    r"\bfor\s+(?:my|our|the|his|her|their)\s+(?:(?:new|home|work|mobile|main|old)\s+)?(?:phones?|"
    r"mobiles?|sim|data|broadband|internet|wi-?fi|fibre|tv|telly|energy|gas|electric\w*|power|"
    r"insurance|cover|mortgage|savings|current\s+account|account|banking|loan|pension|music|"
    r"podcasts?|workouts?|runs?|training|fitness|classes|streaming|shopping|groceries|"
    r"deliveries|car|van|home|house|flat|pet|dog|cat)\b", re.I)
"""What one uses it for ("with Vodafone now for my phone", "with Sky for broadband")."""
_USE = re.compile(
    r"\b(?:app|apps|download\w*|log(?:s|ged|ging)?\s+(?:my|our|all)|track(?:s|ed|ing)?\s+(?:my|our)|"
    r"sign(?:ed|ing)?\s+up|subscri\w+|membership|member|members|classes|class|workouts?|"
    r"sessions?|pool|gym|premium|customers?|broadband|tariff|"
    r"followers|profile|feed|banking)\b|"
    r"\bfor\s+(?:broadband|internet|phone|mobile|energy|gas|insurance)\b", re.I)
"""A word of using a service, never of working at it."""
_APPS = re.compile(r"(?-i:\b(?:Strava|Komoot|Duolingo|Instagram|TikTok|Snapchat|Hinge|Tinder|"
                   r"Bumble|WhatsApp|Nextdoor|Vinted|Depop|Zwift|MyFitnessPal|Parkrun|parkrun|"
                   r"Goodreads|Letterboxd|Pinterest|Reddit|Discord|Mastodon|Bluesky|Substack|"
                   r"Patreon|Facebook|Couch\s+to\s+5k|Headspace|Calm)\b)")
"""An app or a site one joins as a user, hardly ever as an employer ("just joined Strava")."""
_STUDY = re.compile(
    r"(?-i:\b(?:University|College|School|Academy|Institute|Uni)\b)(?!\s+(?i:hospitals?|"
    r"trust|press)\b)|\b(?:degree|(?<!training\s)(?<!induction\s)course|studying|student|lessons|classes|diploma|masters|"
    r"master's|mba|phd|doctorate|bsc|msc|ba|ma|a-levels?|gcses?|modules?|lectures|"
    r"apprenticeship\s+with)\b", re.I)
"""A place one studies at, or study said ("started at the Open University, doing a degree")."""
_NAMED = re.compile(r"\b(?i:with|at|joined|joining|to|for|into|through)\s+(?:(?i:the)\s+)?"
                    r"([A-Z0-9][\w&'-]*(?:\s+[A-Z0-9][\w&'-]*){0,3})")
_JOINED = re.compile(r"\b(?i:joined|joining|started|starting|moved|moving|gone|went|switched|"
                     r"signed\s+up)\s+(?:(?i:over|across)\s+)?(?:(?i:at|with|to)\s+)?"
                     r"(?:(?i:the)\s+)?([A-Z0-9][\w&'-]*(?:\s+[A-Z0-9][\w&'-]*){0,3})")
"""A name joined or moved to: a service's brand there is one used ("joined F45"); "at John
Lewis now" may be a shop's or an insurer's name, and is weighed by `orgs.changed`."""


def a_service(name: str, sentence: str) -> bool:
    """Whether `name` is a brand of a service one uses (a bank, an energy supplier, a phone
    network, a gym: `step/categories.py`, not a shop nor a club) and `sentence` says no work."""
    return _WORK.search(sentence) is None and any(
        families.members(name, fam, brands=True) or families.members(name, fam, switched=True)
        for fam in FAMILIES if fam.name not in _NOT_USED)


def studied(name: str, sentence: str) -> bool:
    """Whether `name` (or its `sentence`) is a place one studies at or says study."""
    return bool(_STUDY.search(name) or _STUDY.search(sentence))


def used_for(sentence: str) -> bool:
    """Whether `sentence` says what an organisation is used for, a word of using a service or
    an app's name ("for my phone", "log my runs", "the classes", "Strava") and no word of work."""
    return _WORK.search(sentence) is None and bool(_FOR_MINE.search(sentence) or
                                                   _USE.search(sentence) or _APPS.search(sentence))


def not_work(said: str, sentence: str = "") -> bool:
    """Whether `said`, read as an employer by its frame ("I'm with X now", "joined X", "started
    at X"), names an organisation one uses or studies at (see the module docstring): what it is
    used for, a word of using a service, a service's brand, or study, and no word of work."""
    sentence = sentence or said
    if _WORK.search(sentence) is not None:
        return False
    return used_for(sentence) or any(a_service(m.group(1), sentence) for m in
                                     _JOINED.finditer(said)) or \
        any(studied(m.group(1), sentence) for m in _NAMED.finditer(said))


__all__ = ["a_service", "not_work", "studied", "used_for"]
