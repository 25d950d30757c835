"""The memory step after a turn, as the framework adapters run it: in the background, off the
run's path (as memlane's own agent loop does), one filing per thread at a time.

A turn that ends while its thread is being filed asks for another pass, so what became due
meanwhile is filed then, not a turn later. A failed step is logged, never raised into the
framework's run: the conversation is recorded either way, and the next pass files it again. A
thread whose filing cannot go on (`StepStalled`) is logged as a warning and kept in `problems`,
in the background and in the foreground alike.
"""

from __future__ import annotations

import asyncio
import logging

from ..aio import AsyncThread
from ..errors import MemlaneError, StepStalled
from ..types import StepResult

log = logging.getLogger("memlane.integrations")


class Filer:
    """Runs `maybe_step` for threads after their turns."""

    def __init__(self, background: bool = True) -> None:
        self.background = background
        self.steps: list[StepResult] = []
        """Memory steps applied, oldest first."""
        self.problems: list[str] = []
        """Why a step that was due could not run (`StepStalled`), oldest first."""
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()

    async def turn_ended(self, thread: AsyncThread) -> None:
        """File what is due on `thread`: now (not background), or in a task of its own."""
        if not self.background:
            await self._pass(thread)
            return
        task = self._tasks.get(thread.id)
        if task is not None and not task.done():
            self._again.add(thread.id)
            return
        self._tasks[thread.id] = asyncio.ensure_future(self._run(thread))

    async def _pass(self, thread: AsyncThread) -> None:
        # Called when a framework's run has ended: the turn it recorded is whole.
        try:
            self.steps.extend(await thread.maybe_step(turn_done=True))
        except StepStalled as e:  # logged as a warning where it was raised
            self.steps.extend(e.results)
            self.problems.append(str(e))
            del self.problems[:-16]  # the latest few: the same thread stalls every turn

    async def _run(self, thread: AsyncThread) -> None:
        try:
            while True:
                self._again.discard(thread.id)
                try:
                    await self._pass(thread)
                except MemlaneError:
                    log.exception("memory step for thread %r failed", thread.id)
                    return
                if thread.id not in self._again:
                    return
        finally:
            self._tasks.pop(thread.id, None)

    async def wait(self) -> None:
        """Wait for the background filings in flight."""
        while self._tasks:
            await asyncio.gather(*(asyncio.shield(t) for t in list(self._tasks.values())))
