"""The one HTTP transport (`memlane.models.transport`) and its one retry policy, as the three
callers see it: a model adapter, the embedder and the proxy's upstream."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memlane.errors import ModelError, UpstreamTimeout
from memlane.models.transport import HttpFailed, HttpRefused, Transport
from memlane.search.embed import OpenAIEmbedder

# (status, headers, body) answers, in order; then 200 with an embedding.
ANSWERS: deque[tuple[int, dict[str, str], bytes]] = deque()
SEEN: list[float] = []
OK = json.dumps({"data": [{"index": 0, "embedding": [1.0, 0.0]}]}).encode()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers.get("content-length") or 0))
        SEEN.append(time.monotonic())
        status, headers, body = ANSWERS.popleft() if ANSWERS else (200, {}, OK)
        if status == 0:
            time.sleep(1.0)  # hangs past the client's timeout
            status = 200
        try:
            self.send_response(status)
            for k, v in {"content-type": "application/json", **headers}.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the timeout case)


@pytest.fixture
def url() -> Iterator[str]:
    ANSWERS.clear()
    SEEN.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _err(msg: str) -> bytes:
    return json.dumps({"error": {"message": msg}}).encode()


def test_retry_after_is_honoured_by_the_embedder_too(url):
    # The embedder's own loop ignored Retry-After; the one policy waits as the server asks.
    ANSWERS.extend([(429, {"retry-after-ms": "300"}, _err("slow down"))])
    e = OpenAIEmbedder("m", base_url=url, api_key="k", retries=1, dim=2)
    assert len(e.embed(["x"])) == 1
    assert len(SEEN) == 2 and SEEN[1] - SEEN[0] >= 0.3


def test_a_4xx_is_not_retried_and_keeps_the_servers_words(url):
    ANSWERS.extend([(400, {}, _err("bad model"))])
    t = Transport("Test", 5, max_retries=3)
    with pytest.raises(HttpRefused, match=r"Test rejected the request \(HTTP 400\): bad model") \
            as info:
        t.post_json(url + "/embeddings", {}, {})
    assert info.value.status == 400 and len(SEEN) == 1


def test_retries_spent_say_how_many_and_what_failed(url):
    ANSWERS.extend([(503, {}, _err("down")), (503, {}, _err("still down"))])
    t = Transport("Test", 5, max_retries=1, backoff=0.01)
    with pytest.raises(HttpFailed, match="after 2 attempts: HTTP 503: still down") as info:
        t.post_json(url + "/x", {}, {})
    assert info.value.status == 503 and info.value.body == _err("still down")


def test_a_long_retry_after_is_an_error_not_a_hang(url):
    ANSWERS.extend([(429, {"retry-after": "3600"}, _err("quota"))])
    t = Transport("Test", 5, max_retries=2)
    started = time.monotonic()
    with pytest.raises(ModelError, match="asks to wait 3600 s"):
        t.post_json(url + "/x", {}, {})
    assert time.monotonic() - started < 1


def test_the_proxy_upstream_does_not_retry_and_passes_a_429_on(url):
    from memlane.server.upstream import HttpUpstream, UpstreamRefused

    ANSWERS.extend([(429, {"retry-after": "7", "x-ratelimit-remaining": "0"}, _err("limit"))])
    up = HttpUpstream(url, timeout=5)
    with pytest.raises(UpstreamRefused) as info:
        up.post_json({"messages": []}, {})
    assert info.value.status == 429 and len(SEEN) == 1
    assert info.value.headers["retry-after"] == "7"  # the client's SDK decides when to retry
    ANSWERS.extend([(502, {}, _err("bad gateway"))])
    with pytest.raises(ModelError, match=r"the upstream failed \(HTTP 502\): bad gateway") as e:
        up.post_json({"messages": []}, {})
    assert url not in str(e.value)  # the operator's address stays in the log
    ANSWERS.extend([(0, {}, OK)])
    with pytest.raises(UpstreamTimeout, match="--upstream-timeout"):
        HttpUpstream(url, timeout=0.3).post_json({"messages": []}, {})
