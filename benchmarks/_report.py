"""What the benchmarks share: a line describing the machine, and replacing one section of
docs/PERFORMANCE.md (each benchmark owns one `## ...` section and leaves the others alone)."""

from __future__ import annotations

import os
import platform
import sqlite3
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "PERFORMANCE.md"


def machine(when: str = "during the run") -> str:
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
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}{load}")


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
