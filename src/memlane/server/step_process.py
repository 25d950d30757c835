"""The service's memory steps in a process of their own: `ProcessStepWorker`.

Why: the offline heuristic step is pure Python (a long one on real conversations, one every
few turns). On the server's background thread it holds the GIL while proxied turns are
answered. A child process files instead (docs/PERFORMANCE.md has what it changes: a lower tail
with real-sized steps, a higher median, the same throughput). It opens
the same database itself (a SQLite file or a PostgreSQL URL) with the memory's cadence, extractor
and embedder and the service's ledger file, and runs the one filing path there
(`StepRunner.file_due`, through `file_key`, as the thread did). The store's `revision()` moves
with the child's writes as with any other process's, so the server's memos stay exact.

The queue is the thread worker's own (`StepWorker`: a key queued once, submission order, a job
that filed a full batch queued again, `wait`, `close`); only running a job differs. The worker's
thread sends the job down a pipe and blocks on the reply (a read that releases the GIL), so one
job is in the child at a time, as one ran on the thread before, and `wait()` still means
"everything submitted is filed": the reply comes after the child's commit.

When something fails:
- A child that dies (killed, out of memory, a crash in native code) is noticed on its pipe (the
  read ends): the error is logged and the job goes to a new child. Nothing is lost: a step is
  one transaction, rolled back when its process dies, and a filing reads the thread's unfiled
  part again, so the new child files what the dead one did not (two children that both wrote a
  stretch are kept apart by the claim in `apply_step`, `StepConflict`).
- After `MAX_FAILURES` deaths or failed starts in a row, jobs are filed in the server process,
  the thread worker's way, and that is logged: slower filing beats none. A job the child
  completes resets the count.
- A step that raises in the child is logged with the child's traceback; the worker goes on, as
  on the thread.

The child's memos (its `Memory`'s and its store's) are emptied after every job, so between jobs
it holds no text of the memory: a forget in the server empties the server's own, and leaves
nothing behind here either.

`step_worker()` decides which worker a service gets: a child when the store can be opened again
by another process (`reopen_target`), the extractor is one a child can make again (the heuristic,
or a model over HTTP with the heuristic as its fallback: what `memlane serve` builds), the
embedder has a spec, and the ledger, if any, is a file; otherwise the thread, with the reason.

A child is a fresh interpreter (see "the child" below), never a plain fork of the threaded
server. It runs in a session of its own and ignores SIGINT: a Ctrl-C in the server's terminal
is the server's to handle, and the server's shutdown stops the child once the queue is filed.
A child whose server is gone (its stdin closes) exits.
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import MemlaneError, UsageError
from ..ledger import Ledger
from ..memory import Memory
from ..models.http import HttpChatModel
from ..search.embed import get_embedder
from ..step.extractor import Extractor, HeuristicExtractor
from ..step.model import FallbackExtractor, ModelExtractor
from ..step.runner import BATCH, Cadence, StepWorker
from ..store.open import open_store
from ..types import StepResult
from .cpu import release

log = logging.getLogger("memlane.server")

StepKey = tuple[str, str, bool]
"""One job of the service's worker: (namespace, thread id, `turn_done`)."""

WORKER_KINDS = ("auto", "process", "thread")
"""`ServerConfig.step_worker` (`memlane serve --step-worker`): `auto` is a process where the
service can have one (`step_worker`), else the thread."""

MAX_FAILURES = 3
"""Child deaths or failed starts in a row before jobs are filed in the server process."""
START_TIMEOUT = 120.0
"""Seconds a new child may take to open the store (and load an embedder's model) and say so."""
STOP_TIMEOUT = 30.0
"""Seconds a child may take to finish its job and exit at close before it is killed."""


