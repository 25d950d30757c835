"""Build a second set of #44's ninth round, I2, *outside the repository*: ToolSword's texts
aimed at tool-using agents (Ye et al., ACL 2024), measured once after the round's changes.

    PYTHONPATH=src python benchmarks/unseen_i2_corpus.py TOOLSWORD_GIT /tmp/unseen_i2.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/unseen_i2.jsonl --benign 0

Source: Junjie-Ye/ToolSword (Apache-2.0; built here from the snapshot, not copied in), data/:
- `malicious query` (data_MQ.json, `query`): harmful requests to a tool agent;
- `jailbreak` (data_JA.json, `query`): jailbreak templates wrapping a harmful request;
- `noisy misdirection` (data_NM.json, `query`): orders to an agent that lead to a risky tool
  call (mass updates and deletions in a database);
- `harmful feedback` (data_HF.json): what the tool returned in the dialog (`role` "function"),
  harmful text a tool brings in.
Left out: risky cues, error conversion and conflicts (RC, EC, conflict: benign queries, the risk
is in the tools offered or their wrong answers, not in a text). Every row is an attack by the
paper's account. Built here, the rows are counted, never printed; bench_safety.py's `--misses`
refuses the file (`unseen_i2.jsonl`): it is measured, never read.
"""

from __future__ import annotations

import argparse
import ast
import json
from collections import Counter
from pathlib import Path
from typing import Any

from safety_corpus import _show

FAMILIES = {"MQ": "malicious query", "JA": "jailbreak", "NM": "noisy misdirection"}


def _row(family: str, text: str) -> dict[str, str]:
    return {"label": "attack", "source": "toolsword", "family": family, "text": text,
            "payload": text}


def _dialog(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, list):
        return raw
    try:
        out = json.loads(raw)
    except (TypeError, ValueError):
        out = ast.literal_eval(raw)
    return out if isinstance(out, list) else []


def toolsword(repo: str) -> list[dict[str, str]]:
    rows = []
    for code, family in FAMILIES.items():
        for entry in json.loads(_show(repo, f"data/data_{code}.json")):
            text = str(entry.get("query", "")).strip()
            if text:
                rows.append(_row(family, text))
    for entry in json.loads(_show(repo, "data/data_HF.json")):
        for turn in _dialog(entry.get("dialog", [])):
            if turn.get("role") == "function":
                text = str(turn.get("content", "")).strip()
                if text:
                    rows.append(_row("harmful feedback", text))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", help="a clone (or git directory) of Junjie-Ye/ToolSword")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = toolsword(args.repo)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: {dict(Counter(r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
