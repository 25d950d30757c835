"""One validation layer for everything that is written: every surface (Python API, REST, proxy,
MCP, CLI, the memory tools, a memory step) reaches the store through `Memory`/`Thread`, and
they check their input here, so SQLite and PostgreSQL accept and refuse the same things.

What the two engines disagree on, and what is decided here instead:

- **Integers.** SQLite and PostgreSQL hold 64-bit integers; Python's are unbounded, and an id
  of 2**70 raised `OverflowError` (SQLite) or `NumericValueOutOfRange` (PostgreSQL). Record ids
  and seqs are 1..2**63-1; an id outside that range cannot name a row, so it is treated as
  "no such record", never sent to the driver.
- **NUL and lone surrogates.** PostgreSQL refuses U+0000 in text (and neither driver encodes a
  lone surrogate); SQLite stores NUL. Text is *cleaned*, not refused: each such character
  becomes U+FFFD. Refusing would wedge a proxied conversation, whose client resends the same
  history every turn; the proxy compares what it is sent with the log through `clean_text`
  too, so a cleaned message is recognised as already stored. Identifiers (thread ids,
  namespaces, kinds) are keys, not text: a NUL there is refused.
- **Timestamps.** Finite epoch seconds between the years 1 and 9999 (what a datetime can show);
  `1e400`, NaN and infinity are refused, since a stored one broke every reader (context, show,
  export).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from .errors import UsageError
from .types import ROLES

INT64_MAX = 2**63 - 1
"""The largest id or seq either store can hold."""
TS_MIN = -62135596800.0
"""0001-01-01T00:00:00Z in epoch seconds."""
TS_MAX = 253402300799.0
"""9999-12-31T23:59:59Z in epoch seconds."""
MAX_RECORD_CHARS = 4000
"""A record holds one fact; longer text belongs in a message or a snapshot."""
REPLACEMENT = "\ufffd"

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` with NUL and lone surrogates replaced by U+FFFD (storable by both engines)."""
    return _UNSTORABLE.sub(REPLACEMENT, text) if _UNSTORABLE.search(text) else text


