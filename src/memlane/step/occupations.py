"""What counts as a job title: a noun phrase whose whole or head is in the packaged lexicon
(data/occupations.txt, built by scripts/build_occupations.py: "paralegal", "product owner",
"dinner lady", "hgv driver"), or whose head has an occupation's ending ("-er", "-ist", "-ian"
...), never a word one is without being paid for it ("a member", "a keen runner", "a fan", "a
season ticket holder"). And a job said as a role ("moved into a product owner role", "took a
job as a receptionist") or as ended by retiring ("Dad's retired now", "retired from the
library"). Pure; read by `step/attributes.py` (the attribute "job") and `step/people.py`.
"""

from __future__ import annotations

import re

from .lexicon import data_rows

_TRADE = re.compile(r"(?:er|or|ist|ian|ant|eon|ic|nurse|chef|cook|pilot|judge|vet|architect|"
                    r"analyst|midwife|nanny|barista|clerk|coach|agent|priest|lead|head|guard|warden|steward|"
                    r"(?:post|fire|bin|sales|delivery|handy)(?:man|woman))$")
NOT_TRADE = frozenset("""member beginner runner owner user customer lover smoker drinker reader
    gamer swimmer walker rider cyclist vegetarian pescatarian christian believer supporter
    fan regular leo mother father brother sister daughter grandmother grandfather partner
    neighbour neighbor mentor fighter survivor sticker flyer volunteer holder follower
    subscriber teenager toddler pensioner worrier listener learner sleeper eater thinker talker
    dreamer joker riser snorer collector""".split())
"""Heads that are no job alone ("a member", "a runner", "a fan"), whatever their ending; a
whole title in the lexicon still is ("product owner", "ward sister")."""

_TITLES: set[str] = set()


def _lexicon() -> set[str]:
    if not _TITLES:
        _TITLES.update(row[0].strip().replace("-", " ") for row in data_rows("occupations.txt"))
    return _TITLES


def trade(phrase: str) -> bool:
    """Whether the noun phrase `phrase` ("product owner", "keen runner", "senior staff nurse")
    names a job: the phrase or its last words a title of the lexicon, else its head one
    with an occupation's ending and not a stop word (`NOT_TRADE`)."""
    words = phrase.lower().replace("-", " ").split()
    if not words:
        return False
    titles = _lexicon()
    if any(" ".join(words[k:]) in titles for k in range(len(words))):
        return True
    return words[-1] not in NOT_TRADE and bool(_TRADE.search(words[-1]))


_ROLE = re.compile(r"\b(?:moved|moving|stepped|stepping|gone|went|going|got|landed|took|taken|"
                   r"accepted|started|starting|promoted)\s+(?:up\s+)?(?:in|into|in\s+to|to|on)?\s*"
                   r"(?:a|an|the)\s+(?:new\s+)?((?:[a-z&-]+\s+){0,3}?[a-z&-]+)\s+"
                   r"(?:role|position|post|job)\b"
                   r"|\b(?:took|taken|got|landed|accepted|started)\s+(?:a|the)\s+(?:new\s+)?"
                   r"(?:job|role|position|post)\s+as\s+an?\s+((?:[a-z&-]+\s+){0,3}?[a-z&-]+)"
                   r"(?=\s+(?:at|in|on|for|with|over|since|last|this)\b|[\s,.!;]*$|,)", re.I)
"""A job said as a role taken ("moved into a product owner role", "took a job as a
receptionist at the health centre"); the title is checked by `trade`."""


def role(rest: str) -> bool:
    """Whether `rest` says the holder took a job by its title as a role ("'s moved into a
    product manager role", "took a job as a receptionist"): not a flat moved into, not a
    role offered ("been offered a ... role": `people.unsettled` keeps it apart)."""
    return any(trade(m.group(1) or m.group(2)) for m in _ROLE.finditer(rest))


NOT_A_THING = r"(?!\s+(?:my|the|our|his|her|its?|their|them|a|an|this|that|some|those|these)\b)"
"""After "retired": no thing retired follows ("retired the van", "retired my old boots"); the
one reading of every job-ended-by-retiring pattern (`cues`, `attributes`, `shapes`, `RETIRED`)."""
_SUBJECT = r"^\W*(?:(?:she|he|they|i|we)(?=['\u2019\s]))?\s*"
RETIRED = re.compile(
    rf"{_SUBJECT}(?:['\u2019](?:s|m|re|ve)\s+|(?:has|have|had|is|am|are|was|just|now|finally|"
    rf"recently|officially|been|happily|fully|properly|semi-)\s+)*retired\b{NOT_A_THING}"
    rf"|{_SUBJECT}(?:['\u2019](?:s|ve)\s+|(?:has|have|had|just|finally|recently)\s+)*"
    r"(?:took|taken)\s+(?:early\s+)?retirement\b", re.I)
"""A job ended by retiring, said of the holder opening the clause ("'s retired now", "retired
from the library at Easter", "she's retired now", "took early retirement"); not a plan
("retiring next year"), a thing retired ("retired my old van"), nor someone else ("Dad's best
mate retired": the holder is the mate)."""
