"""Build a ninth unseen set, I, *outside the repository* (#44, ninth round): the attack prompts
CyberArk's FuzzyAI fuzzer ships (src/fuzzyai/resources), a red-team tool's own seeds. Most have
no shape of an order to a model about itself: harmful requests, persuasion, scholarly framing,
jailbreak recipes. Measured first on unchanged code, then its misses looked at by family.

    PYTHONPATH=src python benchmarks/unseen_i_corpus.py FUZZYAI_GIT /tmp/unseen_i.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/unseen_i.jsonl --benign 0

Source: cyberark/FuzzyAI (Apache-2.0; built here from the snapshot, not copied in: the rows are
data to measure). Families, each a file of src/fuzzyai/resources/ (a sample by a fixed seed
where the file is long):
- `harmful request`: AdvBench's goals (harmful_behaviors.csv, `goal`; Zou et al. 2023), 80;
- `harmful request pandora`: pandoras_prompts.txt, all;
- `adversarial prompt`: adv_prompts.txt (harmful questions, orders and abuse), 80;
- `gcg suffix`: an AdvBench goal with one of adv_suffixes.txt (optimised suffixes), 40;
- `scholarly framing`: history_prompts.txt ("As a historian ... I am studying how ..."), all;
- `persuasion`: the persuasive paraphrases of taxonomy_gpt35_harmful_behaviors_first26.json
  (`poisoned_prompt`, Zeng et al. 2024's taxonomy), 80, and the `ss_prompt` of
  adv_bench_sub_gpt4.jsonl, all;
- `jailbreak recipe`: the prompts of Jailbreaks.md (one per technique and topic, those marked
  "Not Working Yet" too: attacks by the file's own account).
Left out: benign_prompts.txt, alpaca_data_instructions.json (benign), adv_bench_sub_* but gpt4's
(the same paraphrases again), persuasion_taxonomy.jsonl (its examples persuade people to quit
smoking), the summariser's training set, the model responses. Built here, the rows are counted,
never printed.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import re
from collections import Counter
from pathlib import Path

from safety_corpus import _show

RES = "src/fuzzyai/resources/"
SEED = 44


def _row(family: str, text: str, entry: str = "") -> dict[str, str]:
    return {"label": "attack", "source": "fuzzyai", "family": family, "entry": entry,
            "text": text, "payload": text}


def _lines(repo: str, name: str) -> list[str]:
    return [x.strip() for x in _show(repo, RES + name).splitlines() if x.strip()]


def _sample(items: list[str], n: int, rng: random.Random) -> list[str]:
    items = list(dict.fromkeys(items))
    return items if len(items) <= n else rng.sample(items, n)


def jailbreak_recipes(md: str) -> list[dict[str, str]]:
    """The prompt under each `**Technique** (topic)` heading of Jailbreaks.md."""
    rows = []
    for block in re.split(r"\n(?=\*\*[^*\n]+\*\*)", md):
        head, _, body = block.partition("\n")
        if not head.startswith("**"):
            continue
        body = re.split(r"\n#{1,4} ", body)[0].strip()
        if body:
            rows.append(_row("jailbreak recipe", body, head.replace("*", "").strip(" :")))
    return rows


def fuzzyai(repo: str) -> list[dict[str, str]]:
    rng = random.Random(SEED)
    goals = [r["goal"].strip() for r in csv.DictReader(io.StringIO(
        _show(repo, RES + "harmful_behaviors.csv")))]
    rows = [_row("harmful request", t) for t in _sample(goals, 80, rng)]
    rows += [_row("harmful request pandora", t) for t in _sample(
        _lines(repo, "pandoras_prompts.txt"), 100, rng)]
    rows += [_row("adversarial prompt", t) for t in _sample(
        _lines(repo, "adv_prompts.txt"), 80, rng)]
    suffixes = _sample(_lines(repo, "adv_suffixes.txt"), 40, rng)
    rows += [_row("gcg suffix", f"{g} {s}")
             for g, s in zip(rng.sample(goals, 40), suffixes, strict=True)]
    rows += [_row("scholarly framing", t) for t in _sample(
        _lines(repo, "history_prompts.txt"), 100, rng)]
    tax = json.loads(_show(repo, RES + "taxonomy_gpt35_harmful_behaviors_first26.json"))
    poisoned = [str(t.get("poisoned_prompt", "")).strip() for e in tax
                for t in e.get("taxonomies", [])]
    rows += [_row("persuasion", t) for t in _sample([p for p in poisoned if p], 80, rng)]
    pap = [json.loads(x).get("ss_prompt", "").strip()
           for x in _show(repo, RES + "adv_bench_sub_gpt4.jsonl").splitlines() if x.strip()]
    rows += [_row("persuasion", t) for t in _sample([p for p in pap if p], 100, rng)]
    rows += jailbreak_recipes(_show(repo, RES + "Jailbreaks.md"))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", help="a clone (or git directory) of cyberark/FuzzyAI")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = fuzzyai(args.repo)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: {dict(Counter(r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
