"""Numbered schema migrations, one list per engine.

Each migration runs in the same transaction as the row that records it in `_migrations`, so a
crash mid-migration leaves the schema at the previous number. Append new migrations; never edit
one that has shipped. One module per migration (`m001_core.py`, ...), listed in `_ALL`.
"""

from . import (
    m001_core,
    m002_search,
    m003_history_thread,
    m004_stated,
    m005_settings,
    m006_revision,
    m007_scanned,
    m008_detach_steps,
    m009_standing,
    m010_corrected,
)
from .runner import Migration, apply_sqlite, julianday, split_sql

__all__ = ["POSTGRES", "SQLITE", "Migration", "apply_sqlite", "julianday", "split_sql"]

_ALL = (m001_core, m002_search, m003_history_thread, m004_stated, m005_settings, m006_revision,
        m007_scanned, m008_detach_steps, m009_standing, m010_corrected)
"""One module per migration, in order; each gives its `SQLITE` and `POSTGRES` form."""

SQLITE: list[Migration] = [m.SQLITE for m in _ALL]
POSTGRES: list[Migration] = [m.POSTGRES for m in _ALL]
