"""A small linear classifier that reads a text for signs it is an injected instruction: the
second opinion beside `safety`'s patterns (docs/SAFETY.md, "The classifier").

The patterns were written by the same hand as the corpora they were tuned on, and missed new
phrasings. A classifier trained on many phrasings generalises further, at the price of being
opaque, so it is only a second opinion: its verdict is OR'd with the patterns' in
`safety.prompt_like`, and a text it flags is quarantined (shown framed, one call away), never
dropped.

Features (what `features` returns, the same at training and at run time):
- hashed word unigrams and bigrams, and hashed character 3-, 4- and 5-grams of the text's first
  `CHAR_SPAN` characters (an encoded-looking run counts as one word, `_mark_runs`), into
  `DIM` buckets (crc32: stable across processes, unlike `hash`), each present feature weighted
  1/sqrt(count of present features), so a long text does not score high by length alone;
- a few dense structural features (`dense`): the share of "you"/"your" among words, the share
  of words that name models, prompts, rules or filters, and the share of sentences that open
  with an order. Not length, the share of non-letters or the longest encoded-looking run,
  though they were tried: in the tuning corpora attacks are long and often carry blobs while
  the benign texts are short sentences, so those features learnt the corpora (a benign
  "Backup key <84-character base64>" scored 0.996 on them alone) and would flag every long
  web page `recall` keeps.

The text comes in already folded (`safety._fold`: NFKC, look-alikes, case, escapes), so spelling
tricks reach the same buckets; this module imports nothing of memlane (safety sits above it).
Inference is pure Python (numpy is not a core dependency): a few hundred microseconds for a
600-character text. The weights are memlane's own, trained by `scripts/train_guard.py` on the
tuning corpora only, and ship as `memlane/data/guard.bin` (int16, zlib-compressed).
"""

from __future__ import annotations

import array
import json
import math
import re
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

DIM = 1 << 18
CHAR_SPAN = 4000  # a record's limit: the whole of any record, the head of a long tool result
NGRAMS = (3, 4, 5)
WEIGHTS_PATH = Path(__file__).resolve().parent / "data" / "guard.bin"

_WORD = re.compile(r"[a-z0-9']+")
_SENTENCE = re.compile(r"(?:^|[.!?:;\n]\s*)([a-z']+)")
_ENCODED_RUN = re.compile(r"[a-z0-9+/=]{16,}")
_MODEL_WORDS = frozenset("""ai assistant assistants model models llm llms chatgpt gpt bot chatbot
    prompt prompts rules instructions instruction filter filters policy policies guidelines
    jailbreak jailbroken dan persona system developer mode restrictions censorship openai
    unfiltered uncensored unrestricted""".split())
_YOU = frozenset("you your you're yourself u".split())
_ORDERS = frozenset("""ignore disregard forget pretend act imagine respond answer reply say print
    write output repeat reveal tell show stop start never always do don't from you please
    translate summarize summarise generate provide list begin continue explain""".split())
DENSE_NAMES = ("you_share", "model_words", "order_openers")


def dense(folded: str, words: Sequence[str]) -> list[float]:
    """The structural features of a folded text (see the module docstring), each in [0, 1]."""
    n = max(len(words), 1)
    openers = _SENTENCE.findall(folded)
    return [
        min(1.0, 5 * sum(w in _YOU for w in words) / n),
        min(1.0, 5 * sum(w in _MODEL_WORDS for w in words) / n),
        sum(w in _ORDERS for w in openers) / max(len(openers), 1),
    ]


def _mark_runs(folded: str) -> str:
    """`folded` with each encoded-looking run (letters and digits mixed, 16 or more) replaced by
    one word: its characters are noise to n-grams (a hash, a key, a base64 blob), and a
    blob's n-grams learnt from encoded attacks flagged a benign "Backup key <blob>"."""
    def sub(m: re.Match[str]) -> str:
        run = m.group(0)
        mixed = any(ch.isdigit() for ch in run) and any(ch.isalpha() for ch in run)
        return " encodedrun " if mixed else run
    return _ENCODED_RUN.sub(sub, folded)


