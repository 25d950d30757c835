"""Reading other assistants' conversation exports into memlane threads (`memlane import --from
chatgpt|claude FILE`).

Both read the `conversations.json` of the provider's data export:

- **ChatGPT** (Settings > Data controls > Export): a list of conversations, each with `title`,
  `create_time` (epoch seconds), `conversation_id`/`id`, `current_node` and `mapping`, a tree of
  nodes `{id, parent, children, message}`. An edited or regenerated turn forks the tree; the
  conversation as the user last saw it is the path from the root to `current_node`, which is
  what is imported. A message has `author.role` (user, assistant, system, tool), `create_time`,
  `content.content_type` and `content.parts` (strings; images and files are objects), `recipient`
  (`all` unless the assistant is calling a tool) and `metadata`.
- **Claude** (Settings > Privacy > Export data): a list of conversations with `uuid`, `name`,
  `created_at` (ISO 8601) and `chat_messages`: `{uuid, sender: human|assistant, text, content:
  [{type: text|tool_use|tool_result|..., text?}], created_at, attachments, files}`.

Kept: the user's and the assistant's text, in order, with their times. Skipped and counted:
system and hidden messages, tool calls and results (browsing, code runs, tool_use /
tool_result parts), and attachments, files and images (their text is not in the message).
Neither provider publishes a formal schema; these readers follow the fields their exports carry
and ignore any they do not know, so a newer export with extra fields still reads.

**Thread ids keep the title.** A conversation becomes the thread `<provider>-<title slug>-<6 hex>`
(`chatgpt-trip-to-lisbon-3f9a1c`): the title in lower case, letters and digits only, at most
40 characters cut at a word, `untitled` when there is none; the suffix is a hash of the
provider's conversation id, so two conversations of one title stay two threads and importing
the same export again finds the same threads. A thread imported before titles were kept
(`chatgpt-<id>`, `claude-<uuid>`) is still found and added to under its old id.

**Dates.** Each message keeps its time; the thread's `created` becomes the conversation's
creation time. Its `last_active` stays the time of the import: it is the idle-TTL and eviction
clock (`HistoryPolicy`), and an old conversation dated back would be expired by the next new
thread. `memlane threads` shows the thread's last message's date, i.e. the conversation's.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import UsageError
from .validate import timestamp


@dataclass(frozen=True)
class Conversation:
    """One exported conversation, ready to ingest as a thread."""

    thread_id: str
    """The thread it becomes: `<provider>-<title slug>-<6 hex>` (`thread_id_for`)."""
    title: str
    """The conversation's title in the provider's app."""
    messages: list[dict[str, Any]]
    """`{"role", "content", "ts"}`, oldest first."""
    skipped: Counter[str] = field(default_factory=Counter)
    """What was left out, by kind: tool, system, hidden, attachment, empty."""
    created: float | None = None
    """When the conversation was started (None: not in the export)."""
    former_id: str | None = None
    """The id this conversation was imported under before titles were kept."""


PROVIDERS = {"chatgpt": "ChatGPT", "claude": "Claude"}
"""`--from` value: the provider's name."""


def slug(title: str, limit: int = 40) -> str:
    """A title as a thread id part: lower case ASCII letters and digits joined by `-`, cut at a
    word to at most `limit` characters; `untitled` when nothing is left."""
    ascii_ = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_.lower())
    out = ""
    for w in words:
        if len(out) + len(w) + bool(out) > limit:
            break
        out = f"{out}-{w}" if out else w
    return out or (words[0][:limit] if words else "untitled")


def thread_id_for(provider: str, title: str, conversation_id: str) -> str:
    """`<provider>-<title slug>-<6 hex of the conversation id>` (see the module docstring)."""
    tag = hashlib.sha1(conversation_id.encode("utf-8")).hexdigest()[:6]
    return f"{provider}-{slug(title)}-{tag}"


def _conversation(provider: str, cid: str, title: str, msgs: list[dict[str, Any]],
                  skipped: Counter[str], created: float | None) -> Conversation:
    first = msgs[0]["ts"] if msgs else None
    return Conversation(thread_id_for(provider, title, cid), title, msgs, skipped,
                        created if created is not None else first, f"{provider}-{cid}")


