"""Fuzzing the REST API from its own OpenAPI schema (schemathesis, in-process ASGI, bounded
examples): no 5xx for anything the fuzzer sends, responses that match the schema, and no read of
another namespace, whose rows hold a secret the fuzzer's key must never see."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("mcp")
schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.core.parameters import ParameterLocation  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from memlane.cli.core import ingest  # noqa: E402
from memlane.memory import Cadence, Memory  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.testing import FakeUpstream, Reply  # noqa: E402

SECRET = "QX-SECRET-7731"


class World:
    def __init__(self, tmp) -> None:
        self.memory = Memory.open(tmp / "m.db", cadence=Cadence(every_user_turns=2))
        ring = KeyRing.load(tmp / "keys.json")
        self.victim, self.fuzzer = ring.add("victim"), ring.add("fuzzer")
        victim = self.memory.namespace("victim")
        # Different facts (a repeated one is filed once), so several record ids to try.
        msgs = [m for fact in (f"My locker code is {SECRET}, remember it.",
                               f"My gym membership number is {SECRET} since March.",
                               f"I keep the spare key under the blue pot, tag {SECRET}.",
                               f"My library card reads {SECRET} on the back.")
                for m in ({"role": "user", "content": fact},
                          {"role": "assistant", "content": "Noted."})]
        ingest(victim, "1", msgs)  # thread ids and record ids the fuzzer is likely to try
        ingest(victim, "a", msgs)
        self.record_ids = [r.id for r in victim.records()]
        assert self.record_ids and all(SECRET in r.text for r in victim.records())
        self.upstream = FakeUpstream(lambda body: Reply(content="ok")).__enter__()
        self.app = create_app(self.memory, Auth(ring),
                              ServerConfig(upstream=self.upstream.url, max_body=256 * 1024),
                              mcp=False)

    def close(self) -> None:
        self.upstream.__exit__()
        self.memory.close()


# schemathesis builds its tests when the module is collected, so the app under test exists from
# import time: a fresh store in a temporary directory, removed when the module's tests are done.
_TMP = Path(tempfile.mkdtemp(prefix="memlane-fuzz-"))
atexit.register(shutil.rmtree, _TMP, True)  # also when the tests below are deselected
WORLD = World(_TMP)
# 413 is a correct rejection of an oversized (and so schema-violating) body.
CONFIG = schemathesis.Config.from_dict({"checks": {"negative_data_rejection": {
    "expected-statuses": ["400", "401", "403", "404", "405", "413", "415", "422"]}}})
schema = schemathesis.openapi.from_asgi("/openapi.json", WORLD.app, config=CONFIG)


@pytest.fixture(scope="module")
def world():
    yield WORLD
    WORLD.close()


# Every built-in check runs (no 5xx, status codes, content types, response schemas, rejection
# of invalid data, auth, 405s with `Allow`) except positive_data_acceptance: some schema-valid
# requests are meaningfully refused (a budget smaller than the system prompt, a proxied chat with
# no user message), and they get a 4xx that says why.
EXCLUDED = [schemathesis.checks.positive_data_acceptance]


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_fuzz_no_5xx_no_cross_namespace_read(case, world):
    excluded = list(EXCLUDED)
    if case.meta is not None and case.meta.is_negative_at(ParameterLocation.HEADER):
        # The only header is the API key, which this test replaces with a valid one: the request
        # sent is no longer the generated invalid one, so "invalid data rejected" cannot be
        # judged from it (schemathesis still reports the case's other, e.g. query, mutations
        # as the reason, even when they do not survive serialisation). Every other check runs.
        excluded.append(schemathesis.checks.negative_data_rejection)
    response = case.call_and_validate(headers={"Authorization": f"Bearer {world.fuzzer}"},
                                      excluded_checks=excluded)
    assert response.status_code < 500
    assert SECRET not in response.text


BODIES = {
    ("post", "/messages"): {"messages": [{"role": "user", "content": "hi"}]},
    ("post", "/step"): {},
    ("post", "/records"): {"text": "x"},
    ("patch", "/{record_id}"): {"text": "x"},
    ("post", "/completions"): {"messages": [{"role": "user", "content": "hi"}], "user": "1"},
}


def test_every_operation_with_the_victims_ids_answers_nothing(world):
    """Each operation of the schema, called with the fuzzer's key and the victim's thread and
    record ids: 404 or an empty answer, never a row of the victim."""
    h = {"Authorization": f"Bearer {world.fuzzer}"}
    calls = 0
    with TestClient(world.app, base_url="http://127.0.0.1") as c:
        spec = c.get("/openapi.json").json()
        for path, ops in spec["paths"].items():
            for method, op in ops.items():
                known = {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
                params = {k: v for k, v in {"ids": ",".join(map(str, world.record_ids)),
                                            "q": "locker code", "thread_id": "1"}.items()
                          if k in known}
                for rid in world.record_ids[:3]:
                    url = path.replace("{thread_id}", "1").replace("{record_id}", str(rid))
                    body = next((b for (m, end), b in BODIES.items()
                                 if m == method and path.endswith(end)), None)
                    if path.endswith("/forget"):
                        body = {"record_id": rid}
                    r = c.request(method.upper(), url, headers=h, json=body, params=params)
                    calls += 1
                    assert r.status_code < 500, (method, url, r.text)
                    assert SECRET not in r.text, (method, url)
                    if "{record_id}" in path or path.endswith("/forget"):
                        assert r.status_code == 404, (method, url, r.text)
    assert calls > 40
    # ...and the victim's memory is whole after all of it.
    victim = world.memory.namespace("victim")
    assert [r.id for r in victim.records()] == world.record_ids
    assert victim.thread("1").info().messages == 8
