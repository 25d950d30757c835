"""Needle threads: a fact planted early in a long chat, asked for at the end.

The needle workload measures whether a context policy can still answer "What was my locker
combination?" once the message that said it has scrolled out of the window. A thread is:

    exchange 0 .. n_turns-1   one user message and one assistant reply each (filler)
    exchange `depth`          the user states the fact ("My locker combination is 4-19-27"),
                              the assistant acknowledges it without repeating it
    last message              the user asks for the fact

so `messages` has `2 * n_turns + 1` entries and the needle is message `2 * depth`. Extra needles
(`n_needles > 1`) are other facts planted at other exchanges, as distractors; only the first is
asked for.

Filler is real small talk from the `chitchat-dataset` package (the BYU Chit Chat Challenge
conversations, bundled in the wheel, read from disk) when it is installed, else a small built-in
generator of neutral small talk; `NeedleThread.filler_source` says which. A filler message never
contains a needle's value or topic word, so the planted message is the only place the answer is.

Everything is drawn from `random.Random(seed)`: the same seed, sizes and filler source give the
same thread in any process.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from memlane.errors import MissingExtra, UsageError

__all__ = [
    "FACT_KINDS",
    "FactKind",
    "Needle",
    "NeedleThread",
    "chitchat_available",
    "make_needle_thread",
]

FillerSource = Literal["auto", "chitchat", "builtin"]

CHITCHAT = "chitchat-dataset"
BUILTIN = "builtin"

# Filler messages longer than this are skipped: the corpus has a few pasted walls of text (one of
# 14,843 words) that would swamp a token budget and make depth meaningless.
MAX_FILLER_WORDS = 60


@dataclass(frozen=True)
class FactKind:
    """A template for one kind of personal fact."""

    key: str
    """Short name, e.g. "locker_combination"."""
    fact: str
    """The statement with a `{v}` slot, e.g. "My locker combination is {v}"."""
    question: str
    """How the user asks for it, e.g. "What was my locker combination?"."""
    topic: tuple[str, ...]
    """Words filler must not contain, so that no other message talks about the same thing."""
    value: Callable[[random.Random], str]
    """Draws a random value."""


@dataclass(frozen=True)
class Needle:
    """One planted fact."""

    index: int
    """Index in `NeedleThread.messages` of the user message that states it."""
    kind: str
    """The `FactKind.key` it was made from."""
    fact: str
    """The fact as a sentence, e.g. "My sister's name is Priya"."""
    question: str
    """The question that asks for it."""
    answer: str
    """The value the answer must contain, e.g. "Priya"."""


@dataclass(frozen=True)
class NeedleThread:
    """A synthetic conversation with a fact to recall."""

    seed: int
    """The seed it was generated from."""
    messages: tuple[tuple[str, str], ...]
    """`(role, content)` pairs, roles alternating "user"/"assistant"; the last is the question."""
    needle_index: int
    """Index in `messages` of the user message that states the asked-for fact (`2 * depth`)."""
    question: str
    """The final user message, e.g. "What was my locker combination?"."""
    answer: str
    """The expected answer string, e.g. "4-19-27"; appears in no message but the needle's."""
    fact: str
    """The planted fact as a sentence, e.g. "My locker combination is 4-19-27"."""
    filler_source: str = BUILTIN
    """Where the filler came from: "chitchat-dataset" or "builtin"."""
    needles: tuple[Needle, ...] = ()
    """Every planted fact, the asked-for one first, then any distractors."""


# --- fact kinds ---------------------------------------------------------------------------------


def _pick(*options: str) -> Callable[[random.Random], str]:
    return lambda rng: rng.choice(options)


def _digits(n: int) -> Callable[[random.Random], str]:
    return lambda rng: str(rng.randint(10 ** (n - 1), 10**n - 1))


def _combination(rng: random.Random) -> str:
    return "-".join(str(rng.randint(1, 39)) for _ in range(3))


def _plate(rng: random.Random) -> str:
    letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(3))
    return f"{rng.randint(2, 9)}{letters}-{rng.randint(100, 999)}"


def _password(rng: random.Random) -> str:
    words = ("maple", "orbit", "copper", "lantern", "thistle", "quartz", "harbor", "juniper")
    a, b = rng.sample(words, 2)
    return f"{a}-{b}-{rng.randint(10, 99)}"


def _flight(rng: random.Random) -> str:
    return f"{rng.choice(('UA', 'LH', 'KL', 'AF', 'QF', 'AC', 'NZ'))} {rng.randint(100, 2999)}"


def _parking(rng: random.Random) -> str:
    return f"{rng.choice('ABCDEFG')}-{rng.randint(10, 99)}"


def _apartment(rng: random.Random) -> str:
    return f"{rng.randint(2, 19)}{rng.choice('ABCDEF')}"


