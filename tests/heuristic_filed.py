"""The record texts the offline writer files from one user message, as the filing tests read
them. Shared by test_heuristic_filing and test_heuristic_asides."""

from __future__ import annotations

from memlane.step.heuristic import extract
from memlane.types import Message


def records(text: str) -> list[str]:
    """The texts of the records `extract` files from `text` said alone by the user."""
    m = Message(id=1, thread_id="t", seq=1, role="user", content=text, ts=0.0, tokens=12)
    return [r["text"] for r in extract([m])["records"]]