def _ts(value: Any) -> float | None:
    try:
        return timestamp(value)
    except UsageError:
        return None


def _parts_text(parts: Sequence[Any], skipped: Counter[str]) -> str:
    texts: list[str] = []
    for p in parts:
        if isinstance(p, str):
            if p.strip():
                texts.append(p)
        else:  # an image or a file pointer
            skipped["attachment"] += 1
    return "\n".join(texts)


def _conversations(data: Any, provider: str, key: str, shape: type
                   ) -> Iterator[tuple[int, dict[str, Any]]]:
    """The conversations of a provider's conversations.json, each checked for the `key`
    that holds its messages; a `UsageError` naming the other `--from` for the wrong file."""
    other = {"ChatGPT": ("claude", "Claude"), "Claude": ("chatgpt", "ChatGPT")}[provider]
    if isinstance(data, dict) and str(data.get("format", "")).startswith("memlane-export"):
        raise UsageError("this is a `memlane export` file, not a conversations.json: import it "
                         "without --from")
    if not isinstance(data, list):
        raise UsageError(f"a {provider} export's conversations.json is a JSON list of "
                         f"conversations (each with '{key}'); this file is not")
    for i, conv in enumerate(data):
        if not isinstance(conv, dict) or not isinstance(conv.get(key), shape):
            raise UsageError(f"conversation {i}: no '{key}'; is this {provider}'s "
                             f"conversations.json? (use --from {other[0]} for {other[1]}'s)")
        yield i, conv


def read_chatgpt(data: Any) -> list[Conversation]:
    """ChatGPT's conversations.json (see the module docstring)."""
    out: list[Conversation] = []
    for i, conv in _conversations(data, "ChatGPT", "mapping", dict):
        mapping: dict[str, Any] = conv["mapping"]
        # The branch the user last saw: from current_node up to the root.
        node_id = conv.get("current_node")
        if node_id not in mapping:  # older exports: the last leaf
            leaves = [k for k, n in mapping.items() if not (n or {}).get("children")]
            node_id = leaves[-1] if leaves else None
        path: list[dict[str, Any]] = []
        seen: set[str] = set()
        while node_id is not None and node_id in mapping and node_id not in seen:
            seen.add(node_id)
            node = mapping[node_id] or {}
            path.append(node)
            node_id = node.get("parent")
        path.reverse()
        skipped: Counter[str] = Counter()
        msgs: list[dict[str, Any]] = []
        when = _ts(conv.get("create_time"))
        for node in path:
            m = node.get("message")
            if not isinstance(m, dict):
                continue
            role = (m.get("author") or {}).get("role")
            content = m.get("content") or {}
            meta = m.get("metadata") or {}
            if role in ("system", "tool") or role not in ("user", "assistant"):
                skipped["tool" if role == "tool" else "system"] += 1
                continue
            if meta.get("is_visually_hidden_from_conversation"):
                skipped["hidden"] += 1
                continue
            if m.get("recipient", "all") != "all" or \
                    content.get("content_type") not in ("text", "multimodal_text"):
                skipped["tool"] += 1  # a call to browsing, code, a plugin; or its display
                continue
            text = _parts_text(content.get("parts") or [], skipped)
            if not text.strip():
                skipped["empty"] += 1
                continue
            ts = _ts(m.get("create_time")) or when
            when = ts
            msgs.append({"role": role, "content": text, "ts": ts})
        cid = str(conv.get("conversation_id") or conv.get("id") or i)
        out.append(_conversation("chatgpt", cid, str(conv.get("title") or ""), msgs, skipped,
                                 _ts(conv.get("create_time"))))
    return out


