"""OpenTelemetry spans and metrics, read back with the SDK's in-memory exporter and reader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from memlane import AsyncMemory, Memory, telemetry

_EXPORTER = InMemorySpanExporter()
_READER = InMemoryMetricReader()


@pytest.fixture(scope="module", autouse=True)
def providers():
    # The global providers can be set once per process; these tests own them.
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    trace.set_tracer_provider(provider)
    meters = MeterProvider(metric_readers=[_READER])
    metrics.set_meter_provider(meters)
    telemetry.refresh()
    yield
    # Later tests in this process keep these providers: stop them collecting.
    provider.shutdown()
    meters.shutdown()
    _EXPORTER.clear()


@pytest.fixture
def spans():
    _EXPORTER.clear()
    return _EXPORTER


def _chat(mem: Memory, n: int) -> None:
    t = mem.thread("t")
    t.add("user", "My locker code is 4471.")
    t.add("assistant", "Noted.")
    for i in range(n):
        t.add("user", f"Tell me about topic number {i} in the garden.")
        t.add("assistant", f"Topic {i} is about soil.")


def test_operations_make_spans_with_their_numbers(tmp_path, spans):
    assert telemetry.ENABLED
    mem = Memory.open(tmp_path / "o.db")
    _chat(mem, 12)
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("agent turn") as parent:
        steps = mem.thread("t").maybe_step()
        ctx = mem.thread("t").context(budget=800, new_message="What is my locker code?")
        hits = mem.search("locker code", 3)
        gone = mem.forget(hits[0].record.id)
    by_name: dict[str, list] = {}
    for s in spans.get_finished_spans():
        by_name.setdefault(s.name, []).append(s)
    step_spans = by_name["memlane.step"]
    assert len(step_spans) == len(steps) == 3
    a = step_spans[0].attributes
    assert a["gen_ai.conversation.id"] == "t" and a["memlane.namespace"] == "default"
    assert a["memlane.stretch.messages"] == steps[0].end - steps[0].start + 1 == 8
    assert a["memlane.records.added"] == len(steps[0].added) > 0
    (c,) = by_name["memlane.context"]
    assert c.attributes["memlane.tokens.total"] == ctx.trace.tokens_total
    assert c.attributes["memlane.budget"] == 800
    for layer, n in ctx.trace.tokens_by_layer.items():
        assert c.attributes[f"memlane.tokens.{layer}"] == n
    assert c.attributes["memlane.buffer.lines"] == len(ctx.trace.buffer_lines) > 0
    assert c.attributes["memlane.buffer.withheld"] == ctx.trace.withheld
    top = parent.get_span_context().span_id
    # The step's own search for related records nests under its step span.
    (s,) = [x for x in by_name["search_memory default"] if x.parent.span_id == top]
    step_ids = {x.context.span_id for x in step_spans}
    assert all(x.parent.span_id in step_ids for x in by_name["search_memory default"]
               if x is not s)
    assert s.attributes["gen_ai.operation.name"] == "search_memory"
    assert s.attributes["gen_ai.memory.store.id"] == "default"
    assert s.attributes["memlane.search.hits"] == len(hits)
    assert s.attributes["memlane.search.k"] == 3
    assert "locker" not in str(dict(s.attributes))  # no user text on spans (not opted in)
    assert "gen_ai.memory.query.text" not in s.attributes
    (f,) = by_name["delete_memory default"]
    assert f.attributes["memlane.forget.erased"] is gone is True
    assert f.attributes["gen_ai.operation.name"] == "delete_memory"
    assert f.attributes["gen_ai.memory.record.id"] == str(hits[0].record.id)
    # memlane's spans nest under the application's.
    for x in (c, s, f, *step_spans):
        assert x.parent.span_id == top
    mem.close()


def test_metrics_and_errors(tmp_path, spans):
    mem = Memory.open(tmp_path / "m.db")
    _chat(mem, 4)
    mem.thread("t").maybe_step()
    mem.thread("t").context(budget=2000)
    with pytest.raises(Exception, match="budget"):
        mem.thread("t").context(budget=10)
    failed = [s for s in spans.get_finished_spans() if s.name == "memlane.context"][-1]
    assert failed.status.status_code == trace.StatusCode.ERROR
    assert failed.events[0].name == "exception"
    data = _READER.get_metrics_data()
    found = {m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics
             if sm.scope.name == "memlane" for m in sm.metrics}
    assert {"memlane.operation.duration", "memlane.context.tokens",
            "memlane.records.written"} <= set(found)
    points = found["memlane.context.tokens"].data.data_points
    layers = {p.attributes["memlane.layer"] for p in points}
    assert {"system", "short_term"} <= layers
    written = sum(p.value for p in found["memlane.records.written"].data.data_points)
    assert written > 0
    mem.close()


def test_async_calls_keep_the_callers_span(tmp_path, spans):
    import asyncio

    async def main() -> None:
        async with await AsyncMemory.open(tmp_path / "a.db") as mem:
            await mem.remember("Prefers aisle seats.")
            with trace.get_tracer("app").start_as_current_span("turn") as parent:
                await mem.search("aisle")
            (s,) = [s for s in spans.get_finished_spans()
                    if s.name == "search_memory default"]
            assert s.parent.span_id == parent.get_span_context().span_id

    asyncio.run(main())


def test_without_the_package_nothing_is_imported_nor_wrapped(tmp_path):
    code = textwrap.dedent("""
        import importlib.abc, sys

        class Hide(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "opentelemetry":
                    raise ModuleNotFoundError(name)
                return None

        sys.meta_path.insert(0, Hide())
        from memlane import Memory, Thread, telemetry
        assert telemetry.ENABLED is False
        assert not hasattr(Thread.context, "__wrapped__")
        mem = Memory.open(sys.argv[1])
        mem.thread("t").add("user", "hi")
        mem.thread("t").context(budget=500)
        mem.search("hi")
        assert not [m for m in sys.modules if m.startswith("opentelemetry")], "imported"
        print("ok")
    """)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "n.db")], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_the_genai_names_are_the_conventions_own():
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as g

    assert telemetry.OPERATION_NAME == g.GEN_AI_OPERATION_NAME
    assert telemetry.CONVERSATION_ID == g.GEN_AI_CONVERSATION_ID
    # The memory names are from the merged GenAI memory conventions (May 2026), newer than the
    # installed package; if it defines them, they must agree.
    for const, name in (("STORE_ID", "GEN_AI_MEMORY_STORE_ID"),
                        ("RECORD_ID", "GEN_AI_MEMORY_RECORD_ID"),
                        ("QUERY_TEXT", "GEN_AI_MEMORY_QUERY_TEXT"),
                        ("RECORDS", "GEN_AI_MEMORY_RECORDS")):
        if hasattr(g, name):
            assert getattr(telemetry, const) == getattr(g, name)
    assert set(telemetry.MEMORY_OPERATIONS.values()) <= {
        "search_memory", "update_memory", "delete_memory", "create_memory_store",
        "delete_memory_store"}


def test_memory_operations_follow_the_genai_memory_conventions(tmp_path, spans, monkeypatch):
    mem = Memory.open(tmp_path / "g.db", namespace="u7")
    rec = mem.remember("Prefers aisle seats.", kind="preference")
    mem.update(rec.id, "Prefers window seats.")
    mem.forget_namespace()
    names = [x.name for x in spans.get_finished_spans()]
    assert names == ["update_memory u7", "update_memory u7", "delete_memory_store u7"]
    for x in spans.get_finished_spans():
        assert x.attributes["gen_ai.memory.store.id"] == "u7"
        assert "seats" not in str(dict(x.attributes))  # user text only when opted in
    up = spans.get_finished_spans()[1]
    assert up.attributes["gen_ai.operation.name"] == "update_memory"
    assert up.attributes["gen_ai.memory.record.id"] == str(rec.id)
    # Opted in: the query and the records found are on the search span.
    spans.clear()
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    rec = mem.remember("Has a dog called Biscuit.")
    hits = mem.search("dog name")
    (s,) = [x for x in spans.get_finished_spans() if x.name == "search_memory u7"]
    assert s.attributes["gen_ai.memory.query.text"] == "dog name"
    found = json.loads(s.attributes["gen_ai.memory.records"])
    assert [r["id"] for r in found] == [h.record.id for h in hits] == [rec.id]
    assert found[0]["text"] == "Has a dog called Biscuit."
    mem.close()
