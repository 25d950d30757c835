"""Value types shared by every layer: frozen dataclasses, one docstring per field.

Rows come out of a store as these types; the pure core (assembly, scoring, buffer selection) takes
them in and gives a `Context` back. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")

STORE_ONLY = {"store_only": True}
"""Metadata of a field only the store keeps for itself (`public_dict` leaves it out)."""


@dataclass(frozen=True)
class Message:
    """One stored message of a thread's log."""

    id: int
    """Store-wide id; what records point at as their source."""
    thread_id: str
    """The thread (conversation) this message belongs to."""
    seq: int
    """Position in the thread, 1-based, gapless, the total order of the thread."""
    role: str
    """`system`, `user`, `assistant` or `tool`."""
    content: str
    """Full text as it was sent; never truncated in the store."""
    ts: float
    """When it was said (epoch seconds), as the caller gave it or the time it was appended."""
    tokens: int
    """Token count of `content` under the memory's tokenizer."""
    relevance: float | None = None
    """Relevance 0..1 from the memory step (on a turn's first message); None if unscored."""
    name: str | None = None
    """Speaker or tool name, if any."""
    scanned: int = field(default=0, compare=False, repr=False, metadata=STORE_ONLY)
    """The tag of the injection scanner that found this text clean when it was stored (0:
    none; `safety.scan_stored`): shown without scanning it again when it is the running
    scanner's. Not part of the value (equality, hash and repr leave it out)."""


@dataclass(frozen=True)
class Record:
    """A long-term memory record: one current copy of one fact."""

    id: int
    """Store-assigned id; what buffer lines and tools refer to."""
    namespace: str
    """The user or tenant this record belongs to."""
    text: str
    """The fact, as currently written."""
    kind: str = "fact"
    """`fact`, `preference`, `note`, `event`, ..."""
    source_ids: tuple[int, ...] = ()
    """Ids of the messages this record came from."""
    thread_id: str | None = None
    """Thread it was filed from, if any."""
    created: float = 0.0
    """When it was added (epoch seconds)."""
    updated: float = 0.0
    """When its text last changed."""
    pinned: bool = False
    """In the small core set shown every turn."""
    suspect: bool = False
    """Flagged by the injection scan when written; withheld when shown."""
    stated: float = 0.0
    """When the current text was stated (epoch seconds): the newest of its source messages'
    times (a replayed conversation's own date), or when it was written if it has no source.
    Notes and search show it, so a reader can tell a newer fact from an older one."""
    scanned: int = field(default=0, compare=False, repr=False, metadata=STORE_ONLY)
    """The tag of the injection scanner that found this text clean when it was stored (0:
    none; `safety.scan_stored`): shown without scanning it again when it is the running
    scanner's. Not part of the value (equality, hash and repr leave it out)."""


@dataclass(frozen=True)
class Episode:
    """One episodic buffer line: a filed stretch of a thread and the records it was filed into."""

    thread_id: str
    """The thread the stretch belongs to."""
    start: int
    """Seq of the stretch's first message."""
    end: int
    """Seq of the stretch's last message; `(thread_id, end)` is the key, so retries overwrite."""
    line: str
    """Under 25 words: what the stretch was about and where it ended up."""
    record_ids: tuple[int, ...]
    """Ids of the records the step that filed this stretch actually wrote."""
    date: float
    """When the stretch ended (epoch seconds of its last message)."""
    suspect: bool = False
    """Flagged by the injection scan when written."""
    scanned: int = field(default=0, compare=False, repr=False, metadata=STORE_ONLY)
    """The tag of the injection scanner that found this text clean when it was stored (0:
    none; `safety.scan_stored`): shown without scanning it again when it is the running
    scanner's. Not part of the value (equality, hash and repr leave it out)."""


@dataclass(frozen=True)
class ThreadInfo:
    """A thread's bookkeeping row."""

    namespace: str
    """The namespace (user or tenant) the thread belongs to."""
    thread_id: str
    """The thread's id, unique within its namespace."""
    created: float
    """Wall-clock time the thread was created."""
    last_active: float
    """Wall-clock time of the last write: what TTL and LRU eviction go by."""
    messages: int
    """Number of messages in the log."""
    filed_to: int
    """Seq of the last message covered by an episode (0 if none)."""


