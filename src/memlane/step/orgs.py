"""One mechanism of the supersede rule (`step/supersede.py`): **where one works, what one does
and which club, read by the type of the value** ("I'm with Rightmove now" of "a tester at
Experian"; "I've been made audit manager" of "a junior accountant"; "joined Jesmond Swimming
Club" of "swim with Tynemouth Swimming Club").

A correction of these is worded with other words than the held fact far more often than with
the same ones, so the attribute is read from what the value is, in the frame it stands in:
- an **employer**: an organisation's name after a frame of work, held ("work at/for/in X",
  "been at X for six years", "a payroll clerk at X", "employed by X", "do the payroll for a
  firm called X", "drive for X", "X pay my wages", "I'm at X Group" by an organisation's
  ending) or now ("work for X these days", "I'm with X now", "started at X", "got poached by
  X", "gone to work for X", "taken a job with the fire service", "X took me on"); never one
  used or studied at (`step/uses.py`: "with Three now for my phone", "joined F45");
- a **job**: a title (`occupations.trade`: the lexicon or an occupation's ending) held ("I'm a
  dental nurse", "works as a barista") or now ("working as a practice manager now", "been made
  audit manager", "retrained as", "gone self-employed as"), or what one does now ("teaches at
  the secondary school now", "moved into recruitment", "in practice management now", "drives
  for a courier firm"); where one **volunteers** ("I'm volunteering at the hospice now");
- a **club**: a name a club is called by (`placekind.kinds`: "... Harriers", "... Rowing
  Club", "... Town") with its activity, from the name or the verb ("run with", "row with",
  "plays rugby for"); a new club replaces a held one of the same activity only.

A new value replaces the ONE held fact of the same holder (the speaker, a relation, a name, or
the one "she"/"he" fits by relation or first name) that holds that attribute; never when two
fit, for another holder, nor for an addition ("also", "a Saturday job", "weekends"), a maybe
("been offered", "applying to", "an interview at"), a past one ("used to", "years ago"), or a
dealing with it ("I shop at", "I bank with", "as a client"). "I'm with X now" is an employer
only when the holder's one organisation held is an employer (not a bank or a club). Other
people's change events are `step/people.py`'s; this reads the values both ways for everyone.
Pure: reads the claims' texts only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import families, people, placekind, places, uses
from .attributes import where_one_is
from .categories import FAMILIES
from .claim import Claim
from .endings import _ADDITIVE
from .occupations import trade

Verdict = tuple[str, int, tuple[str, ...]]

_ORG = (r"(?!(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|january|february|march|april|june|"
        r"july|august|september|october|november|december|i|i'm|it|the\s+moment|it|hr|pr|r&d|a&e|"
        r"icu|qa|ux|finance|marketing|sales|accounts|admin|retail|hospitality|education|"
        r"healthcare|tech|construction|insurance|banking|property|law|media|dr|mr|mrs|ms|miss|"
        r"prof|doctor|nurse|coach|sir|dame)\b)"
        r"(?-i:(?:St\.?\s+)?[A-Z][\w'&-]*(?:\s+(?:[A-Z][\w'&-]*|of|and|&|de))*)")
"""An organisation's name: capitalised words ("Royal Mail", "Marks & Spencer", "Sainsbury's")."""
_THE = r"(?:the\s+)?"
_BODY = (r"(?-i:(?:fire|ambulance|prison|probation|civil|health|postal)\s+service|hospital\s+trust|"
         r"council|nhs|NHS|police|army|navy|raf|RAF|post\s+office)\b")
"""A public employer by its noun ("taken a job with the fire service", "works for the council")."""
_JOB = r"((?-i:(?:[a-z-]+\s+){0,3}?[a-z-]+))"
_TITLE = r"((?-i:(?:[a-z-]+\s+){0,3}[a-z-]+))"  # (cut by `_title`)

