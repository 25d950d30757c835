"""Lining up what a client sends with the stored message log (`align`): whether a request is a
new turn, a retry, a regeneration of an answered turn, an edit of a recent user message, or
history the log lacks; and how a client message is kept in the log (`log_form`). Pure, but for
`align_thread`, which reads the log's messages the sent ones can line up with."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import NotFound, UsageError
from ..memory import Thread
from ..types import ThreadInfo
from ..validate import clean_text


def message_text(content: Any) -> str:
    """A message's text: a string, or the text parts of a content list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return json.dumps(content, ensure_ascii=False)


def call_name(call: Any) -> str:
    fn = call.get("function") if isinstance(call, dict) else None
    return str(fn.get("name") or "") if isinstance(fn, dict) else ""


def log_form(message: Mapping[str, Any]) -> dict[str, Any]:
    """How a client message is kept in the message log (and compared with it): role and text;
    an assistant's tool calls become text lines, since the log holds conversation, not wire
    format."""
    role = message.get("role")
    role = "tool" if role == "function" else role
    text = message_text(message.get("content"))
    if role == "assistant" and message.get("tool_calls"):
        lines = []
        for c in message["tool_calls"]:
            fn = c.get("function") if isinstance(c, dict) else None
            fn = fn if isinstance(fn, dict) else {}
            args = fn.get("arguments", "")
            args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            lines.append(f"[tool call {fn.get('name', '?')}({args})]")
        text = "\n".join([text, *lines]) if text else "\n".join(lines)
    name = message.get("name")
    # Cleaned as the log stores it (NUL -> U+FFFD), so a resent message matches its stored copy.
    return {"role": role, "content": clean_text(text),
            "name": name if isinstance(name, str) and name else None}


RESEND_WINDOW = 64
"""How many log messages beyond the ones the client sent are searched for a resend or an edit
(besides the thread's first messages, where a full history starts)."""
EDIT_REACH = 2
"""How many of the log's last user messages an edit may replace. A request that departs from
the log further back is taken for a new turn (nothing is cut): a client that trimmed its history,
started a new conversation on the same thread (a shared `user`), or sends an old request again
looks exactly like such an edit, and taking it for one would delete the turns after it."""
RETRY_HEADER = "x-stainless-retry-count"
"""Sent by the official OpenAI SDKs on every request; above 0 on their own retries."""


@dataclass(frozen=True)
class Alignment:
    """How a request's messages line up with the stored log, and so what to record."""

    kind: str
    """`new` (a turn after the log's last message), `retry` (the user's message is the log's
    last, unanswered), `resend` (an answered turn sent again: its answer is replaced), `edit`
    (the history departs from the log) or `history` (none of it is in the log)."""
    cut: int | None
    """Drop the log from this seq on before recording (None: keep it all)."""
    record_from: int
    """Index of the first sent message to record before the user's message (messages from
    here up to the user's are history the log lacks)."""
    in_log: bool = False
    """The user's message is the log's already (a retry, a regeneration): it is kept where it
    is, with the records filed from it, and not recorded again."""


def _z(seq: Sequence[object]) -> list[int]:
    """Z-function: z[i] is the length of the longest common prefix of `seq` and `seq[i:]`."""
    n = len(seq)
    z = [0] * n
    lo = hi = 0
    for i in range(1, n):
        if i < hi:
            z[i] = min(hi - i, z[i - lo])
        while i + z[i] < n and seq[z[i]] == seq[i + z[i]]:
            z[i] += 1
        if i + z[i] > hi:
            lo, hi = i, i + z[i]
    return z


def _prefix_matches(sent: Sequence[object], log: Sequence[object]) -> list[int]:
    """For each log position p: how many of `sent`'s first messages equal `log[p:]`'s first.
    Linear (Z-function over `sent + separator + log`), so thousands of identical messages
    cannot make alignment quadratic."""
    z = _z([*sent, object(), *log])
    return z[len(sent) + 1:]


def align(sent: Sequence[tuple[str, str]], log: Sequence[tuple[str, str]], first_seq: int,
          *, retry: bool = False, head: Sequence[tuple[str, str]] = ()) -> Alignment:
    """Line up the client's conversation (`sent`: role and text, system messages left out;
    its last user message is the turn's) with the log's last messages (`log`, the first of them
    at seq `first_seq`; `head`: the thread's first messages when `log` does not reach them).

    The rule, in order:

    1. **Resend**: the user's message and the history just before it equal a stretch of the log
       that ends at the log's last user message. If that message is the log's last
       (unanswered: the first attempt failed, or the client is returning its own tools'
       results), the turn goes on; if it was answered, the log is cut after it and the turn
       is answered again: the new answer replaces the old (a regeneration). An older answered
       turn sent again is not a regeneration: it is a new turn (nothing is cut).
       The user's message alone counts only when it is the log's last message or the request
       is marked as a retry (`X-Stainless-Retry-Count` of the OpenAI SDKs): otherwise a client
       that sends only its new message and says the same thing twice would lose a turn.
    2. **New turn**: the history ends with the log's last messages (or the client sent only
       its new message): the user's message is recorded after them. History further back that
       is not in the log (a client's summary, trimmed turns) is not recorded. A history that is
       the log's tail in full is a new turn before anything else is tried.
    3. **Edit**, only when it is shown: the client's messages match a stretch of the log up to
       a point, and there the client sends a *user* message where the log holds a different
       user message, one of its last `EDIT_REACH` user messages. The log is cut there and
       what the client sent from there on is recorded. A history that just stops (a prefix of
       the log, an old request sent again), departs at a reply, or departs further back is
       not an edit: the user's message is recorded as a new turn and nothing is cut (when in
       doubt, never lose what the log holds). A history none of which is in the log (a new
       thread, a conversation started elsewhere) is recorded whole.

    The longest match wins (a resend over a new turn only when it explains more of what was
    sent); ties go to a new turn, then to the later position in the log.
    """
    users = [i for i, m in enumerate(sent) if m[0] == "user"]
    if not users:
        raise UsageError("messages has no user message: the proxy answers a user's turn")
    u = users[-1]
    n = len(log)
    # Trailing history equal to the log's tail; all of it: a new turn, whatever else matches.
    k = 0
    while k < u and k < n and sent[u - 1 - k] == log[n - 1 - k]:
        k += 1
    if u and k == u:
        return Alignment("new", None, u)
    resent = _resend(sent, log, u, k, first_seq, retry)
    if resent is not None:
        return resent
    if k or u == 0 or not (n or head):
        return Alignment("new", None, u if (k or u == 0) else 0)
    return _departure(sent, log, head, u, first_seq)


