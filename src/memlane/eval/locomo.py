"""LoCoMo: loading the long-conversation memory benchmark into frozen dataclasses.

LoCoMo (Maharana et al., ACL 2024) is a set of very long two-person conversations, split into dated
sessions, with questions whose `evidence` names the turns (`dia_id`, "D<session>:<turn>") that hold
the answer. Its licence (CC BY-NC 4.0) lets us evaluate on it but not ship it, so the data is always
loaded by path and never copied into this repository, not even into a test.

What loading adds on top of the JSON:
- every turn gets a timestamp: its session's date (parsed from text like "1:56 pm on 8 May, 2023",
  read as UTC) plus 30 s per turn, so sorting by time keeps the conversation's order;
- a shared photo becomes text ("[shares a photo: CAPTION]"), since the replay reads text only;
- evidence ids are normalised: the published data has a few malformed ones ("D8:6; D9:17",
  "D:11:26"). What parses is kept; what does not, or names no turn of the conversation, is dropped
  from the question and listed in `Conversation.bad_evidence`, so a replay can report it rather
  than score a question against a turn that does not exist.

Replaying a conversation through a memory is a separate step; this module only reads.
"""

from __future__ import annotations

import calendar
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlane.errors import UsageError

__all__ = [
    "Conversation",
    "Observation",
    "Question",
    "Session",
    "Turn",
    "TURN_SPACING",
    "load_locomo",
    "normalise_evidence",
    "parse_locomo_date",
    "session_episode_line",
]

TURN_SPACING = 30.0
"""Seconds between consecutive turns of a session: sessions carry one date, turns need an order."""

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
"""LoCoMo's question categories, as its README names them."""


@dataclass(frozen=True)
class Turn:
    """One utterance of a LoCoMo conversation."""

    dia_id: str
    """Id of the turn, "D<session>:<n>"; what question evidence and observations point at."""
    speaker: str
    """Who said it (one of the conversation's two speakers)."""
    text: str
    """What was said, with "[shares a photo: CAPTION]" appended when a photo was shared."""
    session: int
    """Number of the session it belongs to (1-based, as in the data)."""
    ts: float
    """Epoch seconds (UTC): the session's date plus `TURN_SPACING` per earlier turn."""


@dataclass(frozen=True)
class Session:
    """One dated sitting of a conversation."""

    index: int
    """Session number N from the `session_N` key (1-based)."""
    date_text: str
    """The date as the data writes it, e.g. "1:56 pm on 8 May, 2023"."""
    ts: float
    """`date_text` as epoch seconds (UTC); the first turn's timestamp."""
    turns: tuple[Turn, ...]
    """The session's turns, in order."""
    summary: str
    """LoCoMo's prose summary of the session (written by a language model), "" if absent."""
    events: tuple[str, ...]
    """Annotated events of the session, speaker A's then speaker B's; may be empty. An event that
    does not name its speaker is prefixed "Speaker: "."""


@dataclass(frozen=True)
class Observation:
    """A fact LoCoMo's authors had a language model extract from a session: a realistic record."""

    text: str
    """The fact, e.g. "Caroline attended an LGBTQ support group recently ..."."""
    dia_id: str
    """The turn it came from (the first one, when the data names several)."""
    speaker: str
    """Whom the fact is about."""
    session: int
    """Number of the session it was extracted from."""
    dia_ids: tuple[str, ...] = ()
    """Every source turn the data names, `dia_id` first."""


