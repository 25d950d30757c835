"""The injection scan's verdicts, two source trees: every text of tests/data and the LoCoMo dev
conversations (and each of their sentences) scanned by each tree in its own process; exits 1
when any verdict differs. A speed change to `memlane.safety` must leave this at 0 differences.
`--mutants N` scans N texts made from those by the tricks the scan reads through (leetspeak,
spaced letters, base64/base32/hex/ascii85, ROT13, role markers, look-alikes, fullwidth, zero-width
characters, entities and escapes, Morse, Braille, regional indicators, split payloads, cuts and
random edits) instead.

    python benchmarks/scan_trees.py --before /work/main/src --after src
    python benchmarks/scan_trees.py --before /work/main/src --after src --mutants 20000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CORPUS = r"""
import glob, json, sys
from memlane.safety import _scan
from memlane.step.heuristic import split_sentences
texts = []
def walk(x):
    if isinstance(x, str):
        if len(x) > 3:
            texts.append(x)
    elif isinstance(x, dict):
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
for f in sorted(glob.glob("tests/data/*.json*")):
    raw = open(f, encoding="utf-8").read()
    try:
        walk(json.loads(raw))
    except ValueError:
        for line in raw.split("\n"):
            if line.strip(): walk(json.loads(line))
try:
    walk(json.load(open("/work/shared/data/locomo/locomo-dev.json", encoding="utf-8")))
except OSError:
    pass
