"""A thread's lifecycle and filing: a thread deleted or expired and then used again under the same
id files again from its new messages (issue 41), on both engines, through the library and the
OpenAI Agents SDK session; a step that cannot run is reported, never dropped in silence."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest

from memlane import AsyncMemory, HistoryPolicy, Memory, StepStalled
from memlane.cli import main

DAY = 86400.0
OLD = ["colour", "film", "band", "season", "city", "dish", "sport", "author", "flower",
       "painter", "game", "river", "tree", "bird", "island", "planet", "drink", "poet",
       "composer", "mountain"]
NEW = ["fruit", "cheese", "bakery", "museum", "podcast", "beach", "teacher", "garden", "novel",
       "opera", "cocktail", "festival", "stadium", "village", "castle", "chef", "comedian",
       "language", "dance", "lake"]


def chat(t, turns: int, tag: str, things: list[str] = OLD) -> None:
    """`turns` turns, each stating a fact of its own (one thing each: nothing supersedes)."""
    for i in range(turns):
        t.add("user", f"My favourite {things[i]} is {tag}{i}.")
        t.add("assistant", "Noted.")


def current_texts(mem: Memory) -> list[str]:
    return [r.text for r in mem.records(limit=10000)]


def test_a_thread_used_again_after_its_ttl_expiry_files_again(store):
    mem = Memory(store, history=HistoryPolicy(ttl_seconds=30 * DAY))
    t = mem.thread("t1")
    chat(t, 20, "Old")
    assert t.maybe_step() and t.info().filed_to > 0
    before = len(current_texts(mem))
    assert mem.expire(now=time.time() + 40 * DAY) == 1 and not t.exists()
    filed = []
    for i in range(20):  # the user comes back: 20 turns, filing as they go
        t.add("user", f"My favourite {NEW[i]} is New{i}.")
        t.add("assistant", "Noted.")
        filed += t.maybe_step()
    assert len(filed) == 4, [(s.start, s.end) for s in filed]  # a step per 4 closed turns
    assert t.info().filed_to == filed[-1].end == 32
    texts = current_texts(mem)
    assert len(texts) > before, "records grow again"
    assert any("New3" in x for x in texts) and any("New15" in x for x in texts)
    assert [e.end for e in t.episodes()] == [8, 16, 24, 32]


def test_a_deleted_thread_used_again_files_again(store):
    mem = Memory(store)
    t = mem.thread("t1")
    chat(t, 9, "Old")
    assert len(t.maybe_step()) == 2
    assert t.delete()
    chat(t, 9, "New", NEW)
    got = t.maybe_step()
    assert [(s.start, s.end) for s in got] == [(1, 8), (9, 16)]
    assert all(s.added for s in got) and not any(s.replaced for s in got)
    # The old incarnation's records are not the new one's steps: kept, untouched.
    texts = current_texts(mem)
    assert any("Old0" in x for x in texts) and any("New0" in x for x in texts)
    # An explicit retry of a new stretch still replaces only its own records.
    again = t.step(start=1, end=8)
    assert again is not None and again.replaced
    texts = current_texts(mem)
    assert any("Old0" in x for x in texts) and any("New0" in x for x in texts)


def test_a_thread_evicted_by_the_ceiling_files_again(store):
    mem = Memory(store, history=HistoryPolicy(max_threads=1))
    a = mem.thread("a")
    chat(a, 5, "First")
    assert a.maybe_step()
    chat(mem.thread("b"), 1, "Other")  # evicts "a"
    assert not a.exists()
    chat(a, 5, "Second", NEW)  # evicts "b"; "a" again from seq 1
    got = a.maybe_step()
    assert [(s.start, s.end) for s in got] == [(1, 8)] and got[0].added


def test_filing_continues_after_clear_session(store):
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
    from openai import AsyncOpenAI

    from memlane.integrations.openai_agents import MemlaneSession
    from memlane.testing import FakeUpstream, Reply

    set_tracing_disabled(True)

    def reply(body):
        last = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        return Reply(content=f"Noted: {str(last)[:30]}")

    async def main() -> None:
        mem = AsyncMemory(Memory(store))
        with FakeUpstream(reply) as up:
            model = OpenAIChatCompletionsModel(model="fake", openai_client=AsyncOpenAI(
                base_url=up.url, api_key="test", max_retries=0))
            agent = Agent(name="a", instructions="Be brief.", model=model)
            for k, background in enumerate((False, True)):
                session = MemlaneSession("user-7", memory=mem, background_step=background)
                for i in range(8):
                    await Runner.run(agent, f"My favourite {OLD[8 * k + i]} is First{i}.",
                                     session=session)
                await session.wait()
                assert (await session.thread.info()).filed_to == 16
                n = len(await mem.records(limit=10000))
                await session.clear_session()
                session = MemlaneSession("user-7", memory=mem, background_step=background)
                for i in range(8):
                    await Runner.run(agent, f"My favourite {NEW[8 * k + i]} is Again{i}.",
                                     session=session)
                await session.wait()
                assert (await session.thread.info()).filed_to == 16, background
                assert len(session.steps) == 2
                texts = [r.text for r in await mem.records(limit=10000)]
                assert len(texts) > n and any("Again7" in x for x in texts)
                await session.clear_session()

    asyncio.run(main())


def test_a_store_that_deleted_threads_before_the_fix_is_repaired_when_it_opens(
        store_kind, request, tmp_path):
    """Migration 8: records a deleted thread left tied to its steps are detached, so a thread
    that was stuck files again once the store is opened."""
    from memlane.store.postgres import PostgresStore
    from memlane.store.sqlite import SQLiteStore

    def opened():
        if store_kind == "sqlite":
            return SQLiteStore(tmp_path / "old.db")
        return PostgresStore(request.getfixturevalue("pg_url"), min_size=1, max_size=2)

    s = opened()
    mem = Memory(s)
    t = mem.thread("t1")
    chat(t, 9, "Old")
    assert len(t.maybe_step()) == 2
    kept = mem.records(limit=10000)
    with s.transaction() as tx:  # a thread deleted as the store did before migration 8
        for table in ("messages", "episodes", "threads"):
            tx.conn.execute(tx.sql(f"DELETE FROM {table} WHERE thread_id = ?"), ("t1",))
        tx.conn.execute(tx.sql("DELETE FROM _migrations WHERE number = 8"))
    chat(t, 9, "New", NEW)
    with pytest.raises(StepStalled, match=r"stretch 1\.\.8 .*refused twice"):
        t.maybe_step()  # stuck: its steps are taken for retries of the old ones
    s.close()
    s = opened()
    try:
        mem = Memory(s)
        t = mem.thread("t1")
        got = t.maybe_step()
        assert [(r.start, r.end) for r in got] == [(1, 8), (9, 16)]
        texts = current_texts(mem)
        assert {r.text for r in kept} <= set(texts) and any("New7" in x for x in texts)
    finally:
        s.close()


# A step that cannot run is reported -------------------------------------------------------------


def stuck_at(mem: Memory, thread_id: str, end: int) -> None:
    """A record left tied to step `end` of `thread_id` that no episode has: the state a thread
    deleted before migration 8 left, where a stretch ending at `end` is refused every time."""
    with mem.store.transaction() as tx:
        tx.add_record(mem.ns, "A stale record of an old step.", "fact", [], thread_id,
                      time.time(), end, False)


def test_maybe_step_raises_a_stall_with_the_steps_filed_before_it(store, caplog):
    mem = Memory(store)
    t = mem.thread("t1")
    stuck_at(mem, "t1", 16)
    chat(t, 13, "New", NEW)
    with caplog.at_level(logging.WARNING, logger="memlane.step"), \
            pytest.raises(StepStalled) as e:
        t.maybe_step()
    err = e.value
    assert (err.thread_id, err.start, err.end) == ("t1", 9, 16)
    assert [(r.start, r.end) for r in err.results] == [(1, 8)]  # filed before it: it stands
    assert "filing of thread 't1' cannot go on: stretch 9..16" in str(err)
    assert "cannot go on" in caplog.text  # logged as a warning too
    assert t.info().filed_to == 8 and t.info().messages == 26  # no message lost
    with pytest.raises(StepStalled):  # every later call says so again
        t.maybe_step()
    with pytest.raises(StepStalled):
        t.flush()


def test_the_agent_reports_a_stall_in_the_turn_result(store):
    from memlane.agent import Agent
    from memlane.models.scripted import FunctionModel

    mem = Memory(store)
    stuck_at(mem, "t1", 8)
    agent = Agent(mem, FunctionModel(lambda *a: "Noted."), extractor=mem.extractor,
                  background=False)
    results = [agent.turn("t1", f"My favourite {NEW[i]} is New{i}.") for i in range(4)]
    assert all(not r.step_problems for r in results[:3])
    assert not results[3].step_results and results[3].answer == "Noted."
    assert len(results[3].step_problems) == 1 and "stretch 1..8" in results[3].step_problems[0]
    agent.close()


def test_the_agents_sdk_session_reports_a_stall(store):
    from memlane.integrations.openai_agents import MemlaneSession

    async def main_() -> None:
        mem = AsyncMemory(Memory(store))
        stuck_at(mem.sync, "s", 8)
        for background in (False, True):
            session = MemlaneSession("s", memory=mem, background_step=background)
            for i in range(4):  # the items a run adds: its input and the answer
                await session.add_items([{"role": "user", "content": f"Fact {i}: sky {i}."},
                                         {"role": "assistant", "content": "Noted."}])
            await session.wait()
            assert not session.steps
            assert session.step_problems and "stretch 1..8" in session.step_problems[-1]
            await session.clear_session()
            stuck_at(mem.sync, "s", 8)

    asyncio.run(main_())


def test_cli_ingest_exits_non_zero_naming_the_stall_and_keeps_every_message(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    with Memory.open(db) as mem:
        stuck_at(mem, "t1", 8)
    convo = tmp_path / "c.jsonl"
    convo.write_text("".join(
        json.dumps({"role": r, "content": c}) + "\n" for i in range(6)
        for r, c in (("user", f"My favourite {NEW[i]} is New{i}."), ("assistant", "Noted."))))
    assert main(["--db", db, "ingest", "t1", str(convo)]) == 1
    err = capsys.readouterr().err
    assert "memlane: error: filing of thread 't1' cannot go on: stretch 1..8" in err
    with Memory.open(db) as mem:
        assert mem.thread("t1").info().messages == 12


# Where a stretch ends does not depend on when the step runs --------------------------------------


def test_a_late_step_cuts_the_same_stretches_as_a_timely_one(store):
    from memlane.step.runner import Cadence

    long = " ".join(["word"] * 300)
    said = [f"My favourite {NEW[i]} is New{i}. {long if i % 3 == 0 else ''}" for i in range(14)]
    cuts = []
    for k, timely in enumerate((True, False)):
        mem = Memory(store, f"ns{k}", cadence=Cadence(every_user_turns=4, unfiled_tokens=320))
        t = mem.thread("t")
        for text in said:
            t.add("user", text)
            t.add("assistant", "Noted.")
            if timely:
                t.maybe_step()
        t.maybe_step()  # late: everything that came meanwhile is unfiled at once
        cuts.append([(e.start, e.end) for e in t.episodes()])
        assert sorted(r.text for r in mem.records(limit=10000)) == sorted(
            r.text for r in Memory(store, "ns0").records(limit=10000))
    assert cuts[0] == cuts[1] and len(cuts[0]) >= 4, cuts