@dataclass(frozen=True)
class ContextRows:
    """Everything assembly needs, read from the store in a bounded number of queries.

    The reads depend on the window size, not the thread's length: that is what keeps assembly
    flat as a thread grows.
    """

    thread_id: str
    """The thread the rows were read from."""
    window: tuple[Message, ...]
    """The messages of the last `window_turns` turns, oldest first."""
    truncated: bool
    """True when the thread has messages older than the window: the store reads one message
    more than the window, and this says whether it came back."""
    first_episode: Episode | None
    """The thread's first filed stretch (how the conversation started)."""
    recent_episodes: tuple[Episode, ...]
    """Newest episodes that start before the window, newest first, at most `buffer_lines`."""
    episodes_before_window: int
    """How many episodes start before the window in total (proves the gap)."""
    unfiled_before_window: int
    """Evicted messages that no episode covers yet (filed by the next step)."""
    pinned: tuple[Record, ...] = ()
    """Pinned core records of the namespace."""


@dataclass(frozen=True)
class BufferTurn:
    """An evicted message the buffer opened for the new message (`Policy.buffer_turns`): shown
    verbatim under its stretch's line (an oversize one head + tail)."""

    seq: int
    """The message's position in the thread."""
    role: str
    """Who said it."""
    text: str
    """Its text as the block shows it (as data, cut when oversize, or a quarantine marker)."""
    date: float
    """When it was said (epoch seconds)."""
    whole: bool = True
    """False when the block shows it cut (head + tail) or withheld."""

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "role": self.role, "text": self.text, "date": self.date,
                "whole": self.whole}


@dataclass(frozen=True)
class ChatMessage:
    """A message as sent to a model."""

    role: str
    """`system`, `user`, `assistant` or `tool`, as the model's API takes it."""
    content: str
    """The text sent (a long message replayed head + tail, a block of notes, ...)."""
    layer: str = ""
    """Which memory layer produced it: system, core, notes, buffer, working, short_term, new."""

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Dropped:
    """Something that did not make it into the context, and why."""

    what: str
    """`turn`, `line`, `record`, `truncated`, ..."""
    ref: str
    """Which one (seq range, episode end, record id)."""
    reason: str
    """`budget`, `low_relevance`, `injection`, `oversize`, ..."""
    tokens: int = 0
    """Tokens it would have taken (0 when not counted)."""


@dataclass(frozen=True)
class BufferLine:
    """A buffer line as shown."""

    line: str
    """The episode's one line, as it appears in the notes block."""
    record_ids: tuple[int, ...]
    """The long-term records it points at (shown as `#id`), for `open_memory`."""
    start: int
    """Seq of the stretch's first message."""
    end: int
    """Seq of the stretch's last message."""
    date: float
    """When the stretch was said: the timestamp of its last message (epoch seconds)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "record_ids": list(self.record_ids),
            "start": self.start,
            "end": self.end,
            "date": self.date,
        }


@dataclass(frozen=True)
class Trace:
    """How the context was built: tokens per layer, what was dropped and why."""

    budget: int
    """The token budget the context was assembled for."""
    tokens_total: int
    """Tokens of the final messages plus the tool schemas (recounted on what is sent)."""
    tokens_by_layer: dict[str, int]
    """Tokens per layer: system, core, buffer, working, short_term, new, tools."""
    buffer_lines: tuple[BufferLine, ...] = ()
    """The buffer lines shown, oldest first."""
    buffer_turns: tuple[BufferTurn, ...] = ()
    """The evicted messages the buffer opened (shown under their stretch's line), by seq."""
    gap: int | None = None
    """Stretches proven skipped between the first line and the recent ones (None: no gap)."""
    withheld: int = 0
    """Lines or records withheld because the injection scan flagged them."""
    unfiled: int = 0
    """Evicted messages not yet covered by an episode."""
    dropped: tuple[Dropped, ...] = ()
    """What was left out, and why, in the order it was given up."""
    window_start: int | None = None
    """Seq of the oldest replayed message."""
    working_scores: dict[int, float] = field(default_factory=dict)
    """Decayed relevance per working-memory turn (keyed by the turn's first seq)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "tokens_total": self.tokens_total,
            "tokens_by_layer": dict(self.tokens_by_layer),
            "buffer": {
                "lines": [b.to_dict() for b in self.buffer_lines],
                "gap": self.gap,
                "withheld": self.withheld,
                "unfiled": self.unfiled,
                "turns": [t.to_dict() for t in self.buffer_turns],
            },
            "dropped": [d.__dict__ for d in self.dropped],
            "window_start": self.window_start,
            "working_scores": {str(k): v for k, v in self.working_scores.items()},
        }


@dataclass(frozen=True)
class Context:
    """What to send to the model this turn."""

    messages: tuple[ChatMessage, ...]
    """The messages to send, in order, each tagged with the layer it came from."""
    tools: tuple[dict[str, Any], ...]
    """Tool schemas to offer (OpenAI function format); counted in the budget."""
    trace: Trace
    """How it was assembled: tokens per layer, what was dropped and why."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "messages": [m.to_dict() | {"layer": m.layer} for m in self.messages],
            "tools": list(self.tools),
            "trace": self.trace.to_dict(),
        }

    def openai_messages(self) -> list[dict[str, str]]:
        return [m.to_dict() for m in self.messages]


