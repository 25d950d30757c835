"""Keep-alive connections (`memlane.models.connections`), against a real HTTP/1.1 server on
loopback that counts the connections it accepts: what the transport's three callers send goes
over one connection while the server keeps it, and never over a dead or half-read one."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memlane.models import connections
from memlane.models.transport import HttpRefused, Transport
from memlane.server.upstream import HttpUpstream

OK = json.dumps({"ok": True}).encode()


class Server:
    """Counts accepted connections and requests; `close_after` makes it close each connection
    after that many answers without saying so (no `Connection: close`), as a server whose idle
    timeout fires would."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests: list[str] = []
        self.close_after: int | None = None
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # as real servers: no 40 ms delayed-ACK stalls
            served = 0

            def log_message(self, *args: object) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                with outer.lock:
                    outer.connections += 1

            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                outer.requests.append(self.path)
                if self.path.endswith("/stream"):
                    body = b"".join(f"data: {i}\n\n".encode() for i in range(2000))
                    ctype = "text/event-stream"
                elif self.path.endswith("/missing"):
                    body, ctype = json.dumps({"error": {"message": "no such"}}).encode(), \
                        "application/json"
                else:
                    body, ctype = OK, "application/json"
                self.send_response(404 if self.path.endswith("/missing") else 200)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.served += 1
                if outer.close_after is not None and self.served >= outer.close_after:
                    self.close_connection = True

            do_GET = do_POST = _answer  # noqa: N815 - http.server's naming

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def server() -> Iterator[Server]:
    connections.POOL.clear()
    s = Server()
    yield s
    connections.POOL.clear()
    s.httpd.shutdown()
    s.httpd.server_close()


def test_calls_in_a_row_share_one_connection(server):
    t = Transport("Test", 5, max_retries=0)
    for _ in range(5):
        assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}
    up = HttpUpstream(server.url, timeout=5)  # the proxy's upstream: the same pool
    up.post_json({"messages": []}, {})
    assert len(server.requests) == 6 and server.connections == 1


def test_an_error_answer_is_read_whole_and_its_connection_kept(server):
    t = Transport("Test", 5, max_retries=0)
    with pytest.raises(HttpRefused, match=r"HTTP 404\): no such"):
        t.post_json(server.url + "/missing", {}, {})
    assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}
    assert server.connections == 1


def test_a_connection_the_server_closed_is_never_used(server):
    server.close_after = 1  # closes after every answer, without a Connection: close header
    t = Transport("Test", 5, max_retries=0)  # no retries: a dead connection would fail the call
    for _ in range(4):
        assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}
        time.sleep(0.05)  # the server's close reaches the client's socket
    assert server.connections == 4 and len(server.requests) == 4


def test_the_close_race_is_retried_once_on_a_new_connection(server, monkeypatch):
    # The server closes the connection after its answer; the check before use is made to see
    # nothing (the race: the close arrives just after it). The request fails before a byte of
    # an answer on the reused connection and goes out again on a new one, once.
    server.close_after = 1
    monkeypatch.setattr(connections, "_dropped", lambda conn: False)
    t = Transport("Test", 5, max_retries=0)
    assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}
    time.sleep(0.05)
    assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}
    assert server.requests == ["/v1/x", "/v1/x"] and server.connections == 2


def test_a_stream_left_half_read_closes_its_connection(server):
    t = Transport("Test", 5, max_retries=0)
    with t.open_stream(server.url + "/stream", {}, {}) as response:
        assert response.readline() == b"data: 0\n"  # the client walks away here
    assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}
    assert server.connections == 2  # the half-read one was not reused
    with t.open_stream(server.url + "/stream", {}, {}) as response:
        assert sum(1 for line in response if line.startswith(b"data:")) == 2000
    assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}
    assert server.connections == 2  # read to the end: reused


def test_a_connection_idle_too_long_is_not_used(server, monkeypatch):
    t = Transport("Test", 5, max_retries=0)
    t.post_json(server.url + "/x", {}, {})
    monkeypatch.setattr(connections, "IDLE_SECONDS", 0.0)
    t.post_json(server.url + "/x", {}, {})
    assert server.connections == 2


def test_an_environment_proxy_is_still_honoured(server, monkeypatch):
    # The test server stands in for the proxy: a request through a proxy names the whole URL.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    target = f"http://127.0.0.2:{port}/v1/x"
    monkeypatch.delenv("http_proxy", raising=False)
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    t = Transport("Test", 5, max_retries=0)
    assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}  # 127.0.0.1: no proxy
    monkeypatch.setenv("http_proxy", server.url.removesuffix("/v1"))
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    # The proxies were read (and kept) before: a change of the environment is still seen.
    assert t.post_json(target, {}, {}) == {"ok": True}
    assert server.requests == ["/v1/x", target]
    monkeypatch.delenv("http_proxy")
    assert connections._direct("http", "127.0.0.2")  # and its removal too


def test_concurrent_callers_each_get_their_own_connection(server):
    t = Transport("Test", 5, max_retries=0)
    errors: list[BaseException] = []

    def call() -> None:
        try:
            for _ in range(10):
                assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    workers = [threading.Thread(target=call) for _ in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors and len(server.requests) == 60
    assert server.connections <= 6 + connections.MAX_IDLE


def test_a_forked_child_does_not_use_the_parents_connections(server):
    import os

    t = Transport("Test", 5, max_retries=0)
    t.post_json(server.url + "/x", {}, {})
    assert server.connections == 1
    pid = os.fork()
    if pid == 0:  # the child: its own connection, the parent's left alone
        ok = False
        try:
            ok = t.post_json(server.url + "/x", {}, {}) == {"ok": True}
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert t.post_json(server.url + "/x", {}, {}) == {"ok": True}  # the parent's still works
    assert server.connections == 2
