"""Migration 5: store settings (the same SQL on both engines)."""

from __future__ import annotations

from .runner import Migration

_SETTINGS = """
-- Properties of the memory as a whole, written once when first chosen and read by every
-- surface that opens it: `embedder` (which model the vectors come from, so ingest, serve, chat
-- and search all use the same one). The same SQL on both engines.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

SQLITE = POSTGRES = Migration(5, "store settings", _SETTINGS)