@dataclass(frozen=True)
class Question:
    """A question about the conversation, with the turns that answer it."""

    question: str
    """The question as asked."""
    answer: str
    """The gold answer as text; "" for adversarial questions that have none (the right reply is
    that the conversation does not say)."""
    evidence: tuple[str, ...]
    """Normalised ids of the turns holding the answer; empty if the data's ids were unusable."""
    category: int
    """1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (see `CATEGORIES`)."""
    adversarial_answer: str | None = None
    """For adversarial questions, the plausible but wrong answer the data offers as a trap."""


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo sample: a long conversation, its questions and its extracted observations."""

    sample_id: str
    """The sample's id, e.g. "conv-26"."""
    speaker_a: str
    """Name of the first speaker."""
    speaker_b: str
    """Name of the second speaker."""
    sessions: tuple[Session, ...]
    """Sessions in number order; only those that have turns."""
    questions: tuple[Question, ...]
    """The sample's questions, in the data's order."""
    observations: tuple[Observation, ...]
    """Extracted facts, by session then speaker, in the data's order."""
    bad_evidence: tuple[str, ...] = ()
    """Evidence ids dropped from questions: unparseable, or naming no turn of this conversation."""

    @property
    def turns(self) -> tuple[Turn, ...]:
        """Every turn of every session, in conversation order."""
        return tuple(t for s in self.sessions for t in s.turns)


# --- dates --------------------------------------------------------------------------------------

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9

_DATE_RE = re.compile(
    r"""^\s*
    (?:(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)\s*(?:on\s+)?)?
    (?:
        (?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?P<month>[A-Za-z]+)\.?,?\s+(?P<year>\d{4})
      | (?P<month2>[A-Za-z]+)\.?\s+(?P<day2>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year2>\d{4})
    )\s*$""",
    re.IGNORECASE | re.VERBOSE,
)


def parse_locomo_date(text: str) -> float:
    """Epoch seconds (UTC) of a LoCoMo date: "1:56 pm on 8 May, 2023", "8 May, 2023", "May 8, 2023".

    UTC because the data gives no zone; only order and gaps matter to the replay.
    """
    m = _DATE_RE.match(text)
    if not m:
        raise UsageError(
            f"cannot read the date {text!r}: LoCoMo dates look like '1:56 pm on 8 May, 2023'"
        )
    day = int(m["day"] or m["day2"])
    month_name = (m["month"] or m["month2"]).lower()
    year = int(m["year"] or m["year2"])
    month = _MONTHS.get(month_name)
    if month is None:
        raise UsageError(f"cannot read the month {month_name!r} in the date {text!r}")
    hour = minute = 0
    if m["hour"] is not None:
        hour, minute = int(m["hour"]) % 12, int(m["minute"] or 0)
        if m["ampm"].lower().startswith("p"):
            hour += 12
        if minute > 59:
            raise UsageError(f"cannot read the time in the date {text!r}")
    try:
        return float(calendar.timegm((year, month, day, hour, minute, 0, 0, 0, 0)))
    except ValueError as e:  # pragma: no cover - timegm is lenient; kept for odd platforms
        raise UsageError(f"the date {text!r} does not exist: {e}") from e


# --- evidence ids -------------------------------------------------------------------------------

# Tolerates a stray colon after "D" ("D:11:26") and finds several ids in one string
# ("D8:6; D9:17", "D10:3 D10:4"); leading zeros are dropped so "D01:05" matches turn "D1:5".
_DIA_RE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)


def normalise_evidence(raw: str) -> tuple[str, ...]:
    """The canonical "D<s>:<n>" ids found in one raw evidence string; () if none can be read."""
    return tuple(f"D{int(s)}:{int(n)}" for s, n in _DIA_RE.findall(str(raw)))


def _canonical_dia_id(raw: str) -> str:
    ids = normalise_evidence(raw)
    return ids[0] if len(ids) == 1 else str(raw)


# --- loading ------------------------------------------------------------------------------------

_SESSION_KEY = re.compile(r"^session_(\d+)$")


