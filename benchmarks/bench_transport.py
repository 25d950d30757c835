"""What a model call costs in the transport itself: `HttpUpstream.post_json` (the proxy's upstream
call; the model adapters and the embedder send through the same `Transport`) against an instant
OpenAI-compatible server on loopback, over HTTP and over HTTPS, with two source trees side by
side (e.g. before and after keep-alive connections).

Three kinds of process, so that nothing measured shares a GIL with the server:
- the server (this file with `--serve`): HTTP/1.1, Nagle off as real servers have it, one canned
  chat completion; over TLS with a self-signed certificate made here by `openssl`;
- one client process per tree and round (this file with `--client`), `PYTHONPATH=<tree>`, the
  certificate trusted through `SSL_CERT_FILE`: `--calls` calls in a row after 5 warm-up calls,
  timing each (wall clock) and the process's CPU over all of them.

Loopback has no round trip to speak of: what this shows is the CPU and the local handshakes a
call saves; to a real provider each new connection also waits one (TCP) or two (TCP + TLS 1.3)
network round trips.

    python benchmarks/bench_transport.py --before /tmp/base/src --after src --calls 300 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ANSWER = json.dumps({
    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok, noted."},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)


def serve(cert: str | None) -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    if cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, cert.replace("cert.pem", "key.pem"))
        httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()


def client(url: str, calls: int) -> None:
    from memlane.server.upstream import HttpUpstream

    up = HttpUpstream(url, timeout=10)
    body = {"model": "m", "messages": [{"role": "user", "content": "hello there"}]}
    for _ in range(5):
        up.post_json(body, {"authorization": "Bearer k"})
    walls = []
    cpu = time.process_time()
    for _ in range(calls):
        t = time.perf_counter()
        up.post_json(body, {"authorization": "Bearer k"})
        walls.append(time.perf_counter() - t)
    cpu = time.process_time() - cpu
    walls.sort()
    p50, p99 = walls[len(walls) // 2], walls[int(len(walls) * .99)]
    print(json.dumps({"p50": p50 * 1e3, "p99": p99 * 1e3, "cpu": cpu / calls * 1e3}))


def certificate(folder: str) -> str:
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="source tree (its src/) measured first")
    ap.add_argument("--after", required=True, help="source tree measured second")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cert", help=argparse.SUPPRESS)
    ap.add_argument("--client", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.cert)
        return 0
    if args.client:
        client(args.client, args.calls)
        return 0
    me = str(Path(__file__).resolve())
    rows: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cert = certificate(tmp)
        for scheme in ("http", "https"):
            cmd = [sys.executable, me, "--before", "-", "--after", "-", "--serve"]
            if scheme == "https":
                cmd += ["--cert", cert]
            srv = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
            try:
                assert srv.stdout is not None
                url = f"{scheme}://127.0.0.1:{srv.stdout.readline().strip()}/v1"
                for _ in range(args.rounds):
                    for name, tree in (("before", args.before), ("after", args.after)):
                        env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve()),
                               "SSL_CERT_FILE": cert}
                        out = subprocess.run(
                            [sys.executable, me, "--before", "-", "--after", "-", "--client",
                             url, "--calls", str(args.calls)],
                            env=env, capture_output=True, text=True, check=True)
                        rows.setdefault((scheme, name), []).append(json.loads(out.stdout))
            finally:
                srv.terminate()
                srv.wait()
    print(f"{args.calls} calls per round, {args.rounds} rounds, load {os.getloadavg()[0]:.1f}")
    print("| scheme | tree | p50 ms (each round) | p99 ms | client CPU ms / call |")
    print("|---|---|---|---|---|")
    for (scheme, name), rs in rows.items():
        def fmt(k: str, rs: list[dict[str, float]] = rs) -> str:
            return " / ".join(f"{r[k]:.2f}" for r in rs)
        print(f"| {scheme} | {name} | {fmt('p50')} | {fmt('p99')} | {fmt('cpu')} "
              f"(median {statistics.median(r['cpu'] for r in rs):.2f}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
