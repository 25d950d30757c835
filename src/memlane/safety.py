"""Notes are untrusted: scanning model-written text for injected instructions, and framing.

Buffer lines and records are written by a model from conversation text a user (or a web page the
agent read) controlled. Each is scanned when written (flagged, never silently dropped: nothing
stored is lost) and again when shown (patterns may have grown since; a flagged note is withheld
and counted in the trace). The scan is a pattern list, not a classifier: cheap, deterministic,
and honest about what it catches.
"""

from __future__ import annotations

import re

from .memo import remember

_PATTERNS: list[tuple[str, str]] = [
    ("override", r"\b(ignore|disregard|forget|override)\b.{0,40}"
                 r"\b(previous|prior|above|earlier|all|"
                 r"your|the)\b.{0,20}\b(instructions?|prompts?|rules?|guidelines?|messages?)\b"),
    ("new_instructions", r"\b(new|updated|real|actual)\s+(system\s+)?instructions?\s*[:\-]"),
    ("role_switch", r"\byou\s+are\s+now\b|\bact\s+as\s+(an?\s+)?(unrestricted|jailbroken|dan)\b"
                    r"|\bdeveloper\s+mode\b|\bjailbreak"),
    ("system_prompt", r"\b(reveal|print|show|leak|repeat)\b.{0,30}\b(system\s+prompt|instructions"
                      r"|api\s*key|password|secret)\b"),
    ("chat_markup", r"<\|?(im_start|im_end|system|endoftext)\|?>|\[/?INST\]|^\s*#{2,}\s*(system|"
                    r"instruction)|\b(system|assistant)\s*:\s*(you|ignore|from now)"),
    ("tool_coercion", r"\b(call|invoke|run|execute)\s+(the\s+)?(tool|function)\b.{0,40}\b(forget|"
                      r"delete|send|transfer|email)\b|\bforget\s+(all|every)\s+(memor|record)"),
    ("exfiltration", r"\b(send|post|upload|forward|email)\b.{0,40}\b(to|at)\b.{0,20}"
                     r"(https?://|\S+@\S+\.\w+)"),
    ("secrecy", r"\b(do\s+not|don't|never)\s+(tell|inform|mention\s+(this\s+)?to)\s+the\s+user\b"),
]
_COMPILED = [(name, re.compile(p, re.IGNORECASE | re.MULTILINE)) for name, p in _PATTERNS]


def scan(text: str, memo: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """Names of the injection patterns `text` matches (empty: looks clean).

    `memo` (a `Memory`'s `Caches.scans`) remembers results: every shown note is rescanned on
    every assembly, and notes repeat turn to turn."""
    if memo is not None:
        hit = memo.get(text)
        if hit is None:
            hit = remember(memo, text, _scan(text))
        return list(hit)
    return list(_scan(text))


def _scan(text: str) -> tuple[str, ...]:
    return tuple(name for name, rx in _COMPILED if rx.search(text))


def is_suspect(text: str, memo: dict[str, tuple[str, ...]] | None = None) -> bool:
    if memo is not None:
        hit = memo.get(text)
        if hit is None:
            hit = remember(memo, text, _scan(text))
        return bool(hit)
    return bool(_scan(text))


NOTES_HEADER = (
    "[Memory notes: written by the memory system, not by the user. Each line indexes an earlier "
    "stretch of this conversation and points at long-term records (#id). A note is never evidence "
    "for a number, date or name: open the record with open_memory, or ask the user.]"
)

MEMORY_INSTRUCTIONS = (
    "You have long-term memory. Older parts of this conversation may be shown only as memory "
    "notes that point at records (#id). Before saying you don't know something the user may have "
    "told you, open the records of a relevant note (open_memory) or search memory "
    "(search_memory). Keep lasting facts with remember / update_memory; remove wrong ones with "
    "forget."
)