def _need(obj: Mapping[str, Any], key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(obj, Mapping) or key not in obj:
        raise UsageError(f"{where}: the field '{key}' is missing; is this a LoCoMo JSON file?")
    value = obj[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise UsageError(f"{where}.{key} should be a {names}, not {type(value).__name__}")
    return value


LOCOMO_URL = "https://github.com/snap-research/locomo"
"""Where the LoCoMo data is published (Maharana et al., ACL 2024)."""
LOCOMO_LICENCE = "CC BY-NC 4.0"
"""Its licence: evaluation use, never copied into this project or a package."""


def load_locomo(path: str | Path) -> list[Conversation]:
    """Read a LoCoMo JSON file (a list of samples) into `Conversation`s.

    Raises `UsageError` naming the file, sample and field when the file is missing or its format
    is not LoCoMo's.
    """
    p = Path(path)
    if not p.is_file():
        raise UsageError(
            f"no LoCoMo file at {str(p)!r}: pass the path of the benchmark's JSON file "
            f"(locomo10.json from the data/ folder of {LOCOMO_URL}, {LOCOMO_LICENCE}; loaded "
            "by path, never bundled)"
        )
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UsageError(f"{str(p)!r} is not valid JSON ({e}): is it a LoCoMo file?") from e
    if not isinstance(data, list):
        raise UsageError(
            f"{str(p)!r} holds a JSON {type(data).__name__}; LoCoMo files hold a list of samples"
        )
    return [_load_sample(sample, i, p.name) for i, sample in enumerate(data)]


def _load_sample(sample: Any, i: int, fname: str) -> Conversation:
    where = f"{fname}[{i}]"
    if not isinstance(sample, Mapping):
        raise UsageError(f"{where} should be an object with 'conversation' and 'qa' fields")
    sample_id = str(sample.get("sample_id") or f"sample-{i}")
    where = f"{fname}[{i}] ({sample_id})"
    conv = _need(sample, "conversation", where, Mapping)
    speaker_a = _need(conv, "speaker_a", f"{where}.conversation", str)
    speaker_b = _need(conv, "speaker_b", f"{where}.conversation", str)

    summaries = sample.get("session_summary") or {}
    events_by_key = sample.get("event_summary") or {}
    numbers = sorted(int(m[1]) for k in conv if (m := _SESSION_KEY.match(k)))
    sessions: list[Session] = []
    for n in numbers:
        raw_turns = _need(conv, f"session_{n}", f"{where}.conversation", list)
        if not raw_turns:
            continue  # a dated session with no turns adds nothing to replay
        date_text = _need(conv, f"session_{n}_date_time", f"{where}.conversation", str)
        try:
            ts0 = parse_locomo_date(date_text)
        except UsageError as e:
            raise UsageError(f"{where}.conversation.session_{n}_date_time: {e}") from None
        turns = tuple(
            _load_turn(t, n, ts0 + j * TURN_SPACING, f"{where}.conversation.session_{n}[{j}]")
            for j, t in enumerate(raw_turns)
        )
        sessions.append(
            Session(
                index=n,
                date_text=date_text,
                ts=ts0,
                turns=turns,
                summary=str(summaries.get(f"session_{n}_summary") or ""),
                events=_events(events_by_key.get(f"events_session_{n}"), speaker_a, speaker_b),
            )
        )

    known = {t.dia_id for s in sessions for t in s.turns}
    bad: list[str] = []
    questions = []
    for j, q in enumerate(_need(sample, "qa", where, list)):
        qwhere = f"{where}.qa[{j}]"
        question = _need(q, "question", qwhere, str)
        evidence: list[str] = []
        for raw in q.get("evidence") or []:
            ids = [e for e in normalise_evidence(raw) if e in known]
            if not ids or len(ids) != len(normalise_evidence(raw)):
                bad.append(str(raw))
            evidence.extend(e for e in ids if e not in evidence)
        answer = q.get("answer")
        adversarial = q.get("adversarial_answer")
        if answer is None and adversarial is None:
            raise UsageError(f"{qwhere}: the field 'answer' (or 'adversarial_answer') is missing")
        questions.append(
            Question(
                question=question,
                answer="" if answer is None else str(answer),
                evidence=tuple(evidence),
                category=int(_need(q, "category", qwhere, int)),
                adversarial_answer=None if adversarial is None else str(adversarial),
            )
        )

    return Conversation(
        sample_id=sample_id,
        speaker_a=speaker_a,
        speaker_b=speaker_b,
        sessions=tuple(sessions),
        questions=tuple(questions),
        observations=_observations(sample.get("observation") or {}, where),
        bad_evidence=tuple(bad),
    )


def _load_turn(t: Any, session: int, ts: float, where: str) -> Turn:
    speaker = _need(t, "speaker", where, str)
    dia_id = _need(t, "dia_id", where, str)
    text = _need(t, "text", where, str)
    caption = t.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [shares a photo: {caption.strip()}]".lstrip()
    return Turn(
        dia_id=_canonical_dia_id(dia_id), speaker=speaker, text=text, session=session, ts=ts
    )


def _events(raw: Any, speaker_a: str, speaker_b: str) -> tuple[str, ...]:
    if not isinstance(raw, Mapping):
        return ()
    # Speaker A's events first, then B's, then any other list the data has (none in LoCoMo).
    keys = [speaker_a, speaker_b] + [k for k in raw if k not in (speaker_a, speaker_b)]
    out: list[str] = []
    for key in keys:
        items = raw.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            event = str(item).strip()
            if not event:
                continue
            # Events are filed under a speaker and nearly always name them; the few that do not
            # (a clipped "Global Offensive with a team.") would lose who they are about.
            if str(key).lower() not in event.lower():
                event = f"{key}: {event}"
            out.append(event)
    return tuple(out)


def _observations(raw: Any, where: str) -> tuple[Observation, ...]:
    if not isinstance(raw, Mapping):
        raise UsageError(f"{where}.observation should be an object of session_N_observation keys")
    out: list[Observation] = []
    keyed = []
    for key, per_speaker in raw.items():
        m = re.match(r"^session_(\d+)_observation$", key)
        if m and isinstance(per_speaker, Mapping):
            keyed.append((int(m[1]), per_speaker))
    for session, per_speaker in sorted(keyed, key=lambda kv: kv[0]):
        for speaker, items in per_speaker.items():
            for item in items or []:
                if not (isinstance(item, list | tuple) and len(item) == 2):
                    continue
                text, src = item
                # The source is usually one id, sometimes a list or "D26:14, D26:34".
                srcs = src if isinstance(src, list) else [src]
                ids = tuple(dict.fromkeys(i for s in srcs for i in normalise_evidence(s)))
                if not ids:
                    continue
                out.append(
                    Observation(
                        text=str(text), dia_id=ids[0], speaker=str(speaker), session=session,
                        dia_ids=ids,
                    )
                )
    return tuple(out)


# --- one-line episodes --------------------------------------------------------------------------


_PREAMBLE = re.compile(r"\b\d{1,2}:\d{2}\s*[ap]\.?m\b", re.IGNORECASE)


def _clip_words(text: str, max_words: int) -> str:
    words = text.split()
    if len(words) <= max_words:
        return " ".join(words)
    # The ellipsis rides on the last word so the line stays within max_words words.
    return " ".join(words[:max_words]).rstrip(",;:.") + "…"


def session_episode_line(session: Session, max_words: int = 24) -> str:
    """A one-line note (at most `max_words` words) of what happened in `session`.

    Built from the session's annotated events; a session without events falls back to the first
    sentence of its summary, then to its first turn. Used as a stand-in for the episodic buffer
    line a memory step would write for the session.
    """
    if max_words < 1:
        raise UsageError(f"max_words={max_words}: an episode line needs at least one word")
    if session.events:
        # Whole events read better than a clipped list: take as many as fit, clip only the first.
        kept: list[str] = []
        for event in session.events:
            if kept and len("; ".join([*kept, event]).split()) > max_words:
                break
            kept.append(event.rstrip(" ."))
        text = "; ".join(kept)
    elif session.summary.strip():
        sentences = re.split(r"(?<=[.!?])\s+", session.summary.strip())
        # Summaries tend to open with "X and Y met at 4:04 pm on 20 January, 2023.", which says
        # nothing the session's date does not; the next sentence is the first with content.
        if len(sentences) > 1 and _PREAMBLE.search(sentences[0]) and len(sentences[0].split()) < 16:
            sentences = sentences[1:]
        text = sentences[0].rstrip(" .")
    elif session.turns:
        first = session.turns[0]
        text = f"{first.speaker}: {first.text}"
    else:
        return f"Session {session.index} ({session.date_text})."
    line = _clip_words(text, max_words)
    return line if line.endswith(("…", ".", "!", "?")) else line + "."
