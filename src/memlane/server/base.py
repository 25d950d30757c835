"""What the server's route modules share (`app.py` mounts them; `proxy.py` and `mcp.py` serve
beside it): the HTTP error and its JSON body, reading a request's JSON, the authenticated
namespace, the server's config and the `Service` the handlers share. Kept below `app.py` so that
the modules `app.py` mounts import this rather than the app (no import cycle).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from ..aio import in_executor
from ..errors import (
    BudgetTooSmall,
    MemlaneError,
    ModelError,
    NotFound,
    StepConflict,
    StepError,
    StepStalled,
    UpstreamTimeout,
    UsageError,
)
from ..memory import Memory
from ..step.runner import StepRunner, StepWorker
from ..types import StepResult
from .auth import Auth
from .foreground import Foreground
from .step_process import ProcessStepWorker, StepKey, file_key, step_worker

log = logging.getLogger("memlane.server")

KEEPS_UP = 4
"""A background step waits for gaps between requests only with fewer jobs than this queued
behind it (`Service._step`)."""

MAX_BODY = 1 << 20
"""Request bodies over 1 MiB are refused with 413 (a message's own cap is 1,000,000 chars)."""

REQUEST_THREADS = 40
"""Threads running requests' blocking work (`Service.in_thread`): a proxied turn holds one
while it waits for the upstream, so this many turns can wait at once (anyio's default limit,
which Starlette's `run_in_threadpool` used before)."""

STOP_STEPS = 5.0
"""Seconds the memory steps queued at shutdown get to finish (`Service.close`): a supervisor
sends SIGKILL 10 s after SIGTERM (docker stop, systemd's default is 90 s), and a step waiting on
a slow upstream model must not hold the stop. What is not filed then is filed on a later turn:
the messages are stored."""

T = TypeVar("T")


class ApiError(Exception):
    """An HTTP error with memlane's JSON body."""

    def __init__(self, status: int, message: str, kind: str,
                 problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.kind, self.problems = status, message, kind, problems


@dataclass(frozen=True)
class ServerConfig:
    """How `memlane serve` runs; everything a request handler may read."""

    upstream: str | None = None
    """Base URL of an OpenAI-compatible API (`.../v1`) the proxy forwards to."""
    upstream_model: str | None = None
    """Model name sent upstream, replacing the client's (None: the client's)."""
    upstream_key: str | None = None
    """API key for the upstream (never the client's memlane key)."""
    upstream_timeout: float = 120.0
    """Seconds the proxy waits for the upstream to connect and for each read, one attempt
    (`memlane serve --upstream-timeout`, `$MEMLANE_UPSTREAM_TIMEOUT`); then 504."""
    passthrough: tuple[str, ...] | None = None
    """The `/v1/...` routes besides chat completions passed to the upstream with the upstream's
    key, as `[METHOD] PATH` (`memlane serve --passthrough`, `$MEMLANE_PASSTHROUGH`;
    `upstream.PassRoute`). None: read-only model listing only (`GET models`, `GET models/*`).
    A namespace key alone never widens it."""
    budget: int = 4000
    """Token budget of the context the proxy assembles (header `X-Memlane-Budget` overrides)."""
    max_tool_rounds: int = 4
    """Model calls per proxied turn that may run memlane's tools; then the model must answer."""
    max_body: int = MAX_BODY
    background_steps: bool = True
    """Run due memory steps after each proxied turn, on a background worker."""
    compact_after_forget: bool = True
    """Compact the store after every forget (SQLite: FTS merge, VACUUM, WAL truncated;
    PostgreSQL: VACUUM FULL), so forgotten text leaves the files; REST forgets wait for it,
    a model's `forget` tool call does not. Off: run `memlane compact` in maintenance windows."""
    step_worker: str = "thread"
    """Where background memory steps run (`memlane serve --step-worker`): `thread`, a thread of
    the server (the default: the lower median, docs/PERFORMANCE.md); `process`, a child
    process of their own, so a pure-Python step never holds the GIL the request threads need
    (a lower tail with long heuristic steps, and a step that crashes in native code takes down
    the child, not the server); `auto`, a process when the store is a file or a PostgreSQL URL
    (and the extractor, embedder and ledger can be opened again there), else the thread
    (`memlane.server.step_process`)."""
    allowed_origins: tuple[str, ...] = ()
    """Web origins (`https://app.example`) besides the server's own that browsers may call it
    from; any other `Origin` is refused (`browser_refusal`)."""


def error_body(message: str, kind: str, problems: list[str] | None = None) -> dict[str, Any]:
    err: dict[str, Any] = {"message": message, "type": kind}
    if problems is not None:
        err["problems"] = problems
    return {"error": err}


# memlane's errors as HTTP, the first match winning (so each class comes before its base).
_STATUS: tuple[tuple[type[MemlaneError], int, str], ...] = (
    (StepStalled, 409, "step_stalled"),
    (StepConflict, 409, "step_conflict"),
    (NotFound, 404, "not_found"),
    (BudgetTooSmall, 400, "budget_too_small"),
    (UsageError, 400, "invalid_request"),
    (UpstreamTimeout, 504, "upstream_timeout"),
    (ModelError, 502, "upstream_error"),
    (MemlaneError, 500, "server_error"),
)


def error_response(exc: BaseException) -> JSONResponse:
    """The JSON error for an exception raised while handling a request."""
    if isinstance(exc, ApiError):
        status, body = exc.status, error_body(exc.message, exc.kind, exc.problems)
    elif isinstance(exc, StepError):
        status, body = 422, error_body(str(exc).split("\n", 1)[0], "step_error", exc.problems)
    elif isinstance(exc, HTTPException):
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        status, body = exc.status_code, error_body(str(exc.detail), kind)
    elif isinstance(exc, MemlaneError):
        status, kind = next((st, k) for cls, st, k in _STATUS if isinstance(exc, cls))
        body = error_body(str(exc), kind)
    else:
        log.exception("unhandled error", exc_info=exc)
        status, body = 500, error_body("internal error; see the server log", "server_error")
    headers = dict(getattr(exc, "headers", None) or {})  # e.g. `Allow` on a 405
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(body, status_code=status, headers=headers or None)


# --- the service: memory, auth, background steps ------------------------------------------------


class Service:
    """What the handlers share: the base memory (one store), auth, config, and the worker that
    runs memory steps after proxied turns."""

    def __init__(self, memory: Memory, auth: Auth, config: ServerConfig,
                 ledger: Any = None) -> None:
        self.memory = memory
        self.auth = auth
        self.config = config
        self.ledger = ledger
        self.model: Any = None
        """An in-process `Model` answering the proxy, if not an HTTP upstream."""
        # The system prompt the proxy last sent upstream for a thread (a client's own replaces
        # memlane's), so the context view shows what the model got. Kept in memory, not in the
        # store: it is the client's to send again each call; bounded, least recent dropped.
        self._sent_system: OrderedDict[tuple[str, str], str] = OrderedDict()
        # One worker: steps of one store run one at a time, and a burst of turns cannot crowd
        # the request threads out; in a child process where it can (`step_process`), so the
        # step's Python never holds the GIL a turn is waiting for. Steps in other processes on
        # the same store are kept apart by the claim in `apply_step` (`memlane.step.runner`).
        self._worker: StepWorker[StepKey] = step_worker(
            config.step_worker, self.memory, ledger, self.step_model(self.memory), self._step)
        # Requests first: a step filed in this process waits for a gap between them (before it
        # starts and, on SQLite, before each time it takes the store's lock), a bounded time.
        self.foreground = Foreground()
        self._behind: set[StepKey] = set()
        """Jobs queued on the thread worker, not started (`_step` counts what is behind)."""
        yield_before_lock = getattr(self.memory.store, "yield_before_lock", None)
        if yield_before_lock is not None:
            yield_before_lock(self.foreground.pause)
        self._requests = ThreadPoolExecutor(max_workers=REQUEST_THREADS,
                                            thread_name_prefix="memlane-request")
        # Compaction has its own worker: a VACUUM must not wait behind a queue of steps.
        self._compactor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlane-compact")
        self._compaction: Future[bool] | None = None
        self._lock = threading.Lock()
        # A forget through any surface (REST, a model's tool call over the proxy or MCP)
        # schedules compaction; REST handlers then wait for it. The service's own view of the
        # memory it was given carries that callback (the caller's memory is left as it was).
        if config.compact_after_forget:
            self.memory = memory.namespace(memory.ns, on_forget=self.schedule_compaction)

    SENT_SYSTEM_KEEP = 10_000

    def note_sent_system(self, ns: str, thread_id: str, text: str | None) -> None:
        """Remember the system prompt a proxied call sent for a thread (None: forget it)."""
        with self._lock:
            self._sent_system.pop((ns, thread_id), None)
            if text is not None:
                self._sent_system[(ns, thread_id)] = text
                while len(self._sent_system) > self.SENT_SYSTEM_KEEP:
                    self._sent_system.popitem(last=False)

    def sent_system(self, ns: str, thread_id: str) -> str | None:
        """The system prompt the proxy last sent for this thread, if it has sent one."""
        with self._lock:
            return self._sent_system.get((ns, thread_id))

    def schedule_compaction(self) -> Future[bool]:
        """Compact the store soon, on its own worker (one queued at a time: forgets that come
        while one waits share it). The future is True once compacted, False if it failed."""
        with self._lock:
            queued = self._compaction
            if queued is not None and not queued.running() and not queued.done():
                return queued
            self._compaction = self._compactor.submit(self._compact)
            return self._compaction

    def _compact(self) -> bool:
        try:
            self.memory.compact()
            return True
        except Exception:  # noqa: BLE001 - retried by the next forget; never kills the worker
            log.exception("compacting the store after a forget failed")
            return False

    def compact_after_forget(self, wait: float | None = 120.0) -> bool | None:
        """What a forget through the server does next: compaction, waited for (`wait` seconds;
        None schedules it only). True/False: compacted or not; None: not waited for or off."""
        if not self.config.compact_after_forget:
            return None
        fut = self.schedule_compaction()
        if wait is None:
            return None
        try:
            return fut.result(timeout=wait)
        except TimeoutError:
            return None

    async def in_thread(self, fn: Callable[..., T], /, *args: Any) -> T:
        """`fn(*args)` on a request thread, awaited: the store and the upstream block, the event
        loop must not. Every route's blocking work goes through here (REST operations, the
        proxy's turns, the thread producing a stream, pass-through calls), on the service's own
        threads rather than anyio's `to_thread` (Starlette's `run_in_threadpool`), which costs
        more CPU a call (`benchmarks/bench_hop.py` compares them). As there, the caller's context
        variables go with the call, and a request cancelled meanwhile waits for its thread to
        finish (a turn's work is never abandoned half done: a held thread is let go by the
        code that took it) before it is cancelled (`aio.in_executor`)."""
        return await in_executor(self._requests, fn, *args, finish_first=True)

    def mem(self, namespace: str) -> Memory:
        return self.memory if namespace == self.memory.ns else self.memory.namespace(namespace)

    def step_model(self, mem: Memory) -> str:
        """Who the ledger attributes a step's fallback or grade to."""
        return self.config.upstream_model or mem.extractor.name

    def step_runner(self, namespace: str) -> StepRunner:
        """The filing path for `namespace`: the memory's extractor, the service's ledger."""
        mem = self.mem(namespace)
        return mem.step_runner(ledger=self.ledger, model=self.step_model(mem))

    def submit_step(self, namespace: str, thread_id: str, *, turn_done: bool = False) -> None:
        """File whatever is due on `thread_id`, later, off the request path. A thread already
        queued is not queued twice: the job files everything due when it runs (in batches;
        a job that filed a full batch queues itself again). `turn_done`: the caller has just
        recorded the end of the last turn (the proxy's finished answer), so it need not wait
        for the next user message to close it (`StepRunner.due_part`)."""
        key = (namespace, thread_id, turn_done)
        if not isinstance(self._worker, ProcessStepWorker):
            with self._lock:
                self._behind.add(key)
                behind = len(self._behind)
            if behind >= KEEPS_UP:
                self.foreground.nudge()  # a job waiting for a gap stops waiting
        self._worker.submit(key)

    @property
    def step_worker_kind(self) -> str:
        """Where background memory steps run: `process` or `thread` (`ServerConfig.step_worker`
        as resolved for this memory)."""
        return "process" if isinstance(self._worker, ProcessStepWorker) else "thread"

    def _step(self, key: StepKey, batch: int) -> list[StepResult]:
        mem = self.mem(key[0])
        with self._lock:
            self._behind.discard(key)
        # Requests first only while the worker keeps up: with jobs queued behind this one,
        # waiting for gaps would only let them pile up (under continuous load the memory
        # would fall further behind, and the steps' work still has to be done).
        with self.foreground.background(patient=self._keeps_up):
            return file_key(mem, key, batch, ledger=self.ledger, model=self.step_model(mem))

    def _keeps_up(self) -> bool:
        return len(self._behind) < KEEPS_UP

    def drain(self, timeout: float = 30.0) -> None:
        """Wait for the queued memory steps (tests, benchmarks, shutdown)."""
        self._worker.wait(timeout)

    def close(self, steps_timeout: float = STOP_STEPS) -> bool:
        """Stop the workers once the queued memory steps are done, waiting `steps_timeout`
        seconds at most. False when a step still runs then: it cannot be interrupted (a thread,
        or a child process mid-write), so the stores must not be closed under it; the caller
        exits without closing them (SQLite rolls the unfinished transaction back on the next
        open, and the stretch is filed again later)."""
        try:
            self.drain(steps_timeout)
        except MemlaneError as e:
            log.warning("stopping without the memory steps still queued: %s", e)
            return False
        self._worker.close()
        self._compactor.shutdown(wait=True)
        self._requests.shutdown(wait=False)
        return True


# --- request bodies ----------------------------------------------------------------------------


def too_large(limit: int) -> ApiError:
    return ApiError(413, f"request body is over the {limit:,} byte limit: send less per request "
                         "(e.g. fewer messages per append)", "payload_too_large")


async def read_json(request: Request, limit: int) -> Any:
    """The request body as JSON, refusing bodies over `limit` even without Content-Length."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise ApiError(400, "request body is empty: send a JSON object", "invalid_json")
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as e:
        raise ApiError(400, f"request body is not valid JSON: {e}", "invalid_json") from None
    except RecursionError:
        raise ApiError(400, "request body is nested too deeply", "invalid_json") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def namespace_of(request: Request) -> str:
    return str(request.scope["memlane.namespace"])
