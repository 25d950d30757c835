"""Recording an answer in the quality ledger, written once for every surface (the agent and the
proxy's JSON and SSE paths).

- `prompt_version`: a short hash of everything that shapes the prompt and is the same from turn
  to turn: the system prompt, the memory instructions (when the policy adds them), the offered
  tools' schemas, the inline step's instructions. Not the assembled context (it changes every
  turn, so a hash of it would name every answer a new prompt).
- `note_correction`: a user message that corrects the previous answer writes a `signal` row
  judging that answer (`user_correction`).
- `record_answer`: the answer's row, with the turn's signals (`TurnLoop.signals`) and
  `asked_again` (the answer asks for something the user already said or memory holds).

A ledger error never fails the turn (`ledger.write_quietly`, the one guard of every writer): the
ledger is for engineers, and a full disk or a locked file must not cost the user an answer.
"""

from __future__ import annotations

import hashlib
import json
import logging
import marshal
from collections.abc import Sequence
from typing import Any

from ..errors import MemlaneError
from ..ledger import Ledger, detect_asked_again, detect_correction, question_keys, write_quietly
from ..memory import Memory, Thread
from ..safety import MEMORY_INSTRUCTIONS
from ..step.schema import STEP_INSTRUCTIONS
from ..types import Message, Record

log = logging.getLogger("memlane.ledger")

ASKED_AGAIN_LOOKBACK = 200
"""How far back the "asked again" detector reads the thread (the rest is in records)."""


_VERSIONS: dict[bytes, str] = {}
"""`prompt_version` by its inputs' `marshal` serialization (a content key, as `tools_json`'s:
it encodes every type exactly, so equal keys mean equal JSON): the proxy computes a version
every turn from the same prompt and schemas, and writing the schemas out was most of its cost.
Holds prompts and tool schemas only (no text of a memory); bounded."""
VERSIONS_MEMO = 256


def prompt_version(system_prompt: str, memory_instructions: bool,
                   tools: Sequence[dict[str, Any]], inline: bool = False) -> str:
    try:
        key: bytes | None = marshal.dumps((system_prompt, memory_instructions, list(tools),
                                           inline))
    except ValueError:  # a type marshal cannot encode: computed every time
        key = None
    hit = _VERSIONS.get(key) if key is not None else None
    if hit is not None:
        return hit
    parts = [system_prompt, MEMORY_INSTRUCTIONS if memory_instructions else "",
             "[" + ", ".join(json.dumps(t, sort_keys=True) for t in tools) + "]",
             STEP_INSTRUCTIONS if inline else ""]
    version = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:10]
    if key is not None:
        if len(_VERSIONS) >= VERSIONS_MEMO:
            _VERSIONS.clear()
        _VERSIONS[key] = version
    return version


def note_correction(ledger: Ledger | None, memory: Memory, thread: Thread, user_text: str,
                    model: str) -> None:
    """Before the user's message is recorded: if it corrects the previous answer, a `signal`
    row for that answer."""
    if ledger is None:
        return
    phrase = detect_correction(user_text)
    if not phrase or not thread.exists():
        return
    n = thread.info().messages
    last = thread.messages(n, n)
    if not last or last[0].role != "assistant":
        return
    # A pointer to the user's message, not its words: forgetting the thread reaches it.
    detail = {"phrase": phrase.lower(), "at_seq": n + 1}
    write_quietly(ledger, lambda lg: lg.append(
        "signal", namespace=memory.ns, thread_id=thread.id, seq=last[0].seq,
        signals={"user_correction": detail}, score=0.2, model=model))


def asked_again(memory: Memory, thread: Thread, answer: str, before_seq: int) -> dict[str, Any]:
    """`{"asked_again": ...}` when the answer asks for something the user said (in the
    messages before `before_seq`) or memory holds; else empty."""
    if "?" not in answer:
        return {}
    keys = question_keys(answer)
    if not keys:
        return {}
    start = max(1, before_seq - ASKED_AGAIN_LOOKBACK)
    said = [m for m in thread.messages(start, before_seq) if m.role == "user"]
    records: list[Record] = []
    for _, words in keys[:3]:
        records += _search(memory, " ".join(words), 5)
    hit = detect_asked_again(answer, said, records)
    return {"asked_again": hit} if hit else {}


def _search(memory: Memory, query: str, limit: int) -> list[Record]:
    if not query.strip():
        return []
    try:
        return [h.record for h in memory.search(query, limit)]
    except MemlaneError:
        log.debug("search for related records failed", exc_info=True)
        return []


def record_answer(ledger: Ledger | None, memory: Memory, thread: Thread, answer: Message, *,
                  signals: dict[str, Any], agent_version: str, prompt_version: str,
                  model: str) -> dict[str, Any]:
    """The answer's ledger row (when there is a ledger); returns the signals written, the
    turn's `signals` with `asked_again` added when it fired."""
    out = dict(signals)
    try:
        out.update(asked_again(memory, thread, answer.content, answer.seq - 1))
    except Exception:  # noqa: BLE001 - a signal is for engineers; never fail the turn
        log.warning("could not check the answer for asked_again", exc_info=True)
    write_quietly(ledger, lambda lg: lg.record_answer(
        namespace=memory.ns, thread_id=thread.id, seq=answer.seq, agent_version=agent_version,
        prompt_version=prompt_version, model=model, answer_tokens=answer.tokens, signals=out))
    return out


__all__ = ["ASKED_AGAIN_LOOKBACK", "asked_again", "note_correction",
           "prompt_version", "record_answer"]