_ENDING = (r"Ltd|Limited|plc|PLC|LLP|LLC|Inc|Group|Logistics|Distribution|Freight|Council|Trust|"
           r"Partners|Partnership|Solicitors|Accountants|Associates|Holdings|Services|Consulting|"
           r"Engineering|Homes|Health|Healthcare|Foundation|Agency|Architects|Construction|"
           r"Haulage|Transport|Insurance|Software|Systems|Technologies|Labs|Studios?|Media|"
           r"Authority|Co")
"""The last word of a name an organisation only is called by ("Thornbury Group", "Dawson & Co",
"Sefton Council"): "I'm at X" of such a name is where one works, not where one is."""

# Held: an employer, a job, a club (group 1: the value).
_HELD_EMPLOYER = tuple(re.compile(rx, re.I) for rx in (
    rf"\bwork(?:s|ing|ed)?\s+(?:(?:full|part)[-\s]time\s+)?(?:at|for|in)\s+{_THE}({_ORG}|{_BODY})",
    rf"\b(?:been|be)\s+(?:at|with)\s+{_THE}({_ORG})\s+(?:for|since)\b",
    rf"\b(?:a|an|the)\s+(?P<job>(?:[a-z-]+\s+){{0,3}}?[a-z-]+)\s+(?:at|for|with)\s+{_THE}({_ORG})",
    rf"\bemployed\s+(?:by|at)\s+{_THE}({_ORG})",
    # by what one does for it ("do the payroll for a haulage firm called X", "drive for X")
    rf"\b(?:do|does|doing)\s+(?:the|their|all\s+the)\s+(?:[a-z-]+\s+){{0,2}}?(?:accounts|books|"
    rf"payroll|admin|bookkeeping|marketing|cleaning|deliveries|wages)\s+for\s+"
    rf"(?:an?\s+(?:[a-z'-]+\s+){{0,3}}?(?:called|named)\s+)?{_THE}({_ORG})",
    rf"\b(?:drive|drives|driving|deliver|delivers|delivering)\s+for\s+{_THE}({_ORG})",
    rf"^\W*{_THE}({_ORG})\s+(?:pays?|paying)\s+(?:my|his|her|their)\s+(?:wages|salary)\b",
    rf"\b(?:i'?m|i\s+am|is|'s)\s+(?:at|with)\s+{_THE}({_ORG}\s+(?-i:{_ENDING}))\b",
))
_HELD_JOB = re.compile(rf"\b(?:i'?m|i\s+am|is|'s|work(?:s|ing)?\s+as)\s+(?:now\s+)?(?:a|an)\s+"
                       rf"{_JOB}(?=\s+(?:at|for|in|with|on)\b|\s*[,.!;]|\s*$)", re.I)
_SPORTS = r"football|rugby|cricket|hockey|netball|basketball|volleyball|gaelic|hurling|camogie"
_CLUB_VERB = re.compile(
    rf"\b(?:(play|plays|playing|turns?\s+out)\s+(?:({_SPORTS})\s+)?(?:for|with)|"
    rf"(run|runs|running|row|rows|rowing|swim|swims|swimming|cycle|cycles|cycling|ride|rides|"
    rf"riding|race|races|racing|train|trains|training)\s+(?:with|for|at)|"
    rf"member\s+of|joined|(?:i'?m|is|'s)\s+in)\s+{_THE}({_ORG})", re.I)
_PAST = re.compile(r"\b(?:used\s+to|years\s+ago|back\s+(?:in|when)|formerly|previously|"
                   r"in\s+(?:19|20)\d\d|"
                   r"before\s+(?:i|she|he|we|they)\b|ex-|(?<!'ve\s)(?<!have\s)(?<!has\s)(?<!'s\s)worked)\b",
                   re.I)

