"""The service has no side doors: the /v1 passthrough forwards only plain paths under /v1/ and
the methods the OpenAI API uses; the dev-mode Host check reads the whole Host; a header that
decides who you are is sent once; keys (thread ids, kinds) are checked once for every surface;
slow and idle connections are closed. Real sockets throughout (a real server on loopback, a
real upstream), since the point is what goes over the wire."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

pytest.importorskip("starlette")

from memlane.errors import UsageError  # noqa: E402
from memlane.memory import Memory  # noqa: E402
from memlane.server import conn  # noqa: E402
from memlane.server.app import ServerConfig, create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.testing import FakeUpstream, Reply, serve_in_thread  # noqa: E402
from memlane.tools.handlers import MemoryTools  # noqa: E402


def raw(url: str, request: bytes, timeout: float = 5.0) -> tuple[int, bytes]:
    """Send `request` as written (no client normalises it) and read the status and body."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                head, _, body = data.partition(b"\r\n\r\n")
                length = [int(x.split(b":")[1]) for x in head.split(b"\r\n")
                          if x.lower().startswith(b"content-length:")]
                if length and len(body) >= length[0]:
                    break
    status = int(data.split(b" ", 2)[1])
    return status, data.partition(b"\r\n\r\n")[2]


def get(path: str, *headers: str, method: str = "GET") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Connection: close", *headers]
    if not any(h.lower().startswith("host:") for h in headers):
        lines.append("Host: 127.0.0.1")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


@pytest.fixture(params=conn.PARSERS)
def keyed(tmp_path, request, monkeypatch):
    """A keyed server on loopback, once with each HTTP parser (the same rules over both)."""
    if request.param == "httptools" and conn.GuardedHttpTools is None:
        pytest.skip("httptools is not installed")
    monkeypatch.setattr(conn, "parser", lambda: request.param)
    memory = Memory.open(tmp_path / "m.db")
    ring = KeyRing.load(tmp_path / "keys.json")
    key = ring.add("acme")
    with FakeUpstream(lambda body: Reply(content="hi")) as up:
        app = create_app(memory, Auth(ring), ServerConfig(upstream=up.url), mcp=False)
        with serve_in_thread(app) as url:
            yield url, key, up
    memory.close()


def test_passthrough_forwards_only_plain_paths_under_v1(keyed):
    url, key, up = keyed
    auth = f"Authorization: Bearer {key}"
    assert raw(url, get("/v1/models", auth))[0] == 200  # the ordinary case still works
    n = len(up.headers)
    for path in ["/v1/..%2F..%2Fadmin%2Fusers", "/v1/..%2fadmin", "/v1/%2e%2e/admin",
                 "/v1/models/..", "/v1/./models", "/v1/models//x", "/v1/a%5C..%5Cadmin",
                 "/v1/models%00", "/v1/mod%65ls"]:
        status, body = raw(url, get(path, auth))
        assert status in (400, 404), (path, status)  # 404: the router's own refusal
        assert b"upstream" not in body or status == 400
    assert len(up.headers) == n  # nothing of it reached the upstream


def test_passthrough_methods_are_the_apis(keyed):
    url, key, up = keyed
    auth = f"Authorization: Bearer {key}"
    for method in ("PUT", "PATCH"):
        assert raw(url, get("/v1/models", auth, method=method))[0] == 405
    # DELETE only on a resource the API deletes by id
    assert raw(url, get("/v1/embeddings", auth, method="DELETE"))[0] == 405
    assert raw(url, get("/v1/models", auth, method="DELETE"))[0] == 405
    # a resource the API deletes, but not on the operator's allowlist: refused, not sent
    n = len(up.headers)
    status, body = raw(url, get("/v1/files/file-abc123", auth, method="DELETE"))
    assert status == 403 and b"--passthrough" in body and len(up.headers) == n


def test_two_authorization_headers_are_refused(keyed):
    url, key, _ = keyed
    status, body = raw(url, get("/v1/models", f"Authorization: Bearer {key}",
                                "Authorization: Bearer sk-nobody"))
    assert status == 400 and b"Authorization header is sent more than once" in body
    status, _ = raw(url, get("/v1/models", "Authorization: Bearer sk-nobody",
                             f"Authorization: Bearer {key}"))
    assert status == 400
    status, _ = raw(url, get("/v1/models", f"Authorization: Bearer {key}", "Host: 127.0.0.1",
                             "Host: evil.example"))
    assert status == 400


@pytest.mark.parametrize("host,ok", [
    ("localhost:8799", True), ("127.0.0.1", True), ("[::1]:8799", True),
    ("localhost:8799@evil.com", False), ("localhost@evil.com", False),
    ("localhost evil.com", False), ("localhost:8799/evil", False), ("evil.com", False),
    ("127.0.0.1.evil.com", False), ("[::1]@evil.com", False),
])
def test_dev_mode_host_check_reads_the_whole_host(tmp_path, host, ok):
    memory = Memory.open(tmp_path / "m.db")
    app = create_app(memory, Auth(KeyRing.load(tmp_path / "k.json"), dev=True), ServerConfig(),
                     mcp=False)
    with serve_in_thread(app) as url:
        status, _ = raw(url, get("/v1/memlane/records", f"Host: {host}"))
    memory.close()
    assert (status == 200) == ok, (host, status)


@pytest.mark.parametrize("thread", ["a\nb", "a\rb", "tab\there", "x\x1b[31m", "a\u2028b",
                                    "bad\ufffdutf8"])
