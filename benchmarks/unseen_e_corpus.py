"""Build a fifth unseen set, E, of instructions written in another language (or in two), *outside
the repository*, split by source (#44, fifth round): E1 is looked at and tuned on, E2 is a
different source measured once, at the end.

    PYTHONPATH=src python benchmarks/unseen_e_corpus.py e1 PARAPET_GIT /tmp/unseen_e1.jsonl
    PYTHONPATH=src python benchmarks/unseen_e_corpus.py e2 XSAFETY_GIT /tmp/unseen_e2.jsonl
    PYTHONPATH=src python benchmarks/bench_safety.py --corpus /tmp/unseen_e1.jsonl --benign 0

- E1, Parapet-Tech/parapet (Apache-2.0), its copies of three public injection sets
  (schema/eval/opensource_*_attacks.yaml): deepset/prompt-injections (English and German,
  translated by its authors), Lakera's Gandalf and Mosscap games (players' attempts to make a
  model tell its password, in any language they wrote). Kept: the rows not written in English
  (`language` below), each its own family by set and script; deepset's benign rows in another
  language are written beside, labelled benign (questions to an assistant, not facts: a check
  of how many a memory would withhold, never a target).
- E2, Jarviswang94/Multilingual_safety_benchmark (XSafety, Apache-2.0): its instruction attacks,
  Goal_Hijacking and Prompt_Leaking, in the eight languages it ships as CSV besides English
  (ar, de, fr, hi, ja, ru, sp, zh), the first `E2_PER_FILE` rows of each file; family: the
  category and the language.

Neither source was used by any earlier set. Built here, the rows are counted, never printed.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

from safety_corpus import _show

E1_SETS = ("deepset", "gandalf", "mosscap")
E2_LANGS = ("ar", "de", "fr", "hi", "ja", "ru", "sp", "zh")
E2_CATEGORIES = ("Goal_Hijacking", "Prompt_Leaking")
E2_PER_FILE = 25

# English function words: a text where they are rare is not written in English.
_ENGLISH = set("""the a an and or but of to in on at for with from by is are was were be been
it this that these those you your i my me we our they their he she his her not no do does did
have has had will would can could should what how why when where who which if then than as
so please all any about into over just also there here now""".split())
# ...and those of the languages the sets hold besides (German, Spanish, French, Italian,
# Portuguese, Dutch, Croatian): a Latin text not in English holds one.
_OTHER = set("""der das und ist nicht ich du sie es ein eine einen zu mit auf fur alle alles
dich mir mich wie was nun jetzt bitte el la los las y que en un una por para tu yo lo le les et
est pas je vous il une des du ce qui di che non per sono ti il della sve je ne da na se os uma
nao voce het een niet ik je jij van""".split())
_WORD = re.compile(r"[^\W\d_]+")
MIN_WORDS = 4


def script(text: str) -> str:
    """The script most of `text`'s letters are written in (latin, cyrillic, cjk, ...)."""
    names = Counter()
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "other").split()[0].lower()
            names[{"hiragana": "cjk", "katakana": "cjk", "hangul": "cjk"}.get(name, name)] += 1
    return names.most_common(1)[0][0] if names else "none"


def _english_share(text: str) -> float:
    words = [w.lower() for w in _WORD.findall(text)]
    return sum(w in _ENGLISH for w in words) / len(words) if words else 1.0


def language(text: str) -> str:
    """"english", "other" (no English sentence) or "mixed" (English, and a line or sentence of
    at least four words in another language or script); "short" under `MIN_WORDS` words (a
    game's "hello" or "tea" carries no instruction to read)."""
    words = [unicodedata.normalize("NFKD", w.lower()).encode("ascii", "ignore").decode()
             for w in _WORD.findall(text)]
    if len(words) < MIN_WORDS and script(text) in ("latin", "none"):
        return "short"
    if script(text) != "latin" or (_english_share(text) < 0.08 and _OTHER & set(words)):
        return "other"
    parts = [p for p in re.split(r"[\n.!?]+", text) if len(_WORD.findall(p)) >= 4]
    if any(script(p) != "latin" or (_english_share(p) == 0 and _OTHER & set(
            _WORD.findall(p.lower()))) for p in parts):
        return "mixed"
    return "english"


def parapet(repo: str) -> list[dict[str, str]]:
    try:
        import yaml  # PyYAML: needed by this builder only, as by unseen_c_corpus.py
    except ModuleNotFoundError:
        raise SystemExit("reading Parapet's sets needs PyYAML: pip install pyyaml") from None
    rows = []
    for name in E1_SETS + ("deepset_benign",):
        kind = name if name.endswith("benign") else f"{name}_attacks"
        items = yaml.safe_load(_show(repo, f"schema/eval/opensource_{kind}.yaml")) or []
        for item in items:
            text = str(item.get("content", "")).strip()
            lang = language(text)
            if not text or lang in ("english", "short"):
                continue
            label = "benign" if name.endswith("benign") else "attack"
            family = f"{name.split('_')[0]} {lang} {script(text)}"
            rows.append({"label": label, "source": name, "family": family, "text": text})
    return rows


def xsafety(repo: str) -> list[dict[str, str]]:
    rows = []
    for lang in E2_LANGS:
        for category in E2_CATEGORIES:
            body = _show(repo, f"{lang}/{category}.csv").lstrip("\ufeff")
            taken = 0
            for record in csv.reader(io.StringIO(body)):
                text = record[0].strip() if record else ""
                if not text or taken >= E2_PER_FILE:
                    continue
                taken += 1
                family = f"{category.replace('_', ' ').lower()} {lang}"
                rows.append({"label": "attack", "source": "xsafety", "family": family,
                             "text": text})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("part", choices=("e1", "e2"))
    ap.add_argument("repo", help="e1: a clone of Parapet-Tech/parapet; "
                                 "e2: a clone of Jarviswang94/Multilingual_safety_benchmark")
    ap.add_argument("out", type=Path, help="where to write (outside the repository)")
    args = ap.parse_args()
    made = parapet(args.repo) if args.part == "e1" else xsafety(args.repo)
    rows = [{**r, "payload": r["text"]} if r["label"] == "attack" else r for r in made]
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"wrote {len(rows)} rows to {args.out}: "
          f"{dict(Counter(r['label'] + ' ' + r['family'] for r in rows))}")


if __name__ == "__main__":
    main()