# Now: an employer, a job, a club (group 1: the value), said as holding now or as a change.
_NOW_EMPLOYER = tuple(re.compile(rx, re.I) for rx in (
    rf"\bwork(?:s|ing)?\s+(?:at|for|in)\s+{_THE}({_ORG})",
    rf"(?:^|\b(?:i'?m|i\s+am|is|'s|she'?s|he'?s))\s*(?:now\s+)?(?:with|at)\s+{_THE}({_ORG})",
    rf"\b(?:started|starting|begun|began)\s+(?:a\s+(?:new\s+)?job\s+|work(?:ing)?\s+)?"
    rf"(?:at|with|for)\s+{_THE}({_ORG})",
    rf"\b(?:poached|headhunted|head-hunted|snapped\s+up|taken\s+on|hired|recruited)\s+by\s+"
    rf"{_THE}({_ORG})",
    rf"\b(?:gone|went|moved|moving)\s+(?:(?:over|across)\s+to|to\s+work\s+(?:at|for|with))\s+"
    rf"{_THE}({_ORG})",
    rf"\b(?:joined|joining)\s+{_THE}({_ORG})",
    rf"\b(?:got|landed|taken|took|accepted)\s+a\s+(?:new\s+)?(?:job|role|position)\s+(?:at|with)\s+"
    rf"{_THE}({_ORG}|{_BODY})",
    rf"\b(?:hired|taken|took)\s+on\s+(?:at|by|with)\s+{_THE}({_ORG})",
    rf"^\W*{_THE}({_ORG})\s+(?:took|(?:have|has|'ve|'s)\s+taken|(?:have|has|'ve|'s\s+)?(?:hired|"
    rf"recruited|poached|headhunted))\s+me\b",
    rf"\b(?:drives|driving|delivers|delivering)\s+for\s+{_THE}({_ORG})",
))
_RANK = (r"manager|supervisor|lead|leader|director|head|partner|officer|coordinator|assistant|"
         r"deputy|chief|captain|sergeant|inspector|editor|principal|consultant|controller|"
         r"executive|specialist|engineer|analyst|administrator|foreman|chair|president")
"""The head of a title one is made or promoted to ("been made audit manager"; never "made
redundant", "made a godmother")."""
_NOW_JOB = tuple(re.compile(rx, re.I) for rx in (
    rf"\b(?:retrained|qualified|requalified|(?:gone|went|going)\s+(?:self-employed|freelance|"
    rf"solo|independent))\s+as\s+(?:an?\s+)?{_TITLE}",
    rf"\b(?:been\s+|got\s+|was\s+|just\s+)?(?:made|promoted\s+to|appointed|bumped\s+up\s+to|"
    rf"made\s+up\s+to)\s+(?:an?\s+|the\s+)?(?=(?:[a-z-]+\s+){{0,2}}(?:{_RANK})\b){_TITLE}",
    rf"\bwork(?:s|ing)?\s+as\s+(?:an?\s+)?{_TITLE}",
    rf"\b(?:i'?m|i\s+am|is|'s)\s+(?:now\s+)?an?\s+{_JOB}\s+(?:now|these\s+days|nowadays)\b",
))
_FIELD = (r"sales|marketing|recruitment|hr|finance|accountancy|teaching|nursing|law|retail|"
          r"hospitality|it|tech|software|consulting|consultancy|journalism|publishing|insurance|"
          r"banking|property|estate\s+agency|social\s+work|social\s+care|care\s+work|admin|"
          r"logistics|construction|engineering|design|research|academia|policing|tutoring|"
          r"childcare|coaching|events|pr|media|(?:[a-z]+\s+)?management|health\s+visiting|"
          r"(?:[a-z]+\s+)?nursing|[a-z]{3,}(?:ics|ology|ancy|istry|graphy|therapy)")
