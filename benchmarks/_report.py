"""What the benchmarks share: a line describing the machine, and replacing one section of
docs/PERFORMANCE.md (each benchmark owns one `## ...` section and leaves the others alone)."""

from __future__ import annotations

import os
import platform
import sqlite3
import time
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "PERFORMANCE.md"


def yardstick(rounds: int = 15) -> float:
    """How fast this machine runs Python now: the p50 in ms of a fixed loop (200,000 additions
    and masks). On a virtual machine the host can run the same code 1.5x slower from one minute
    to the next (another tenant; neither the load average nor steal time shows it): absolute
    times from two runs compare only at close yardsticks (about 9-10 ms here when quiet). The
    loop lives in the CPU's first-level cache, so it shows a slower CPU, not contention for the
    shared caches and memory (a job on the other CPU): the peers' times in the same run show
    that too."""
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        s = 0
        for i in range(200_000):
            s += i & 7
        out.append((time.perf_counter() - t0) * 1000)
    return sorted(out)[len(out) // 2]


def machine(when: str = "during the run", speed: str | None = None) -> str:
    """The machine line of a benchmark's report; `speed`: what the yardstick said, when the
    benchmark took it itself (else it is taken now)."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load average {os.getloadavg()[0]:.1f} {when}"
    return (f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}{load}, "
            f"Python loop yardstick (`_report.yardstick`) "
            f"{speed if speed is not None else f'{yardstick():.1f} ms'}")


def pct(xs: list[float], p: float) -> float:
    """The p-th percentile (0-100) by nearest rank; nan for no samples."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def write_section(section: str, body: str, doc: Path = DOC) -> None:
    """Replace (or append) the `section` heading's section of `doc` with `body`."""
    text = doc.read_text() if doc.exists() else "# Performance\n"
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip() == section), None)
    if start is None:
        new = text.rstrip("\n") + "\n\n" + body.rstrip("\n") + "\n"
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        new = "\n".join(lines[:start] + body.rstrip("\n").splitlines() + [""] + lines[end:])
        new = new.rstrip("\n") + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(new)
