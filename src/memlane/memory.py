"""`Memory` and `Thread`: the thin I/O shell around the pure core.

    mem = Memory.open()                      # embedded SQLite file; a path or URL chooses another
    t = mem.thread("support-42")
    t.add("user", "My order number is 81-3319.")
    t.add("assistant", "Thanks, I have it.")
    t.maybe_step()                           # files a stretch every 4 user turns (heuristic offline)
    ctx = t.context(budget=4000, new_message="Where is my order?")
    ctx.openai_messages()                    # what to send

A `Memory` is bound to one namespace (a user or tenant); `mem.namespace("other")` gives a view of
the same store for another one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .context.assemble import assemble
from .context.policy import Policy
from .context.tokens import Tokenizer, default_tokenizer
from .errors import MissingExtra, NotFound, UsageError
from .recall.schemas import TOOL_SCHEMAS
from .step.apply import apply_step
from .step.heuristic import extract
from .step.parse import parse_step
from .store.base import HistoryPolicy, NewMessage, Store
from .types import ROLES, Context, Episode, Message, Record, StepResult, ThreadInfo

MAX_MESSAGE_CHARS = 1_000_000


class Extractor(Protocol):
    """Writes a memory step for a stretch: returns the step JSON (dict or string)."""

    name: str

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any] | str: ...


class HeuristicExtractor:
    """The offline, deterministic memory step (no model). See `memlane.step.heuristic`."""

    name = "heuristic"

    def __call__(
        self, messages: Sequence[Message], existing: Sequence[Record]
    ) -> Mapping[str, Any]:
        return extract(messages)


@dataclass(frozen=True)
class Cadence:
    """When a stretch is due for a memory step."""

    every_user_turns: int = 4
    """A step per this many user turns."""
    unfiled_tokens: int = 3000
    """...or sooner, once the unfiled part passes this many tokens."""


def open_store(target: str | os.PathLike[str] | None) -> Store:
    """A store from a path, `sqlite:///path`, `:memory:`, or `postgresql://...`."""
    from .store.sqlite import SQLiteStore

    if target is None:
        return SQLiteStore()
    s = str(target)
    if s.startswith(("postgresql://", "postgres://")):
        try:
            from .store.postgres import PostgresStore
        except ImportError as e:
            raise MissingExtra("the PostgreSQL store", "postgres", "psycopg") from e
        return PostgresStore(s)  # type: ignore[return-value]
    if s.startswith("sqlite:///"):
        s = s[len("sqlite:///"):] or ":memory:"
    elif "://" in s:
        raise UsageError(f"unknown store URL {s!r}: use a file path, sqlite:///PATH, or "
                         "postgresql://...")
    return SQLiteStore(s)


class Memory:
    """Layered memory for one namespace, on one store."""

    def __init__(
        self,
        store: Store,
        namespace: str = "default",
        *,
        policy: Policy | None = None,
        history: HistoryPolicy | None = None,
        cadence: Cadence | None = None,
        tokenizer: Tokenizer | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        if not namespace or not isinstance(namespace, str):
            raise UsageError("namespace must be a non-empty string")
        self.store = store
        self.ns = namespace
        self.policy = policy or Policy()
        self.history = history or HistoryPolicy()
        self.cadence = cadence or Cadence()
        self.tokenizer = tokenizer or default_tokenizer()
        self.extractor: Extractor = extractor or HeuristicExtractor()

    @classmethod
    def open(
        cls,
        target: str | os.PathLike[str] | None = None,
        *,
        namespace: str = "default",
        **kwargs: Any,
    ) -> Memory:
        """Open a memory: no argument gives the embedded SQLite file (`$MEMLANE_DB` or
        `~/.memlane/memlane.db`); a path, `:memory:` or a `postgresql://` URL chooses another."""
        return cls(open_store(target), namespace, **kwargs)

    def namespace(self, namespace: str) -> Memory:
        """The same store seen as another namespace."""
        return Memory(self.store, namespace, policy=self.policy, history=self.history,
                      cadence=self.cadence, tokenizer=self.tokenizer, extractor=self.extractor)

    def thread(self, thread_id: str) -> Thread:
        if not thread_id or not isinstance(thread_id, str) or len(thread_id) > 200:
            raise UsageError("thread id must be a non-empty string of at most 200 characters")
        return Thread(self, thread_id)

    def threads(self, limit: int = 100, offset: int = 0) -> list[ThreadInfo]:
        return self.store.threads(self.ns, limit, offset)

    def records(
        self, ids: Sequence[int] | None = None, limit: int = 1000, offset: int = 0
    ) -> list[Record]:
        return self.store.records(self.ns, ids, limit, offset)

    def expire(self, now: float | None = None) -> int:
        """Delete threads idle past the TTL (`HistoryPolicy.ttl_seconds`); returns how many."""
        return self.store.expire(time.time() if now is None else now, self.history, self.ns)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Thread:
    """One conversation's message log, episodes, and context."""

    def __init__(self, memory: Memory, thread_id: str) -> None:
        self.memory = memory
        self.id = thread_id

    @property
    def _store(self) -> Store:
        return self.memory.store

    @property
    def _ns(self) -> str:
        return self.memory.ns

    # writing -----------------------------------------------------------------------------------
    def add(self, role: str, content: str, *, ts: float | None = None,
            name: str | None = None) -> Message:
        """Append one message."""
        return self.extend([{"role": role, "content": content, "ts": ts, "name": name}])[0]

    def extend(self, messages: Iterable[Mapping[str, Any]]) -> list[Message]:
        """Append messages in order, in one transaction. Each is `{role, content, ts?, name?}`."""
        now = time.time()
        new: list[NewMessage] = []
        items = list(messages)
        texts: list[str] = []
        for i, m in enumerate(items):
            role, content = m.get("role"), m.get("content")
            if role not in ROLES:
                raise UsageError(f"message {i}: role must be one of {', '.join(ROLES)}, "
                                 f"got {role!r}")
            if not isinstance(content, str):
                raise UsageError(f"message {i}: content must be a string, got "
                                 f"{type(content).__name__}")
            if len(content) > MAX_MESSAGE_CHARS:
                raise UsageError(
                    f"message {i} is {len(content):,} characters; the limit is "
                    f"{MAX_MESSAGE_CHARS:,}: store large payloads elsewhere and add a reference"
                )
            texts.append(content)
        counts = self.memory.tokenizer.count(texts)
        for m, n in zip(items, counts):
            ts = m.get("ts")
            if ts is not None and not isinstance(ts, (int, float)):
                raise UsageError(f"ts must be epoch seconds (a number), got {ts!r}")
            new.append(NewMessage(role=m["role"], content=m["content"],
                                  ts=float(ts) if ts is not None else now, tokens=n,
                                  name=m.get("name")))
        if not new:
            return []
        return self._store.append(self._ns, self.id, new, now, self.memory.history)

    # reading -----------------------------------------------------------------------------------
    def info(self) -> ThreadInfo:
        info = self._store.thread(self._ns, self.id)
        if info is None:
            raise NotFound(f"no thread {self.id!r} in namespace {self.memory.ns!r}; "
                           "add a message to create it")
        return info

    def exists(self) -> bool:
        return self._store.thread(self._ns, self.id) is not None

    def messages(self, start: int = 1, end: int | None = None,
                 limit: int | None = None) -> list[Message]:
        return self._store.messages(self._ns, self.id, start, end, limit)

    def episodes(self) -> list[Episode]:
        return self._store.episodes(self._ns, self.id)

    def context(
        self,
        budget: int = 4000,
        new_message: str | None = None,
        *,
        policy: Policy | None = None,
        now: float | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Context:
        """What to send to the model next, within `budget` tokens."""
        if not isinstance(budget, int) or budget <= 0:
            raise UsageError(f"budget must be a positive number of tokens, got {budget!r}")
        p = policy or self.memory.policy
        rows = self._store.context_rows(self._ns, self.id, p.window_turns, p.buffer_lines)
        return assemble(
            rows, p, budget, time.time() if now is None else now, self.memory.tokenizer,
            new_message=new_message,
            tools=[dict(t) for t in (TOOL_SCHEMAS if tools is None else tools)],
        )

    # filing ------------------------------------------------------------------------------------
    def pending(self) -> list[Message]:
        """The next stretch to file: unfiled messages, up to `every_user_turns` user turns."""
        info = self._store.thread(self._ns, self.id)
        if info is None:
            return []
        msgs = self._store.messages(self._ns, self.id, start=info.filed_to + 1)
        out: list[Message] = []
        users = 0
        for m in msgs:
            if m.role == "user":
                if users == self.memory.cadence.every_user_turns:
                    break
                users += 1
            out.append(m)
        return out

    def step_due(self) -> bool:
        info = self._store.thread(self._ns, self.id)
        if info is None:
            return False
        if self._store.user_turns_after(self._ns, self.id, info.filed_to) >= \
                self.memory.cadence.every_user_turns:
            return True
        msgs = self._store.messages(self._ns, self.id, start=info.filed_to + 1)
        return sum(m.tokens for m in msgs) >= self.memory.cadence.unfiled_tokens

    def step(
        self,
        output: Mapping[str, Any] | str | None = None,
        *,
        start: int | None = None,
        end: int | None = None,
        extractor: Extractor | None = None,
    ) -> StepResult | None:
        """File a stretch. With `output` (a model's step JSON) it is validated and applied; without
        it the memory's extractor (heuristic offline) writes the step. `start`/`end` default to
        the next pending stretch. Returns None when there is nothing to file."""
        if start is None or end is None:
            stretch = self.pending()
            if not stretch:
                return None
            start = stretch[0].seq if start is None else start
            end = stretch[-1].seq if end is None else end
        stretch = self._store.messages(self._ns, self.id, start, end)
        if not stretch:
            raise NotFound(f"thread {self.id!r} has no messages {start}..{end}")
        if output is None:
            ex = extractor or self.memory.extractor
            existing: list[Record] = []
            output = ex(stretch, existing)
        parsed = parse_step(output if isinstance(output, str) else dict(output))
        return apply_step(self._store, self._ns, self.id, start, end, parsed,
                          date=stretch[-1].ts, now=time.time())

    def maybe_step(self, max_steps: int = 1000) -> list[StepResult]:
        """File every stretch that is due (the cadence), oldest first."""
        done: list[StepResult] = []
        while len(done) < max_steps and self.step_due():
            r = self.step()
            if r is None:
                break
            done.append(r)
        return done

    def delete(self) -> bool:
        return self._store.delete_thread(self._ns, self.id)