"""A line of work one goes into or is in ("moved into recruitment", "in practice management")."""
_NOW_DOING = tuple(re.compile(rx, re.I) for rx in (
    rf"\b(?:moved|moving|gone|going|went|switched|changed)\s+(?:careers?\s+|jobs?\s+)?"
    rf"(?:over\s+|across\s+)?into\s+({_FIELD})\b",
    rf"\b(?:i'?m|i\s+am|is|'s|work(?:s|ing)?)\s+(?:now\s+)?in\s+({_FIELD})\s+(?:now|these\s+days|"
    rf"nowadays)\b",
    r"\b((?:teach(?:es|ing)?|lectur(?:es|ing)|tutor(?:s|ing)?)\s+(?:[a-z]+\s+)?(?:at|in)\s+"
    r"(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}?(?:school|college|university|uni|academy|"
    r"polytechnic))\b",
    r"\b(?:drives|driving|delivers|delivering)\s+for\s+(?:an?|the)\s+((?:[a-z-]+\s+){0,2}?"
    r"(?:firm|company|service|couriers?|depot|council))\b",
    r"\b(?:do|does|doing)\s+the\s+(?:books|accounts|payroll)\s+for\s+(?:an?\s+|the\s+)?"
    r"((?:[a-z'-]+\s+){0,3}?[a-z'-]+)(?=\s+(?:now|these\s+days|nowadays)\b)",
))
"""A job said by what one does now ("lectures at the university", "drives for a courier
firm", "moved into sales", "she's in practice management now"; group 1: the value)."""
_VOLUNTEER = re.compile(
    r"(?:\b(?:i|we|she|he|they|(?-i:[A-Z][a-z]+))\s+(?:now\s+|still\s+)?volunteers?|"
    r"\b(?:i'?m|i\s+am|we'?re|we\s+are|is|'s|she'?s|he'?s)\s+(?:now\s+)?(?:an?\s+)?"
    r"volunteer(?:ing)?)\s+(?:at|for|with|in)\s+(?:the\s+|an?\s+)?"
    r"((?:[\w'&-]+\s+){0,3}?[\w'&-]+)(?=\s+(?:on|every|at|in|for|with|twice|once|each|now|"
    r"these|instead|since)\b|\s*[,.!;]|\s*$)", re.I)
"""Where one volunteers, said by its holder ("I volunteer at the Oxfam shop on Saturdays", "I'm
volunteering at the hospice now"; group 1: the value); never a time one did ("had a great
experience volunteering at a shelter", "we went volunteering with animals") nor another's
("you can't volunteer at the shelter anymore")."""
_NOW = re.compile(r"\b(?:now|these\s+days|nowadays|at\s+the\s+moment|currently|since|"
                  r"from\s+this|anymore|any\s+more|started|starting|joined|poached|headhunted|"
                  r"head-hunted|snapped|taken\s+on|hired|recruited|moved|gone|went|retrained|"
                  r"qualified|requalified|made|promoted|appointed|signed|switched|new\s+job|took|taken|"
                  r"landed|accepted|instead|got\s+a\s+(?:new\s+)?(?:job|role|position))\b",
                  re.I)
# Not a change of the holder's own: a second one, a maybe, a dealing, a visit.
_NOT_OURS = re.compile(
    r"\b(?:saturday|sunday|weekend|evening|summer|christmas|holiday|part-time\s+job|side|"
    r"second|extra|bank|agency|locum)\s+(?:job|work|shifts?|hustle|gig)\b|"
    r"\b(?:weekends|on\s+saturdays|on\s+sundays)\b|"
    r"\bon\s+the\s+side\b|\bextra\s+(?:cash|money)\b|"
    r"\b(?:shop|shops|shopping|shopped|bank|banks|banking|banked|insured|insure)\s+(?:at|with)\b|"
    r"\b(?:client|clients|customer|customers|supplier|account|contract\s+with|sponsor\w*|"
    r"volunteer\w*|trial|visit(?:s|ed|ing)?|watch(?:ed|ing)?|played|against|versus|vs|away|match|"
    r"one\s+day|someday|dream|love\s+to|like\s+to|wish|hope|hoping|want|wants|thinking|"
    r"considering|plan(?:s|ned|ning)?|might|maybe|could|would|member|membership|"
    r"subscri\w+|cancel\w*|app|only)\b|\bfor\s+the\s+(?:[\w-]+\s+){0,2}season\b", re.I)


