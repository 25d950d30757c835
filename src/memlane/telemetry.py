"""OpenTelemetry spans and metrics for memlane's operations (extra `memlane[otel]`).

    pip install 'memlane[otel]'      # then configure a TracerProvider / MeterProvider as usual

`Memory`, `Thread` and the step runner mark four operations with `@traced(...)`: context
assembly (`memlane.context`), the memory step (`memlane.step`, one per stretch filed, whoever
files it: `Thread.step`, the agent's worker, the service, the proxy), search
(`retrieval memlane`) and forgetting (`memlane.forget`). Without the `opentelemetry` package,
`traced` returns the method itself: nothing is imported and a call costs nothing extra. With it,
each call opens a span on the application's tracer provider (attributes are computed only for a
recording span), so memlane's spans nest under the agent's own. Until the application configures
a provider, a call only checks whether it has (a few microseconds, against a context assembly's
milliseconds). `MEMLANE_OTEL=off` leaves memlane uninstrumented even with the package installed.

Attributes come from OpenTelemetry's GenAI semantic conventions where they define the thing
(read from `opentelemetry-semantic-conventions` 0.66b2, whose GenAI registry has no memory
operations yet): `gen_ai.operation.name` = `retrieval` and `gen_ai.data_source.id` (the
namespace) for search, `gen_ai.conversation.id` (the thread) for context and step. The rest are
memlane's own, under `memlane.`: the budget and tokens by layer, buffer lines shown and withheld,
the gap, unfiled messages, the stretch a step filed and the records it wrote, search hits,
what a forget erased. Query and message texts are never put on spans (they are user data).

Metrics (meter `memlane`): `memlane.operation.duration` (s, by `memlane.operation`),
`memlane.context.tokens` (by `memlane.layer`), `memlane.records.written` (by `memlane.op`:
add, update, delete) and `memlane.buffer.withheld` (lines and records the injection scan held
back).
"""

from __future__ import annotations

import functools
import importlib.util
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
DATA_SOURCE_ID = "gen_ai.data_source.id"
CONVERSATION_ID = "gen_ai.conversation.id"


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
    elif op == "search":
        attrs[OPERATION_NAME] = "retrieval"
        attrs[DATA_SOURCE_ID] = memory.ns
        attrs["memlane.search.k"] = args[1] if len(args) > 1 else kwargs.get("k", 5)
        attrs["memlane.search.hits"] = len(result)
        attrs["memlane.search.embedder"] = memory.embedder.name if memory.embedder else "none"
    elif op.startswith("forget"):
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
    name = "retrieval memlane" if op == "search" else f"memlane.{op.split('_')[0]}"

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            ins = _get()
            if not ins.active():
                return fn(self, *args, **kwargs)
            started = time.perf_counter()
            with ins.tracer.start_as_current_span(name, record_exception=True,
                                                  set_status_on_exception=True) as span:
                result = fn(self, *args, **kwargs)
                if span.is_recording():
                    span.set_attributes(_describe(op, self, args, kwargs, result))
            _measure(ins, op, result, time.perf_counter() - started)
            return result

        return run  # type: ignore[return-value]

    return wrap
