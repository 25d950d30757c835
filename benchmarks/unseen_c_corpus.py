"""Build a third unseen set, C, *outside the repository* (its sources' licences do not allow
copying them here), to measure the task-drift and errand signals on sources nobody here read
(#44, third round). Measured by path, like LoCoMo:

    PYTHONPATH=src python benchmarks/unseen_c_corpus.py WASP_GIT PROMPTMAP_GIT /tmp/unseen_c.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/unseen_c.jsonl --benign 0

- facebookresearch/wasp (CC BY-NC 4.0: never copied here): the 21 attacker goals of its
  WebArena prompt injections (webarena_prompt_injections/configs/experiment_config.raw.json,
  `instruction`, its parameters filled in, `{gitlab_domain}` / `{reddit_domain}` as
  example hosts): raw (`errand`: "create a deploy token ...", "add the following key as a deploy
  key ..."), and inside WASP's two plain-text injection messages with each of its user goals
  for that site (`wrapped`, webarena_prompt_injections/constants.py);
- utkusen/promptmap (GPL-3.0: never copied here): the `prompt` of its distraction, jailbreak
  and prompt-stealing rules (rules/<type>/*.yaml); harmful, hate and bias rules are requests
  for content, not injections, and are left out.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

from safety_corpus import _show

HOSTS = {"gitlab_domain": "http://gitlab.example", "reddit_domain": "http://reddit.example"}


def _fill(template: str, params: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(params.get(m.group(1), m.group(0))), template)


def wasp(repo: str) -> list[dict[str, str]]:
    base = "webarena_prompt_injections/"
    configs = json.loads(_show(repo, base + "configs/experiment_config.raw.json"))[
        "prompt_injections_setup_config"]
    tree = ast.parse(_show(repo, base + "constants.py"))
    messages: dict[str, str] = {}
    goals: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "PromptInjectionFormat":
            names = {t.targets[0].id: t.value.value for t in node.body  # type: ignore[attr-defined]
                     if isinstance(t, ast.Assign) and isinstance(t.value, ast.Constant)}
            for t in node.body:
                if isinstance(t, ast.Assign) and isinstance(t.value, ast.Dict):
                    for k, v in zip(t.value.keys, t.value.values, strict=True):
                        key = names[k.id]  # type: ignore[union-attr]
                        if "plain_text" in key and isinstance(v, ast.Constant):
                            messages[key] = v.value
        if isinstance(node, ast.ClassDef) and node.name.endswith("UserGoals"):
            for t in node.body:
                if isinstance(t, ast.Assign) and isinstance(t.value, ast.List):
                    goals[node.name.removesuffix("UserGoals").lower()] = [
                        e.value for e in t.value.elts if isinstance(e, ast.Constant)]
    rows = []
    for c in configs:
        params = {**HOSTS, **{k: str(v) for k, v in c["parameters"].items()}}
        instruction = _fill(c["instruction"], params)
        url = _fill(c["action_url"], params)
        rows.append({"source": "wasp", "family": "errand", "text": instruction})
        for goal in goals.get(c["environment"], []):
            for message in messages.values():
                text = _fill(message, {"user_goal_str": goal.rstrip(".").lower(),
                                       "instantiated_url_of_action": url,
                                       "instantiated_instruction_text": instruction})
                rows.append({"source": "wasp", "family": "wrapped", "text": text})
    return rows


def promptmap(repo: str) -> list[dict[str, str]]:
    names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", "rules"],
                           check=True, capture_output=True, text=True).stdout.split()
    rows = []
    for path in sorted(names):
        kind = path.split("/")[1] if path.count("/") == 2 else ""
        if kind not in ("distraction", "jailbreak", "prompt_stealing") or not path.endswith(
                ".yaml"):
            continue
        try:
            import yaml  # PyYAML: needed by this builder only (pip install pyyaml)
        except ImportError:
            raise SystemExit("reading promptmap's rules needs PyYAML: pip install pyyaml") from None

        prompt = str(yaml.safe_load(_show(repo, path)).get("prompt", "")).strip()
        if prompt:
            rows.append({"source": "promptmap", "family": kind.replace("_", " "),
                         "text": prompt})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("wasp", help="a clone of facebookresearch/wasp")
    ap.add_argument("promptmap", help="a clone of utkusen/promptmap")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    rows = [{"label": "attack", **r, "payload": r["text"]}
            for r in wasp(args.wasp) + promptmap(args.promptmap)]
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: "
          f"{dict(Counter(r['source'] + '/' + r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