def _place(text: str, start: int) -> bool:
    """Whether the name at `start` of `text` is a place where a place may stand ("I work in
    Leeds", "I'm at Bath now"; not "I'm with Zurich now", "poached by Halifax")."""
    return re.search(r"\b(?:in|at|to)\s+(?:the\s+)?$", text[:start], re.I) is not None and \
        places.place_at(text, start) is not None and \
        not re.match(rf"{_ORG}\s+(?-i:{_ENDING})\b", text[start:])  # ("at Bolton Council")


_ABBREVIATED = frozenset({"RN", "LPN", "CNA", "EMT", "HCA", "GP", "TA", "PA", "SENCO", "PCSO"})
"""A job by its letters ("an RN at Mercy General"), which `trade` does not read."""


def held_values(said: str) -> dict[str, str]:
    """The employer, job and club ("team:<activity>") the fact `said` holds, by their type."""
    out: dict[str, str] = {}
    if _PAST.search(said) or "?" in said:
        return out
    for rx in _HELD_EMPLOYER:
        m = rx.search(said)
        if m and "job" in m.groupdict() and not trade(m.group("job")) and \
                m.group("job") not in _ABBREVIATED:
            continue  # ("a meeting at Google": no job at it)
        name = m and m.group(m.lastindex or 1)
        if m and name and not placekind.kinds(name) and not _place(said, m.start(m.lastindex or 1)):
            out.setdefault("employer", name)
    if (v := _VOLUNTEER.search(said)) and not _ADDITIVE.search(said):
        out["volunteer"] = v.group(1)
    m = _HELD_JOB.search(said)
    if m and (job := _title(m.group(1))):
        out["job"] = job
    if (club := _club(said)) is not None:
        out[f"team:{club[0]}"] = club[1]
    return out


def _title(words: str) -> str:
    """The job title `words` open with ("practice manager" of "practice manager now"), or ""."""
    parts = re.split(r"\s+(?:for|at|in|on|with|to|from|and|but|so|the|a|an|this|that|last|next|"
                     r"now|these|again|too|still|since|over)\b", words, maxsplit=1,
                     flags=re.I)[0].split()
    for n in range(len(parts), 0, -1):
        if trade(" ".join(parts[:n])):
            return " ".join(parts[:n])
    return ""


_ACTIVITY = (("run", r"Harriers|AC|Athletics|Athletic\s+Club|Running|Road\s+Runners|Runners|"
                     r"Striders|Pacers|Joggers|Fell|Orienteering"),
             ("row", r"Rowing|Boat\s+Club"), ("swim", r"Swimming|Swim\s+Club|SC"),
             ("cycle", r"Cycling|Cycle|Wheelers|Velo|CC"),
             ("rugby", r"RFC|RUFC|Rugby"), ("cricket", r"Cricket|CC"), ("hockey", r"Hockey|HC"),
             ("netball", r"Netball"), ("chess", r"Chess"), ("tennis", r"Tennis"),
             ("golf", r"Golf"), ("bowls", r"Bowls|Bowling"))
_VERB_ACTIVITY = {"run": "run", "row": "row", "swi": "swim", "cyc": "cycle", "rid": "cycle"}
_TEAM_SPORTS = frozenset({"team", "football"})
"""A club by a name that says no sport ("... Town", "... Rovers") plays football."""


def _activities(name: str) -> set[str]:
    """The activities a club's name says ("Jesmond Swimming Club": swim), or {"team"}."""
    found = {a for a, rx in _ACTIVITY if re.search(rf"(?-i:\b(?:{rx})\b)", name)}
    return found or {"team"}