def _employee(rng: random.Random) -> str:
    return f"E-{rng.randint(10000, 99999)}"


def _date(rng: random.Random) -> str:
    month = rng.choice(("March", "April", "June", "August", "October", "November"))
    return f"{month} {rng.randint(2, 28)}"


def _appointment(rng: random.Random) -> str:
    day = rng.choice(("Tuesday", "Wednesday", "Thursday", "Friday"))
    return f"{day} at {rng.randint(1, 5)}:{rng.choice(('05', '15', '20', '40', '50'))}"


_PEOPLE = ("Priya", "Tomasz", "Ingrid", "Oluwaseun", "Mirela", "Desmond", "Keiko", "Anselm",
           "Radhika", "Bartholomew", "Svetlana", "Thaddeus", "Esperanza", "Cormac", "Noor")
_PETS = ("Biscuit", "Pickles", "Waffles", "Juniper", "Mochi", "Captain", "Pretzel", "Nimbus",
         "Clementine", "Ziggy", "Marmalade", "Gizmo")
_PLACES = ("Duluth", "Asheville", "Bendigo", "Ghent", "Tromsø", "Valparaíso", "Keswick", "Bozeman",
           "Nelson", "Cuenca", "Lismore", "Sligo")

FACT_KINDS: tuple[FactKind, ...] = (
    FactKind("locker_combination", "My locker combination is {v}",
             "What was my locker combination?", ("locker", "combination"), _combination),
    FactKind("sister_name", "My sister's name is {v}", "What is my sister's name?",
             ("sister", "sisters"), _pick(*_PEOPLE)),
    FactKind("dog_name", "My dog's name is {v}", "What is my dog's name?",
             ("dog", "dogs", "puppy"), _pick(*_PETS)),
    FactKind("cat_name", "My cat is called {v}", "What is my cat called?",
             ("cat", "cats", "kitten"), _pick(*_PETS)),
    FactKind("wifi_password", "Our wifi password is {v}", "What is our wifi password?",
             ("wifi", "password"), _password),
    FactKind("license_plate", "My license plate is {v}", "What is my license plate?",
             ("plate", "license"), _plate),
    FactKind("hotel_room", "I'm staying in room {v} at the hotel",
             "What room am I staying in at the hotel?", ("hotel", "room"), _digits(4)),
    FactKind("flight_number", "My flight home is {v}", "What is my flight number home?",
             ("flight", "fly", "flying"), _flight),
    FactKind("blood_type", "My blood type is {v}", "What is my blood type?", ("blood",),
             _pick("AB negative", "O negative", "B negative", "A negative")),
    FactKind("allergy", "I'm allergic to {v}", "What am I allergic to?", ("allergic", "allergy"),
             _pick("cashews", "shellfish", "sesame", "kiwi", "penicillin", "buckwheat")),
    FactKind("gate_code", "The gate code at my building is {v}",
             "What is the gate code at my building?", ("gate", "code"), _digits(4)),
    FactKind("employee_id", "My employee ID is {v}", "What is my employee ID?",
             ("employee", "id"), _employee),
    FactKind("hometown", "I grew up in {v}", "Where did I grow up?",
             ("grew", "grow", "hometown", "raised"), _pick(*_PLACES)),
    FactKind("best_friend", "My best friend's name is {v}", "What is my best friend's name?",
             ("best friend",), _pick(*_PEOPLE)),
    FactKind("manager", "My manager's name is {v}", "What is my manager's name?",
             ("manager", "boss"), _pick(*_PEOPLE)),
    FactKind("anniversary", "Our wedding anniversary is on {v}",
             "When is our wedding anniversary?", ("anniversary", "wedding"), _date),
    FactKind("bike_lock", "The code for my bike lock is {v}", "What is the code for my bike lock?",
             ("bike", "lock"), _digits(4)),
    FactKind("parking_spot", "I parked in spot {v} at the garage",
             "Which spot did I park in at the garage?", ("parked", "parking", "garage"), _parking),
    FactKind("shoe_size", "My shoe size is {v}", "What is my shoe size?", ("shoe", "shoes"),
             _pick("7.5", "8.5", "9.5", "10.5", "11.5", "12.5")),
    FactKind("coffee_order", "My usual coffee order is {v}", "What is my usual coffee order?",
             ("coffee",), _pick("an oat milk cortado", "a double macchiato", "a cardamom latte",
                                "a flat white with honey")),
    FactKind("first_car", "My first car was a {v}", "What was my first car?", ("car",),
             _pick("Subaru Outback", "Volvo 240", "Saab 900", "Honda Prelude", "Mazda Miata")),
    FactKind("piano_teacher", "My piano teacher was Mrs. {v}", "Who was my piano teacher?",
             ("piano", "teacher"), _pick("Okafor", "Lindqvist", "Castellanos", "Whitcombe")),
    FactKind("favourite_book", "My favourite book is {v}", "What is my favourite book?",
             ("book", "books", "favourite", "favorite"),
             _pick("The Left Hand of Darkness", "Middlemarch", "Pale Fire", "The Dispossessed")),
    FactKind("dentist", "My dentist appointment is on {v}", "When is my dentist appointment?",
             ("dentist", "appointment"), _appointment),
    FactKind("library_card", "My library card number is {v}", "What is my library card number?",
             ("library", "card"), _digits(8)),
    FactKind("grandmother_birthplace", "My grandmother was born in {v}",
             "Where was my grandmother born?", ("grandmother", "grandma", "born"),
             _pick(*_PLACES)),
    FactKind("printer_pin", "The printer PIN at work is {v}", "What is the printer PIN at work?",
             ("printer", "pin"), _digits(4)),
    FactKind("apartment", "I live in apartment {v}", "Which apartment do I live in?",
             ("apartment", "flat"), _apartment),
    FactKind("favourite_band", "My favourite band is {v}", "What is my favourite band?",
             ("band", "favourite", "favorite"),
             _pick("Khruangbin", "Stereolab", "Tinariwen", "Cocteau Twins", "Boards of Canada")),
    FactKind("spare_key", "I keep the spare key {v}", "Where do I keep the spare key?",
             ("key", "keys", "spare"),
             _pick("under the blue flowerpot", "inside the mailbox lid", "behind the gas meter")),
)
"""The fact templates the generator draws from (30 kinds)."""

