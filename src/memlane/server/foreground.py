"""Requests before memory steps: the service's background steps wait for a moment without a
request in flight (`Foreground`).

Why: a memory step on the server's worker thread shares the GIL and, on SQLite, the store's
connection with the request threads. A turn that arrived while a step ran waited for the GIL at
every hand-over (each SQLite call gives it up; getting it back from a thread that is running
Python takes up to the switch interval) and for the step's hold on the store. Traced over HTTP
with one client (`benchmarks/trace_proxy.py`), the slowest 1% of proxied turns were those that
overlapped a step, several times the median.

So the service counts the requests whose work is running (`busy`: a proxied turn from its
arrival to its answer, less the time it waits on the upstream; a REST operation), and a
background job (`background`) waits for that count to reach zero before it starts and before
each time it takes the SQLite store's lock (`pause`, called by the store: the step's Python
between two of its reads is short, its hold on the store is not). A request that arrives while
a step runs still waits for what the step is doing then, not for the rest of it.

A job never waits for more than `patience` seconds in all (then it runs to its end as before),
and the service lets it wait only while the worker keeps up (fewer than `KEEPS_UP` jobs queued
behind it, `Service._step`): under continuous load the steps file as they did, and the memory
does not fall behind. Its writes, and what they contain, are the same; only when they happen
moves. Waiting never holds the store's lock (the store calls
`pause` only when the thread holds no lock of the store), so no request can wait on a waiting
step.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

PATIENCE = 0.05
"""Seconds one background job may wait for gaps between requests, in all."""

_COUNTED: contextvars.ContextVar[Foreground | None] = contextvars.ContextVar(
    "memlane_foreground", default=None)
"""The `Foreground` that counts the request running in this context (a pool thread runs in a
copy of its request's context, so a turn counted at its arrival is not counted twice)."""


class Foreground:
    """How many requests are doing work now, and the wait of background jobs for none."""

    def __init__(self, patience: float = PATIENCE) -> None:
        self.patience = patience
        self._n = 0
        self._idle = threading.Condition(threading.Lock())
        self._job = threading.local()
        self.waited = 0.0
        """Seconds background jobs have waited for requests, in all (tests, benchmarks)."""

    @property
    def running(self) -> int:
        """Requests doing work now."""
        return self._n

    def _enter(self) -> None:
        with self._idle:
            self._n += 1

    def _leave(self) -> None:
        with self._idle:
            self._n -= 1
            if not self._n:
                self._idle.notify_all()

    @contextmanager
    def busy(self) -> Iterator[None]:
        """A request's work: counted once per request, however many of its layers say so."""
        if _COUNTED.get() is self:
            yield
            return
        token = _COUNTED.set(self)
        self._enter()
        try:
            yield
        finally:
            self._leave()
            _COUNTED.reset(token)

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """Inside `busy`: the request waits on something else (the upstream model) and is not
        counted meanwhile, so background jobs may run."""
        if _COUNTED.get() is not self:
            yield
            return
        self._leave()
        try:
            yield
        finally:
            self._enter()

    @contextmanager
    def background(self, patient: Callable[[], bool] = lambda: True) -> Iterator[None]:
        """One background job on this thread: it waits for no request in flight now and at each
        `pause`, at most `patience` seconds in all, and only while `patient()` (asked again
        when `nudge` is called)."""
        self._job.left = self.patience
        self._job.patient = patient
        try:
            self.pause()
            yield
        finally:
            self._job.left = 0.0

    def nudge(self) -> None:
        """A waiting job asks its `patient()` again."""
        with self._idle:
            self._idle.notify_all()

    def pause(self) -> None:
        """In a background job: wait until no request is doing work, within what is left of
        the job's patience. Elsewhere (a request's thread), return at once."""
        if not self._n:
            return
        left = getattr(self._job, "left", 0.0)
        if left <= 0:
            return
        patient = self._job.patient
        t = time.monotonic()
        with self._idle:
            self._idle.wait_for(lambda: not self._n or not patient(), left)
        took = time.monotonic() - t
        self._job.left = left - took
        self.waited += took


__all__ = ["PATIENCE", "Foreground"]