def file_key(memory: Memory, key: StepKey, batch: int, *, ledger: Any,
             model: str | None) -> list[StepResult]:
    """One job: file what is due on the key's thread, at most `batch` stretches. The service's
    one filing call, on its thread or in the child."""
    ns, thread_id, turn_done = key
    mem = memory if ns == memory.ns else memory.namespace(ns)
    return mem.step_runner(ledger=ledger, model=model).file_due(
        thread_id, max_steps=batch, turn_done=turn_done)


# --- what a child needs ------------------------------------------------------------------------


@dataclass(frozen=True)
class ChildRecipe:
    """What a child opens to file as the server would. Pickled once, when the service starts
    (a model the server has since used is never pickled mid-use)."""

    target: str = field(repr=False)
    """What `open_store` opens: the file's path or the PostgreSQL URL (its password included,
    so it is kept out of the repr)."""
    namespace: str
    """The memory's namespace (jobs name their own; this one opens the memory)."""
    cadence: Cadence
    """The memory's: when a stretch is due."""
    extractor: Extractor = field(repr=False)
    """Who writes the steps (a model's API key inside: out of the repr)."""
    embedder: str | None
    """The embedder's spec (`get_embedder`), None for lexical search only."""
    ledger: str | None
    """The quality ledger's file, None for no ledger."""
    model: str | None
    """Who the ledger attributes fallbacks and graded answers to."""


def remakeable(extractor: Extractor) -> bool:
    """Whether a child can make `extractor` again from its pickle, to the same effect: the
    heuristic, or a model over HTTP with the heuristic as fallback. Exact types only: a subclass,
    a callback or a scripted model may hold state its caller reads, which a copy would not."""
    if type(extractor) is HeuristicExtractor:
        return True
    return (type(extractor) is FallbackExtractor and extractor.on_fallback is None
            and type(extractor.fallback) is HeuristicExtractor
            and type(extractor.primary) is ModelExtractor
            and isinstance(extractor.primary.model, HttpChatModel))


def child_recipe(memory: Memory, ledger: Any, model: str | None) -> ChildRecipe | str:
    """The recipe of a child that files as `memory` and `ledger` would, or why there can be
    none (the service then files on its thread)."""
    reopen = getattr(memory.store, "reopen_target", None)
    target = reopen() if callable(reopen) else None
    if not isinstance(target, str):
        return "the store lives in this process (an in-memory database)"
    if not remakeable(memory.extractor):
        return (f"the memory's extractor {memory.extractor.name!r} is not one a child process "
                "can make again")
    spec: str | None = None
    if memory.embedder is not None:
        spec = getattr(memory.embedder, "spec", None)
        if not isinstance(spec, str):
            return (f"the embedder {memory.embedder.name!r} has no spec a child process could "
                    "open it by")
    path: str | None = None
    if ledger is not None:
        path = getattr(ledger, "path", None)
        if not isinstance(path, str) or path == ":memory:":
            return "the quality ledger lives in this process (an in-memory ledger)"
    return ChildRecipe(target=target, namespace=memory.ns, cadence=memory.cadence,
                       extractor=memory.extractor, embedder=spec, ledger=path, model=model)


def step_worker(kind: str, memory: Memory, ledger: Any, model: str | None,
                run: Callable[[StepKey, int], list[StepResult]], *,
                keep: bool = False) -> StepWorker[StepKey]:
    """The service's worker: `kind` is one of `WORKER_KINDS`. `run` files a job in this process
    (the thread worker's job, and the process worker's fallback). `process` where the service
    cannot have a child is a `UsageError` naming why."""
    if kind not in WORKER_KINDS:
        raise UsageError(f"step worker {kind!r}: use one of {', '.join(WORKER_KINDS)}")
    if kind != "thread":
        recipe = child_recipe(memory, ledger, model)
        if isinstance(recipe, ChildRecipe):
            try:
                return ProcessStepWorker(recipe, run, keep=keep)
            except (pickle.PicklingError, TypeError, AttributeError) as e:
                recipe = f"its settings cannot be sent to a child process ({e})"
        if kind == "process":
            raise UsageError(f"memory steps cannot run in a process of their own: {recipe}; "
                             "use the thread worker (--step-worker thread)")
        log.info("memory steps run on a thread of the server: %s", recipe)
    return StepWorker(run, keep=keep)


