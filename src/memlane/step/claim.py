"""A statement read as one fact (`Claim`): what `step/supersede.py` decides on and the broad
mechanisms of `step/broad.py` read; its own module so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    """A statement read as one fact: who it is about, which property, which value."""

    holder: str
    """"i" (the speaker), a relation ("daughter", "sister ana"), a person by name ("named
    tom"), or "?she" (a pronoun, resolved against the held facts by `decide`); prefixed by the
    speaker's name when the record carries one ("Caroline|i")."""
    attribute: str | None
    """The property, or None when the statement names none this rule knows."""
    values: frozenset[str]
    """What it says of the attribute: its numbers, dates, names and other words, less the
    holder's, the attribute's and the cue words (terms)."""
    key: frozenset[str]
    """Its numbers, dates and names (terms): values that tell two versions apart for certain."""
    terms: frozenset[str]
    """All its content terms (`heuristic.fact_terms`)."""
    cue: bool
    """Whether it is worded as a change ("moved to", "now", "turned", "left", ...)."""
    corrects: bool = False
    """Whether it says outright that something changed or was wrong ("actually", "no longer",
    "moved to", "switched"): the cue a `related` link needs (a weaker one, "new", "now",
    "since", is common in talk)."""
    named: frozenset[str] = frozenset()
    """Numbers in what it names before "is" ("locker 23 is 4423"): part of the thing's name,
    so "locker 23" and "locker 5" are two things, never two versions of one."""
    ends: frozenset[str] = frozenset()
    """What it says the holder stopped ("I don't play football anymore", "sold the Golf", "no
    longer take the bus"): the terms of the thing ended (`_ended`), loosely stemmed; empty
    when it ends nothing."""
    additive: bool = False
    """Whether it adds to what is held rather than replace it ("also", "too", "a second")."""
    said: str = ""
    """The statement as read (its lead-in and speaker off): what `step/slots.py` reads."""
    context: str = ""
    """The whole sentence the statement was cut from, when it was one clause of it ("Since
    Boots shut, my prescriptions go to the Co-op"): its change cue and the value it says was
    replaced are signals for `_by_signals`; empty when the statement is the sentence."""
