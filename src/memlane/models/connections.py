"""Keep-alive connections for `Transport`: one pool per process, keyed by scheme, host and port.

Opening a connection costs a TCP handshake and, over HTTPS, a TLS one: one or two round trips to
the model's server before the request is even sent, on every proxied turn, every model step and
every embedding call. The SDKs users would otherwise call (openai's httpx client, for one) keep
their connections; so does memlane now. Standard library only (`http.client`).

Rules, as the well-known HTTP/1.1 clients have them:
- a connection goes back to the pool only after its response was read to the end and the server
  did not ask to close it; a response left half read (a stream the client walked away from) closes
  its connection;
- an idle connection the server has closed in the meantime (it sees EOF) is dropped before use,
  and one idle longer than `IDLE_SECONDS` is not used: servers close idle connections on their side;
- the race no check can close (the server closes a connection just as a request goes out on it)
  is retried once, on a new connection, only when the failure came before any byte of an answer:
  the request never reached a live server;
- a request that an environment proxy covers (`HTTPS_PROXY`, `NO_PROXY`, ...) and any answer that
  redirects go through `urllib` as before: the pool speaks only directly to the server.

Error answers (4xx, 5xx) come back as `urllib.error.HTTPError`, as `urlopen` raised them, so the
retry policy in `transport.py` reads one kind of failure whichever path sent the request.
"""

from __future__ import annotations

import http.client
import io
import os
import select
import ssl
import threading
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from .._version import __version__

IDLE_SECONDS = 30.0
"""An idle connection older than this is closed rather than used: many servers close theirs
after 60 s or less, and a request sent on a connection the server is closing fails."""
MAX_IDLE = 8
"""Idle connections kept per server (one per concurrent caller is what a burst needs)."""
USER_AGENT = f"memlane/{__version__}"

_Key = tuple[str, str, int]


class Pool:
    """Idle keep-alive connections per (scheme, host, port), newest first."""

    def __init__(self) -> None:
        self._idle: dict[_Key, list[tuple[float, http.client.HTTPConnection]]] = {}
        self._lock = threading.Lock()
        self._tls: ssl.SSLContext | None = None
        # The environment's proxies as last read, and the environment they were read from.
        self._proxies: tuple[dict[Any, Any], dict[str, str]] | None = None

    def proxies(self) -> dict[str, str]:
        """`urllib.request.getproxies()`, read again only when the environment has changed.

        Reading them walks and decodes every environment variable (on each proxied turn's
        upstream call); comparing the environment with the copy they were read
        from is one dict comparison in C. Only where the environment is all urllib reads
        (not macOS's or Windows' system settings, which can change unseen)."""
        data = getattr(os.environ, "_data", None)
        if (not isinstance(data, dict)
                or urllib.request.getproxies is not urllib.request.getproxies_environment):
            return urllib.request.getproxies()
        memo = self._proxies
        if memo is not None and memo[0] == data:
            return memo[1]
        snapshot = dict(data)
        proxies = urllib.request.getproxies_environment()
        self._proxies = (snapshot, proxies)
        return proxies

    def take(self, key: _Key, timeout: float) -> tuple[http.client.HTTPConnection, bool]:
        """A live idle connection (and True) or a new one (and False)."""
        now = time.monotonic()
        while True:
            with self._lock:
                idle = self._idle.get(key)
                if not idle:
                    break
                since, conn = idle.pop()
            if now - since < IDLE_SECONDS and not _dropped(conn):
                if conn.sock is not None:
                    conn.sock.settimeout(timeout)
                conn.timeout = timeout
                return conn, True
            conn.close()
        scheme, host, port = key
        if scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            return http.client.HTTPSConnection(host, port, timeout=timeout,
                                               context=self._tls), False
        return http.client.HTTPConnection(host, port, timeout=timeout), False

    def give(self, key: _Key, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < MAX_IDLE:
                idle.append((time.monotonic(), conn))
                return
        conn.close()

    def clear(self) -> None:
        """Close every idle connection (tests; a process about to fork)."""
        with self._lock:
            idle, self._idle = self._idle, {}
        for conns in idle.values():
            for _, conn in conns:
                conn.close()


    def forget(self) -> None:
        """In a forked child: the idle connections are the parent's sockets; leave them be."""
        self._idle, self._lock = {}, threading.Lock()


POOL = Pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=POOL.forget)


