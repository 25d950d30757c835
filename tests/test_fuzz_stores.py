"""Fuzzing on both stores: the REST API from its OpenAPI schema against PostgreSQL (the SQLite
run is tests/test_fuzz_api.py), and the MCP tools with generated arguments (hostile integers,
NUL characters, deep nesting, wrong types) over real HTTP on SQLite and PostgreSQL. No 5xx, no
JSON-RPC error, no driver message in a tool result. Bounded: well under a minute together."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("starlette")
pytest.importorskip("mcp")
schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis.core.parameters import ParameterLocation  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from memlane.cli.core import ingest  # noqa: E402
from memlane.memory import Cadence, Memory  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.tool_schemas import TOOL_SCHEMAS  # noqa: E402

SECRET = "QX-SECRET-9952"
DRIVER_WORDS = ("psycopg", "sqlite3", "OverflowError", "Traceback", "NumericValueOutOfRange",
                "DataError", "RecursionError")


def _pg_memory(request, name: str) -> Memory:
    """A fresh PostgreSQL database for this module (the `store` fixture is per test)."""
    import psycopg

    from memlane.store.postgres import PostgresStore

    server = request.getfixturevalue("pg_server_url")
    db = f"memlane_fuzz_{name}_{os.getpid()}"
    with psycopg.connect(server, autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        c.execute(f"CREATE DATABASE {db}")
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(server)
    url = urlunsplit(parts._replace(path="/" + db))
    request.addfinalizer(lambda: _drop(server, db))
    return Memory(PostgresStore(url, min_size=1, max_size=4), cadence=Cadence(every_user_turns=2))


def _drop(server: str, db: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")


class World:
    def __init__(self, memory: Memory, keys) -> None:
        self.memory = memory
        ring = KeyRing.load(keys)
        self.victim, self.fuzzer = ring.add("victim"), ring.add("fuzzer")
        victim = memory.namespace("victim")
        msgs = [{"role": "user", "content": f"My locker code is {SECRET}, remember it."},
                {"role": "assistant", "content": "Noted."}] * 3
        ingest(victim, "1", msgs)
        self.app = create_app(memory, Auth(ring), ServerConfig(max_body=256 * 1024), mcp=True)


@pytest.fixture(scope="module")
def pg_world(request, tmp_path_factory):
    w = World(_pg_memory(request, "rest"), tmp_path_factory.mktemp("fuzzpg") / "keys.json")
    yield w
    w.memory.close()


def test_fuzz_rest_on_postgres(pg_world):
    """Every operation of the schema, a few generated cases each (schemathesis builds its
    parametrised tests at import, before a PostgreSQL exists, so the cases are drawn here)."""
    config = schemathesis.Config.from_dict({"checks": {"negative_data_rejection": {
        "expected-statuses": ["400", "401", "403", "404", "405", "413", "415", "422"]}}})
    schema = schemathesis.openapi.from_asgi("/openapi.json", pg_world.app, config=config)
    excluded = [schemathesis.checks.positive_data_acceptance,
                schemathesis.checks.unsupported_method]
    ran = 0
    for result in schema.get_all_operations():
        op = result.ok()
        if op.path.startswith("/v1/chat"):
            continue  # the proxy needs an upstream (tests/test_fuzz_api.py fuzzes it on SQLite)

        @given(case=op.as_strategy())
        @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck),
                  database=None)
        def run(case) -> None:
            skip = list(excluded)
            if case.meta is not None and case.meta.is_negative_at(ParameterLocation.HEADER):
                skip.append(schemathesis.checks.negative_data_rejection)
            response = case.call_and_validate(
                headers={"Authorization": f"Bearer {pg_world.fuzzer}"}, excluded_checks=skip)
            assert response.status_code < 500, (case.method, case.path, response.text[:300])
            assert SECRET not in response.text

        run()
        ran += 1
    assert ran >= 10


# --- MCP ------------------------------------------------------------------------------------------

_WEIRD_INTS = st.one_of(st.integers(), st.sampled_from([0, -1, 2**63 - 1, 2**63, 2**64, 2**70,
                                                        -(2**70), 10**30]))
_WEIRD_TEXT = st.one_of(st.text(max_size=40), st.sampled_from(
    ["\x00", "a\x00b", "\ud800", "🔥" * 20, "x" * 5000, "", "   ", "#12", "1e400"]))
_JSON = st.recursive(st.none() | st.booleans() | _WEIRD_INTS | st.floats(allow_nan=False)
                     | _WEIRD_TEXT,
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(_WEIRD_TEXT, inner, max_size=4), max_leaves=12)
_NAMES = [t["function"]["name"] for t in TOOL_SCHEMAS]


def _args(name: str) -> st.SearchStrategy[dict]:
    props = next(t for t in TOOL_SCHEMAS if t["function"]["name"] == name)["function"][
        "parameters"]["properties"]
    typed = {"id": _WEIRD_INTS, "ids": st.lists(_WEIRD_INTS, max_size=5) | _JSON,
             "limit": _WEIRD_INTS, "text": _WEIRD_TEXT, "query": _WEIRD_TEXT,
             "kind": _WEIRD_TEXT, "sources": st.booleans() | _JSON}
    fixed = st.fixed_dictionaries({}, optional={k: typed.get(k, _JSON) for k in props})
    return st.one_of(fixed, st.dictionaries(_WEIRD_TEXT, _JSON, max_size=3))


_CALLS = st.sampled_from(_NAMES + ["nope"]).flatmap(
    lambda n: st.tuples(st.just(n), _args(n) if n in _NAMES else _JSON))


def _mcp_fuzz(app, key: str) -> None:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    with TestClient(app, base_url="http://127.0.0.1") as c:

        @given(call=_CALLS)
        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        def run(call) -> None:
            name, arguments = call
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": name, "arguments": arguments}}
            r = c.post("/mcp", headers=headers, content=json.dumps(body, default=str))
            assert r.status_code < 500, r.text
            text = r.text
            assert not any(w in text for w in DRIVER_WORDS), text[:500]
            if r.status_code == 200:
                out = r.json()
                assert "result" in out or out.get("error", {}).get("code") not in (0, -32603), out
            assert SECRET not in text

        run()


def test_fuzz_mcp_tools_on_sqlite(tmp_path):
    w = World(Memory.open(tmp_path / "m.db", cadence=Cadence(every_user_turns=2)),
              tmp_path / "keys.json")
    _mcp_fuzz(w.app, w.fuzzer)
    assert len(w.memory.namespace("victim").records()) >= 1
    w.memory.close()


def test_fuzz_mcp_tools_on_postgres(request, tmp_path):
    w = World(_pg_memory(request, "mcp"), tmp_path / "keys.json")
    _mcp_fuzz(w.app, w.fuzzer)
    assert len(w.memory.namespace("victim").records()) >= 1
    w.memory.close()
