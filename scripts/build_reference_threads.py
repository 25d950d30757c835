"""Build reference threads (`memlane eval reference --data`) from items written by hand.

Each item (one JSON object per line: kind, fact, question, answer, optional cue, topic, stale,
stale_answer; the fields of `memlane.eval.reference_items.RefItem`) is planted in real dialogue
(a LoCoMo JSON file as filler) at two positions of the thread, drawn so that each kind's items
cover every position (the first exchange, 5, 25, 50, 75 and 90%) equally. The threads are made
by the generator's own functions (`memlane.eval.reference`), so they are what the generated
workload is, with other people's wording of the facts.

    python scripts/build_reference_threads.py tests/data/reference_written_a.jsonl \
        ../shared/data/locomo/locomo-dev.json /tmp/ref_a.jsonl [--seed 0]

An item whose question shares a content term with its fact (or an update's stale statement),
whose cue shares none with the fact or one with the question, or whose answer is not in its fact
is refused with the item's line named.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from memlane.eval.reader import answer_in
from memlane.eval.reference import (
    DEFAULT_POSITIONS,
    EXCHANGES,
    RefItem,
    _exchange_drawer,
    _messages,
    _placement,
    load_dialogue,
    position_label,
    shares_terms,
)

FIELDS = ("kind", "fact", "question", "answer", "cue", "topic", "stale", "stale_answer")


def read_items(path: Path) -> list[RefItem]:
    """The items of a JSONL file, each checked (see the module docstring)."""
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        item = RefItem(**{k: (tuple(row[k]) if k == "topic" else row[k])
                          for k in FIELDS if k in row})
        problems = [
            "question shares a term with the fact" if shares_terms(item.question, item.fact)
            else "",
            "question shares a term with the stale statement"
            if item.stale and shares_terms(item.question, item.stale) else "",
            "answer not in the fact" if not answer_in(item.fact, item.answer) else "",
            "cue shares no term with the fact"
            if item.cue and not shares_terms(item.cue, item.fact) else "",
            "cue shares a term with the question"
            if item.cue and shares_terms(item.cue, item.question) else "",
            "stale answer not in the stale statement, or in the fact"
            if item.stale and (not answer_in(item.stale, item.stale_answer)
                               or answer_in(item.fact, item.stale_answer)) else "",
        ]
        if any(problems):
            sys.exit(f"{path}:{n}: " + "; ".join(p for p in problems if p))
        items.append(item)
    return items


def build(items: list[RefItem], filler_path: Path, seed: int) -> list[dict[str, object]]:
    """Two threads per item; within a kind, item i at positions i and i+3 (mod 6)."""
    filler = load_dialogue(filler_path)
    ps = DEFAULT_POSITIONS
    out: list[dict[str, object]] = []
    seen: dict[str, int] = {}
    for item in items:
        i = seen.get(item.kind, 0)
        seen[item.kind] = i + 1
        for p in (ps[i % len(ps)], ps[(i + 3) % len(ps)]):
            rng = random.Random(f"{seed}-{item.kind}-{i}-{p}")
            n = rng.randrange(*EXCHANGES)
            at, stale_at = _placement(rng, item.kind, n, p)
            _, nxt = _exchange_drawer(rng, filler)
            msgs = _messages(rng, item, n, at, stale_at, nxt)
            out.append({"id": f"{item.kind}-{i}@{position_label(p)}", "kind": item.kind,
                        "position": position_label(p),
                        "messages": [{"role": r, "content": c} for r, c in msgs],
                        "question": item.question, "evidence": [2 * at],
                        "answer": item.answer, "stale": item.stale_answer})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("items", type=Path)
    ap.add_argument("filler", type=Path, help="a LoCoMo JSON file (e.g. locomo-dev.json)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rows = build(read_items(a.items), a.filler, a.seed)
    a.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} threads -> {a.out}")


if __name__ == "__main__":
    main()
