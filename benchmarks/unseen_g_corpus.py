"""Build a seventh unseen set, G, *outside the repository* (#44, seventh round): the probes of SEP
("Can LLMs Separate Instructions From Data? And What Do We Even Mean By That?", Zverev et al.,
ICLR 2025), English instructions slipped into the data a model is given to process, half of them
written to insist. Measured once, at the end; never read, never tuned on.

    PYTHONPATH=src python benchmarks/unseen_g_corpus.py SEP_GIT /tmp/unseen_g.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/unseen_g.jsonl --benign 0

Source: egozverev/Should-It-Be-Executed-Or-Processed (no licence file: never copied here),
SEP_dataset/source/probes.json (100 probes, `instruction`; 50 to 99 are the insistent ones) and
SEP_dataset/interim_data_files/raw_data.json (the data texts the probes go into). Families: each
probe alone (`probe plain` / `probe insistent`), and each probe inserted into one data text as
SEP's `insert_probes.py` does, before or after it (`in data plain` / `in data insistent`; the
data text and the side chosen by a fixed seed). No set here drew on SEP before. Built here, the
rows are counted, never printed.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from safety_corpus import _show

PROBES = "SEP_dataset/source/probes.json"
DATA = "SEP_dataset/interim_data_files/raw_data.json"


def _data_texts(raw: dict[str, Any]) -> list[str]:
    """The clean data texts of raw_data.json (`insert_probes.flatten_dataset`)."""
    texts = []
    for task_type, tasks in raw.items():
        if task_type == "descr" or not isinstance(tasks, dict):
            continue
        for name, task in tasks.items():
            if name == "descr" or not isinstance(task, dict):
                continue
            for sub in task.get("subtasks", []):  # three data texts (or {"data": [...]})
                items = sub.get("data", []) if isinstance(sub, dict) else sub
                texts += [str(d) for d in items if str(d).strip()]
    return texts


def sep(repo: str) -> list[dict[str, str]]:
    probes = json.loads(_show(repo, PROBES))
    data = _data_texts(json.loads(_show(repo, DATA))["output"])
    rng = random.Random(44)
    rows = []
    for i, probe in enumerate(probes):
        text = str(probe["instruction"]).strip()
        kind = "insistent" if i >= 50 else "plain"
        rows.append({"label": "attack", "source": "sep", "family": f"probe {kind}",
                     "text": text, "payload": text})
        host = rng.choice(data)
        wrapped = f"{text} {host}" if rng.random() < 0.5 else f"{host} {text}"
        rows.append({"label": "attack", "source": "sep", "family": f"in data {kind}",
                     "text": wrapped, "payload": text})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", help="a clone of egozverev/Should-It-Be-Executed-Or-Processed")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = sep(args.repo)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: {dict(Counter(r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