def _club(said: str) -> tuple[str, str] | None:
    """(activity, club name) of the club `said` names after a club's verb, or None."""
    for m in _CLUB_VERB.finditer(said):
        name = m.group(4)
        if "team" not in placekind.kinds(name) and not m.group(1):
            continue  # ("run with Kate", "joined Deloitte": no club by its name)
        verb = (m.group(3) or "")[:3].lower()
        acts = _activities(name)
        if verb in _VERB_ACTIVITY:
            acts = {_VERB_ACTIVITY[verb]} if acts in ({"team"}, {_VERB_ACTIVITY[verb]}) else acts
        elif m.group(2):
            acts = {m.group(2).lower()}
        if len(acts) == 1:
            return acts.pop(), name
    return None


def said_now(said: str, sentence: str) -> tuple[str, str, bool] | None:
    """(attribute, value, weak) of a statement that the holder works somewhere, does a job or
    is in a club now (or a change to it); `weak`: "I'm with X now" (an employer only when no
    other organisation is held). None for an addition, a maybe, a past one or a dealing."""
    if "?" in said:
        return None
    found = _now_value(said, sentence)
    if found is not None and found[0] in ("volunteer", "job"):  # (its own words block nothing:
        sentence = re.sub(r"\bvolunteer\w*", "", sentence.replace(found[1], ""), flags=re.I)
        # "moved into health visiting", "volunteering at the library")
    if found is None or _ADDITIVE.search(said) or _PAST.search(said) or \
            _NOT_OURS.search(sentence) or people.event_blocked(sentence) or \
            not _NOW.search(sentence):
        return None  # (the frames first: most statements have none, and they are cheaper)
    return found


def _now_value(said: str, sentence: str) -> tuple[str, str, bool] | None:
    """`said_now`'s frames: the first club, job or employer `said` gives."""
    if (club := _club(said)) is not None:
        return f"team:{club[0]}", club[1], False
    for rx in _NOW_JOB:
        m = rx.search(said)
        if m and (job := _title(m.group(1))):
            return "job", job, False
    for rx in _NOW_DOING:
        if (m := rx.search(said)) is not None:
            return "job", m.group(1), False
    if (m := _VOLUNTEER.search(said)) is not None:
        return "volunteer", m.group(1), False
    for k, rx in enumerate(_NOW_EMPLOYER):
        m = rx.search(said)
        if m and not placekind.kinds(m.group(1)) and not _place(said, m.start(1)) and \
                not (k == 1 and (where_one_is(said, sentence) or placekind.with_someone(said))) \
                and not uses.studied(m.group(1), sentence) and \
                not (k in _BY_USE and (uses.used_for(sentence) if k == 1 else
                                       uses.not_work(said, sentence))):
            return "employer", m.group(1), k == 1
    return None


_BY_USE = (1, 2, 4, 5)
"""The frames of `_NOW_EMPLOYER` that say no work ("I'm with X now", "started at", "moved over
to", "joined"): a service one uses may follow them ("moved over to Octopus", `uses.not_work`;
"I'm with X now" by a service's brand is weighed in `changed`: "a claims adjuster at Aviva" /
"I'm with Zurich now")."""


def _fits(attr: str, held: dict[str, str]) -> str | None:
    """The key of `held` the new attribute `attr` is a value of (a club: the same activity)."""
    if not attr.startswith("team:"):
        return attr if attr in held else None
    act = attr[5:]
    for key in held:
        if key.startswith("team:") and (key[5:] == act or {key[5:], act} <= _TEAM_SPORTS):
            return key
    return None


_ME = re.compile(rf"^\W*{_THE}{_ORG}\s+(?:took|(?:have|has|'ve|'s)\s+(?:taken|hired|recruited|"
                 rf"poached|headhunted)|hired|recruited|poached|headhunted)\s+me\b", re.I)
"""An employer that took the speaker on, as the subject ("Kilbride Legal took me on")."""
_OTHER = frozenset({"weight", "diet", "car", "bike", "rent", "mortgage", "salary", "height",
                    "food", "hours", "age"})
"""Attributes the rule reads a statement as that no employer, job or club is."""


