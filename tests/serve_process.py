"""`memlane serve` as a real process, for the tests that need one (signals, the step's child,
CPU placement): started on a free loopback port, waited for until `/healthz` answers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_serve(tmp_path: Path, *extra: str, env: dict[str, str] | None = None
                ) -> tuple[subprocess.Popen[str], str]:
    """`memlane --db tmp_path/m.db serve --no-mcp *extra`, its keys file in `tmp_path` (and
    `env` added to its environment); the running process and its URL once it answers (an
    `AssertionError` with its stderr if it exits or does not answer within 60 s)."""
    port = free_port()
    env = {**os.environ, "MEMLANE_KEYS": str(tmp_path / "keys.json"), **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlane", "--db", str(tmp_path / "m.db"), "serve", "--port",
         str(port), "--no-mcp", *extra], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"server did not start: {proc.communicate()[1]}") from None
            time.sleep(0.1)


def children(pid: int) -> set[int]:
    """The child processes of `pid` (every thread's), from /proc."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        out.update(int(x) for x in (task / "children").read_text().split())
    return out


def turns_until_a_step_child(url: str, pid: int, texts: list[str]) -> set[int]:
    """Each of `texts` as a proxied turn on thread `t` of the server at `url` (process `pid`,
    started with `--step-worker process`), then the step's child processes once one runs."""
    for text in texts:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]})
        req = urllib.request.Request(
            url + "/v1/chat/completions", data=body.encode(),
            headers={"Content-Type": "application/json", "X-Memlane-Thread": "t"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 200
    deadline = time.monotonic() + 60
    while not (kids := children(pid)):
        assert time.monotonic() < deadline, "no step process started"
        time.sleep(0.05)
    return kids