# --- the child ---------------------------------------------------------------------------------
#
# A child is `python -c` calling `child_main`, a fresh interpreter (fork and exec): no lock
# or thread of the server is copied into it, and, unlike multiprocessing's spawn and forkserver,
# it never imports the server's main module again (a script that calls `create_app` without an
# `if __name__ == "__main__"` guard would start a second server there). The two talk in pickles
# over the child's stdin and stdout; the child's own prints and logs go to stderr.


CHILD = f"from {__name__} import child_main; raise SystemExit(child_main())"
"""What a child runs (`python -c`)."""


def _send(f: Any, obj: Any) -> None:
    pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
    f.flush()


def child_main() -> int:
    """A step child: read the recipe, open the memory, say so, then file each job it is sent
    until told to stop (None) or its server is gone (stdin closes)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops it (see the module doc)
    # Not niced below the server: a step holds the database's write lock for its transaction,
    # and a child starved of CPU while holding it would stall every write of the server.
    jobs = sys.stdin.buffer
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not break the pipe
    try:
        recipe: ChildRecipe = pickle.load(jobs)
        embedder = get_embedder(recipe.embedder) if recipe.embedder else None
        memory = Memory(open_store(recipe.target), recipe.namespace, cadence=recipe.cadence,
                        extractor=recipe.extractor, embedder=embedder)
    except EOFError:
        return 0
    except Exception as e:  # noqa: BLE001 - told to the server, which says it and files itself
        _send(replies, ("failed", f"{type(e).__name__}: {e}"))
        return 1
    ledger: Ledger | None = None
    try:
        ledger = Ledger(recipe.ledger) if recipe.ledger else None
        _send(replies, ("ready", os.getpid()))
        while True:
            try:
                job = pickle.load(jobs)
            except EOFError:  # the server is gone
                return 0
            if job is None:
                return 0
            key, batch = job
            failed: str | None = None
            try:
                done = file_key(memory, key, batch, ledger=ledger, model=recipe.model)
            except Exception:  # noqa: BLE001 - a failed step must not end the child
                done, failed = [], traceback.format_exc()
            # Its memos live for one job: between jobs the child holds no text of the memory,
            # so a forget in the server (which empties the server's own) leaves none here.
            memory.caches.clear()
            _send(replies, ("ok", done) if failed is None else ("error", failed))
    finally:
        if ledger is not None:
            ledger.close()
        memory.close()


class ChildFailed(MemlaneError):
    """A step child could not start, or died."""


class ProcessStepWorker(StepWorker[StepKey]):
    """`StepWorker` whose jobs run in a child process (see the module docstring). `fallback`
    files a job in this process, after `MAX_FAILURES` child failures in a row."""

    def __init__(self, recipe: ChildRecipe, fallback: Callable[[StepKey, int], list[StepResult]],
                 *, batch: int = BATCH, keep: bool = True,
                 name: str = "memlane-step") -> None:
        super().__init__(self._run_job, batch=batch, keep=keep, name=name)
        self._recipe = pickle.dumps(recipe, protocol=pickle.HIGHEST_PROTOCOL)
        self._fallback = fallback
        self._child: subprocess.Popen[bytes] | None = None
        self._child_lock = threading.Lock()  # the worker's thread and close()
        self._failures = 0
        self._started = False
        self.in_process = False
        """True once children failed `MAX_FAILURES` times in a row: jobs are filed here."""
        self.restarts = 0
        """Children started after the first (a death or a failed start before each)."""
        self.child_jobs = 0
        """Jobs a child completed (its reply came back)."""
        self.fallback_jobs = 0
        """Jobs filed in this process instead."""

    @property
    def pid(self) -> int | None:
        """The running child's process id (None before the first job, after close)."""
        child = self._child
        return child.pid if child is not None else None

    def _run_job(self, key: StepKey, batch: int) -> list[StepResult]:
        while not self.in_process:
            try:
                child = self._child or self._start()
                assert child.stdin is not None and child.stdout is not None
                _send(child.stdin, (key, batch))
                kind, payload = pickle.load(child.stdout)
            except Exception as e:  # noqa: BLE001 - the pipe may be mid-message: a new child
                self._lost(key, e)
                continue
            self._failures = 0
            self.child_jobs += 1
            if kind == "ok":
                done: list[StepResult] = payload
                return done
            log.error("background memory step for %r failed in the step process:\n%s",
                      key, payload)
            return []
        self.fallback_jobs += 1
        return self._fallback(key, batch)

    def _start(self) -> subprocess.Popen[bytes]:
        with self._child_lock:
            if self._started:
                self.restarts += 1
            self._started = True
            # This memlane first on the child's path (the server may run from a source tree).
            env = dict(os.environ)
            here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (here, env.get("PYTHONPATH", "")) if p)
            child = subprocess.Popen(
                [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                env=env, close_fds=True,
                # Its own session: a Ctrl-C in the server's terminal does not reach it.
                start_new_session=os.name == "posix")
            assert child.stdin is not None and child.stdout is not None
            # Beside the server, not on the one CPU it may be pinned to (`server.cpu`).
            release(child.pid)
            try:
                child.stdin.write(self._recipe)
                child.stdin.flush()
                if not _readable(child.stdout, START_TIMEOUT):
                    raise ChildFailed(f"it did not open the store within {START_TIMEOUT:g} s")
                kind, detail = pickle.load(child.stdout)
                if kind != "ready":
                    raise ChildFailed(f"it could not open the store: {detail}")
            except (EOFError, OSError, pickle.UnpicklingError, ChildFailed) as e:
                _end(child)
                raise ChildFailed(str(e) or "it exited before it was ready") from None
            self._child = child
            return child

    def _lost(self, key: StepKey, e: BaseException) -> None:
        with self._child_lock:
            child, self._child = self._child, None
        code = _end(child) if child is not None else None
        self._failures += 1
        why = str(e) if isinstance(e, ChildFailed) else (
            f"exit code {code}" if code is not None else str(e) or type(e).__name__)
        if self._failures >= MAX_FAILURES:
            self.in_process = True
            log.error("the memory step process failed %d times in a row (%s); memory steps "
                      "are filed in the server process from now on", self._failures, why)
        else:
            log.error("the memory step process failed (%s) while filing %r; filing it in a "
                      "new one (a step is one transaction: nothing was half-written)", why, key)

    def close(self) -> list[StepResult]:
        """File what is queued, stop the worker's thread, then the child (it finishes the job
        it has; one that does not exit within `STOP_TIMEOUT` seconds is killed)."""
        out = super().close()
        with self._child_lock:
            child, self._child = self._child, None
        if child is not None:
            _end(child, stop=True)
        return out


def _readable(f: Any, timeout: float) -> bool:
    """Whether the pipe `f` has something to read (or is closed) within `timeout` seconds."""
    if os.name != "posix":  # select() takes sockets only there: wait on the read itself
        return True
    import select

    ready, _, _ = select.select([f], [], [], timeout)
    return bool(ready)


def _end(child: subprocess.Popen[bytes], stop: bool = False) -> int | None:
    """Stop a child (asked to, with `stop`; killed if it has not exited) and reap it."""
    if stop and child.stdin is not None:
        try:
            _send(child.stdin, None)
        except OSError:
            pass
        try:
            child.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            pass
    if child.poll() is None:
        child.kill()
    code = child.wait()
    for f in (child.stdin, child.stdout):
        if f is not None:
            try:
                f.close()
            except OSError:
                pass
    return code


__all__ = ["WORKER_KINDS", "ChildRecipe", "ProcessStepWorker", "StepKey", "child_recipe",
           "file_key", "remakeable", "step_worker"]