def changed(new: Claim, holder: str, claims: Sequence[Claim]) -> Verdict | None:
    """The one held fact of `holder` whose employer, job or club `new` gives another value of
    (see the module docstring), or None."""
    sentence = new.context or new.said
    now = said_now(new.said, sentence)
    if now is None or new.additive:
        return None
    attr, value, weak = now
    if new.attribute in _OTHER:
        return None  # ("started at Weight Watchers now": a weight's)
    prefix, _, who = holder.rpartition("|")
    if _ME.search(new.said):  # ("Kilbride Legal took me on": the speaker's, not Kilbride's)
        holder, who = prefix + "|i" if prefix else "i", "i"
    held = [(i, c, held_values(c.said)) for i, c in enumerate(claims) if c.said]
    if who in ("?she", "?he"):  # the one person of that sex holding such a value
        holder = people._the_one(who[1:], {c.holder for _, c, v in held if _fits(attr, v)
                                           and c.holder.rpartition("|")[0] == prefix}) or holder
        who = holder.rpartition("|")[2]
    if "?" in who:
        return None
    mine = [(i, c, v) for i, c, v in held if c.holder == holder and
            c.said.rstrip(".!").lower() not in sentence.lower()]
    fits = [(i, key) for i, c, v in mine if (key := _fits(attr, v))]
    if len(fits) != 1:
        return None
    i, key = fits[0]
    if weak and (any((v and not set(v) <= {"employer", "job"}) or (not v and any(
            families.members(c.said, fam, switched=True) for fam in FAMILIES)) for _, c, v in mine)
                 or (uses.a_service(value, sentence) and not uses.a_service(held[i][2][key], ""))):
        return None  # ("I'm with Monzo now" beside a held club or bank: not certainly a job)
    before = held_values(claims[i].said)[key]
    if value.lower() in claims[i].said.lower() or before.lower() in value.lower():
        return None
    return "supersedes", i, (
        f"same holder ({holder})", f"a held {key} ({before})", f"another given ({value})",
        "the only held fact of this holder it fits")


def marks(text: str) -> frozenset[str]:
    """The terms `related.pick` and the related scan give a text that holds or states an
    employer, a job or a club by its type (`MARKS`), any holder."""
    out: set[str] = set()
    for sentence in re.split(r"(?<=[.!?])\s+", text)[:20]:
        s = sentence[:1000]
        if not _framed(s):
            continue
        out |= {MARK + k.partition(":")[0] for k in held_values(s)}
        if (now := said_now(s, s)) is not None:
            out.add(MARK + now[0].partition(":")[0])
    return frozenset(out)


_FRAME_WORDS = frozenset("""work works working worked been employed play plays playing played
    run runs running row rows rowing swim swims swimming cycle cycles cycling ride rides riding
    race races racing train trains training member join joins joined joining start starts started
    starting began begun poached headhunted head-hunted snapped taken hired recruited gone went
    move moves moved moving got landed took accepted retrained qualified requalified freelance
    self-employed made promoted appointed bumped turn turns drive drives driving deliver delivers
    delivering teach teaches teaching lecture lectures lecturing tutor tutors tutoring volunteer
    volunteers volunteering pay pays paying wages books accounts payroll into""".split())
"""A word every frame of `held_values` and `said_now` has, or a copula before "a", "in", "at" or
"with": a sentence without one is read no further (the related scan and `related.pick` read
hundreds of records a step; a set of its words is far cheaper than the frames)."""
_WORDS = re.compile(r"[a-z'\u2019-]+")


def _framed(sentence: str) -> bool:
    words = set(_WORDS.findall(sentence.lower()))
    return not words.isdisjoint(_FRAME_WORDS) or (
        not words.isdisjoint(("a", "an", "in", "at", "with")) and
        any(w in ("i'm", "am", "is") or w.endswith(("'s", "\u2019s")) for w in words))


MARK = "\x00org:"
"""The prefix of the terms `marks` gives ("\\x00org:employer", "\\x00org:job", "\\x00org:team")."""

__all__ = ["MARK", "changed", "held_values", "marks", "said_now"]
