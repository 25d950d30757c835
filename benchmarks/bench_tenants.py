"""One tenant cannot stall another: the worst latency of one namespace's proxied turns while
another namespace sends hostile messages (a 60,000-character unbroken base64 token, then a
1,000,000-character message) through `memlane serve`'s proxy, and how long the server takes to
stop on SIGTERM while the memory step of such a message runs.

Three processes: `memlane serve` (API keys on, the default step worker, the offline heuristic
step), the scripted upstream from `memlane.testing` and this one, where tenant `b` asks a small
question every 50 ms on a thread of its own while tenant `a` sends each hostile message on a
fresh thread and waits until its memory step is filed.

    python benchmarks/bench_tenants.py                        # this checkout's src/
    python benchmarks/bench_tenants.py --src /other/src       # another checkout (before/after)
    python benchmarks/bench_tenants.py --sizes 60000 --step-worker process
    python benchmarks/bench_tenants.py --shapes base64,newlines,brackets,spaces,hashes,images
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from memlane.server.auth import KeyRing  # noqa: E402
from memlane.testing import FakeUpstream, Reply  # noqa: E402

SHAPES = {"base64": "", "newlines": "\n", "brackets": "(", "spaces": " ", "hashes": "#",
          "images": "!["}
"""Hostile messages: an unbroken base64 token, or one character (or two) repeated."""


def blob(n: int, shape: str = "base64") -> str:
    """A hostile message of `n` characters (`SHAPES`), with a letter at each end."""
    unit = SHAPES[shape]
    body = base64.b64encode(os.urandom(n)).decode() if not unit else unit * (n // len(unit))
    return f"x{body[:n - 2]}y"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(db_dir: Path, src: Path, upstream: str, *extra: str
          ) -> tuple[subprocess.Popen[str], str]:
    """`memlane serve` from `src` on a free port, once `/healthz` answers."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(src), "MEMLANE_KEYS": str(db_dir / "keys.json")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlane", "--db", str(db_dir / "m.db"), "serve", "--port",
         str(port), "--no-mcp", "--upstream", upstream, *extra],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise SystemExit(f"server did not start: {proc.communicate()[1]}") from None
            time.sleep(0.1)


def turn(url: str, key: str, thread: str, text: str, timeout: float = 600) -> float:
    """One proxied turn; its latency in seconds."""
    body = json.dumps({"model": "m", "user": thread,
                       "messages": [{"role": "user", "content": text}]}).encode()
    req = urllib.request.Request(url + "/v1/chat/completions", data=body, headers={
        "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(req, timeout=timeout) as r:
        r.read()
    return time.perf_counter() - started


def filed(url: str, key: str, thread: str) -> bool:
    req = urllib.request.Request(f"{url}/v1/memlane/threads/{thread}?start=1000000&limit=1",
                                 headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return int(json.load(r)["thread"]["filed_to"]) > 0


class Probe:
    """Tenant `b`: a small proxied turn every `every` seconds, each latency kept."""

    def __init__(self, url: str, key: str, every: float = 0.05) -> None:
        self.url, self.key, self.every = url, key, every
        self.latencies: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            i += 1
            try:
                self.latencies.append(turn(self.url, self.key, "b-thread", f"Hello {i}",
                                           timeout=600))
            except (OSError, urllib.error.HTTPError):
                self.latencies.append(float("inf"))
            self._stop.wait(self.every)

    def __enter__(self) -> Probe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=700)


def hostile(url: str, key_a: str, key_b: str, size: int, shape: str = "base64",
            settle: float = 1.0) -> dict[str, Any]:
    """Tenant `b`'s worst latency while tenant `a` sends a `size`-character message of `shape`
    (and three short turns, so a step is due) until its memory step is filed, and `settle`
    seconds more."""
    with Probe(url, key_b) as probe:
        time.sleep(0.5)
        thread = f"a-{shape}-{size}"
        try:
            own = turn(url, key_a, thread, blob(size, shape))
        except urllib.error.HTTPError as e:  # 413: over 1 MiB as JSON ("\n" is two bytes)
            return {"size": size, "shape": shape, "refused": e.code}
        for i in range(3):  # 4 user turns: a step is due, whatever the message's tokens
            turn(url, key_a, thread, f"And one more thing, number {i}.")
        started = time.monotonic()
        while not filed(url, key_a, thread) and time.monotonic() - started < 600:
            time.sleep(0.05)
        step = time.monotonic() - started
        time.sleep(settle)
    lat = sorted(probe.latencies)
    return {"size": size, "shape": shape, "a_turn_s": round(own, 3),
            "a_step_filed_s": round(step, 3), "b_turns": len(lat),
            "b_median_s": round(lat[len(lat) // 2], 3), "b_worst_s": round(lat[-1], 3)}


def sigterm_during_step(url: str, proc: subprocess.Popen[str], key_a: str, size: int
                        ) -> float:
    """Seconds from SIGTERM to exit, sent right after a `size`-character turn is answered
    (its memory step running or queued)."""
    turn(url, key_a, f"term-{size}", blob(size))
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
    return time.monotonic() - started


def run(src: Path, sizes: list[int], extra: list[str], shapes: tuple[str, ...] = ("base64",)
        ) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp, \
            FakeUpstream(lambda body: Reply(content="ok")) as up:
        d = Path(tmp)
        ring = KeyRing.load(d / "keys.json")
        key_a, key_b = ring.add("tenant-a"), ring.add("tenant-b")
        proc, url = start(d, src, up.url, *extra)
        try:
            for shape in shapes:
                for size in sizes:
                    rows.append(hostile(url, key_a, key_b, size, shape))
                    print(json.dumps(rows[-1]), flush=True)
            stop = sigterm_during_step(url, proc, key_a, max(sizes))
            rows.append({"sigterm_to_exit_s": round(stop, 2), "size": max(sizes)})
            print(json.dumps(rows[-1]), flush=True)
        finally:
            if proc.poll() is None:
                proc.kill()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, default=HERE.parent / "src",
                    help="the memlane source the server runs (default this checkout's)")
    ap.add_argument("--sizes", default="60000,1000000",
                    help="hostile message sizes in characters, comma-separated")
    ap.add_argument("--shapes", default="base64",
                    help=f"hostile shapes, comma-separated, of: {', '.join(SHAPES)}")
    ap.add_argument("--step-worker", default=None, choices=("thread", "process", "auto"))
    args = ap.parse_args()
    extra = ["--step-worker", args.step_worker] if args.step_worker else []
    run(args.src, [int(s) for s in args.sizes.split(",")], extra,
        tuple(args.shapes.split(",")))


if __name__ == "__main__":
    main()