def _resend(sent: Sequence[tuple[str, str]], log: Sequence[tuple[str, str]], u: int, k: int,
            first_seq: int, retry: bool) -> Alignment | None:
    """Rule 1 of `align`: the turn sent again (`k`: how much of the history is the log's tail,
    which a resend must explain more of); None when it is not one."""
    n = len(log)
    # Common suffix of sent[:u + 1] with the log ending at each position (reversed prefixes).
    ends = _prefix_matches(list(reversed(sent[:u + 1])), list(reversed(log)))
    log_users = [i for i, m in enumerate(log) if m[0] == "user"]
    best, best_len = None, 0
    for i, r in enumerate(ends):
        s = n - 1 - i  # the log position the match ends at
        if not log_users or s != log_users[-1] or r == 0:
            continue
        if r >= (1 if s == n - 1 or retry else 2) and r > best_len:
            best, best_len = s, r
    if best is None or best_len <= k:
        return None
    # The user's message stays (its seq, and the records filed from it); only what came after
    # it, the answer being replaced, is cut.
    if best == n - 1:
        return Alignment("retry", None, u, True)
    return Alignment("resend", first_seq + best + 1, u, True)


def _departure(sent: Sequence[tuple[str, str]], log: Sequence[tuple[str, str]],
               head: Sequence[tuple[str, str]], u: int, first_seq: int) -> Alignment:
    """Rule 3 of `align`: the history departs from the log; an edit only when it is shown."""
    n = len(log)
    log_users = [i for i, m in enumerate(log) if m[0] == "user"]
    # Where the history stops matching the log (its tail window, or its head).
    hist = sent[:u]
    where, m = None, 0
    for start, part in ((1, head), (first_seq, log)):
        for p, length in enumerate(_prefix_matches(hist, part)):
            if length >= m and length:
                where, m = start + p, length
    if where is None:
        return Alignment("history", None, 0)
    end = first_seq + n  # the seq the next message would get
    cut = where + m
    # The edit must be shown: a stored user message at the departure, replaced by a different
    # user message, among the log's last EDIT_REACH user messages.
    at = cut - first_seq  # the departure's index in `log` (< 0: in the head, far back)
    ours = sent[m] if m < u else sent[u]
    if (cut < end and 0 <= at < n and log[at][0] == "user" and ours[0] == "user"
            and ours != log[at] and sum(1 for i in log_users if i >= at) <= EDIT_REACH):
        return Alignment("edit", cut, m)
    return Alignment("new", None, u)



def align_thread(thread: Thread, logs: list[dict[str, Any]],
                 headers: Mapping[str, str]) -> Alignment:
    """Read the log's messages the sent ones can line up with, and `align` them."""
    try:
        info: ThreadInfo | None = thread.info()
    except NotFound:
        info = None
    n = info.messages if info is not None else 0
    sent = [(m["role"], m["content"]) for m in logs]
    retry = headers.get(RETRY_HEADER, "0").strip() not in ("", "0")
    u = max(i for i, m in enumerate(sent) if m[0] == "user")
    # The common cases read no more than before: a client sending only its new message
    # needs the log's last message (is it this one, unanswered?); a full or trimmed history
    # that is the log's tail needs that tail.
    if n and u == 0 and not retry:
        return align(sent, [(m.role, m.content) for m in thread.messages(n)], n)
    if n and 0 < u <= n:
        tail = [(m.role, m.content) for m in thread.messages(n - u + 1)]
        if tail == sent[:u]:
            return Alignment("new", None, u)
    first = max(1, n - len(sent) - RESEND_WINDOW + 1)
    log_rows = [(m.role, m.content) for m in thread.messages(first)] if n else []
    head: list[tuple[str, str]] = []
    if first > 1 and len(sent) > 1:
        head = [(m.role, m.content) for m in thread.messages(1, min(len(sent), first - 1))]
    return align(sent, log_rows, first, retry=retry, head=head)


__all__ = ["EDIT_REACH", "RESEND_WINDOW", "RETRY_HEADER", "Alignment", "align", "align_thread",
           "call_name", "log_form", "message_text"]
