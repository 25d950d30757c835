"""Build a ninth unseen set, J, *outside the repository* (#44, ninth round), kept by the lead and
measured on the round's starting code before any change, then once after: no helper read it.

    PYTHONPATH=src python benchmarks/unseen_j_corpus.py TAKSEC_GIT INJECGUARD_GIT /tmp/j.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/j.jsonl --benign 0

Sources (both MIT; built here from the snapshots, not copied in, as the sets before it):
- TakSec/Prompt-Injection-Everywhere: a tester's one-a-line payloads (basic injections, prompt
  leaks, SQL / XSS through a model, the "protection" probes). Family: the file.
- leolee99/InjecGuard's validation file: its rows drawn from Lakera's PINT benchmark (public and
  internal prompt injections, jailbreaks; the BIPIA rows are left out, an earlier set's source),
  and its benign rows as benign texts: NotInject (everyday prompts holding the words an
  over-eager guard fires on: "ignore", "bypass", "override"), WildGuard's benign prompts and PINT's
  chat, documents and hard negatives. Benign here are prompts to an assistant, not facts: `admit`
  should keep them plain all the same (the guard's over-defence).
Built here, the rows are counted, never printed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from safety_corpus import _show

TAKSEC = {"Basic-Prompt-Injection-v1": "basic injection", "Basic-Prompt-Injection-v2":
          "basic injection", "Prompt-Injection-Protection": "protection probe",
          "Prompt-Injection-SQLi": "sql through a model", "Prompt-Injection-XSS":
          "xss through a model", "Prompt-Leak-v1": "prompt leak", "Prompt-Leak-v2": "prompt leak"}


def taksec(repo: str) -> list[dict[str, str]]:
    rows = []
    for name, family in TAKSEC.items():
        for line in _show(repo, f"{name}.txt").splitlines():
            if line.strip():
                rows.append({"label": "attack", "source": "taksec", "family": family,
                             "text": line.strip(), "payload": line.strip()})
    return rows


def injecguard(repo: str) -> list[dict[str, str]]:
    rows = []
    for r in json.loads(_show(repo, "datasets/valid.json")):
        source, text = str(r.get("source", "")), str(r["prompt"]).strip()
        if r["label"] == 1 and source.startswith("PINT"):
            family = source.removeprefix("PINT_").replace("_", " ")
            rows.append({"label": "attack", "source": "pint", "family": family, "text": text,
                         "payload": text})
        elif r["label"] == 0:
            rows.append({"label": "benign", "source": source.lower(), "text": text})
    for name in ("NotInject_one", "NotInject_two", "NotInject_three"):
        for r in json.loads(_show(repo, f"datasets/{name}.json")):
            rows.append({"label": "benign", "source": "notinject", "text": str(r["prompt"])})
    return list({r["text"]: r for r in reversed(rows)}.values())[::-1]  # each text once, first kept


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("taksec", help="a clone of TakSec/Prompt-Injection-Everywhere")
    ap.add_argument("injecguard", help="a clone of leolee99/InjecGuard")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = taksec(args.taksec) + injecguard(args.injecguard)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: "
          f"{dict(Counter((r['label'], r.get('family', r['source'])) for r in rows))}")


if __name__ == "__main__":
    main()
