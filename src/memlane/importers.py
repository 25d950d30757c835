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
"""

from __future__ import annotations

import json
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
    """The thread it becomes: `chatgpt-<id>` or `claude-<uuid>`."""
    title: str
    """The conversation's title in the provider's app."""
    messages: list[dict[str, Any]]
    """`{"role", "content", "ts"}`, oldest first."""
    skipped: Counter[str] = field(default_factory=Counter)
    """What was left out, by kind: tool, system, hidden, attachment, empty."""


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
        out.append(Conversation(f"chatgpt-{cid}", str(conv.get("title") or ""), msgs, skipped))
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
        out.append(Conversation(f"claude-{cid}", str(conv.get("name") or ""), msgs, skipped))
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
            # ingest flushes: a conversation is over, its last stretch is filed too, not only
            # what the cadence made due (its facts would wait for a next turn that never comes).
            out = ingest(memory, conv.thread_id, conv.messages)
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
    counts["skipped"] = dict(sorted(skipped.items()))
    counts["problems"] = problems
    return counts