def features(folded: str) -> tuple[list[int], list[float]]:
    """(the hashed buckets present, the dense features) of a folded text."""
    structural = dense(folded, _WORD.findall(folded))
    folded = _mark_runs(folded)
    words = _WORD.findall(folded)
    crc = zlib.crc32
    mask = DIM - 1
    present = {crc(("w " + w).encode()) & mask for w in words}
    present.update(crc(("b " + a + " " + b).encode()) & mask
                   for a, b in zip(words, words[1:], strict=False))
    # Bytes of the text, padded with a space at both ends: UTF-8 n-grams stand for character
    # n-grams (folded text is mostly ASCII) and slicing bytes spares an encode per n-gram.
    raw = (" " + folded[:CHAR_SPAN] + " ").encode("utf-8", "surrogatepass")
    for n in NGRAMS:
        present.update(crc(raw[i:i + n]) & mask for i in range(len(raw) - n + 1))
    return sorted(present), structural


@dataclass(frozen=True)
class Weights:
    """A trained classifier."""

    hashed: Sequence[float]
    """One weight per bucket (`DIM`)."""
    dense: Sequence[float]
    """One weight per structural feature (`DENSE_NAMES`)."""
    bias: float
    thresholds: dict[str, float]
    """Probabilities at or above which a text is flagged, by reading: "strict" (model-written
    records and tool results), "turn" (a conversation's turns and what a step files from them)."""
    meta: dict[str, object]
    """How it was trained (corpora, counts, seed, cross-validated rates)."""
    scale: float = 1.0
    """What each of `hashed` is multiplied by: the file keeps int16 steps, and scaling the sum
    rather than each of 2^18 weights makes loading take milliseconds (it took 0.9 s)."""


def score(weights: Weights, feats: tuple[list[int], list[float]]) -> float:
    """The probability that a text with these features is an injected instruction."""
    buckets, structural = feats
    w = weights.hashed
    z = weights.bias
    if buckets:
        z += weights.scale * sum(w[i] for i in buckets) / math.sqrt(len(buckets))
    z += sum(a * b for a, b in zip(weights.dense, structural, strict=True))
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))


# --- the weights file: a JSON header line, then the hashed weights as zlib-compressed int16 ------

def save(weights: Weights, path: Path = WEIGHTS_PATH) -> None:
    biggest = max((abs(x) for x in weights.hashed), default=0.0) * weights.scale or 1.0
    scale = biggest / 32767
    q = array.array("h", (round(x * weights.scale / scale) for x in weights.hashed))
    if sys.byteorder == "big":
        q.byteswap()
    header = {"dim": len(weights.hashed), "scale": scale, "dense": list(weights.dense),
              "bias": weights.bias, "thresholds": weights.thresholds, "meta": weights.meta}
    path.write_bytes(json.dumps(header, sort_keys=True).encode() + b"\n"
                     + zlib.compress(q.tobytes(), 9))


def load(path: Path = WEIGHTS_PATH) -> Weights:
    data = path.read_bytes()
    head, _, body = data.partition(b"\n")
    header = json.loads(head)
    q = array.array("h")
    q.frombytes(zlib.decompress(body))
    if sys.byteorder == "big":
        q.byteswap()
    if len(q) != header["dim"] or header["dim"] != DIM:
        raise ValueError(f"{path}: {len(q)} weights for {header['dim']} buckets, this memlane "
                         f"hashes into {DIM}: retrain with scripts/train_guard.py")
    return Weights(hashed=q, dense=header["dense"], bias=header["bias"],
                   thresholds=header["thresholds"], meta=header["meta"], scale=header["scale"])


_SHIPPED: list[Weights] = []


def shipped() -> Weights:
    """The weights in the package, read once (they are data, not a cache of anything)."""
    if not _SHIPPED:
        _SHIPPED.append(load())
    return _SHIPPED[0]
