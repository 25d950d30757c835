"""What kind of place a name is, by its own words: a school ("Oakfield Juniors", "Kingsmead
Academy"), a club ("Ashford Colts", "Wye Valley Netball", "Dulwich Hamlet FC") or a gym
("Anytime Fitness", a member of the gym family, `step/categories.py`). Read from the value,
not from the verb around it: "moved over to Oakfield Juniors" is a school whatever "moved over
to" may also mean, and "I started at Anytime Fitness" is a gym joined, not a new employer.

Used by the supersede rule where a verb names several attributes (`step/people.py`'s events:
the value's kind narrows them) and where only a verb says "employer" (`not_an_employer`).
A name whose words say no kind is None: the verb decides, as before. Pure.
"""

from __future__ import annotations

import re
from dataclasses import replace

from . import families, uses
from .attributes import where_one_is
from .categories import FAMILIES
from .claim import Claim
from .holders import pronoun, stands_for

_CAP = r"(?-i:[A-Z][\w'&-]*)"
_SCHOOL = re.compile(rf"\b{_CAP}(?:\s+{_CAP})*?\s+(?:School|Primary|Academy|Grammar|College|"
                     r"Infants|Juniors|Nursery|High|Prep|Sixth\s+Form|Secondary)\b")
# A club by the word sport names close with ("Hackney Rovers", "Ealing CC", "Kent Lightning"
# is none: no word says it).
_CLUB = re.compile(rf"\b{_CAP}(?:\s+{_CAP})*?\s+(?:FC|AFC|RFC|RUFC|CC|HC|AC|GAA|United|Rovers|"
                   r"Town|City|Athletics?|Striders|Runners|Wheelers|Ladies|Celtic|Wanderers|"
                   r"Rangers|Albion|Colts|Juniors|Harriers|Netball|Hockey|Rugby|Cricket|Swimming|Rowing|Cycling|Running|Club|Hamlet|Under-?\d+s?|"
                   r"U\d+s?)\b")
_GYM = next(f for f in FAMILIES if f.name == "gym")
# What says one works there ("work", "job", "as a trainer"): then the name may be an employer.
_WORK = re.compile(r"\b(?:work\w*|job|jobs|employ\w*|hired|role|position|career|shifts?|"
                   r"staff|as\s+an?\s+[a-z-]+)\b", re.I)
_JOINED = re.compile(rf"\b(?i:(?:started|starting|joined|joining|signed\s+up)\s+"
                     rf"(?:(?:at|with|to)\s+)?(?:the\s+)?)({_CAP}(?:\s+{_CAP})*)")


def kinds(name: str) -> frozenset[str]:
    """The attributes a place called `name` may be the value of, by its words: "school",
    "team" (a club), "gym"; both "school" and "team" for a name either may end with ("Ashford
    Juniors"); empty when its words say no kind."""
    out = set()
    if _SCHOOL.search(name):
        out.add("school")
    if _CLUB.search(name):
        out.add("team")
    if families.members(name, _GYM, switched=True):
        out.add("gym")
    return frozenset(out)


# A group joined by its common noun ("joined the choir", "joined a running club"): an employer
# only when the noun is one of the few that name one ("joined the police"; "the team": either).
_JOINED_GROUP = re.compile(r"\b(?i:joined|joining)\s+(?:a|an|the|our|my|their|his|her)\s+"
                           r"(?:[a-z-]+\s+){0,2}?([a-z]+)\b(?!\s+(?-i:[A-Z]))")
_EMPLOYER_NOUNS = frozenset("""police army navy raf marines council nhs firm company practice
    business agency staff service department ministry government bank team""".split())


def not_an_employer(said: str) -> bool:
    """Whether `said`, read as an employer only by a verb of starting or joining ("I started
    at Anytime Fitness", "joined Ashford Colts", "Gail joined the choir at St Mark's"), names
    a place of another kind (a gym, a club, a school) or a group by a noun no employer is
    called by, and no word of work ("started at PureGym as a trainer" stays an employer)."""
    if _WORK.search(said) is not None:
        return False
    m = _JOINED.search(said)
    if m is not None and kinds(m.group(1)):
        return True
    group = _JOINED_GROUP.search(said)
    return group is not None and group.group(1).lower() not in _EMPLOYER_NOUNS


_MOVED_TO = re.compile(rf"\b(?i:moved|moving|gone|going|started|starting|transferred|"
                       rf"got\s+into|into|at|to)\s+(?:(?i:up|over|across)\s+(?:to\s+)?)?({_CAP})"
                       rf"(?!\s+{_CAP})")
_KINDS = {"school": _SCHOOL, "team": _CLUB}


def held_kind(said: str, held: list[Claim]) -> str | None:
    """The kind of place a bare name in `said` is ("Finn's moved up to Ridgeway"), by what a
    held fact calls it in full ("Isla is at Ridgeway Primary": a school); None when no held
    fact names it so, or facts name it as two kinds."""
    found = set()
    for m in _MOVED_TO.finditer(said):
        name = re.escape(m.group(1))
        for c in held:
            for kind, rx in _KINDS.items():
                if any(re.match(rf"{name}\b", w.group(0)) for w in rx.finditer(c.said)):
                    found.add(kind)
    return found.pop() if len(found) == 1 else None


_WITH = re.compile(rf"^\W*(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+)?with\s+({_CAP})"
                   rf"(?!\s+{_CAP})", re.I)


def with_someone(said: str) -> bool:
    """Whether "I'm with X now" names a person by a first name ("I'm with Sarah now"), whom
    one is with, not who employs one."""
    m = _WITH.search(said)
    return m is not None and pronoun(m.group(1)) is not None


_SECOND_JOB = re.compile(r"\bon\s+(?:saturdays|sundays|weekends)\b|\b(?:saturday|sunday|weekend|"
                         r"evening|summer|christmas|holiday|side|second|extra)\s+(?:job|work|shifts?)\b"
                         r"|\bfor\s+the\s+(?:summer|holidays|christmas)\b", re.I)
"""A job beside the held one ("got a job at Tesco on Saturdays", "a summer job"): no employer
in its place."""


def reread(new: Claim, holders: list[str], held: list[Claim] | None = None) -> Claim:
    """`new` read again with its sentence, before the rule decides: an employer that is where
    one is now, a gym or club joined, or a service used or a place studied at is none ("I'm at
    Caffe Nero now waiting for my sister", "I started at Anytime Fitness", `uses.not_work`);
    "she" or "he" after a name in the sentence is that person
    ("Lucy wrote off the Jazz and she's got a Puma": Lucy, `holders.stands_for`); a bare name
    a held fact calls a school or a club is one (`held_kind`)."""
    if new.attribute == "employer" and (where_one_is(new.said, new.context) or
                                        not_an_employer(new.said) or with_someone(new.said) or
                                        uses.not_work(new.said, new.context) or
                                        _SECOND_JOB.search(new.context or new.said)):
        new = replace(new, attribute=None)
    if new.attribute in (None, "residence", "employer") and held and \
            (kind := held_kind(new.said, held)) and \
            new.holder.rpartition("|")[2] != "i" and \
            any(c.holder == new.holder and c.attribute == kind for c in held):
        new = replace(new, attribute=kind)  # (of another who holds a place of that kind)
    if (named := stands_for(new.said, new.context, new.holder, holders)):
        new = replace(new, holder=named)
    return new