def clean_json(value: Any, depth: int = 0) -> Any:
    """`clean_text` applied to every string (keys too) of JSON-like data; refuses data nested
    deeper than 64 levels (tool arguments are shallow; deeper is an attack on the encoder)."""
    if depth > 64:
        raise UsageError("data is nested more than 64 levels deep: flatten it")
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, Mapping):
        return {clean_text(str(k)): clean_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_json(v, depth + 1) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN or infinity; PostgreSQL's jsonb refuses them
    return value


def in_range(n: int) -> bool:
    """Whether `n` can be a record id or a seq in either store."""
    return 1 <= n <= INT64_MAX


def record_id(value: object) -> int:
    """An integer id (bools and strings refused). Range is not checked: see `in_range`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"a record id is an integer, got {value!r:.60}")
    return value


RECORD_REF = re.compile(r"#?([0-9]{1,19})")
"""A record id as text, the one form every surface takes besides the integer: "74", or "#74" as
the notes show it. Nothing around it is trimmed (" 74" is refused, as an id with spaces is)."""
RECORD_ID_SCHEMA: dict[str, Any] = {
    "type": ["integer", "string"], "minimum": 1, "maximum": INT64_MAX,
    "pattern": "^" + RECORD_REF.pattern + "$",
    "description": "a record id: 74, or \"74\" / \"#74\" as text"}
"""`RECORD_REF` and the integer range as JSON Schema: MCP's input schemas, REST's `forget` body
and the tools' own check (`tools.handlers`) all take ids by it."""


def record_ref(value: object) -> object:
    """A record id as sent (`RECORD_ID_SCHEMA`): the integer a text form names; anything else
    is returned unchanged for the schema check to refuse with its reason."""
    if isinstance(value, str):
        m = RECORD_REF.fullmatch(value)
        return int(m.group(1)) if m else value
    return value


def count(value: object, what: str, *, allow_all: bool = False) -> int:
    """A limit, offset or k: an integer, capped at what a store can hold (-1, "all", only where
    `allow_all`)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{what} must be an integer, got {value!r:.40}")
    if value < 0 and not (allow_all and value == -1):
        raise UsageError(f"{what} must be 0 or more, got {value}")
    return min(value, INT64_MAX)


# In a key, refused: control characters (newlines and tabs too: an id with a newline forges a
# row in `memlane threads` and in logs), line and paragraph separators, lone surrogates, and
# U+FFFD, what invalid UTF-8 in a URL decodes to (two different byte strings would name one
# thread).
_BAD_KEY = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffd]")

RECORD_KINDS = ("fact", "preference", "event", "note", "task", "profile", "constraint",
                "decision")
"""The kinds a memory step or a model writes. `constraint`: a need or limit (an allergy, a diet,
a medication, access, a budget, a schedule limit) that a later request must respect whether or
not it names it; `decision`: something agreed or settled in the conversation; `profile`: who
the user and the people around them are (identity, relationships, contact details)."""
STANDING_KINDS = ("constraint", "decision", "profile", "preference")
"""The kinds that mark a record as a standing fact (DESIGN.md section 2): shown on every turn
(`memlane.context.standing`), in this order when they do not all fit: what a wrong answer
would cost most first. A pinned record is standing whatever its kind."""
KINDS = (*RECORD_KINDS, "langgraph", "langgraph-unindexed")
"""The kinds a record may have, on every surface (tools, REST, MCP, Python, import): the
step's kinds and those memlane's integrations write (LangGraph store items)."""


# Bidirectional controls: U+202E (right-to-left override) makes `abc\u202exyz` display as
# `abczyx`, so the inspector, `memlane threads` and a log would show one id as another.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def identifier(value: object, what: str, limit: int = 200) -> str:
    """A thread id or similar key: a non-empty string, at most `limit` characters, printable
    (`_BAD_KEY`), with no bidirectional controls (`_BIDI`) and no whitespace at either end:
    nothing is trimmed, since `"real "` and `"real"` would silently be two keys."""
    if not isinstance(value, str) or not value or len(value) > limit:
        raise UsageError(f"{what} must be a non-empty string of at most {limit} characters")
    bad = _BAD_KEY.search(value)
    if bad:
        why = ("U+FFFD, what invalid UTF-8 decodes to: send the id as UTF-8"
               if bad.group(0) == "\ufffd" else
               f"the character {bad.group(0)!r} (control characters, line breaks and lone "
               "surrogates are refused): use printable characters")
        raise UsageError(f"{what} {value[:60]!r} contains {why}")
    bidi = _BIDI.search(value)
    if bidi:
        raise UsageError(f"{what} {value[:60]!r} contains the bidirectional control "
                         f"U+{ord(bidi.group(0)):04X}, which can make it display as another "
                         "id: remove it")
    if value != value.strip():
        raise UsageError(f"{what} {value[:60]!r} begins or ends with whitespace: memlane trims "
                         "nothing (it would be another id than the one without): send it "
                         "without")
    return value


def identifier_schema(limit: int = 200) -> dict[str, Any]:
    """`identifier`'s rule as JSON Schema (the OpenAPI spec's thread ids): a non-empty string of
    at most `limit` characters, none of `_BAD_KEY` or `_BIDI`, no whitespace at either end."""
    # Lone surrogates stay out of the pattern (`identifier` refuses them all the same): no
    # UTF-8 text holds one, and regex engines other than Python's refuse the range.
    bad = "".join(c if c.isascii() and c.isprintable() else f"\\u{ord(c):04x}"
                  for c in (_BAD_KEY.pattern[1:-1] + _BIDI.pattern[1:-1]).replace(
                      "\ud800-\udfff", ""))
    return {"type": "string", "minLength": 1, "maxLength": limit,
            "pattern": rf"^[^\s{bad}](?:[^{bad}]*[^\s{bad}])?$"}


ID_SCHEMA = identifier_schema()
"""A thread id's rule as JSON Schema (the spec's thread ids; `explain_id` words a refusal)."""


def explain_id(value: object, what: str) -> list[str]:
    """Why `value` breaks the thread-id rule, in `identifier`'s words (empty: it does not)."""
    try:
        identifier(value, what)
    except UsageError as e:
        return [str(e)]
    return []


_NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@\-]*")
NAMESPACE_CHARS = 200
"""The longest namespace."""


def namespace(value: object) -> str:
    """A namespace (a user or tenant), the same on every surface (`memlane -n`, `Memory.open`,
    `memlane keys add`, MCP, the server's dev namespace): 1-200 letters, digits or `. _ : @ -`,
    starting with a letter or digit. A namespace names a tenant, never a path (`../evil`)."""
    if not isinstance(value, str) or not _NAMESPACE.fullmatch(value) \
            or len(value) > NAMESPACE_CHARS:
        raise UsageError(f"namespace {value!r:.80}: use 1-{NAMESPACE_CHARS} letters, digits or "
                         ". _ : @ -, starting with a letter or digit")
    return value


def record_text(text: object) -> str:
    """A record's text: non-empty, at most `MAX_RECORD_CHARS`, cleaned and stripped."""
    if not isinstance(text, str) or not text.strip():
        raise UsageError("a record's text must be a non-empty string")
    if len(text) > MAX_RECORD_CHARS:
        raise UsageError(f"a record is at most {MAX_RECORD_CHARS:,} characters (got "
                         f"{len(text):,}): keep one fact per record")
    return clean_text(text.strip())


MAX_MESSAGE_CHARS = 1_000_000
"""A message longer than this is refused at append: large payloads belong elsewhere."""


def message(i: int, m: Mapping[str, Any]) -> str:
    """Message `i` of an append (`{role, content, ts?, name?}`) checked: its content, cleaned.
    The role is one of `ROLES`, content and name strings, the content at most
    `MAX_MESSAGE_CHARS`."""
    role, content = m.get("role"), m.get("content")
    if role not in ROLES:
        raise UsageError(f"message {i}: role must be one of {', '.join(ROLES)}, got {role!r}")
    if not isinstance(content, str):
        raise UsageError(f"message {i}: content must be a string, got "
                         f"{type(content).__name__}")
    name = m.get("name")
    if name is not None and not isinstance(name, str):
        raise UsageError(f"message {i}: name must be a string, got {type(name).__name__}")
    if len(content) > MAX_MESSAGE_CHARS:
        raise UsageError(
            f"message {i} is {len(content):,} characters; the limit is "
            f"{MAX_MESSAGE_CHARS:,}: store large payloads elsewhere and add a reference"
        )
    return clean_text(content)


def kind(value: object) -> str:
    """A record's kind: one of `KINDS` (case and surrounding spaces forgiven)."""
    k = value.strip().lower() if isinstance(value, str) else None
    if k not in KINDS:
        raise UsageError(f"kind must be one of {', '.join(RECORD_KINDS)}; got {value!r:.60}")
    return k


def timestamp(ts: Any) -> float | None:
    """Epoch seconds from a number or an ISO 8601 string (naive times are taken as UTC);
    finite and within the years 1..9999."""
    if ts is None:
        return None
    if isinstance(ts, bool):
        raise UsageError(f"ts must be epoch seconds or an ISO 8601 string, got {ts!r}")
    if isinstance(ts, int):
        if not TS_MIN <= ts <= TS_MAX:
            raise UsageError(f"ts {ts!r:.40} is outside the years 1..9999: give epoch seconds "
                             "(e.g. 1715176560) or an ISO 8601 time")
        return float(ts)
    if isinstance(ts, float):
        if not (math.isfinite(ts) and TS_MIN <= ts <= TS_MAX):
            raise UsageError(f"ts {ts!r} is not a usable time: give finite epoch seconds within "
                             "the years 1..9999 (e.g. 1715176560) or an ISO 8601 time")
        return ts
    if isinstance(ts, str):
        from datetime import datetime, timezone

        try:
            d = datetime.fromisoformat(ts.strip().replace("Z", "+00:00"))
        except ValueError:
            raise UsageError(f"ts {ts[:60]!r} is not an ISO 8601 time (e.g. 2024-05-08T13:56:00Z) "
                             "nor epoch seconds") from None
        if d.tzinfo is None:
            d = d.replace(tzinfo=timezone.utc)
        try:
            return d.timestamp()
        except (OverflowError, ValueError):  # 9999-12-31T23:59 with a negative offset
            raise UsageError(f"ts {ts[:60]!r} is outside the years 1..9999") from None
    raise UsageError(f"ts must be epoch seconds or an ISO 8601 string, got {ts!r:.60}")


