"""Which CPU `memlane serve` runs on (`memlane serve --cpu`): one, by default.

The server's Python runs on several threads (the event loop, the request threads, the memory
step's worker, a streamed answer's producer) that take turns holding one GIL: only one of them
runs Python at any moment, whatever the machine has. Spread over cores, every hand-over of the
GIL (at each SQLite call, each hop between the event loop and a request thread, each chunk of a
streamed answer) wakes a thread on another core, which then runs with a cold cache; in a
virtual machine the wake-up itself is an interrupt between virtual CPUs. On one core the same
hand-over is a switch between threads that share a cache: a proxied turn costs the server
less CPU and more turns a second are answered (docs/PERFORMANCE.md has the measurement).

`auto` (the default) pins every thread of the process, and the threads they start later, to
one allowed CPU: the one the fewest other processes are pinned to (other servers), then the
least busy over a short look at `/proc/stat` (the kernel then moves other, unpinned work off
it as it balances). A process that may use one CPU only, or a system
without per-thread affinity (macOS, Windows), is left as it is. `off` leaves placement to the
operating system, as before: for a machine running several `memlane serve` processes (give each
its own `--cpu N`), or an embedder whose native code computes on several cores.

A child process the server starts (the memory step's, `--step-worker process`) gets back the
CPUs the server had before it was pinned (`release`): it runs beside the server, not on its
core.
"""

from __future__ import annotations

import os
import time

from ..errors import UsageError

LOOK_SECONDS = 0.1
"""How long `auto` watches the CPUs' busy time before choosing one."""

_before: frozenset[int] | None = None
"""The CPUs this process was allowed before `pin` (None: not pinned)."""


def supported() -> bool:
    """Whether this system sets CPU affinity per thread (Linux)."""
    return hasattr(os, "sched_setaffinity") and os.path.isdir("/proc/self/task")


def allowed() -> frozenset[int]:
    """The CPUs this process may run on now."""
    return frozenset(os.sched_getaffinity(0)) if supported() else frozenset()


def _busy() -> dict[int, int]:
    """Each CPU's busy time so far (clock ticks: all but idle and iowait), from /proc/stat."""
    out: dict[int, int] = {}
    try:
        with open("/proc/stat", encoding="ascii") as f:
            for line in f:
                name, *fields = line.split()
                if name.startswith("cpu") and name[3:].isdigit():
                    ticks = [int(x) for x in fields]
                    out[int(name[3:])] = sum(ticks) - ticks[3] - (ticks[4] if len(ticks) > 4
                                                                  else 0)
    except (OSError, ValueError):
        return {}
    return out


def claimed() -> dict[int, int]:
    """How many other processes are pinned to each CPU (their affinity one CPU): other servers
    started with `--cpu auto` or `N`, or anything run under `taskset -c N`."""
    out: dict[int, int] = {}
    me = os.getpid()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return out
    for pid in pids:
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as raw:
                if not raw.read(1):
                    continue  # a kernel thread (each CPU has its own): not a claim
            cpus = os.sched_getaffinity(pid)
        except OSError:  # gone, or not ours to read
            continue
        if len(cpus) == 1:
            (c,) = cpus
            out[c] = out.get(c, 0) + 1
    return out


def least_busy(cpus: frozenset[int], look: float = LOOK_SECONDS) -> int:
    """The CPU of `cpus` that the fewest other processes are pinned to (`claimed`), then the
    least busy over the next `look` seconds; among equals, one that depends on this process's
    id, so servers started together on an idle machine spread over the CPUs rather than all
    taking the first."""
    first = _busy()
    time.sleep(look)
    second = _busy()
    taken = claimed()
    order = sorted(cpus)
    start = os.getpid() % len(order)
    best = min(range(len(order)), key=lambda i: (
        taken.get(order[i], 0), second.get(order[i], 0) - first.get(order[i], 0),
        (i - start) % len(order)))
    return order[best]


def parse(spec: str) -> int | None:
    """`--cpu`'s value: a CPU number, or None for `auto` / `off` (checked by `pin`)."""
    if spec in ("auto", "off"):
        return None
    if spec.isascii() and spec.isdigit():
        return int(spec)
    raise UsageError(f"--cpu {spec!r} (or $MEMLANE_CPU): give auto, off or a CPU number "
                     "(e.g. --cpu 1)")


def pin(spec: str) -> int | None:
    """Pin this process's threads to one CPU as `spec` says (`auto`, `off` or a number); the
    CPU chosen, or None when nothing was pinned. A number outside the CPUs this process may
    use is a `UsageError` naming them."""
    global _before
    number = parse(spec)
    if spec == "off":
        return None
    if not supported():
        if number is not None:
            raise UsageError(f"--cpu {number}: this system does not pin threads to CPUs "
                             "(Linux only); leave --cpu at auto or off")
        return None
    cpus = allowed()
    if number is not None and number not in cpus:
        raise UsageError(f"--cpu {number}: this process may run on CPUs {_ranges(cpus)} only")
    if number is None and len(cpus) < 2:
        return None  # one CPU already: nothing to choose
    cpu = number if number is not None else least_busy(cpus)
    _set(os.getpid(), frozenset({cpu}))
    if _before is None:
        _before = cpus
    return cpu


def release(pid: int) -> None:
    """Give process `pid` (a child the server started, pinned with it) back the CPUs the server
    had before it was pinned; nothing when it was not."""
    if _before is not None and supported():
        _set(pid, _before)


def _set(pid: int, cpus: frozenset[int]) -> None:
    """Every thread of process `pid` on `cpus`: `sched_setaffinity` sets one thread's only, and
    the threads they start later inherit it."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:  # the process is gone
        return
    for tid in tids:
        try:
            os.sched_setaffinity(tid, cpus)
        except OSError:  # a thread that has just ended
            continue


def _ranges(cpus: frozenset[int]) -> str:
    """`0-3,6` for {0, 1, 2, 3, 6}."""
    out: list[str] = []
    for c in sorted(cpus):
        if out and out[-1].split("-")[-1] == str(c - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{c}"
        else:
            out.append(str(c))
    return ",".join(out)


__all__ = ["LOOK_SECONDS", "allowed", "claimed", "least_busy", "parse", "pin", "release",
           "supported"]
