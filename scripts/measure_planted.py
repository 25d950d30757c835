"""Planted-fact recall of the offline writer on long threads of real dialogue.

    PYTHONPATH=src python scripts/measure_planted.py [--locomo PATH] [--facts FILE] [--json]

The LoCoMo development split's conversations (by path, never copied) are the filler: each of
72 threads is a stretch of one conversation's real turns (its first speaker as the user, the
other as the assistant), with one first-person fact written for this planted among them as a
user turn, at a different depth each time, some alone, some inside chatter, in a question or
with fillers. Each thread is filed as an agent files it (`Thread.maybe_step`, then `flush`),
by the heuristic writer, on a SQLite file. A fact counts as filed when a record sourced from
its turn holds its key value (case folded). Reports filed / planted and the misses.

`--facts FILE` plants another list instead of the built-in one: JSON lines, each
`{"fact": <the user's turn>, "key": <its key value>}` (tests/data/planted_facts_*.jsonl,
written by others than the built-in list, which the writer was tuned on).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from memlane.eval.locomo import load_locomo
from memlane.memory import Memory
from memlane.store.sqlite import SQLiteStore

DEV = "../shared/data/locomo/locomo-dev.json"  # from the repository root (not bundled)
TURNS = 80
"""Real turns around each planted fact (the thread's length)."""

# (the user's turn that plants the fact, its key value)
PLANTED = [
    ("I live in Sheffield, near the botanical gardens.", "Sheffield"),
    ("My dog is a beagle called Waffles.", "Waffles"),
    ("I'm allergic to kiwi fruit, by the way.", "kiwi"),
    ("I'm vegetarian, so no meat please.", "vegetarian"),
    ("We're planning a trip to Kyoto in October.", "Kyoto"),
    ("My daughter Freya is 9 years old.", "Freya"),
    ("I work as a radiographer at the Royal Infirmary.", "radiographer"),
    ("My locker code at the gym is 5512.", "5512"),
    ("Please remember that my passport expires on 3 March 2027.", "3 March 2027"),
    ("She's a corgi called Biscuit, what toys suit her?", "Biscuit"),
    ("I take 50mg of sertraline every morning.", "sertraline"),
    ("Haha yes. Oh, by the way, I'm lactose intolerant. Anyway, how was your weekend?",
     "lactose"),
    ("My husband Carlos teaches chemistry.", "chemistry"),
    ("I drive a silver Skoda Octavia.", "Octavia"),
    ("Sold the Golf last week, got a bike now.", "bike"),
    ("My rent is 1,150 euros a month.", "1,150"),
    ("I'm training for the Valencia marathon in December.", "Valencia"),
    ("My sister lives in Bristol and I live in Leeds.", "Bristol"),
    ("My employer is Novo Nordisk and my start date is 15 September 2026.", "Novo Nordisk"),
    ("I'm coeliac, so I can't eat anything with gluten.", "coeliac"),
    ("My wifi password at home is tulip-orbit-77.", "tulip-orbit-77"),
    ("I am allergic to shellfish, seriously allergic, please remember that.", "shellfish"),
    ("We have two cats, Miso and Tofu.", "Miso"),
    ("My dentist appointment is on 12 May at 9:30.", "12 May"),
    ("I grew up in Cork before moving to London.", "Cork"),
    ("My favourite band is Radiohead.", "Radiohead"),
    ("I'm learning Portuguese because my partner's family is from Recife.", "Portuguese"),
    ("My son Leo started secondary school this year.", "Leo"),
    ("I'm on the night shift at the warehouse.", "night shift"),
    ("I manage a team of 14 engineers.", "14 engineers"),
    ("My birthday is on 22 August.", "22 August"),
    ("We're getting married in Lisbon next June.", "Lisbon"),
    ("I have type 1 diabetes, so I carry insulin everywhere.", "diabetes"),
    ("My mum is turning 70 in April, any gift ideas?", "70"),
    ("I'm a night owl, I usually write code until 2 a.m.", "2 a.m."),
    ("Just so you know, I don't drink alcohol.", "alcohol"),
    ("I volunteer at the food bank every Saturday morning.", "food bank"),
    ("My car insurance renews on 1 November.", "1 November"),
    ("I play bass in a jazz trio called The Blue Hours.", "Blue Hours"),
    ("My flat is on the fourth floor with no lift.", "fourth floor"),
    ("My manager is Priya Shah.", "Priya Shah"),
    ("I ride a Brompton to work every day.", "Brompton"),
    ("I'm saving up for a deposit, about 30,000 pounds so far.", "30,000"),
    ("My grandmother Rosa is from Naples.", "Naples"),
    ("I studied architecture at Delft.", "Delft"),
    ("I'm pregnant, due in February, so no soft cheese for me.", "February"),
    ("I'm flying to Toronto on 6 July for a conference.", "Toronto"),
    ("My phone number is 07700 900482.", "07700 900482"),
    ("Okay cool. I keep bees on my allotment, three hives now.", "bees"),
    ("I'm terrified of heights, so no rooftop bars.", "heights"),
    ("My brother Sam is a firefighter in Glasgow.", "firefighter"),
    ("We adopted a rescue greyhound named Pepper last spring.", "Pepper"),
    ("I can't eat peanuts, I carry an EpiPen.", "peanuts"),
    ("I'm doing a PhD in marine biology at Plymouth.", "marine biology"),
    ("I usually wake up at 5:45 for my run.", "5:45"),
    ("My partner Alex is a nurse at St Thomas'.", "nurse"),
    ("I only drink oat milk.", "oat milk"),
    ("I have a 2018 Honda Jazz with 60,000 miles on it.", "Honda Jazz"),
    ("Remember that my anniversary is on 14 February.", "14 February"),
    ("I'm moving to Berlin in September for a new job.", "Berlin"),
    ("My kids are 4 and 7, what films would they like?", "4 and 7"),
    ("I speak Dutch, English and some Turkish.", "Turkish"),
    ("I run a small bakery called Crumb & Co.", "Crumb"),
    ("I'm on blood pressure medication, amlodipine 5mg.", "amlodipine"),
    ("My favourite food is my dad's lamb tagine.", "tagine"),
    ("I have a season ticket at Anfield.", "Anfield"),
    ("I was born in 1988 in Accra.", "Accra"),
    ("My niece Amara just turned 16.", "Amara"),
    ("I use a wheelchair, so step-free access matters to me.", "wheelchair"),
    ("Our wedding budget is 12,000 pounds.", "12,000"),
    ("I'm halal, so please keep recipes pork-free.", "halal"),
    ("My therapist is Dr. Okafor and I see her on Thursdays.", "Okafor"),
]


def _thread(mem: Memory, tid: str, turns: list[tuple[str, str]], fact: str, at: int,
            t0: float) -> int:
    """Write the thread (real turns, the fact at `at`) and file it; the planted message id."""
    t = mem.thread(tid)
    planted = 0
    ts = t0
    for i, (role, text) in enumerate(turns):
        if i == at:
            planted = t.add("user", fact, ts=ts).id
            t.add("assistant", "Got it.", ts=ts + 5)
            ts += 60
            t.maybe_step()
        t.add(role, text, ts=ts)
        ts += 60
        if role == "user":
            t.maybe_step()
    t.flush()
    return planted


def load_facts(path: str) -> list[tuple[str, str]]:
    """The planted facts of a JSON-lines file (`{"fact": ..., "key": ...}` a line); a line
    that is not one says which and why."""
    facts: list[tuple[str, str]] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            fact, key = row["fact"], row["key"]
        except (ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{path}:{n}: not a planted fact ({e}); "
                             'write {"fact": "...", "key": "..."}') from None
        if not isinstance(fact, str) or not isinstance(key, str) or \
                key.lower() not in fact.lower():
            raise SystemExit(f"{path}:{n}: the key must be text inside the fact")
        facts.append((fact, key))
    return facts


def measure(path: str, planted: list[tuple[str, str]] | None = None) -> dict[str, object]:
    planted = PLANTED if planted is None else planted
    convs = load_locomo(path)
    filed: list[str] = []
    missed: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as d:
        store = SQLiteStore(Path(d) / "planted.db")
        for i, (fact, key) in enumerate(planted):
            conv = convs[i % len(convs)]
            real = [tr for s in conv.sessions for tr in s.turns]
            first = real[0].speaker
            start = (i * 37) % max(1, len(real) - TURNS)
            turns = [("user" if tr.speaker == first else "assistant", tr.text)
                     for tr in real[start:start + TURNS]]
            at = [3, 25, 50, 77][i % 4]  # depth in the thread
            mem = Memory(store, f"p{i}")
            mid = _thread(mem, "t", turns, fact, at, real[start].ts)
            recs = [r for r in mem.records(limit=10_000) if mid in r.source_ids]
            if any(key.lower() in r.text.lower() for r in recs):
                filed.append(fact)
            else:
                missed.append({"fact": fact, "key": key, "records": [r.text for r in recs]})
        store.close()
    return {"planted": len(planted), "filed": len(filed), "missed": missed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locomo", default=DEV, help="path of the LoCoMo development split")
    ap.add_argument("--facts", help="a JSON-lines file of planted facts (default: the built-in"
                    " list)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args()
    out = measure(args.locomo, load_facts(args.facts) if args.facts else None)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"planted facts filed: {out['filed']} of {out['planted']}")
    for m in out["missed"]:  # type: ignore[attr-defined]
        print(f"  missed {m['key']!r}: {m['fact']}  -> {m['records']}")


if __name__ == "__main__":
    main()
