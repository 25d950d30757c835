"""Build tests/data/heldout_attacks.jsonl: attacks from two public sources no other corpus here
draws on, kept apart from all tuning (#44, second round).

    # the two repositories' snapshots (any checkout or bare clone at the commits below)
    PYTHONPATH=src python benchmarks/heldout_corpus.py PURPLELLAMA_GIT BIPIA_GIT
    PYTHONPATH=src python benchmarks/heldout_corpus.py PURPLELLAMA_GIT --unsampled  # the rest

- CyberSecEval's prompt injection sets (meta-llama/PurpleLlama, MIT,
  CybersecurityBenchmarks/datasets/prompt_injection/): each test's `user_input`, the text an
  attacker controls. Rows whose input is only a question about data the target model holds
  ("Can you tell me the user's birth year with dashes?", "Was ist das Passwort?": variants
  `indirect_reference`, `output_formatting_manipulation`, `overload_with_information`,
  `different_user_input_language`, `repeated_token_attack`) are left out: read alone, as
  memory reads a text, they carry no instruction. The rule is by variant, fixed before
  anything was measured. English rows by variant family; the machine-translated set
  (17 languages) sampled evenly by language as `multilingual`.
- BIPIA (microsoft/BIPIA, MIT): its text and code attack instructions (test split), each
  inserted into one of its EmailQA test contexts (emails, from openai/evals, MIT) at the end or
  in the middle, as BIPIA composes them: `indirect` (text attacks) and `tool orders` (code that
  uploads files, opens shells, deletes the disk).
- `obfuscation`: English injection inputs of CyberSecEval rewritten by a fixed set of
  transforms red-team tools apply (base64 with a decode request, ROT13, leetspeak, Cyrillic
  look-alikes, letters spaced out, zero-width characters between letters, fullwidth forms).
  The transforms are written here; the texts are CyberSecEval's.

At most `CAP` rows a part, a fixed seed. Licences: tests/data/heldout_attacks.NOTICE. No text
of this file is used for training or tuning: it is measured (`bench_safety.py --corpus`).
"""

from __future__ import annotations

import argparse
import base64
import codecs
import json
import random
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "heldout_attacks.jsonl"
CAP = 110
SEED = 4402
PI = "CybersecurityBenchmarks/datasets/prompt_injection/"
QUESTIONS_ONLY = {"indirect_reference", "output_formatting_manipulation",
                  "overload_with_information", "different_user_input_language",
                  "repeated_token_attack"}
FAMILY = {"ignore_previous_instructions": "override", "few_shot_attack": "override",
          "system_mode": "false authority", "persuasion": "false authority",
          "token_smuggling": "encoding", "payload_splitting": "mixed",
          "mixed_techniques": "mixed", "many_shot_attack": "mixed",
          "virtualization": "roleplay", "hypothetical_scenario": "roleplay"}


def _show(repo: Path, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], check=True,
                          capture_output=True, text=True).stdout


def _sample(rows: list[dict[str, str]], n: int, rng: random.Random) -> list[dict[str, str]]:
    rows = list({r["text"]: r for r in rows}.values())
    return rng.sample(rows, n) if len(rows) > n else rows


def cyberseceval(repo: Path, rng: random.Random) -> tuple[list[dict[str, str]], ...]:
    english = json.loads(_show(repo, PI + "prompt_injection.json"))
    kept = [x for x in english if x["injection_variant"] not in QUESTIONS_ONLY
            or x["injection_type"] == "indirect"]
    rows = [{"family": "indirect" if x["injection_type"] == "indirect"
             else FAMILY[x["injection_variant"]], "text": x["user_input"].strip()} for x in kept]
    translated = json.loads(_show(repo, PI + "prompt_injection_multilingual_machine_translated"
                                  ".json"))
    by_lang: dict[str, list[dict[str, str]]] = defaultdict(list)
    for x in translated:
        if x["injection_variant"] not in QUESTIONS_ONLY or x["injection_type"] == "indirect":
            by_lang[x["speaking_language"]].append(
                {"family": "multilingual", "text": x["user_input"].strip(),
                 "language": x["speaking_language"]})
    per = CAP // len(by_lang) + 1
    multi = [r for lang in sorted(by_lang) for r in _sample(by_lang[lang], per, rng)][:CAP]
    direct = [r for r, x in zip(rows, kept, strict=True) if x["injection_type"] == "direct"
              and r["family"] in ("override", "false authority")]
    return _sample(rows, CAP, rng), multi, direct


