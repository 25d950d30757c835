"""Validating a memory step's output. Malformed output raises `StepError` listing every problem
(`path: what is wrong`); nothing is applied. Small slips that have one obvious reading (a line a
few words over, a score of 1.2) are corrected and reported as warnings instead of failing the
whole step, since a rejected step costs the caller another model call."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ..errors import StepError
from ..validate import INT64_MAX, MAX_RECORD_CHARS, RECORD_KINDS, clean_text
from .schema import EPISODE_MAX_WORDS


@dataclass(frozen=True)
class RecordOp:
    """One operation on long-term memory."""

    op: str
    """`add`, `update` or `delete`."""
    text: str | None = None
    """The fact (add, update)."""
    id: int | None = None
    """The record to change (update, delete)."""
    kind: str = "fact"
    source: tuple[int, ...] = ()
    """Seqs of the turns the fact came from."""
    supersedes: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """For an add: earlier versions of the fact stated in the same stretch, oldest first, as
    (text, source seqs); the record is written with them as its history."""
    replaces: int | None = None
    """For an add: the existing record this fact is a new value of (the supersede rule vets
    it in `apply_step`: a replace across holders or attributes is refused, both kept)."""


@dataclass(frozen=True)
class StepOutput:
    """A validated memory step."""

    records: tuple[RecordOp, ...]
    episode: str
    episode_record_ids: tuple[int, ...] | None
    """Ids the model asked the line to point at (None: every id the step wrote)."""
    relevance: dict[int, float]
    """Score by seq."""
    quality: dict[str, Any] | None = None
    warnings: tuple[str, ...] = ()


MAX_STEP_CHARS = 2_000_000
"""Step output longer than this (as JSON text) is refused before parsing."""
MAX_RECORDS = 200
"""Operations per step; a stretch of a few turns holds a handful of facts."""
EPISODE_MAX_CHARS = 400
"""A buffer line is cut to this many characters (after the word cut), with a warning."""
MAX_QUALITY_CHARS = 4000
"""The `quality` object as JSON; a larger one is dropped with a warning."""
SLIP_SCORE = (-1.0, 10.0)
"""Scores in this range are clamped to 0..1 with a warning; beyond it they are refused."""


class _Range(ValueError):
    """An integer no store can hold (ids and seqs are 1..2**63-1)."""


def _as_int(v: Any) -> int | None:
    """The integer `v` spells (an int, a digit string, "#12", an integral float), None if it
    spells none; raises `_Range` for one outside 0..2**63-1."""
    if isinstance(v, bool):
        return None
    n: int | None = None
    if isinstance(v, int):
        n = v
    elif isinstance(v, str):
        s = v.strip().lstrip("#")
        if s.isascii() and s.isdigit():
            if len(s) > 19:  # int() of 5000 digits is refused by Python itself
                raise _Range(f"{s[:24]}... ({len(s)} digits)")
            n = int(s)
    elif isinstance(v, float) and v.is_integer():
        n = int(v)
    if n is not None and not 0 <= n <= INT64_MAX:
        raise _Range(_shown(n))
    return n


def _shown(v: Any) -> str:
    """`v` for a message, short (`str` of a 5000-digit int would itself raise)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 80:
        return f"an integer of about {int(v.bit_length() * 0.30103)} digits"
    return f"{v!r:.40}"


def _int_at(v: Any, path: str, problems: list[str]) -> int | None:
    """`_as_int`, with an out-of-range integer reported as a problem at `path`."""
    try:
        return _as_int(v)
    except _Range as e:
        problems.append(f"{path}: {e} is out of range; ids and seqs are 1..2**63-1")
        return None


def _ints(values: list[Any], path: str, problems: list[str]) -> tuple[int, ...]:
    """The ids or seqs of a list (its first 1000), each read by `_as_int`: one out of range is a
    problem at `path`, one that spells no integer is left out."""
    return tuple(n for n in (_int_at(v, path, problems) for v in values[:1000]) if n is not None)


def _listed(v: Any) -> list[Any]:
    """A list as it is, anything else as a list of one (a source given as one seq)."""
    return v if isinstance(v, list) else [v]


def _fact(v: Any, path: str, problems: list[str], need: str) -> str | None:
    """A record's text, white space folded and cleaned; None, with a problem at `path`, when
    it is not a non-empty string or is longer than a record may be (`need`: who needs it)."""
    if not isinstance(v, str) or not v.strip():
        problems.append(f"{path}: {need} a non-empty string")
        return None
    text = clean_text(" ".join(v.split()))
    if len(text) > MAX_RECORD_CHARS:
        problems.append(f"{path}: {len(text):,} characters, a record is at most "
                        f"{MAX_RECORD_CHARS:,}: keep one fact per record")
        return None
    return text


