"""Errors. One root, small specific subclasses; every message says what to fix.

    MemlaneError
    ├── UsageError            the caller asked for something invalid (bad argument, unknown id)
    │   ├── NotFound          an id, thread or record that does not exist (in this namespace)
    │   └── BudgetTooSmall    the fixed parts of the context alone exceed the budget
    ├── StepError             a memory step's output is malformed; nothing was applied
    ├── StepConflict          the stretch is filed already (or overlaps one that is); nothing
    │   │                     was applied
    │   └── StepStalled       a due stretch was refused twice with nothing filed between:
    │                         filing of the thread cannot go on
    ├── StoreError            the store cannot be opened or migrated
    └── ModelError            a model endpoint failed (after retries) or answered nonsense
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class MemlaneError(Exception):
    """Root of every error memlane raises on purpose."""


class UsageError(MemlaneError):
    """The caller's mistake: the message names the argument and the fix."""


class NotFound(UsageError):
    """An id, thread or record that does not exist in this namespace."""


class BudgetTooSmall(UsageError):
    """The system prompt and new message alone do not fit the token budget."""


class StepError(MemlaneError):
    """A memory step's output failed validation. The store was left unchanged.

    `problems` lists each problem as `path: what is wrong`.
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems = list(problems or [])
        detail = "".join(f"\n  - {p}" for p in self.problems)
        super().__init__(message + detail)


class StepConflict(MemlaneError):
    """The stretch overlaps one already filed, or nothing is left to file; nothing was applied.

    Two workers that read the same unfiled messages both write a step; the second to apply it
    gets this (the first one filed the turns). Not a `StepError`: the output may be fine, and
    filing it again with the offline heuristic would conflict the same way.
    """


class StepStalled(StepConflict):
    """A stretch is due but cannot be filed: read again after a conflict, the same unfiled
    messages were refused again, so no other worker is filing them and filing of the thread
    would stop here for good. Raised instead of returning nothing; nothing of that stretch was
    applied and no message is lost. `results`: the steps (`StepResult`s) the same call filed
    before it (they stand); `start`/`end`: the stretch."""

    def __init__(self, message: str, *, thread_id: str, start: int, end: int,
                 results: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.thread_id = thread_id
        self.start = start
        self.end = end
        self.results = list(results)


class StoreError(MemlaneError):
    """The store cannot be opened, migrated or written."""


class ModelError(MemlaneError):
    """A model call failed after retries, or its answer could not be used."""


class UpstreamTimeout(ModelError):
    """The model (the proxy's upstream) did not answer in time: HTTP 504, not 502."""


class MissingKey(UsageError):
    """A hosted model has no API key (`env` names the variable to set). Raised when the model is
    made, so nothing (not even the user's first message) is recorded for a call that cannot
    go ahead."""

    def __init__(self, spec: str, env: str) -> None:
        super().__init__(f"{spec} needs an API key: set {env} (e.g. `export {env}=...`) or pass "
                         "api_key=")
        self.env = env


class MissingExtra(UsageError):
    """An optional part needs a package that is not installed."""

    def __init__(self, what: str, extra: str, package: str) -> None:
        super().__init__(f"{what} needs the '{package}' package: {install_hint(extra)}")


def install_hint(extra: str) -> str:
    """The pip command that adds `extra` to this memlane, from where it was installed (pip's
    record of it, PEP 610's direct_url.json): a clone, `pip install -e '/path/to/memlane[extra]'`;
    a git URL, `pip install 'memlane[extra] @ git+URL'`. memlane is not on PyPI, so the bare
    `pip install 'memlane[extra]'` is only the fallback, when pip left no such record."""
    import json
    from importlib.metadata import PackageNotFoundError, distribution
    from urllib.parse import unquote, urlsplit

    try:
        origin = json.loads(distribution("memlane").read_text("direct_url.json") or "{}")
        url = urlsplit(origin["url"])
    except (PackageNotFoundError, ValueError, KeyError, TypeError):
        return f"pip install 'memlane[{extra}]'"
    vcs = origin.get("vcs_info", {}).get("vcs")
    if vcs:  # the host only: never a token pip may have kept in the URL
        where = url._replace(netloc=url.netloc.rsplit("@", 1)[-1]).geturl()
        return f"pip install 'memlane[{extra}] @ {vcs}+{where}'"
    if url.scheme == "file":
        editable = "-e " if origin.get("dir_info", {}).get("editable") else ""
        return f"pip install {editable}'{unquote(url.path)}[{extra}]'"
    return f"pip install 'memlane[{extra}]'"