@dataclass(frozen=True)
class StepResult:
    """What applying one memory step did."""

    thread_id: str
    """The thread the stretch belongs to."""
    start: int
    """Seq of the stretch's first message."""
    end: int
    """Seq of the stretch's last message (with `thread_id`, the step's key)."""
    added: tuple[int, ...]
    """Ids of the records the step added."""
    updated: tuple[int, ...]
    """Ids of existing records whose text it replaced."""
    deleted: tuple[int, ...]
    """Ids of existing records it deleted."""
    episode: Episode | None
    """The episode (buffer line) it filed."""
    dropped_ids: tuple[str, ...] = ()
    """Record ids the step referred to but did not write (or that do not exist): dropped."""
    warnings: tuple[str, ...] = ()
    """Slips corrected or ignored (a line cut to length, sources outside the stretch, an
    embedding that failed), each saying what was done."""
    replaced: bool = False
    """True when this step overwrote an earlier attempt at the same `(thread, end)`."""


# Bulk constructors for the hot paths (a store turning rows into `Message`s, the assembler making
# `ChatMessage`s): a frozen dataclass's `__init__` sets each field through `object.__setattr__`,
# which costs more than the rest of building a context's hundred-odd messages together. These
# fill the instance's `__dict__` directly and give the very same object (equal, same hash and
# repr); tests/test_types.py checks that against the dataclass constructors, so a field
# added to either class without updating these fails there.
_new = object.__new__


def make_message(
    id: int, thread_id: str, seq: int, role: str, content: str, ts: float, tokens: int,
    relevance: float | None, name: str | None, scanned: int = 0,
) -> Message:
    """`Message(...)`, all fields given, built without the frozen `__init__`."""
    m = _new(Message)
    d = m.__dict__
    d["id"] = id
    d["thread_id"] = thread_id
    d["seq"] = seq
    d["role"] = role
    d["content"] = content
    d["ts"] = ts
    d["tokens"] = tokens
    d["relevance"] = relevance
    d["name"] = name
    d["scanned"] = scanned
    return m


def make_record(
    id: int, namespace: str, text: str, kind: str, source_ids: tuple[int, ...],
    thread_id: str | None, created: float, updated: float, pinned: bool, suspect: bool,
    stated: float, scanned: int = 0,
) -> Record:
    """`Record(...)`, all fields given, built without the frozen `__init__` (a search reads
    dozens of records it has not seen before, each turn on a large store)."""
    r = _new(Record)
    d = r.__dict__
    d["id"] = id
    d["namespace"] = namespace
    d["text"] = text
    d["kind"] = kind
    d["source_ids"] = source_ids
    d["thread_id"] = thread_id
    d["created"] = created
    d["updated"] = updated
    d["pinned"] = pinned
    d["suspect"] = suspect
    d["stated"] = stated
    d["scanned"] = scanned
    return r


def make_chat_message(role: str, content: str, layer: str) -> ChatMessage:
    """`ChatMessage(role, content, layer)` built without the frozen `__init__`."""
    m = _new(ChatMessage)
    d = m.__dict__
    d["role"] = role
    d["content"] = content
    d["layer"] = layer
    return m


_STORE_ONLY_FIELDS = frozenset(f.name for cls in (Message, Record, Episode) for f in fields(cls)
                               if f.metadata.get("store_only"))


def _shown_items(items: list[tuple[str, Any]]) -> dict[str, Any]:
    return {k: v for k, v in items if k not in _STORE_ONLY_FIELDS}


def public_dict(obj: Any) -> dict[str, Any]:
    """`dataclasses.asdict(obj)` without the fields only a store keeps for itself (`STORE_ONLY`:
    `scanned`, a scan verdict valid for one scanner), at any depth: what the REST API and
    exports show."""
    return asdict(obj, dict_factory=_shown_items)