def parse_step(raw: str | dict[str, Any]) -> StepOutput:
    """Validate model output (a JSON string, possibly in a ```json fence, or a dict)."""
    problems: list[str] = []
    warnings: list[str] = []
    data = _json(raw) if isinstance(raw, str) else raw
    if not isinstance(data, dict):
        raise StepError("memory step output must be a JSON object",
                        [f"$: got {type(data).__name__}"])
    unknown = set(data) - {"records", "episode", "relevance", "quality"}
    if unknown:
        warnings.append(f"ignored unknown fields: {', '.join(sorted(unknown))}")
    ops = _records(data.get("records", []), problems, warnings)
    line, ep_ids = _episode(data.get("episode"), problems, warnings)
    relevance = _relevance(data.get("relevance", []), problems, warnings)
    quality = _quality(data.get("quality"), problems, warnings)
    if problems:
        raise StepError("memory step output failed validation; nothing was applied", problems)
    return StepOutput(tuple(ops), line, ep_ids, relevance, quality, tuple(warnings))


def _json(raw: str) -> Any:
    """The JSON a model wrote (possibly in a ```json fence); a `StepError` when it is none."""
    if len(raw) > MAX_STEP_CHARS:
        raise StepError("memory step output is too long; nothing was applied",
                        [f"$: {len(raw):,} characters, the limit is {MAX_STEP_CHARS:,}; a "
                         "step holds a few short facts and one line"])
    body = raw.strip()
    if body.startswith("```"):
        body = body.strip("`")
        body = body[body.find("\n") + 1 :] if "\n" in body else body
    try:
        return json.loads(body)
    except json.JSONDecodeError as e:
        raise StepError(
            "memory step output is not valid JSON",
            [f"$: {e.msg} at line {e.lineno} column {e.colno}; return one JSON object "
             "matching STEP_SCHEMA"],
        ) from None
    except RecursionError:
        raise StepError("memory step output is not valid JSON",
                        ["$: nested too deeply; return one flat JSON object matching "
                         "STEP_SCHEMA"]) from None
    except ValueError as e:  # e.g. an integer of more digits than Python converts
        raise StepError("memory step output is not valid JSON",
                        [f"$: {str(e)[:200]}; return one JSON object matching "
                         "STEP_SCHEMA"]) from None


def _records(recs: Any, problems: list[str], warnings: list[str]) -> list[RecordOp]:
    if not isinstance(recs, list):
        problems.append("records: must be a list of operations")
        return []
    if len(recs) > MAX_RECORDS:
        problems.append(f"records: {len(recs)} operations, the limit is {MAX_RECORDS}; keep the "
                        "facts that will matter later")
        return []
    ops = [_op(r, f"records[{i}]", problems, warnings) for i, r in enumerate(recs)]
    return [op for op in ops if op is not None]


def _op(r: Any, path: str, problems: list[str], warnings: list[str]) -> RecordOp | None:
    """One operation, or None when it has a problem that leaves no reading of it."""
    if not isinstance(r, dict):
        problems.append(f"{path}: must be an object with 'op'")
        return None
    op = r.get("op")
    if op not in ("add", "update", "delete"):
        problems.append(f"{path}.op: must be 'add', 'update' or 'delete', got {op!r}")
        return None
    n_problems = len(problems)
    rid = _int_at(r.get("id"), f"{path}.id", problems) if "id" in r else None
    text = None
    if op in ("add", "update"):
        text = _fact(r.get("text"), f"{path}.text", problems, f"{op} needs")
        if text is None:
            return None
    if len(problems) > n_problems:
        return None
    replaces = _int_at(r.get("replaces"), f"{path}.replaces", problems) \
        if op == "add" and r.get("replaces") is not None else None
    if op in ("update", "delete") and rid is None:
        problems.append(f"{path}.id: {op} needs an integer record id, got {r.get('id')!r}")
        return None
    kind = r.get("kind", "fact")
    if kind not in RECORD_KINDS:
        warnings.append(f"{path}.kind: unknown kind {kind!r}, stored as 'fact'")
        kind = "fact"
    source = _ints(_listed(r.get("source", [])), f"{path}.source", problems)
    earlier: list[tuple[str, tuple[int, ...]]] = []
    sup = r.get("supersedes", []) if op == "add" else []
    if not isinstance(sup, list):
        problems.append(f"{path}.supersedes: must be a list of {{text, source}} objects")
        sup = []
    for j, v in enumerate(sup[:100]):
        at = f"{path}.supersedes[{j}]"
        vt = _fact(v.get("text") if isinstance(v, dict) else None, f"{at}.text", problems,
                   "an earlier version needs")
        if vt is not None:
            earlier.append((vt, _ints(_listed(v.get("source", [])), f"{at}.source", problems)))
    return RecordOp(op=op, text=text, id=rid, kind=kind, source=source,
                    supersedes=tuple(earlier), replaces=replaces)


