"""Held-out corrections through the surfaces: the OpenAI-compatible proxy (driven by the
`openai` package) and the OpenAI Agents SDK session file the same records as `ingest` for the
same conversation, since every surface files through one path (the step runner and the
supersede rule). Each case is the conversation `scripts/measure_corrections.py` builds: the
first statements and small talk in thread "a", then the correction (or near-miss) and more
small talk in "a" or in another thread "b" of the namespace. Both parts end with a flush, as
`ingest` ends with one (a session that ends)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
openai = pytest.importorskip("openai")
pytest.importorskip("agents")

from agents import (  # noqa: E402
    Agent,
    OpenAIChatCompletionsModel,
    Runner,
    set_tracing_disabled,
)

from memlane import AsyncMemory, Memory  # noqa: E402
from memlane.ingest import ingest  # noqa: E402
from memlane.integrations.openai_agents import MemlaneSession  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.testing import FakeUpstream, Reply, serve_in_thread  # noqa: E402
from test_corrections_heldout import _measure  # noqa: E402

set_tracing_disabled(True)
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
# Corrections of several shapes (a provider, a time, a pronoun, a dose, two people, a
# transfer) and near-misses (another holder, another thing, a hypothetical).
CASES = {"corrections_heldout_v3.jsonl": ["c01", "c06", "c16", "c17", "c25", "n01", "n03", "n13",
                                          "n19"],
         "corrections_people_v3.jsonl": ["p02", "p03", "p12"]}


M = _measure()


def _cases() -> list[tuple[int, dict[str, Any]]]:
    out = []
    for name, ids in CASES.items():
        by_id = {c["id"]: c for c in M.load(DATA / name)}
        out += [by_id[i] for i in ids]
    return list(enumerate(out))


def _parts(n: int, case: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The two parts of a case's conversation: (thread, messages), as `run_case` files them."""
    later = "a" if n % 2 else "b"
    return [("a", M._turns(case["first"], n, M.T0)),
            (later, M._turns([case["second"]], n + 2, M.T0 + 40 * M.DAY))]


def _current(mem: Memory) -> list[str]:
    return sorted(r.text for r in mem.records())


def _replies(parts: list[tuple[str, list[dict[str, Any]]]]) -> dict[str, str]:
    msgs = [m for _, ms in parts for m in ms]
    return {u["content"]: a["content"] for u, a in zip(msgs[::2], msgs[1::2], strict=True)}


def _by_ingest(tmp: Path, n: int, case: dict[str, Any]) -> list[str]:
    mem = Memory.open(tmp / "ingest.db")
    for tid, msgs in _parts(n, case):
        ingest(mem, tid, msgs)
    out = _current(mem)
    mem.close()
    return out


def _by_proxy(tmp: Path, n: int, case: dict[str, Any]) -> list[str]:
    parts = _parts(n, case)
    replies = _replies(parts)
    memory = Memory.open(tmp / "proxy.db")
    ring = KeyRing.load(tmp / "keys.json")
    key = ring.add("acme")
    with FakeUpstream(lambda body: Reply(content=replies[body["messages"][-1]["content"]])) \
            as up:
        app = create_app(memory, Auth(ring), ServerConfig(upstream=up.url), mcp=False)
        svc = app.state.service
        with serve_in_thread(app) as url:
            client = openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
            history: dict[str, list[dict[str, str]]] = {}
            for tid, msgs in parts:
                said = history.setdefault(tid, [])
                for m in msgs[::2]:
                    said.append({"role": "user", "content": m["content"]})
                    r = client.chat.completions.create(model="fake", messages=said, user=tid)
                    said.append({"role": "assistant", "content": r.choices[0].message.content})
                svc.drain()
                svc.mem("acme").thread(tid).flush()
        out = _current(svc.mem("acme"))
        svc.close()
    memory.close()
    return out


def _by_agents_sdk(tmp: Path, n: int, case: dict[str, Any]) -> list[str]:
    parts = _parts(n, case)
    replies = _replies(parts)

    def script(body: dict[str, Any]) -> Reply:
        last = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        return Reply(content=replies[str(last)])

    async def run() -> list[str]:
        mem = await AsyncMemory.open(tmp / "sdk.db")
        with FakeUpstream(script) as up:
            model = OpenAIChatCompletionsModel(model="fake", openai_client=openai.AsyncOpenAI(
                base_url=up.url, api_key="test", max_retries=0))
            agent = Agent(name="helper", instructions="Be brief.", model=model)
            for tid, msgs in parts:
                session = MemlaneSession(tid, memory=mem)
                for m in msgs[::2]:
                    await Runner.run(agent, m["content"], session=session)
                await session.wait()
                await session.thread.flush()
        out = sorted(r.text for r in await mem.records())
        await mem.close()
        return out

    return asyncio.run(run())


@pytest.mark.parametrize(("n", "case"), _cases(), ids=lambda v: v["id"] if isinstance(v, dict)
                         else str(v))
def test_the_proxy_and_the_agents_sdk_file_what_ingest_files(tmp_path: Path, n: int,
                                                              case: dict[str, Any]) -> None:
    filed = _by_ingest(tmp_path, n, case)
    assert any(M.has(t, case["new"] or case["old"]) for t in filed), filed
    assert _by_proxy(tmp_path, n, case) == filed
    assert _by_agents_sdk(tmp_path, n, case) == filed
