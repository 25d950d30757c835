"""Does each record the offline writer files say what the user said?

    PYTHONPATH=src python scripts/measure_faithful.py [--locomo PATH] [--data FILE ...] [-v]

Files, by the heuristic writer through `ingest` (the path `memlane ingest` takes) on a SQLite
file, each in its own namespace: the LoCoMo development split's conversations (by path, never
copied; the first speaker as the user), every `tests/data/corrections_*.jsonl` case (its first
statements and its second, with small talk, as `measure_corrections.py` writes them) and every
`tests/data/planted_facts_*.jsonl` fact (a user turn and a reply), and the built-in `PROBES`
(messages written for this check, where a pronoun has more than one thing or person it could
stand for: the carrying rules were worked out on them). Then each current record is
compared with its source message(s), word by word (case folded, "I'm" read "I am", "she's" read
"she is" or "she has"):

- `verbatim`: its words stand in that order in one sentence of a source, some left out (a
  record shorter than its sentence is fine);
- `holder carried (person)`: as verbatim, but for an opening "he", "she", "his" or "her"
  replaced by someone the message names before it (the writer's rewrite, `clauses.py`);
- SUSPECT, by class:
  - `new word`: a content word no source holds;
  - `holder carried (it)` / `(they)`: an opening "it" or "they" replaced (a person made "it",
    or a thing made the subject of a state the situation has);
  - `holder carried (clash)`: "she" replaced by a man of the speaker's, or "he" by a woman;
  - `holder carried (two people)`: the clause or sentence before names someone else besides
    the holder, whom the pronoun may stand for as well;
  - `holder carried (contrast)`: carried over a "but", "while", "whereas" or "though";
  - `holder carried (other)`: the opening replaced by a phrase the source's clause does not
    open with, not one of the above;
  - `reordered`: every word is the source's, in another order (a value moved to a noun).

The output is deterministic: the same input gives the same lines in the same order.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from memlane.eval.locomo import load_locomo
from memlane.ingest import ingest
from memlane.memory import Memory
from memlane.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parent.parent
DEV = "../shared/data/locomo/locomo-dev.json"  # from the repository root (not bundled)
T0 = 1767225600.0  # 2026-01-01

_spec = importlib.util.spec_from_file_location("measure_corrections",
                                               ROOT / "scripts" / "measure_corrections.py")
assert _spec is not None and _spec.loader is not None
_mc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mc)

# Words the writer may add or that carry no content of their own.
_FUNCTION = frozenset("""a an the is am are was were be been has have had do does did to of in on
    at for with and or but so now my our i we me us it its it's this that there not no by as
    from up""".split())
_PRONOUNS = frozenset("he she it they his her their him them".split())
_CONTRAST = re.compile(r"\b(?:but|while|whereas|though|although|yet)\b", re.I)
_CONTRACTIONS = [(r"(?<=\w)n['\u2019]t\b", " not"), (r"\bi['\u2019]m\b", "i am"),
                 (r"['\u2019]re\b", " are"), (r"['\u2019]ve\b", " have"),
                 (r"['\u2019]ll\b", " will"), (r"['\u2019]d\b", " would"),
                 (r"\b(he|she|it|that|there|what|who)['\u2019]s\b", r"\1 s")]
# Messages written for this check (see the module docstring).
PROBES = [
    "My boss hired Sarah and she's great.",
    "My mum visited my gran, she's 90 now.",
    "My partner met my sister, she's lovely.",
    "My brother married Anna, she is a doctor.",
    "My son has a cold and it's going round.",
    "My sister is pregnant and it's due in May.",
    "My car failed its MOT, so it's the bus for now.",
    "My cat caught a mouse and it's dead now.",
    "My son is 12 and he's shot up this year.",
    "My brother moved to Leeds, he's left his job.",
    "My dad rang my uncle, he's in hospital.",
    "My wife works with Priya and she's pregnant.",
    "My daughter invited Tom round, he's vegan.",
    "My phone fell in the bath and it's rice for a day.",
    "My husband took the car, so it's the bus for me today.",
    "My flat is tiny and it's freezing.",
    "Dave moved to Leeds, he's at Aldi now.",
    "My cat is called Pumpernickel and she is 14 years old.",
    "My boss hired Sarah. She's great.",
    "My dad visited my brother. He's not well.",
    "My son changed schools. He's at Ashgrove now.",
    "My niece and my nephew came over. She's 6.",
    "My sister lives in Bristol but she hates it.",
    "My landlord sold the flat and it's a new place for us.",
]
_FEMALE = frozenset("""mother mum mom sister wife girlfriend daughter aunt niece grandmother
    grandma granny gran nan""".split())
_MALE = frozenset("""father dad brother husband boyfriend son uncle nephew grandfather grandpa
    grandad""".split())


def words(text: str) -> list[str]:
    """`text` as lower-case words, contractions opened ("she's" -> "she s": is or has)."""
    t = text.lower()
    for pat, rep in _CONTRACTIONS:
        t = re.sub(pat, rep, t)
    return [w if w != "s" else "is" for w in re.findall(r"[a-z0-9]+(?:[.,:][0-9]+)*", t)]


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)"
                                r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _subsequence(rec: list[str], src: list[str]) -> bool:
    it = iter(src)
    return all(any(w == x or {w, x} <= {"is", "has"} for x in it) for w in rec)


_RANK = ["verbatim", "holder carried (person)", "reordered", "holder carried (other)",
         "holder carried (contrast)", "holder carried (they)", "holder carried (it)",
         "holder carried (two people)", "holder carried (clash)",
         "read from a question", "new word"]


def judge(record: str, sources: list[str]) -> tuple[str, str]:
    """The class of `record` against its source texts (see the module docstring), and the
    source sentence it was read against: each sentence of the record is judged, the worst
    class is the record's."""
    said = [_judge_one(s, sources) for s in _sentences(record)] or [("verbatim", "")]
    return max(said, key=lambda cs: _RANK.index(cs[0]))