def read_claude(data: Any) -> list[Conversation]:
    """Claude's conversations.json (see the module docstring)."""
    out: list[Conversation] = []
    for i, conv in _conversations(data, "Claude", "chat_messages", list):
        skipped: Counter[str] = Counter()
        msgs: list[dict[str, Any]] = []
        when = _ts(conv.get("created_at"))
        for m in conv["chat_messages"]:
            if not isinstance(m, dict):
                continue
            role = {"human": "user", "assistant": "assistant"}.get(str(m.get("sender")))
            if role is None:
                skipped["system"] += 1
                continue
            skipped["attachment"] += len(m.get("attachments") or []) + len(m.get("files") or [])
            parts = m.get("content")
            if isinstance(parts, list) and parts:
                texts = []
                for p in parts:
                    kind = p.get("type") if isinstance(p, dict) else None
                    if kind == "text" and isinstance(p.get("text"), str):
                        if p["text"].strip():
                            texts.append(p["text"])
                    else:
                        skipped["tool" if kind in ("tool_use", "tool_result") else
                                "attachment"] += 1
                text = "\n\n".join(texts)
            else:
                raw = m.get("text")
                text = raw if isinstance(raw, str) else ""
            if not text.strip():
                skipped["empty"] += 1
                continue
            ts = _ts(m.get("created_at")) or when
            when = ts
            msgs.append({"role": role, "content": text, "ts": ts})
        cid = str(conv.get("uuid") or i)
        out.append(_conversation("claude", cid, str(conv.get("name") or ""), msgs, skipped,
                                 _ts(conv.get("created_at"))))
    return out


READERS: dict[str, Callable[[Any], list[Conversation]]] = {
    "chatgpt": read_chatgpt, "claude": read_claude}


def load(source: str, text: str, name: str = "the file") -> list[Conversation]:
    """The conversations of an export's `conversations.json` text, from `source`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"{name}: not valid JSON ({e.msg}, line {e.lineno}); expected the "
                         f"conversations.json of a {source} export") from None
    return READERS[source](data)


def import_conversations(memory: Any, conversations: Sequence[Conversation], *,
                         progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Each conversation into its own thread, replayed in order with its times and filed by the
    memory step as it goes (`memlane.ingest`, the path `memlane ingest` takes). What a thread
    holds already is not added again (`ingest.held_count`): importing the same export twice adds
    nothing, and a later export of a conversation that went on adds its new messages.
    `already_imported` counts the conversations that added nothing; `problems`, why filing
    could not go on (their messages are stored all the same)."""
    from .ingest import ingest

    counts: dict[str, Any] = {"conversations": 0, "messages": 0, "held": 0, "steps": 0,
                              "already_imported": 0, "empty": 0}
    problems: list[str] = []
    skipped: Counter[str] = Counter()
    for n, conv in enumerate(conversations, 1):
        skipped.update(conv.skipped)
        if not conv.messages:
            counts["empty"] += 1
        else:
            tid = _thread_for(memory, conv)
            # ingest flushes: a conversation is over, its last stretch is filed too, not only
            # what the cadence made due (its facts would wait for a next turn that never comes).
            out = ingest(memory, tid, conv.messages)
            _date_thread(memory, tid, conv.created)
            counts["held"] += out["held"]
            if out["messages"]:
                counts["conversations"] += 1
                counts["messages"] += out["messages"]
            else:
                counts["already_imported"] += 1
            counts["steps"] += out["steps"]
            problems += out["problems"]
        if progress is not None:
            progress(n, len(conversations))
    counts["skipped"] = {k: n for k, n in sorted(skipped.items()) if n}
    counts["problems"] = problems
    return counts


def _thread_for(memory: Any, conv: Conversation) -> str:
    """The conversation's thread: the one imported before titles were kept, if it exists."""
    if conv.former_id and memory.thread(conv.former_id).exists():
        return conv.former_id
    return conv.thread_id


def _date_thread(memory: Any, thread_id: str, created: float | None) -> None:
    """The thread's `created` goes back to the conversation's start; `last_active` is left as
    it is (the TTL clock, module docstring)."""
    info = memory.thread(thread_id).info()
    if created is not None and created < info.created:
        memory.store.set_thread_times(memory.ns, thread_id, created, info.last_active)


def sniff(data: Any) -> str | None:
    """The `--from` value whose export the parsed JSON `data` looks like (`chatgpt`,
    `claude`), or None: a plain `memlane import` of such a file names the flag."""
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return None
    if isinstance(data[0].get("mapping"), dict):
        return "chatgpt"
    if isinstance(data[0].get("chat_messages"), list):
        return "claude"
    return None
