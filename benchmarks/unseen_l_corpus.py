"""Build an unseen set, L, *outside the repository* (#44): prompt injections and orders meant to
hijack an agent or poison its memory, from two public repositories no earlier set drew on, kept
by the lead for measurement only (never tuned on, never read by the guard's helpers).

    PYTHONPATH=src python benchmarks/unseen_l_corpus.py NA0S_GIT SINANW_GIT /work/checks/l/l.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /work/checks/l/l.jsonl --benign 0

Sources (built here from git snapshots, not copied in; the rows are data to measure):
- M-Abrisham/Na0S, its taxonomy probes (scripts/taxonomy/*.py): hand-written attack strings in
  literal lists, each list filed under a sub-category id (`samples += [(t, "T1.1") for t in
  ...]`), read with `ast` (the repository's code is never run). Kept: the sub-categories that
  order an agent about itself, its tools or its memory (`NA0S` below: tool abuse, injections in
  web pages, documents, e-mails, database rows and text pulled out of media, memory poisoning,
  standing overrides, instruction overrides, persona overrides, multilingual overrides, prompt
  leaks, exfiltration through the answer's links, hidden payloads), at most `CAP` a family by a
  fixed seed. Left out: harmful requests (O1, C1), harmful-question framings (A1, D2.3),
  reconnaissance questions (E2), privacy requests (P1), resource exhaustion (R), supply chain
  (S: orders to a training pipeline or a model file, not to an agent), raw code (T1.2, T2.x
  but T2.3), context filler (D8), and the lists built by code from templates (D1.1, D1.2,
  D1.12, D2.1, D2.2, D3, D4, I2): reading those would mean running the repository's code.
- sinanw/llm-security-prompt-injection, its copy (data/raw/*.parquet) of deepset's
  prompt-injections set: the injection rows (label 1) that unseen_e_corpus.py's `language`
  reads as English (set E1 took the others from Parapet's copy, and was tuned on: none of them
  is here), less `DEEPSET_LEFT_OUT`: the rows, by the first 10 hex digits of the SHA-1 of their
  stripped text, that hold no order about the model, its instructions or its output (a plain
  question or request, a role from awesome-chatgpt-prompts, a film-scene framing of a harmful
  request, a plea for an opinion), judged by reading them before any measurement. Many of its
  English rows are the sources of E1's German translations: the shapes are near E1's, the
  language is not. Reading the parquet files needs pyarrow (not a project dependency).
Looked at and not used: Jarviswang94/Multilingual_safety_benchmark (its injection categories
are set E2's, tuned on since; the others are harmful questions), thu-coai/SafetyBench (multiple
choice questions about safety, and its data files are not in the snapshot),
M-Abrisham/AI-Prompt-Injection-Detector (no licence; its data are downloaded from elsewhere).
thu-coai/Agent-SafetyBench and OSU-NLP-Group/EIA_Against_Webagent had no snapshot to be had.

A row whose folded text is already in one of this repository's corpora (tests/data/*.jsonl) is
dropped, and each text is kept once. At most `MAX_ATTACKS` attacks; no benign rows (measure with
`--benign 0`). Built here, the rows are counted, never printed.

NOTICE (the licences of what L is built from):
    Set L is built outside the repository by benchmarks/unseen_l_corpus.py from git snapshots
    of public repositories; no row of it is stored here.
    - M-Abrisham/Na0S, commit 2e708bce0a59b9bfae14895bf51ef14702c91556: MIT License,
      Copyright (c) 2025 Mehrnoosh Abrishamchian. Strings of scripts/taxonomy/*.py.
    - sinanw/llm-security-prompt-injection, commit c8af0b015a9a4f3380f9e20214828c2dbeadc72c:
      MIT License, Copyright (c) 2023 sinanw. Its data/raw/*.parquet are deepset's
      prompt-injections data set (deepset GmbH, Apache License 2.0).
    Permission is hereby granted, free of charge, to any person obtaining a copy of this
    software and associated documentation files (the "Software"), to deal in the Software
    without restriction, including without limitation the rights to use, copy, modify, merge,
    publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
    to whom the Software is furnished to do so, subject to the following conditions: The above
    copyright notice and this permission notice shall be included in all copies or substantial
    portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import random
import re
import subprocess
from collections import Counter
from pathlib import Path

from safety_corpus import _literal, _show
from unseen_e_corpus import language

ROOT = Path(__file__).resolve().parent.parent
CAP = 20
MAX_ATTACKS = 400
SEED = 44
_TOOLS, _LEAK, _MEDIA = "agent tool abuse", "prompt leak", "injection in text pulled from media"
NA0S = {
    "T1.1": _TOOLS, "T1.3": _TOOLS, "T1.4": _TOOLS, "T2.3": _TOOLS,
    "I1.1": "injection in a web page", "I1.2": "injection in a document",
    "I1.3": "injection in an e-mail", "I1.4": "injection in a database row",
    **{f"M1.{i}": _MEDIA for i in range(1, 6)},
    "D1.20": "memory poisoning", "D1.18": "standing override",
    **{f"D1.{i}": "instruction override" for i in (3, 6, 7, 8, 9, 10, 11, 13, 14, 15, 17, 19)},
    "D2.4": "persona override",
    **{f"D6.{i}": "multilingual override" for i in range(1, 7)},
    **{f"E1.{i}": _LEAK for i in range(1, 7)},
    "O2.1": "exfiltration through the answer", "O2.2": "exfiltration through the answer",
    "D7.2": "hidden payload", "D7.3": "hidden payload",
}
DEEPSET_LEFT_OUT = {
    "0ba4f31c1b", "1510e6bac3", "1adfd6f942", "1ca089c096", "263cfde618", "31eb3b4519",
    "359be64e6a", "3e0a7232bb", "4a22187adb", "5403fd49df", "60cb8b7602", "669c58fb65",
    "746dc03978", "7c57beda5a", "7ff3686d06", "813fd3f83f", "892a7ae5e8", "924c512233",
    "9263480c84", "a603bc58b1", "aca2593bca", "b027015608", "d47ebc751c", "dd33f5dcc6",
    "e155e9f810", "e3a96da234", "e6c69d8a2b", "ecacbbd02a", "fc7b2e51fc"}
_WS = re.compile(r"\s+")


def _fold(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


def _attack(source: str, family: str, text: str) -> dict[str, str]:
    return {"label": "attack", "source": source, "family": family, "text": text,
            "payload": text}


def _lists(tree: ast.AST) -> dict[str, list[str]]:
    """Each sub-category id -> the strings of the literal lists filed under it."""
    out: dict[str, list[str]] = {}
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        named: dict[str, list[str]] = {}
        for st in ast.walk(fn):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 \
                    and isinstance(st.targets[0], ast.Name):
                value = _literal(st.value, {})
                if isinstance(value, list) and all(isinstance(v, str) for v in value):
                    named[st.targets[0].id] = value
            elif isinstance(st, ast.AugAssign) and isinstance(st.value, ast.ListComp):
                elt, it = st.value.elt, st.value.generators[0].iter
                if isinstance(elt, ast.Tuple) and len(elt.elts) > 1 \
                        and isinstance(elt.elts[1], ast.Constant) \
                        and isinstance(it, ast.Name) and it.id in named:
                    out.setdefault(str(elt.elts[1].value), []).extend(named[it.id])
    return out


def na0s(repo: str) -> list[dict[str, str]]:
    listing = subprocess.check_output(["git", "-C", repo, "ls-tree", "--name-only", "HEAD",
                                       "scripts/taxonomy/"], text=True).split()
    by_family: dict[str, list[str]] = {}
    for path in listing:
        if path.endswith(".py") and not Path(path).name.startswith("_"):
            for sub, texts in _lists(ast.parse(_show(repo, path))).items():
                if sub in NA0S:
                    by_family.setdefault(NA0S[sub], []).extend(t.strip() for t in texts)
    rng = random.Random(SEED)
    rows = []
    for family, texts in sorted(by_family.items()):
        texts = list(dict.fromkeys(t for t in texts if t))
        for text in rng.sample(texts, min(CAP, len(texts))):
            rows.append(_attack("na0s", family, text))
    return rows


def deepset(repo: str) -> list[dict[str, str]]:
    try:
        import pyarrow.parquet as pq  # needed by this builder only
    except ModuleNotFoundError:
        raise SystemExit("reading the parquet files needs pyarrow: pip install pyarrow") from None
    rows = []
    for path in sorted(subprocess.check_output(
            ["git", "-C", repo, "ls-tree", "--name-only", "HEAD", "data/raw/"],
            text=True).split()):
        blob = subprocess.check_output(["git", "-C", repo, "show", f"HEAD:{path}"])
        for r in pq.read_table(io.BytesIO(blob)).to_pylist():
            text = str(r["text"]).strip()
            digest = hashlib.sha1(text.encode()).hexdigest()[:10]
            if r["label"] == 1 and language(text) == "english" \
                    and digest not in DEEPSET_LEFT_OUT:
                rows.append(_attack("deepset", "deepset injection", text))
    return rows


def known_texts() -> set[str]:
    """The folded texts of this repository's own corpora: none of them is unseen."""
    seen = set()
    for path in (ROOT / "tests" / "data").glob("*.jsonl"):
        for line in path.read_text().split("\n"):
            row = json.loads(line) if line.strip() else {}
            for key in ("text", "payload"):
                if isinstance(row, dict) and isinstance(row.get(key), str):
                    seen.add(_fold(row[key]))
    return seen


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("na0s", help="a clone of M-Abrisham/Na0S")
    ap.add_argument("sinanw", help="a clone of sinanw/llm-security-prompt-injection")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    seen, rows, dropped = known_texts(), [], 0
    for row in na0s(args.na0s) + deepset(args.sinanw):
        if _fold(row["text"]) in seen:
            dropped += 1
            continue
        seen.add(_fold(row["text"]))
        rows.append(row)
    if len(rows) > MAX_ATTACKS:
        raise SystemExit(f"{len(rows)} attacks, more than {MAX_ATTACKS}: lower CAP")
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out} ({dropped} already here or twice): "
          f"{dict(Counter(r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
