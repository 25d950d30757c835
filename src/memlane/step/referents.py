"""Whom a pronoun or a bare name stands for among the held facts (`step/supersede.py` asks
before it decides): "Mia turned 12" is the one relation held with that name, "she" the one
third party of her sex holding the attribute, or else the one held whose sex is read as hers.
Pure: reads the claims only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text import stem
from . import slots
from .claim import Claim
from .holders import pronoun


def resolve(new: Claim, held: Sequence[Claim]) -> str | None:
    """The holder a pronoun or a bare name stands for, among the held facts: a name ("Mia
    turned 12") is the one relation held with that name ("my daughter Mia"); "she" or "he" is
    the one third party of that gender (when its relation word has one) holding the attribute;
    "they" or "it" the one holder of it, the speaker too ("they put the rent up"). Else None."""
    prefix, _, who = new.holder.rpartition("|")
    prefix = prefix + "|" if prefix else ""
    if who.startswith("named "):
        name = " " + who[6:]
        owners = {c.holder for c in held if c.holder.startswith(prefix) and
                  c.holder.endswith(name) and not c.holder[len(prefix):].startswith("named")}
        if not owners:  # "my cat is called Pumpernickel": the name is the held fact's value
            owners = {c.holder for c in held if c.holder.startswith(prefix) and
                      stem(who[6:]) in c.key and c.holder[len(prefix):] not in ("i",) and
                      "?" not in c.holder and "named " not in c.holder}
        if not owners:  # "Choir is on Tuesdays" / "Choir practice is on Mondays": a thing
            owners = {c.holder for c in held if c.holder.startswith(prefix) and
                      "?" not in c.holder and "named " not in c.holder and
                      who[6:] in slots.subject(c.said)}
        if not owners:  # "Pilates is Tuesdays now" / "I do pilates on Thursdays": a thing the
            # held fact writes in lower case is no one's name
            owners = {c.holder for c in held if c.holder.startswith(prefix) and
                      "?" not in c.holder and "named " not in c.holder and
                      slots.search_user(rf"(?-i:\b{re.escape(who[6:])}\b)", c.said) is not None}
    else:
        third = who[1:] in ("she", "he")
        owners = {c.holder for c in held if c.attribute == new.attribute and
                  c.holder.startswith(prefix) and "?" not in c.holder and
                  not (third and c.holder[len(prefix):] == "i") and
                  (not third or
                   (pronoun(c.holder[len(prefix):]) or who[1:]) == who[1:])}
        if not owners and third:  # "She's retired from the library now" beside Mum's job and
            # Dad's: the one third party held whose sex is read as the pronoun's, when no one
            # else held could be meant (a sex unread: a pet, "my friend Sam")
            others = {c.holder[len(prefix):] for c in held if c.holder.startswith(prefix) and
                      "?" not in c.holder and "named " not in c.holder and
                      c.holder[len(prefix):] != "i"}
            sexes = {o: pronoun(o) for o in others}
            fit = {o for o, said in sexes.items() if said == who[1:]}
            if len(fit) == 1 and None not in sexes.values():
                owners = {prefix + fit.pop()}
    return owners.pop() if len(owners) == 1 else None
