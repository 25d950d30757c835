"""OpenTelemetry spans and metrics for memlane's operations (extra `memlane[otel]`).

    pip install 'memlane[otel]'      # then configure a TracerProvider / MeterProvider as usual

`Memory`, `Thread` and the step runner mark their operations with `@traced(...)`. The memory
operations follow OpenTelemetry's GenAI memory semantic conventions (semantic-conventions-genai,
merged May 2026): spans named `{gen_ai.operation.name} {gen_ai.memory.store.id}` for search
(`search_memory`), remember and update (`update_memory`), forgetting a record or a thread
(`delete_memory`) and forgetting the namespace (`delete_memory_store`), with
`gen_ai.memory.store.id` (the namespace) and `gen_ai.memory.record.id`. The query and the records'
texts (`gen_ai.memory.query.text`, `gen_ai.memory.records`) are user data: put on spans only when
the user opts in with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. Context assembly
(`memlane.context`) and the memory step (`memlane.step`, one per stretch filed, whoever files it)
are memlane's own operations, with `gen_ai.conversation.id` (the thread). Everything else is
under `memlane.`: the budget and tokens by layer, buffer lines shown and withheld, the gap,
unfiled messages, the stretch a step filed and the records it wrote, search hits, what a forget
erased. Without the `opentelemetry` package, `traced` returns the method itself: nothing is
imported and a call costs nothing extra. With it, each call opens a span on the application's
tracer provider (attributes are computed only for a recording span), so memlane's spans nest
under the agent's own. Until the application configures a provider, a call only checks whether
it has (a few microseconds). `MEMLANE_OTEL=off` leaves memlane uninstrumented.

Metrics (meter `memlane`): `memlane.operation.duration` (s, by `memlane.operation`),
`memlane.context.tokens` (by `memlane.layer`), `memlane.records.written` (by `memlane.op`:
add, update, delete) and `memlane.buffer.withheld` (lines and records the injection scan held
back).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])



def _available() -> bool:
    if os.environ.get("MEMLANE_OTEL", "").lower() in ("0", "off", "false", "no"):
        return False
    try:  # looks for the package without importing it
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except (ImportError, ValueError):
        return False


ENABLED = _available()
"""Whether memlane's methods are instrumented (decided once, when memlane is imported)."""

SEMCONV_VERSION = "0.66b2"
"""The GenAI semantic conventions the attribute names were taken from."""

# Attribute names from the GenAI conventions (spelled out, so the package need not be imported).
OPERATION_NAME = "gen_ai.operation.name"
CONVERSATION_ID = "gen_ai.conversation.id"
# The GenAI memory conventions (semantic-conventions-genai, merged May 2026).
STORE_ID = "gen_ai.memory.store.id"
RECORD_ID = "gen_ai.memory.record.id"
QUERY_TEXT = "gen_ai.memory.query.text"  # opt-in: user text
RECORDS = "gen_ai.memory.records"  # opt-in: user text
MEMORY_OPERATIONS = {
    "search": "search_memory", "remember": "update_memory", "update": "update_memory",
    "forget": "delete_memory", "forget_thread": "delete_memory",
    "forget_namespace": "delete_memory_store",
}
"""memlane's operation -> the convention's `gen_ai.operation.name` (the span is named
`{operation} {store id}`). memlane's store is the namespace: it is created by its first write, so
no `create_memory_store` span is opened; forgetting the namespace is `delete_memory_store`."""
CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


def capture_content() -> bool:
    """Whether query and record texts go on spans (`gen_ai.memory.query.text`,
    `gen_ai.memory.records`): only when the user opts in with the GenAI instrumentations'
    `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`; they are user data."""
    return os.environ.get(CAPTURE_ENV, "").strip().lower() in ("1", "true", "yes")


class _Instruments:
    """The tracer and instruments, made on first use (after the application set its providers).
    One per process, as OpenTelemetry's providers are."""

    def __init__(self) -> None:
        from opentelemetry import metrics, trace

        from ._version import __version__

        self.trace = trace
        self.metrics = metrics
        self.tracer = trace.get_tracer("memlane", __version__)
        meter = metrics.get_meter("memlane", __version__)
        self.duration = meter.create_histogram(
            "memlane.operation.duration", unit="s",
            description="Time memlane spent in one operation")
        self.tokens = meter.create_histogram(
            "memlane.context.tokens", unit="{token}",
            description="Tokens of an assembled context, by memory layer")
        self.written = meter.create_counter(
            "memlane.records.written", unit="{record}",
            description="Long-term records added, updated or deleted by memory steps")
        self.withheld = meter.create_counter(
            "memlane.buffer.withheld", unit="{note}",
            description="Buffer lines and records withheld by the injection scan")


        self._active = False
        self._checked = -1.0

    def active(self) -> bool:
        """Whether the application configured a tracer or meter provider: until it does, a
        call skips the span machinery (tens of microseconds even as a no-op). Asking the API
        costs microseconds too (it reads the environment), so the answer is kept a second."""
        now = time.monotonic()
        if now - self._checked > 1.0:
            self._checked = now
            self._active = not isinstance(self.trace.get_tracer_provider(),
                                          self.trace.ProxyTracerProvider) \
                or type(self.metrics.get_meter_provider()).__name__ != "_ProxyMeterProvider"
        return self._active


