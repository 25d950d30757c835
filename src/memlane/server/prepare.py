"""A proxied request made into a `Turn`: the thread's log lined up with what the client sent
(`align`), the history the log lacks and the user's message recorded, the history replaced by
the assembled context, memlane's tools put beside the client's."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import UsageError
from ..memory import Memory, Thread
from ..tool_schemas import MEMORY_TOOL_NAMES, TOOL_SCHEMAS
from ..tools.answer import note_correction
from ..types import Context
from .align import align_thread, call_name, log_form, message_text
from .base import Service

log = logging.getLogger("memlane.proxy")

BUDGET_HEADER = "x-memlane-budget"


@dataclass
class Turn:
    """One proxied request, prepared: what to send upstream and what to record afterwards."""

    mem: Memory
    thread: Thread
    base: dict[str, Any]
    """The client's request body without messages and tools (temperature, max_tokens, ...)."""
    messages: list[dict[str, Any]]
    """Round 0's messages: the assembled context, then the client's in-flight tool exchange."""
    memory_tools: list[dict[str, Any]]
    """memlane's tools offered this turn (a client tool of the same name wins; none when the
    client said `tool_choice: "none"`)."""
    client_tools: list[dict[str, Any]]
    client_names: frozenset[str]
    """The names of the client's own tools."""
    pending: list[dict[str, Any]]
    """Messages the client sent after its last user message, not yet in the log: recorded
    with the answer."""
    model: str
    auth: dict[str, str]
    """The upstream's Authorization header (empty: none)."""
    stream_options: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    """Response headers that tell the client what memlane did (alignment, truncation)."""
    system_prompt: str = ""
    """The system prompt the context was assembled with (for the ledger's prompt version)."""
    memory_instructions: bool = True
    user_text: str = ""
    """The turn's user message as the log keeps it (text parts joined, never cut): the words
    the memory tools' rule compares a write or a forget with, as the agent's does."""

    def is_memory_tool(self, name: str) -> bool:
        """memlane's call, never the client's: executed here, or taken out of the answer."""
        return name in MEMORY_TOOL_NAMES and name not in self.client_names


def _budget(default: int, headers: Mapping[str, str]) -> int:
    """The turn's token budget: the server's, or the request's `X-Memlane-Budget`."""
    if not headers.get(BUDGET_HEADER):
        return default
    raw = headers[BUDGET_HEADER].strip()
    if not (raw.isascii() and raw.isdigit()) or not 0 < int(raw) <= 10_000_000:
        raise UsageError(f"X-Memlane-Budget must be a positive token count, got {raw!r}")
    return int(raw)


def _turn_headers(kind: str, mem: Memory, thread: Thread, ctx: Context, text: str,
                  budget: int) -> dict[str, str]:
    """The response headers that say how the turn was aligned, and whether the user's message
    was cut to fit the budget."""
    out_headers = {"X-Memlane-Alignment": kind}
    cut = [d for d in ctx.trace.dropped if d.what == "truncated" and d.ref == "new message"]
    if cut:
        total = mem.tokenizer.count([text])[0]
        out_headers["X-Memlane-Truncated"] = (
            f"current message: {total} tokens, {total - cut[0].tokens} sent upstream "
            f"(head and tail; the log keeps it whole; raise X-Memlane-Budget to send more)")
        log.info("thread %r: the current message was cut from %d tokens to fit budget %d",
                 thread.id, total, budget)
    return out_headers


def prepare_turn(svc: Service, mem: Memory, thread: Thread, body: dict[str, Any],
                 headers: Mapping[str, str], auth: dict[str, str]) -> Turn:
    """The request made into a `Turn`: aligned with the log (cut, history recorded), the user's
    message recorded, its context assembled."""
    budget = _budget(svc.config.budget, headers)
    system: list[str] = []
    conv: list[dict[str, Any]] = []
    for m in body["messages"]:
        if m["role"] in ("system", "developer"):
            system.append(message_text(m.get("content")))
        else:
            conv.append(m)
    users = [i for i, m in enumerate(conv) if m["role"] == "user"]
    if not users:
        raise UsageError("messages has no user message: the proxy answers a user's turn")
    u = users[-1]
    logs = [log_form(m) for m in conv]

    client_tools = list(body.get("tools") or [])
    client_names = {call_name(t) for t in client_tools}
    # An in-process model that cannot call tools (the local one) is offered none, so its
    # memory instructions name none either.
    offer = mem.policy.use_tools and body.get("tool_choice") != "none" and \
        getattr(svc.model, "supports_tools", True)
    offered = frozenset(MEMORY_TOOL_NAMES - client_names) if offer else frozenset()
    memory_tools = [dict(t) for t in TOOL_SCHEMAS if t["function"]["name"] in offered]
    policy = replace(mem.policy, system_prompt="\n\n".join(system)) if system else None

    model = svc.config.upstream_model or str(body.get("model") or "")
    al = align_thread(thread, logs, headers)
    if al.cut is not None:
        thread.truncate(al.cut)
    # History the log lacks first, then the context for the user's message, then the
    # message itself (recorded before the model is called: a failed call never loses it).
    if not al.in_log:
        thread.extend(logs[al.record_from:u])
    tools = memory_tools + client_tools
    ctx = thread.context(budget, logs[u]["content"], policy=policy, tools=tools)
    chat = list(ctx.messages)
    if al.in_log:
        # The log ends with the user's message already: the window shows it once more
        # just before the new message. Sent once (the count stays on the safe side).
        if len(chat) > 1 and chat[-2].layer != "new" and chat[-2].role == "user" \
                and chat[-2].content == chat[-1].content:
            del chat[-2]
    else:
        # A correction judges the previous answer: noted before the message joins the log.
        note_correction(svc.ledger, mem, thread, logs[u]["content"], model)
        thread.extend([logs[u]])
    svc.note_sent_system(mem.ns, thread.id, (policy or mem.policy).system_prompt)
    messages: list[dict[str, Any]] = [m.to_dict() for m in chat]
    if isinstance(conv[u].get("content"), list) and ctx.messages[-1].layer == "new" \
            and ctx.messages[-1].content == logs[u]["content"]:
        messages[-1] = dict(conv[u])  # keep image and other content parts as sent
    # The client's in-flight tool exchange goes upstream verbatim: it needs its call ids.
    messages += [dict(m) for m in conv[u + 1:]]
    base = {k: v for k, v in body.items()
            if k not in ("messages", "tools", "stream", "stream_options", "n")}
    out_headers = _turn_headers(al.kind, mem, thread, ctx, logs[u]["content"], budget)
    return Turn(
        mem=mem, thread=thread, base=base, messages=messages, memory_tools=memory_tools,
        client_tools=client_tools, client_names=frozenset(client_names), pending=logs[u + 1:],
        model=model, auth=auth, stream_options=body.get("stream_options"),
        headers=out_headers,
        system_prompt=(policy or mem.policy).system_prompt,
        memory_instructions=mem.policy.memory_instructions,
        user_text=logs[u]["content"],
    )


__all__ = ["BUDGET_HEADER", "Turn", "prepare_turn"]