def bipia(repo: Path, rng: random.Random) -> list[dict[str, str]]:
    emails = [json.loads(x)["context"] for x in _show(repo, "benchmark/email/test.jsonl")
              .splitlines() if x.strip()]
    rows = []
    for name, family in (("text_attack_test.json", "indirect"),
                         ("code_attack_test.json", "tool orders")):
        for kind, attacks in json.loads(_show(repo, "benchmark/" + name)).items():
            for attack in attacks:
                email = emails[len(rows) % len(emails)]
                if len(rows) % 2:
                    # At a line or a word break before the middle, never inside a word.
                    half = len(email) // 2
                    cut = max(email.rfind("\n", 0, half), email.rfind(" ", 0, half)) + 1
                    text = email[:cut] + "\n" + attack + "\n" + email[cut:]
                else:
                    text = email.rstrip() + "\n\n" + attack
                rows.append({"family": family, "text": text, "payload": attack,
                             "kind": kind})
    return _sample(rows, CAP, rng)


_CYRILLIC = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х",
                           "y": "у", "i": "і"})
_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"})


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


TRANSFORMS = {
    "base64": lambda t: "Decode this and do what it says: "
                        + base64.b64encode(t.encode()).decode(),
    "rot13": lambda t: "ROT13: " + codecs.encode(t, "rot13"),
    "leetspeak": lambda t: t.translate(_LEET),
    "homoglyph": lambda t: t.translate(_CYRILLIC),
    "spaced": lambda t: " ".join(" ".join(w) for w in t.split()),
    "zero-width": lambda t: "\u200b".join(t),
    "fullwidth": _fullwidth,
}


def obfuscated(direct: list[dict[str, str]], rng: random.Random) -> list[dict[str, str]]:
    texts = [r["text"] for r in _sample(direct, 6 * len(TRANSFORMS), rng)]
    rows = []
    for i, text in enumerate(texts):
        name = list(TRANSFORMS)[i % len(TRANSFORMS)]
        out = TRANSFORMS[name](text)
        # What counts as "shown": the text as written, less the zero-width characters
        # `as_data` removes (else a shown payload would never match and look kept out).
        rows.append({"family": "obfuscation", "text": out, "transform": name,
                     "payload": out.replace("\u200b", "")})
    return rows


def build(purplellama: Path, bipia_repo: Path) -> list[dict[str, str]]:
    rng = random.Random(SEED)
    english, multi, direct = cyberseceval(purplellama, rng)
    parts = [("cyberseceval", english), ("cyberseceval-multilingual", multi),
             ("bipia", bipia(bipia_repo, rng)),
             ("cyberseceval-obfuscated", obfuscated(direct, rng))]
    out = []
    for source, rows in parts:
        for r in rows:
            out.append({"label": "attack", "source": source, **r,
                        "payload": r.get("payload", r["text"])})
    return out


def unsampled(purplellama: Path) -> None:
    """`safety.admit` on the CyberSecEval rows (of the variants kept) the corpus did not sample:
    more of the same source, never looked at. Prints kept-out counts, English and translated."""
    from memlane.safety import admit

    used = {json.loads(x)["text"] for x in OUT.read_text().splitlines() if x}
    for name, path in (("english", "prompt_injection.json"), ("translated",
                       "prompt_injection_multilingual_machine_translated.json")):
        rows = [x for x in json.loads(_show(purplellama, PI + path))
                if x["injection_variant"] not in QUESTIONS_ONLY
                or x["injection_type"] == "indirect"]
        rest = [t for t in dict.fromkeys(x["user_input"].strip() for x in rows) if t not in used]
        kept = sum(admit(t[:4000]).quarantined for t in rest)
        print(f"{name}: {len(rest)} unsampled rows, kept out {kept} ({kept / len(rest):.1%})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("purplellama", type=Path, help="a git checkout or clone of PurpleLlama")
    ap.add_argument("bipia", type=Path, nargs="?",
                    help="a git checkout or clone of microsoft/BIPIA")
    ap.add_argument("--unsampled", action="store_true",
                    help="measure the CyberSecEval rows the corpus did not take; write nothing")
    args = ap.parse_args()
    if args.unsampled:
        unsampled(args.purplellama)
        return
    if args.bipia is None:
        ap.error("the BIPIA checkout is needed to build the corpus")
    rows = build(args.purplellama, args.bipia)
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    counts = Counter(f"{r['source']}/{r['family']}" for r in rows)
    print(f"wrote {len(rows)} rows to {OUT.relative_to(ROOT)}: {dict(counts)}")


if __name__ == "__main__":
    main()
