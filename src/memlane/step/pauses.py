"""Pause points of a memory step: where a step filed in the background may stop for a while,
so the requests of the process that runs it go first (`memlane.server.foreground`).

A step's Python shares the GIL with the request threads of its process. The service lets a
step wait for a gap between requests before it starts and before each take of the store's
lock; between two takes, its Python (the heuristic extractor reading the stretch and the
related records, the scans before the transaction) ran on to the next take, and a request
that arrived meanwhile waited for it at every hand-over of the GIL. `pause_point()` is one
more place to wait: the step calls it between its parts, where it holds no lock of the store
(never inside `apply_step`'s transaction), and it calls the hook its thread was given
(`pausing`), or nothing: outside a background job it costs one attribute read.

The hook decides whether to wait and how long (`Foreground.between_parts`: while one request
works, briefly, within the job's patience). Pausing changes when a step's work happens, never
what it files.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_local = threading.local()


def pause_point() -> None:
    """Give way here if this thread's background job says so (`pausing`); else nothing. Call
    only where the thread holds no lock a request could wait for."""
    hook = getattr(_local, "hook", None)
    if hook is not None:
        hook()


@contextmanager
def pausing(hook: Callable[[], None]) -> Iterator[None]:
    """On this thread, inside the block: `pause_point()` calls `hook`."""
    previous = getattr(_local, "hook", None)
    _local.hook = hook
    try:
        yield
    finally:
        _local.hook = previous


__all__ = ["pause_point", "pausing"]