def _judge_one(record: str, sources: list[str]) -> tuple[str, str]:
    rec = words(record)
    if not rec:  # ":)": nothing said
        return "verbatim", record
    every = {w for s in sources for w in words(s)}
    new = [w for w in rec if w not in every and w not in _FUNCTION]
    sents = [s for src in sources for s in _sentences(src)]
    asked = any(s.rstrip().endswith("?") for src in sources for s in _sentences(src))
    if new:
        return ("read from a question" if asked else "new word"), " | ".join(sents)[:300]
    carried = _carried_from(rec, sents)
    if carried is not None:
        return carried
    for s in sents:
        if _subsequence(rec, words(s)):
            return "verbatim", s
    if asked:
        return "read from a question", " | ".join(sents)
    return ("reordered" if set(rec) <= every else "holder carried (other)"), " | ".join(sents)


def _carried_from(rec: list[str], sents: list[str]) -> tuple[str, str] | None:
    """How `rec` reads a pronoun of `sents` as someone said before it: the record is that
    someone, then the words after the pronoun; None when it does not."""
    for i, s in enumerate(sents):
        sw = words(s)
        for j, w in enumerate(sw):
            if w not in _PRONOUNS:
                continue
            # the record is an owner phrase, then the words after the pronoun
            for k in range(1, min(6, len(rec))):
                head, rest = rec[:k], rec[k:]
                if rest and rest[0] in ("is", "has", "s") and w in ("his", "her", "their"):
                    continue
                prior = [x for t in sents[:i] for x in words(t)] + sw[:j]
                if rec[0] in _PRONOUNS:
                    return None  # the record keeps its pronoun: nothing carried
                if _subsequence(rest, sw[j + 1:]) and _subsequence(head, prior) and \
                        (_subsequence(rest[:2], sw[j + 1:j + 3]) or w in ("his", "her", "their")):
                    before = " ".join(sents[:i + 1])
                    prev = sents[i - 1] if i else ""
                    return _carried(w, head, s[:_at_word(s, j)], before, prev), s
    return None


def _at_word(sentence: str, n: int) -> int:
    """The character offset of the n-th word of `sentence` (as `words` counts, roughly)."""
    seen = 0
    for m in re.finditer(r"\S+", sentence):
        seen += len(words(m.group(0))) or 0
        if seen > n:
            return m.start()
    return len(sentence)


_PERSON = re.compile(r"\b(?:my|our|his|her)\s+(?:[a-z]+\s+)?(?:" + "|".join(sorted(
    _FEMALE | _MALE | {"boss", "partner", "friend", "manager", "colleague", "cousin"})) +
    r")\b|\b(?:met|married|hired|visited|rang|saw|told|with|and|invited|dating|beat)\s+"
    r"(?-i:[A-Z][a-z]+)\b(?!\s+(?-i:[A-Z]))", re.I)  # someone by name, not a firm or a place


