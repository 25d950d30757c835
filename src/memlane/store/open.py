"""A store from what a user types: a file path, `sqlite:///path`, `:memory:` or
`postgresql://...` (`Memory.open`, the CLI's `--db`, the server). The one place that names the
engines, so the facade (`memlane.memory`) imports none of them."""

from __future__ import annotations

import os

from ..errors import MissingExtra, UsageError
from .protocol import Store


def open_store(target: str | os.PathLike[str] | None) -> Store:
    """A store from a path, `sqlite:///path`, `:memory:`, or `postgresql://...`."""
    from .sqlite import SQLiteStore

    if target is None:
        target = os.environ.get("MEMLANE_DB") or None
        if target is None:
            return SQLiteStore()
    s = str(target)
    if s.startswith(("postgresql://", "postgres://")):
        try:
            from .postgres import PostgresStore
        except ImportError as e:
            raise MissingExtra("the PostgreSQL store", "postgres", "psycopg") from e
        return PostgresStore(s)
    if s.startswith("sqlite:///"):
        s = s[len("sqlite:///"):] or ":memory:"
    elif "://" in s:
        raise UsageError(f"unknown store URL {s!r}: use a file path, sqlite:///PATH, or "
                         "postgresql://...")
    if s != ":memory:" and not s.startswith("file:"):
        folder = os.path.dirname(os.path.abspath(os.path.expanduser(s)))
        if not os.path.isdir(folder):
            raise UsageError(f"cannot create the database {s!r}: the folder {folder!r} does not "
                             f"exist; create it first (mkdir -p {folder!r}) or choose another "
                             "path")
    return SQLiteStore(s)