def test_thread_ids_with_control_characters_are_refused_everywhere(tmp_path, thread):
    memory = Memory.open(tmp_path / "m.db")
    with pytest.raises(UsageError):
        memory.thread(thread)
    with pytest.raises(UsageError):
        memory.remember("x", thread_id=thread)
    assert "error" in MemoryTools(memory, thread_id=thread).call("remember", {"text": "x"})
    memory.close()


def test_invalid_utf8_in_a_url_does_not_merge_two_threads(keyed):
    url, key, _ = keyed
    auth = f"Authorization: Bearer {key}"
    for enc in ("%FF", "%FE"):
        status, body = raw(url, get(f"/v1/memlane/threads/t{enc}/messages", auth))
        assert status in (400, 404) and b"Traceback" not in body


@pytest.mark.parametrize("kind", ["admin", "fact\nadmin", "system", "", "x" * 50])
def test_record_kinds_are_one_list_on_every_surface(tmp_path, kind):
    memory = Memory.open(tmp_path / "m.db")
    with pytest.raises(UsageError, match="kind must be one of"):
        memory.remember("Keeps bees.", kind)
    out = MemoryTools(memory).call("remember", {"text": "Keeps bees.", "kind": kind})
    assert "kind must be one of" in out["error"]
    assert memory.records() == []
    assert memory.remember("Keeps bees.", " Fact ").kind == "fact"
    memory.close()


@contextmanager
def trickling(url: str, n: int, head: str, byte: bytes) -> Iterator[list[socket.socket]]:
    """`n` connections that send `head` and then `byte` every 0.2 s until the block ends (a
    slowloris client); closed after it."""
    host, port = url.removeprefix("http://").split(":")
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(head.encode())
        socks.append(s)
    stop = threading.Event()

    def trickle() -> None:
        while not stop.is_set():
            for s in socks:
                try:
                    s.sendall(byte)
                except OSError:
                    pass
            time.sleep(0.2)

    t = threading.Thread(target=trickle, daemon=True)
    t.start()
    try:
        yield socks
    finally:
        stop.set()
        t.join(2)
        for s in socks:
            s.close()


def test_trickling_connections_are_closed(keyed, monkeypatch):
    """Slowloris: clients that send a request head a byte at a time are cut off after the head
    timeout, and the server still answers others meanwhile."""
    url, key, _ = keyed
    monkeypatch.setattr(conn, "HEAD_TIMEOUT", 1.0)
    with trickling(url, 300, "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X") as socks:
        # Another client is still served while they trickle.
        status, _ = raw(url, get("/v1/models", f"Authorization: Bearer {key}"))
        assert status == 200
        time.sleep(3.0)  # well past the 1 s head timeout (300 sockets, 2 cores)
        closed = 0
        for s in socks:
            s.settimeout(0.5)
            try:
                closed += s.recv(1) == b""
            except (ConnectionResetError, BrokenPipeError):
                closed += 1
            except TimeoutError:
                pass
        assert closed == 300


def test_trickling_bodies_are_closed(keyed, monkeypatch):
    """A complete head and then a body a byte at a time: cut off after the body timeout (the
    head's clock has stopped), while a request whose body arrives is answered."""
    url, key, _ = keyed
    monkeypatch.setattr(conn, "BODY_TIMEOUT", 1.0)
    head = (f"POST /v1/memlane/records HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            f"{key}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{{")
    with trickling(url, 50, head, b" ") as socks:
        body = json.dumps({"text": "Keeps bees.", "kind": "fact"}).encode()
        req = (f"POST /v1/memlane/records HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
               f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        assert raw(url, req)[0] == 201
        time.sleep(3.0)  # well past the 1 s body timeout
        closed = 0
        for s in socks:
            s.settimeout(0.5)
            try:
                while chunk := s.recv(4096):  # an error answer may come first, then the close
                    assert not chunk.startswith(b"HTTP/1.1 201")
                closed += 1
            except (ConnectionResetError, BrokenPipeError):
                closed += 1
            except TimeoutError:
                pass
        assert closed == 50


def test_an_idle_keep_alive_connection_is_closed(keyed, monkeypatch):
    url, key, _ = keyed
    monkeypatch.setattr(conn, "HEAD_TIMEOUT", 1.0)
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        t0 = time.monotonic()
        s.settimeout(10)
        assert s.recv(1) == b""  # never sent a byte: closed after the head timeout
        assert time.monotonic() - t0 < 5


def test_json_still_works_end_to_end(keyed):
    url, key, _ = keyed
    body = json.dumps({"text": "Keeps bees.", "kind": "fact"}).encode()
    req = (f"POST /v1/memlane/records HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
           f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
           f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    assert raw(url, req)[0] == 201


def test_an_oversized_head_is_refused(keyed):
    """A head that passes `MAX_HEAD` bytes while still incomplete gets a 400 and the connection
    closes; a head just under it is served. (Both parsers count an incomplete head: one that
    arrives whole in one read is bounded by the read's size instead.)"""
    url, key, _ = keyed
    auth = f"Authorization: Bearer {key}"
    pad = "X-Pad: " + "a" * (conn.MAX_HEAD - 1000)
    assert raw(url, get("/v1/models", auth, pad))[0] == 200
    big = get("/v1/models", auth, "X-Pad: " + "a" * conn.MAX_HEAD)
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        unfinished = big[:-4]  # no blank line: only the count can stop it
        for i in range(0, len(unfinished), 8192):
            try:
                s.sendall(unfinished[i:i + 8192])
            except (ConnectionResetError, BrokenPipeError):
                break
            time.sleep(0.01)
        data = b""
        try:
            while chunk := s.recv(4096):
                data += chunk
        except ConnectionResetError:
            pass
    assert data.startswith(b"HTTP/1.1 400")