def _dropped(conn: http.client.HTTPConnection) -> bool:
    """An idle connection is fine when its socket has nothing to read; readable means the server
    closed it (EOF) or sent something unasked, and either way it cannot carry a request."""
    sock = conn.sock
    if sock is None:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


class PooledResponse:
    """An `http.client.HTTPResponse` whose connection goes back to the pool when it is closed
    after being read to the end. Reads, iteration and headers are the response's own."""

    def __init__(self, response: http.client.HTTPResponse, conn: http.client.HTTPConnection,
                 key: _Key) -> None:
        self._response, self._key = response, key
        self._conn: http.client.HTTPConnection | None = conn
        self.status, self.headers, self.reason = response.status, response.headers, response.reason

    def read(self, amt: int | None = None) -> bytes:
        return self._response.read(amt)

    def readline(self, limit: int = -1) -> bytes:
        return self._response.readline(limit)

    def __iter__(self) -> Any:
        return iter(self._response)

    def getheader(self, name: str, default: str | None = None) -> str | None:
        return self._response.getheader(name, default)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        # http.client closes a response once its body is read to the end, except one read by
        # lines to its exact length (`length` 0, still open).
        whole = self._response.isclosed() or self._response.length == 0
        self._response.close()
        if whole and not self._response.will_close:
            POOL.give(self._key, conn)
        else:
            conn.close()

    def __enter__(self) -> PooledResponse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_STALE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


def _direct(scheme: str, host: str) -> bool:
    """True when no environment proxy covers this host (`urllib` would connect directly)."""
    proxies = POOL.proxies()
    return scheme not in proxies or bool(urllib.request.proxy_bypass(host))


def urlopen(method: str, url: str, data: bytes | None, headers: dict[str, str],
            timeout: float) -> Any:
    """Send one request; the open 2xx response. Raises `urllib.error.HTTPError` for an error
    answer and `OSError` / `http.client.HTTPException` when the exchange fails, as
    `urllib.request.urlopen` does."""
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if scheme not in ("http", "https") or not host or not _direct(scheme, host):
        return _urllib(method, url, data, headers, timeout)
    key = (scheme, host, parts.port or (443 if scheme == "https" else 80))
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    # Header names as urllib sends them ("Content-type"): a server that worked before sees the
    # same request.
    sent = {"User-agent": USER_AGENT, **{k.capitalize(): v for k, v in headers.items()}}
    while True:
        conn, reused = POOL.take(key, timeout)
        try:
            try:
                conn.request(method, target, body=data, headers=sent)
            except OSError as err:
                if reused and isinstance(err, _STALE):
                    conn.close()  # the server closed an idle connection as the request went out
                    continue
                raise urllib.error.URLError(err) from None  # as urlopen words it
            response = conn.getresponse()
        except BaseException as err:
            conn.close()
            if reused and isinstance(err, _STALE):
                continue  # closed before a byte of the answer: it never reached a live server
            raise
        break
    if 300 <= response.status < 400:  # redirects: urllib's rules, on its own connection
        response.read()
        conn.close()
        return _urllib(method, url, data, headers, timeout)
    pooled = PooledResponse(response, conn, key)
    if response.status >= 400:
        try:
            body = response.read()
        finally:
            pooled.close()
        raise urllib.error.HTTPError(url, response.status, response.reason, response.headers,
                                     io.BytesIO(body))
    return pooled


def _urllib(method: str, url: str, data: bytes | None, headers: dict[str, str],
            timeout: float) -> Any:
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    # An opener of its own, not urlopen's cached one: it reads the proxy settings now, as
    # `_direct` just did.
    return urllib.request.build_opener().open(request, timeout=timeout)


__all__ = ["IDLE_SECONDS", "MAX_IDLE", "POOL", "Pool", "PooledResponse", "urlopen"]