_LEAD_INS = (
    "", "By the way, ", "Oh, before I forget: ", "Random thing, but ", "Just so you know, "
)
_ACKS = (
    "Got it, thanks for telling me.",
    "Good to know!",
    "Okay, I'll remember that.",
    "Noted, thanks.",
    "Thanks for letting me know.",
)


# --- filler -------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _chitchat_conversations() -> tuple[tuple[str, ...], ...]:
    """The Chit Chat Challenge conversations bundled in `chitchat-dataset`, as message lists.

    Read straight from the JSON file inside the package (its `Dataset` class does the same): no
    network. Each message joins one sender's consecutive utterances, so messages alternate
    speakers. Conversations are ordered by id so that a seed picks the same ones everywhere.
    """
    try:
        import chitchat_dataset  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError as e:
        raise MissingExtra("chitchat filler for the needle workload", "eval", CHITCHAT) from e
    path = Path(getattr(chitchat_dataset, "_PATH", Path(chitchat_dataset.__file__).parent /
                        "dataset.json"))
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for key in sorted(data):
        msgs = tuple(
            " ".join(" ".join(str(u.get("text", "")) for u in m).split())
            for m in data[key].get("messages", [])
        )
        if len(msgs) >= 4:
            out.append(msgs)
    return tuple(out)


def chitchat_available() -> bool:
    """Whether the `chitchat-dataset` package can be imported."""
    try:
        _chitchat_conversations()
    except MissingExtra:
        return False
    return True


def _chitchat_stream(rng: random.Random) -> Iterator[str]:
    convs = _chitchat_conversations()
    while True:
        conv = convs[rng.randrange(len(convs))]
        # Start at an even offset so each conversation's first speaker stays on the user side.
        start = rng.randrange(0, max(1, len(conv) - 3), 2) if len(conv) > 8 else 0
        yield from conv[start:]


_B_SUBJECTS = ("the weather", "my weekend", "the new café downtown", "my garden",
               "the farmers' market", "a documentary I watched", "my commute", "a recipe I tried",
               "my morning walk", "the neighbourhood park", "a podcast episode",
               "my running routine", "a board game night", "the local museum", "my houseplants")
_B_USER = (
    "I've been thinking about {s} a lot lately.",
    "Can I tell you about {s}?",
    "So, {s} was pretty nice this time.",
    "Honestly {s} made my day.",
    "Not much new here, mostly {s}.",
    "Have you ever thought much about {s}?",
    "I wanted to mention {s}, it was a nice surprise.",
    "Anyway, {s} is going fine.",
)
_B_ASSISTANT = (
    "That sounds lovely. What did you enjoy most about it?",
    "Nice! How did it go?",
    "I'd love to hear more about that.",
    "Oh, that sounds relaxing. Do you do that often?",
    "That's great to hear. Anything else planned for the week?",
    "Interesting! What made you think of it?",
    "Sounds like a good time. How are you feeling about it?",
    "Ha, I can imagine. Was it busy?",
)


def filler_drawer(rng: random.Random, filler_source: str
                  ) -> tuple[str, Callable[[str], str]]:
    """(the filler's source name, a function giving the next filler line for a role): the
    chitchat dataset's real small talk when asked for or available ("auto"), else the built-in
    lines. Shared by the needle and the reference workloads."""
    if filler_source == "builtin" or (filler_source == "auto" and not chitchat_available()):
        return BUILTIN, lambda role: _builtin_line(rng, role)
    stream = _chitchat_stream(rng)
    return CHITCHAT, lambda role: next(stream)