def _episode(ep: Any, problems: list[str], warnings: list[str]
             ) -> tuple[str, tuple[int, ...] | None]:
    """The buffer line (cut to its words and characters, with a warning) and the record ids
    it was asked to point at (None: every id the step wrote)."""
    ep_ids: tuple[int, ...] | None = None
    if isinstance(ep, dict):
        ids = ep.get("record_ids")
        if ids is not None:
            if not isinstance(ids, list):
                problems.append("episode.record_ids: must be a list of integers")
            else:
                ep_ids = _ints(ids, "episode.record_ids", problems)
        ep = ep.get("line")
    if not isinstance(ep, str) or not ep.strip():
        problems.append("episode: must be a non-empty string (one line, under 25 words)")
        ep = ""
    words = ep.split()
    if len(words) > EPISODE_MAX_WORDS:
        warnings.append(f"episode: {len(words)} words, cut to {EPISODE_MAX_WORDS}")
        words = words[:EPISODE_MAX_WORDS]
    line = clean_text(" ".join(words))
    if len(line) > EPISODE_MAX_CHARS:
        warnings.append(f"episode: {len(line):,} characters, cut to {EPISODE_MAX_CHARS}")
        line = line[:EPISODE_MAX_CHARS - 3].rstrip() + "..."
    return line, ep_ids


def _relevance(rel: Any, problems: list[str], warnings: list[str]) -> dict[int, float]:
    """Score by seq, from the list form or the object form; scores a little out of 0..1 are
    clamped with a warning."""
    relevance: dict[int, float] = {}
    # (path, seq, score): the path names the item as the model wrote it (list index, or the key
    # of the object form), so `relevance[1]` is always the second item, never "seq 1".
    items: list[tuple[str, Any, Any]] = []
    if isinstance(rel, dict):
        items = [(f"relevance.{k}", k, v) for k, v in rel.items()]
    elif isinstance(rel, list):
        for i, x in enumerate(rel):
            if isinstance(x, dict) and "seq" in x and "score" in x:
                items.append((f"relevance[{i}]", x["seq"], x["score"]))
            else:
                problems.append(f"relevance[{i}]: must be {{'seq': int, 'score': 0..1}}")
    else:
        problems.append("relevance: must be a list of {seq, score}")
    for path, k, v in items:
        n_problems = len(problems)
        seq = _int_at(k, f"{path}.seq", problems)
        if len(problems) > n_problems:
            continue
        if seq is None:
            problems.append(f"{path}.seq: {k!r:.40} is not an integer")
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                not SLIP_SCORE[0] <= v <= SLIP_SCORE[1] or math.isnan(v):
            problems.append(f"{path}.score: must be a number 0..1, got {_shown(v)}")
            continue
        s = float(v)
        if not 0.0 <= s <= 1.0:
            warnings.append(f"{path}.score: {s} clamped to 0..1")
            s = min(1.0, max(0.0, s))
        relevance[seq] = s
    return relevance


def _quality(quality: Any, problems: list[str], warnings: list[str]) -> dict[str, Any] | None:
    """The step's grade of the answer, or None (a large or non-JSON one dropped, warned)."""
    if quality is None:
        return None
    if not isinstance(quality, dict):
        problems.append("quality: must be an object {score, signals, note} or omitted")
        return None
    try:
        size = len(json.dumps(quality, ensure_ascii=False, allow_nan=False))
    except (ValueError, TypeError, RecursionError):
        size = MAX_QUALITY_CHARS + 1
    if size > MAX_QUALITY_CHARS:
        warnings.append(f"quality: dropped (not plain JSON of at most {MAX_QUALITY_CHARS:,} "
                        "characters)")
        return None
    return quality