def _carried(pronoun: str, head: list[str], lead: str, before: str, prev: str) -> str:
    said = set(head)
    near = lead if lead.strip() else prev
    people = [m.group(0) for m in _PERSON.finditer(near)
              if not (pronoun in ("she", "her") and set(words(m.group(0))) & _MALE)
              and not (pronoun in ("he", "his") and set(words(m.group(0))) & _FEMALE)]
    if pronoun not in ("it", "its") and len(people) > 1:
        return "holder carried (two people)"
    if pronoun in ("it", "its"):
        return "holder carried (it)"
    if (pronoun in ("she", "her") and said & _MALE) or (pronoun in ("he", "his") and
                                                        said & _FEMALE):
        return "holder carried (clash)"
    if pronoun in ("they", "their", "them"):
        return "holder carried (they)"
    if _CONTRAST.search(lead) and lead.strip():
        return "holder carried (contrast)"
    return "holder carried (person)" if " ".join(head) in " ".join(words(before)) else \
        "holder carried (other)"


def _file_all(store: SQLiteStore, locomo: str, data: list[Path]) -> list[tuple[str, Memory]]:
    mems: list[tuple[str, Memory]] = []
    for n, conv in enumerate(load_locomo(locomo)):
        turns = [tr for s in conv.sessions for tr in s.turns]
        first = turns[0].speaker
        mem = Memory(store, f"locomo-{n}")
        ingest(mem, "t", [{"role": "user" if tr.speaker == first else "assistant",
                           "content": tr.text, "ts": tr.ts} for tr in turns])
        mems.append(("locomo", mem))
    for path in data:
        for n, row in enumerate(_mc.load(path)):
            mem = Memory(store, f"{path.stem}-{n}")
            if "fact" in row:
                ingest(mem, "t", [{"role": "user", "content": row["fact"], "ts": T0},
                                  {"role": "assistant", "content": "Got it.", "ts": T0 + 5}])
            else:
                ingest(mem, "t", _mc._turns(row["first"], n, T0) +
                       _mc._turns([row["second"]], n + 2, T0 + 40 * _mc.DAY))
            mems.append((path.stem, mem))
    for n, said in enumerate(PROBES):
        mem = Memory(store, f"probe-{n}")
        ingest(mem, "t", [{"role": "user", "content": said, "ts": T0},
                          {"role": "assistant", "content": "I see.", "ts": T0 + 5}])
        mems.append(("probes", mem))
    return mems


def measure(locomo: str, data: list[Path]) -> dict[str, Any]:
    """Every record of every conversation filed, judged; the counts and the suspects."""
    rows: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory() as d:
        store = SQLiteStore(Path(d) / "faithful.db")
        for name, mem in _file_all(store, locomo, data):
            said = {m.id: m.content for t in ["t"] for m in mem.thread(t).messages()}
            for r in sorted(mem.records(limit=100_000), key=lambda r: r.id):
                srcs = [said[i] for i in r.source_ids if i in said]
                if not srcs:
                    continue
                cls, src = judge(r.text.split(" [newer than")[0], srcs)
                rows.append({"set": name,
                             "class": cls, "record": r.text, "source": src})
        store.close()
    return {"records": len(rows), "by_class": dict(sorted(Counter(r["class"] for r in rows)
                                                          .items())),
            "rows": rows}


SAFE = ("verbatim", "holder carried (person)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locomo", default=DEV, help="path of the LoCoMo development split")
    ap.add_argument("--data", nargs="*", type=Path, help="data files (default: every "
                    "tests/data/corrections_*.jsonl and planted_facts_*.jsonl)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list the carried holders the writer is allowed too")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    data = args.data if args.data is not None else \
        sorted((ROOT / "tests" / "data").glob("corrections_*.jsonl")) + \
        sorted((ROOT / "tests" / "data").glob("planted_facts_*.jsonl"))
    out = measure(args.locomo, data)
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    suspects = [r for r in out["rows"] if r["class"] not in SAFE]
    print(f"records {out['records']}; suspect {len(suspects)}")
    for cls, n in out["by_class"].items():
        print(f"  {cls}: {n}{'' if cls in SAFE else ' (suspect)'}")
    shown = out["rows"] if args.verbose else suspects
    for cls in out["by_class"]:
        rows = [r for r in shown if r["class"] == cls and cls != "verbatim"]
        if rows:
            print(f"\n== {cls} ({len(rows)})")
        for r in rows:
            print(f"  [{r['set']}] {r['record']!r}\n      <- {r['source']!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