def filler_exchange(draw: Callable[[str], str], forbidden: list[str]
                    ) -> list[tuple[str, str]]:
    """One user line and one assistant line of filler, each drawn until it says none of
    `forbidden` (the planted fact's words, its topic's, the question's)."""
    out = []
    for role in ("user", "assistant"):
        msg = draw(role)
        while not _clean(msg, forbidden):
            msg = draw(role)
        out.append((role, msg))
    return out


def _builtin_line(rng: random.Random, role: str) -> str:
    """One line of neutral small talk from templates: the user shares, the assistant asks."""
    if role == "user":
        return rng.choice(_B_USER).format(s=rng.choice(_B_SUBJECTS))
    return rng.choice(_B_ASSISTANT)


def _fold(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _forbidden(needles: list[Needle], kinds: list[FactKind]) -> list[str]:
    """Folded words and phrases no filler message may contain."""
    words: set[str] = set()
    for n, k in zip(needles, kinds, strict=True):
        words.add(_fold(n.answer))
        # Each part of a value ("Cocteau", "Twins", "19"), bar single characters that would
        # exclude half the corpus ("a", "7").
        words.update(w for w in _fold(n.answer).split() if len(w) >= 2)
        words.update(_fold(t) for t in k.topic)
    return sorted(w for w in words if w)


def _clean(msg: str, forbidden: list[str]) -> bool:
    if not msg or len(msg.split()) > MAX_FILLER_WORDS:
        return False
    padded = f" {_fold(msg)} "
    return not any(f" {w} " in padded for w in forbidden)


# --- generation ---------------------------------------------------------------------------------


def make_needle_thread(
    seed: int,
    n_turns: int,
    depth: int,
    filler_source: FillerSource = "auto",
    n_needles: int = 1,
) -> NeedleThread:
    """A reproducible needle thread.

    `n_turns` exchanges of filler precede the question; the asked-for fact is planted in the
    user message of exchange `depth` (0 = the first). `filler_source`: "chitchat" (needs the
    `chitchat-dataset` package), "builtin", or "auto" (chitchat when installed).
    """
    if n_turns < 1:
        raise UsageError(f"n_turns={n_turns}: a needle thread needs at least one exchange")
    if not 0 <= depth < n_turns:
        raise UsageError(
            f"depth={depth} is outside the thread: use 0 <= depth < n_turns ({n_turns})"
        )
    if not 1 <= n_needles <= min(n_turns, len(FACT_KINDS)):
        raise UsageError(
            f"n_needles={n_needles}: use 1 to {min(n_turns, len(FACT_KINDS))} "
            f"(at most one per exchange and one per fact kind)"
        )
    if filler_source not in ("auto", "chitchat", "builtin"):
        raise UsageError(f"filler_source={filler_source!r}: use 'auto', 'chitchat' or 'builtin'")

    rng = random.Random(seed)
    source, draw = filler_drawer(rng, filler_source)

    kinds = rng.sample(FACT_KINDS, n_needles)
    others = [i for i in range(n_turns) if i != depth]
    exchanges = [depth, *rng.sample(others, n_needles - 1)]
    needles: list[Needle] = []
    used_values: set[str] = set()
    for kind, exchange in zip(kinds, exchanges, strict=True):
        value = kind.value(rng)
        while _fold(value) in used_values:  # two names from one list must not coincide
            value = kind.value(rng)
        used_values.add(_fold(value))
        needles.append(
            Needle(
                index=2 * exchange,
                kind=kind.key,
                fact=kind.fact.format(v=value),
                question=kind.question,
                answer=value,
            )
        )
    forbidden = _forbidden(needles, kinds)
    planted = {n.index: n for n in needles}

    messages: list[tuple[str, str]] = []
    for exchange in range(n_turns):
        needle = planted.get(2 * exchange)
        if needle is not None:
            lead = rng.choice(_LEAD_INS)
            text = needle.fact
            if lead:
                # "By the way, my dog's ..." but "By the way, I'm ...": only "I" keeps its capital.
                keep = re.match(r"I\b", text) is not None
                text = lead + (text if keep else text[0].lower() + text[1:])
            messages.append(("user", text + "."))
            messages.append(("assistant", rng.choice(_ACKS)))
            continue
        messages += filler_exchange(draw, forbidden)
    asked = needles[0]
    messages.append(("user", asked.question))
    return NeedleThread(
        seed=seed,
        messages=tuple(messages),
        needle_index=asked.index,
        question=asked.question,
        answer=asked.answer,
        fact=asked.fact,
        filler_source=source,
        needles=tuple(needles),
    )