def safe_ts(ts: Any) -> float | None:
    """A stored timestamp for reading: rows written before `timestamp` checked (NaN, inf, 1e300)
    read as None, so show, context and export keep working on them."""
    if isinstance(ts, (int, float)) and not isinstance(ts, bool):
        f = float(ts)
        return f if math.isfinite(f) and TS_MIN <= f <= TS_MAX else None
    return None


def date_text(ts: Any, fmt: str = "%Y-%m-%d") -> str | None:
    """`ts` formatted in UTC, or None for a timestamp no calendar can show (see `safe_ts`)."""
    import time

    f = safe_ts(ts)
    return None if f is None else time.strftime(fmt, time.gmtime(f))


def finite(value: Any) -> Any:
    """JSON-like data with non-finite floats as None: for answering with rows stored before
    timestamps were checked (strict JSON, as HTTP responses use, has no NaN or infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


# JSON-schema-shaped input ---------------------------------------------------------------------
# The one validator of arguments described by a JSON schema: the REST API's operations
# (`server/openapi.py`), the proxy's request body and the memory tools' arguments
# (`tool_schemas.TOOL_ARGUMENTS`). The subset those schemas use: type, enum, bounds, lengths,
# pattern, items, properties, required, additionalProperties, anyOf.

def _is_integer(v: Any) -> bool:
    # JSON Schema: 3.0 is an integer (JSON has one number type); `coerce` makes it an int.
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def problems(schema: dict[str, Any], value: Any, path: str = "$") -> list[str]:
    """Everything wrong with `value` under `schema` (empty: valid)."""
    out: list[str] = []
    if "anyOf" in schema:
        options = []
        for s in schema["anyOf"]:
            found = problems(s, value, path)
            if not found:
                return out  # one form fits: the others need not be tried
            options.append(found)
        out.append(f"{path}: matches none of the allowed forms ("
                   + "; ".join(o[0] for o in options) + ")")
        return out
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_TYPES[x](value) for x in types):
            return [f"{path}: must be {' or '.join(types)}, got {_json_type(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: must be one of {schema['enum']}, got {value!r}"[:300])
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(f"{path}: must have at least {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append(f"{path}: must have at most {schema['maxLength']:,} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: must match {schema['pattern']}")
        if not value.isascii():  # ASCII has no surrogates; encoding copies the whole text
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                out.append(f"{path}: is not valid Unicode text (lone surrogate)")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            out.append(f"{path}: must be a finite number")
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{path}: must be <= {schema['maximum']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{path}: must have at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{path}: must have at most {schema['maxItems']} items")
        if "items" in schema:
            for i, v in enumerate(value):
                out.extend(problems(schema["items"], v, f"{path}[{i}]"))
                if len(out) > 20:
                    break
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                out.append(f"{path}.{k}: is required")
        extra = schema.get("additionalProperties", True)
        for k, v in value.items():
            if k in props:
                out.extend(problems(props[k], v, f"{path}.{k}"))
            elif extra is False:
                out.append(f"{path}.{k}: unknown field")
            elif isinstance(extra, dict):
                out.extend(problems(extra, v, f"{path}.{k}"))
            if len(out) > 20:
                break
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            out.append(f"{path}: must have at most {schema['maxProperties']} fields")
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            out.append(f"{path}: must have at least {schema['minProperties']} fields")
    return out


def coerce(schema: dict[str, Any], value: Any) -> Any:
    """`value` (already valid under `schema`) with integral floats made ints where the schema
    says integer, so handlers never see `3.0` for a seq or an id."""
    if "anyOf" in schema:
        for s in schema["anyOf"]:
            if not problems(s, value):
                return coerce(s, value)
        return value
    t = schema.get("type")
    types = t if isinstance(t, list) else [t]
    if "integer" in types and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list) and "items" in schema:
        return [coerce(schema["items"], v) for v in value]
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: coerce(props[k], v) if k in props else v for k, v in value.items()}
    return value


def _json_type(v: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPES[name](v):
            return name
    return type(v).__name__
