"""Progress on long work: the one display every slow command uses (`ingest`, `import`,
`reindex`, `eval`, the chat's filing on exit and its model loading).

On a terminal it is one line on stderr, redrawn in place: a bar when the total is known, a
count and the seconds elapsed when it is not. When stderr is not a terminal (a pipe, a log, a
test) or the command was given `--no-progress`, it writes nothing at all: what a script reads
is the command's own summary line, printed either way. Redraws are at most ten a second, so a
bar costs nothing next to the work it reports.

`live=True` redraws on a timer thread, for waits that report nothing while they run (a model
loading, a memory step on the background worker): the seconds keep moving.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

WIDTH = 30
"""Characters of the bar."""
FRAMES = "|/-\\"
"""A spinner's frames, while nothing is counted yet."""


class Progress:
    """A progress line on stderr for `total` units of work (None: not known in advance).

    Use `step(note)` after each unit, or pass the object itself as a `progress(done, total)`
    callback (`memlane.ingest`, `Memory.restore`, `Memory.reindex`); `close()` (or leaving the
    `with` block) ends the line."""

    def __init__(self, total: int | None, label: str, stream: TextIO | None = None,
                 enabled: bool = True, live: bool = False) -> None:
        self.total = total
        self.done = 0
        self.label = label
        self.note = ""
        self.stream = stream or sys.stderr
        self.shown = enabled and bool(getattr(self.stream, "isatty", lambda: False)())
        """Whether anything is drawn: enabled, on a terminal."""
        self.start = time.monotonic()
        self._last = 0.0
        self._drawn = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if self.shown and live:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def step(self, note: str = "", n: int = 1) -> None:
        """`n` more units done; `note` says which (shown after the bar)."""
        self.done += n
        if note:
            self.note = note
        self._draw()

    def __call__(self, done: int, total: int | None = None) -> None:
        """The callback form: `done` of `total` (None keeps the total as it was)."""
        self.done = done
        if total is not None:
            self.total = total
        self._draw()

    def update(self, what: str, fraction: float = 0.0) -> None:
        """A note without a count (a loading model's `on_progress(what, fraction)`)."""
        del fraction
        self.note = what
        self._draw()

    def _tick(self) -> None:
        while not self._stop.wait(0.2):
            self._draw(force=True)

    def _draw(self, force: bool = False) -> None:
        if not self.shown:
            return
        now = time.monotonic()
        finished = self.total is not None and self.done >= self.total
        if not force and not finished and now - self._last < 0.1:
            return
        with self._lock:
            self._last = now
            took = f"{now - self.start:.0f}s"
            if self.total:
                frac = min(1.0, self.done / self.total)
                text = (f"{self.label} [{'#' * int(WIDTH * frac):<{WIDTH}}] {100 * frac:3.0f}% "
                        f"{self.done}/{self.total} {took}")
            elif self.done:
                text = f"{self.label}: {self.done} done, {took}"
            else:
                text = f"{self.label} {FRAMES[int(now * 5) % 4]} {took}"
            if self.note:
                text += f" {self.note}"
            self.stream.write("\r" + text[:119] + "\x1b[K")
            self.stream.flush()
            self._drawn = True

    def close(self) -> None:
        """Stop redrawing and end the line (the summary goes on a line of its own)."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        if self._drawn:
            with self._lock:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Progress"]