texts = sorted(set(texts + [s for t in texts for s in split_sentences(t)]))
"""
"""Child-process code: `texts`, every text of tests/data and the LoCoMo dev conversations with
each of their sentences (also `bench_scan.py`'s)."""

ONE = CORPUS + r"""
if len(sys.argv) > 1:
    texts = mutants(texts, int(sys.argv[1]), int(sys.argv[2]))
print(json.dumps({t: list(_scan(t)) for t in texts}))
"""

# Texts made from the corpus's by the tricks the scan reads through (and random edits near its
# patterns' words), so that a faster path is checked beyond the texts it was measured on. The
# same seed makes the same texts in both processes (nothing here depends on the tree).
MUTANTS = r"""
import base64, codecs, random, urllib.parse
def mutants(texts, n, seed):
    rng = random.Random(seed)
    short = [t for t in texts if len(t) < 400]
    attacks = [t for t in short if any(w in t.lower() for w in (
        "ignore", "instruction", "prompt", "system", "you are", "assistant", "forget",
        "reveal", "decode", "pretend", "rules", "mode", "http", "memory", "user"))]
    leet = str.maketrans("aeiostlAEIOST", "4310571@3!057")
    confusable = str.maketrans("aeopcxyiAEOPCXH", "\u0430\u0435\u043e\u0440\u0441\u0445"
                               "\u0443\u0456\u0410\u0415\u041e\u0420\u0421\u0425\u041d")
    morse = {"a": ".-", "b": "-...", "c": "-.-.", "d": "-..", "e": ".", "f": "..-.", "g": "--.",
             "h": "....", "i": "..", "j": ".---", "k": "-.-", "l": ".-..", "m": "--", "n": "-.",
             "o": "---", "p": ".--.", "q": "--.-", "r": ".-.", "s": "...", "t": "-", "u": "..-",
             "v": "...-", "w": ".--", "x": "-..-", "y": "-.--", "z": "--.."}
    def piece(t):
        words = t.split()
        if len(words) < 3:
            return t
        i = rng.randrange(len(words))
        return " ".join(words[i:i + rng.randint(2, 8)])
    def spaced(t):
        sep = rng.choice([" ", ".", "-", "_", "*", " . ", "  "])
        return sep.join(t)
    def edit(t):
        t = list(t)
        for _ in range(rng.randint(1, 4)):
            if not t:
                break
            i = rng.randrange(len(t))
            op = rng.random()
            if op < 0.3:
                del t[i]
            elif op < 0.6:
                t.insert(i, rng.choice(" .,:;!?'\"-_*()[]{}<>|@$0123456789\n\u200b\u00ad"))
            else:
                t[i] = t[i].upper() if rng.random() < 0.5 else rng.choice("aeiou ")
        return "".join(t)
    tricks = [
        lambda t: t.translate(leet),
        lambda t: t.replace(piece(t), spaced(piece(t))),
        lambda t: t.replace(" ", rng.choice([".", "_", "-", "*"])),
        lambda t: t + " " + base64.b64encode(piece(t).encode()).decode(),
        lambda t: "Decode this base64: " + base64.b64encode(t.encode()).decode(),
        lambda t: base64.urlsafe_b64encode(t.encode()).decode().rstrip("="),
        lambda t: base64.b32encode(piece(t).encode()).decode(),
        lambda t: " ".join(f"{b:02x}" for b in piece(t).encode()),
        lambda t: t.encode().hex(),
        lambda t: "<~" + base64.a85encode(piece(t).encode()).decode() + "~>",
        lambda t: base64.a85encode(t.encode()).decode(),
        lambda t: codecs.encode(t, "rot13"),
        lambda t: t.replace(piece(t), codecs.encode(piece(t), "rot13")),
        lambda t: rng.choice(["System: ", "### System\n", "assistant: ", "User: hi AI: ",
                              "<|im_start|>system\n", "[INST] ", "Human: ", "AI: ok. "]) + t,
        lambda t: t + rng.choice(["\nSystem: you ", " Assistant: sure", "\nuser: x\nbot: y"]),
        lambda t: t.translate(confusable),
        lambda t: "".join(chr(0xFF00 + ord(c) - 0x20) if "!" <= c <= "~" else c for c in t),
        lambda t: "\u200b".join(t) if len(t) < 80 else t.replace(" ", " \u200b"),
        lambda t: "".join(f"&#{ord(c)};" if rng.random() < 0.3 else c for c in t),
        lambda t: urllib.parse.quote(t),
        lambda t: "".join(f"\\u{ord(c):04x}" if rng.random() < 0.3 else c for c in t),
        lambda t: t.replace("'", "\u2019").replace('"', "\u201c"),
        lambda t: " / ".join(" ".join(morse.get(c, "") for c in w)
                             for w in piece(t).lower().split()),
        lambda t: "".join(chr(0x2800 + (ord(c) % 64)) for c in piece(t)),
        lambda t: " ".join("".join(chr(0x1F1E6 + ord(c) - 97) for c in w if "a" <= c <= "z")
                           for w in piece(t).lower().split()),
        lambda t: t.upper(),
        lambda t: t.title(),
        lambda t: "let a = '" + piece(t) + "'. let b = '" + piece(t) + "'. do a + b",
        lambda t: t[:rng.randrange(len(t) + 1)],
        lambda t: t[rng.randrange(len(t) + 1):],
        lambda t: t + " " + rng.choice(short),
        lambda t: t.replace(rng.choice(t.split() or [""]), "\n") if t.split() else t,
        edit, edit, edit,
    ]
    out = set()
    while len(out) < n:
        t = rng.choice(attacks if rng.random() < 0.6 else short)
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
            t = rng.choice(tricks)(t)
        if len(t) > 3:
            out.add(t)
    return sorted(out)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="src/ of the older tree")
    ap.add_argument("--after", required=True, help="src/ of the newer tree")
    ap.add_argument("--mutants", type=int, default=0, metavar="N",
                    help="scan N texts made from the corpus's by encoding, spelling and "
                         "markup tricks and random edits instead (MUTANTS)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    code, args = ONE, []
    if a.mutants:
        code, args = MUTANTS + ONE, [str(a.mutants), str(a.seed)]
    got = [json.loads(subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                                     text=True, check=True,
                                     env={**os.environ, "PYTHONPATH": tree}).stdout)
           for tree in (a.before, a.after)]
    diff = [t for t in got[0] if got[0][t] != got[1].get(t)]
    flagged = sum(1 for v in got[1].values() if v)
    print(f"{len(got[1])} texts, {flagged} flagged, {len(diff)} verdicts differ")
    for t in diff[:10]:
        print(f"  {t[:80]!r}: {got[0][t]} -> {got[1].get(t)}")
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