_instruments: _Instruments | None = None


def _get() -> _Instruments:
    global _instruments
    if _instruments is None:
        _instruments = _Instruments()
    return _instruments


def _describe(op: str, obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
              result: Any) -> dict[str, Any]:
    """Span attributes for one finished operation."""
    if op == "step":  # StepRunner.file_stretch(thread_id, stretch, ...)
        attrs: dict[str, Any] = {"memlane.namespace": obj.ns,
                                 CONVERSATION_ID: args[0] if args else kwargs["thread_id"]}
    else:
        memory = getattr(obj, "memory", obj)
        attrs = {"memlane.namespace": memory.ns}
    if op == "context":
        attrs[CONVERSATION_ID] = obj.id
    if op == "context" and result is not None:
        t = result.trace
        attrs["memlane.budget"] = t.budget
        attrs["memlane.tokens.total"] = t.tokens_total
        for layer, n in t.tokens_by_layer.items():
            attrs[f"memlane.tokens.{layer}"] = n
        attrs["memlane.buffer.lines"] = len(t.buffer_lines)
        attrs["memlane.buffer.withheld"] = t.withheld
        attrs["memlane.buffer.gap"] = t.gap or 0
        attrs["memlane.unfiled"] = t.unfiled
        attrs["memlane.dropped"] = len(t.dropped)
        attrs["memlane.messages"] = len(result.messages)
    elif op == "step":
        attrs["memlane.step.filed"] = result is not None
        if result is not None:
            attrs["memlane.stretch.start"] = result.start
            attrs["memlane.stretch.end"] = result.end
            attrs["memlane.stretch.messages"] = result.end - result.start + 1
            attrs["memlane.records.added"] = len(result.added)
            attrs["memlane.records.updated"] = len(result.updated)
            attrs["memlane.records.deleted"] = len(result.deleted)
            attrs["memlane.step.dropped_ids"] = len(result.dropped_ids)
            attrs["memlane.step.replaced"] = result.replaced
    if op in MEMORY_OPERATIONS:
        attrs[OPERATION_NAME] = MEMORY_OPERATIONS[op]
        attrs[STORE_ID] = memory.ns
    if op == "search":
        attrs["memlane.search.k"] = args[1] if len(args) > 1 else kwargs.get("k", 5)
        attrs["memlane.search.hits"] = len(result)
        attrs["memlane.search.embedder"] = memory.embedder.name if memory.embedder else "none"
        if capture_content():
            query = args[0] if args else kwargs.get("query", "")
            attrs[QUERY_TEXT] = str(query)
            attrs[RECORDS] = json.dumps([{"id": h.record.id, "text": h.record.text,
                                          "score": h.score} for h in result])
    elif op in ("remember", "update"):
        attrs[RECORD_ID] = str(result.id)
        attrs["memlane.record.kind"] = result.kind
        if capture_content():
            attrs[RECORDS] = json.dumps([{"id": result.id, "text": result.text}])
    elif op == "forget":
        rid = args[0] if args else kwargs.get("record_id")
        attrs[RECORD_ID] = str(rid)
    if op.startswith("forget"):
        attrs["memlane.forget.target"] = op.partition("_")[2] or "record"
        if isinstance(result, dict):
            for kind, n in result.items():
                attrs[f"memlane.forget.{kind}"] = n
        else:
            attrs["memlane.forget.erased"] = bool(result)
    return attrs


def _measure(ins: _Instruments, op: str, result: Any, seconds: float) -> None:
    ins.duration.record(seconds, {"memlane.operation": op})
    if op == "context" and result is not None:
        for layer, n in result.trace.tokens_by_layer.items():
            ins.tokens.record(n, {"memlane.layer": layer})
        if result.trace.withheld:
            ins.withheld.add(result.trace.withheld)
    elif op == "step" and result is not None:
        for name, ids in (("add", result.added), ("update", result.updated),
                          ("delete", result.deleted)):
            if ids:
                ins.written.add(len(ids), {"memlane.op": name})


def refresh() -> None:
    """Look for configured providers again now (memlane notices a provider set after its
    first call within a second anyway)."""
    if _instruments is not None:
        _instruments._checked = -1.0


def traced(op: str) -> Callable[[F], F]:
    """Instrument a method as operation `op`: context (`Thread.context`), step
    (`StepRunner.file_stretch`), search, forget, forget_thread, forget_namespace (`Memory`'s);
    the method itself when telemetry is off."""
    if not ENABLED:
        return lambda fn: fn
    gen_op = MEMORY_OPERATIONS.get(op)

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            ins = _get()
            if not ins.active():
                return fn(self, *args, **kwargs)
            started = time.perf_counter()
            # A memory operation is named by the convention: `{operation} {store id}`.
            name = f"{gen_op} {getattr(self, 'ns', '')}".rstrip() if gen_op \
                else f"memlane.{op}"
            with ins.tracer.start_as_current_span(name, record_exception=True,
                                                  set_status_on_exception=True) as span:
                result = fn(self, *args, **kwargs)
                if span.is_recording():
                    span.set_attributes(_describe(op, self, args, kwargs, result))
            _measure(ins, op, result, time.perf_counter() - started)
            return result

        return run  # type: ignore[return-value]

    return wrap
