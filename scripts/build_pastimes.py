"""Build `src/memlane/data/pastimes.txt`: the things a person studies, learns, plays or does as
a pastime, one `kind<TAB>term` a line, read once by `step/pastimes.py` to tell that
"Portuguese" is a language, "viola" an instrument and "padel" a sport, so that "I've dropped
Spanish and gone for Portuguese instead" replaces "I'm learning Spanish on Duolingo".

    pip install --target /tmp/pastime-build pycountry pretty-midi  (build time only; --no-deps)
    PYTHONPATH=src:/tmp/pastime-build python scripts/build_pastimes.py

Sources, per kind:
- `language`: the ISO 639-1 languages (the ones with a two-letter code) as pycountry
  (LGPL-2.1-only) names them, a qualifier in brackets dropped ("Malay (macrolanguage)":
  "Malay"), less names that are an everyday word or a place (`NOT_LANGUAGES`: "Ewe",
  "Tonga"), and the ones people say they learn that ISO 639-1 lacks or spells otherwise
  (`MORE_LANGUAGES`: "Mandarin", "Cantonese", "Punjabi", "British Sign Language").
  Written as named, capitalised: matched case-sensitively.
- `instrument`: the General MIDI program names as pretty-midi (MIT) lists them
  (`pretty_midi.constants.INSTRUMENT_MAP`), less synthesiser patches and sound effects
  ("Pad 3 (polysynth)", "Gunshot"), each name and its head ("Acoustic Grand Piano": "grand
  piano", "piano"), and the instruments of bands, sessions and school music rooms that GM
  lacks (`MORE_INSTRUMENTS`: "ukulele", "bodhran", "tin whistle", "euphonium").
- `voice`: the voice parts (soprano ... bass), written here.
- `subject`, `sport`, `pastime`: written for memlane from general knowledge (the same licence
  as memlane): school (GCSE, A level, Leaving Cert, high school) and university subjects; sports
  and exercise people do weekly ("padel", "pickleball", "parkrun", "bouldering", "hurling");
  crafts and pastimes ("crochet", "pottery", "birdwatching"). Words that are mostly something
  else are left out ("pool", "spin", "tap", "walking", "reading", "bridge").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "memlane" / "data" / "pastimes.txt"

NOT_LANGUAGES = frozenset("""Ewe Ido Tonga Kongo Nauru Ganda Sango Komi Venda Pali Cree Twi
    Herero Avaric Avestan Ndonga Kuanyama Interlingue Interlingua Volapük Church Chamorro
    Marshallese Kalaallisut Limburgan Hiri Sichuan Bislama Aragonese Divehi Dzongkha Fulah
    Kanuri Rundi Swati Zhuang Inupiaq Ojibwa Ossetian Chuvash Haitian Kirghiz Oriya""".split())
"""Names that are an everyday word, a place or a name more often than a language people say
they learn ("Ewe", "Tonga", "Venda"), or a liturgical or rare one; a name is left out when
any of its words is here ("Church Slavic", "Hiri Motu")."""
MORE_LANGUAGES = """Mandarin|Cantonese|Punjabi|Farsi|Greek|Modern Greek|Ancient Greek|Gaelic|
    Irish Gaelic|Scottish Gaelic|Swahili|Malay|Nepali|Filipino|Tagalog|Hokkien|Brazilian
    Portuguese|Sign Language|British Sign Language|BSL|ASL|Makaton|Auslan|Irish Sign Language|
    Catalan|Creole|Patois|Te Reo|Te Reo Maori|Norwegian|Flemish|Klingon|Old English|Old Norse|
    Biblical Hebrew|Koine Greek"""
MORE_INSTRUMENTS = """ukulele|uke|mandolin|bodhran|bodhrán|tin whistle|penny whistle|low whistle|
    uilleann pipes|bagpipes|double bass|bass guitar|electric guitar|acoustic guitar|
    classical guitar|guitar|drums|drum kit|keyboard|saxophone|sax|euphonium|cornet|
    flugelhorn|baritone horn|tenor horn|horn|harp|lute|concertina|melodeon|button accordion|
    synth|synthesiser|synthesizer|theremin|tabla|djembe|steel pan|steelpan|didgeridoo|organ|
    piano|violin|cello|viola|clarinet|bass clarinet|trumpet|trombone|bass trombone|tuba|oboe|
    bassoon|flute|piccolo|recorder|harmonica|banjo|fiddle|sitar|marimba|xylophone|
    glockenspiel|vibraphone|timpani|percussion|cajon|cajón|handpan|kora|oud|erhu|guzheng|
    bouzouki|balalaika|harpsichord|zither|dulcimer|hammered dulcimer|ocarina|kalimba"""
VOICES = "soprano|mezzo|mezzo-soprano|alto|contralto|countertenor|tenor|baritone|bass"
_NOT_INSTRUMENT = re.compile(r"^(?:Lead|Pad|FX|Synth)\b|Noise|Hit|Aahs|Oohs|Ensemble|Section|"
                             r"Strings|Seashore|Tweet|Ring|Helicopter|Applause|Gunshot|Box|"
                             r"Tinkle|Agogo|Woodblock|Melodic|Reverse|Blown|Harmonics|Taiko|"
                             r"Shanai|Clavinet|Overdriven|Distortion|Slap|Fretless|Bright|"
                             r"Honky|Percussive|Drawbar|Rock|Reed|Tango")

SUBJECTS = """maths|math|mathematics|further maths|statistics|english|english literature|
    english language|history|ancient history|geography|physics|chemistry|biology|science|
    combined science|economics|politics|government|political science|psychology|sociology|
    philosophy|theology|religious studies|law|medicine|nursing|midwifery|dentistry|pharmacy|
    veterinary science|veterinary medicine|accounting|accountancy|finance|business|
    business studies|management|marketing|computer science|computing|software engineering|
    engineering|mechanical engineering|civil engineering|electrical engineering|
    chemical engineering|aerospace engineering|architecture|art|fine art|art history|
    history of art|graphic design|product design|design and technology|drama|theatre studies|
    music|media studies|film studies|classics|archaeology|anthropology|linguistics|
    modern languages|education|social work|criminology|data science|astrophysics|
    biochemistry|biomedical science|neuroscience|zoology|marine biology|ecology|
    environmental science|geology|sport science|sports science|physical education|
    food technology|textiles|journalism|fashion|physiotherapy|occupational therapy|
    paramedic science|public health|international relations|ppe|liberal arts|creative writing|
    nutrition|hospitality|tourism|agriculture|forestry|pre-med|pre-law|kinesiology|
    communications|human geography|physical geography|philosophy and theology|child development|
    health and social care|applied science|electronics|further mathematics|pure maths|
    applied maths|ict"""
SPORTS = """football|soccer|five-a-side|rugby|rugby league|rugby union|touch rugby|tag rugby|
    cricket|tennis|padel|squash|badminton|table tennis|ping pong|pickleball|golf|netball|
    basketball|volleyball|beach volleyball|hockey|ice hockey|field hockey|lacrosse|baseball|
    softball|american football|flag football|aussie rules|afl|gaelic football|gaelic|hurling|
    camogie|curling|bowls|lawn bowls|tenpin bowling|bowling|darts|snooker|boxing|kickboxing|
    karate|judo|taekwondo|tae kwon do|jiu-jitsu|jiu jitsu|jujitsu|bjj|mma|muay thai|kung fu|
    aikido|fencing|wrestling|archery|swimming|running|jogging|parkrun|cycling|road cycling|
    mountain biking|triathlon|rowing|kayaking|canoeing|paddleboarding|paddle boarding|sailing|
    surfing|windsurfing|kitesurfing|climbing|rock climbing|bouldering|skiing|snowboarding|
    skating|ice skating|roller skating|roller derby|skateboarding|gymnastics|athletics|
    yoga|hot yoga|pilates|reformer pilates|barre|spinning|spin classes|zumba|crossfit|
    aerobics|aqua aerobics|aquafit|weightlifting|powerlifting|bodybuilding|dancing|dance|
    ballet|tap dancing|salsa|ballroom|ballroom dancing|line dancing|street dance|hip hop|
    contemporary dance|irish dancing|highland dancing|hiking|hillwalking|walking football|
    orienteering|horse riding|riding|showjumping|dressage|polo|water polo|dodgeball|
    ultimate frisbee|ultimate|frisbee golf|disc golf|handball|korfball|shinty|tai chi|
    marathon running|trail running|fell running|open water swimming|wild swimming|
    cross-country|cross country|rounders|squash rackets|racquetball|bootcamp|boot camp|
    hyrox|calisthenics|circuit training|cheerleading|pole dancing|pole fitness|belly dancing|
    trampolining|diving|synchronised swimming|water skiing|wakeboarding|motocross|karting"""
PASTIMES = """knitting|crochet|crocheting|sewing|quilting|embroidery|cross-stitch|cross stitch|
    needlepoint|pottery|ceramics|painting|watercolours|watercolors|watercolour|oil painting|
    drawing|sketching|life drawing|photography|woodwork|woodworking|woodturning|baking|
    gardening|birdwatching|birding|fishing|angling|fly fishing|chess|poker|board games|
    dungeons and dragons|d&d|warhammer|calligraphy|origami|candle making|jewellery making|
    jewelry making|scrapbooking|model railways|model making|lego|jigsaws|jigsaw puzzles|
    metal detecting|genealogy|family history|astronomy|stargazing|amateur dramatics|am-dram|
    am dram|karaoke|beekeeping|upcycling|macrame|macramé|weaving|spinning wool|felting|
    lino printing|printmaking|glass blowing|stained glass|archery tag|geocaching|
    foraging|wild camping|cosplay|cake decorating|home brewing|homebrewing|bird watching"""


def _words(block: str) -> list[str]:
    return [w.strip() for w in re.split(r"\|", " ".join(block.split())) if w.strip()]


def languages() -> set[str]:
    """The ISO 639-1 languages as pycountry names them, and `MORE_LANGUAGES`."""
    import pycountry  # (build time only)

    path = Path(pycountry.__file__).parent / "databases" / "iso639-3.json"
    rows = json.loads(path.read_text(encoding="utf-8"))["639-3"]
    out = set()
    for row in rows:
        if "alpha_2" not in row:
            continue
        name = re.sub(r"\s*\(.*\)$", "", row["name"]).strip()
        if name in NOT_LANGUAGES or any(w in NOT_LANGUAGES for w in name.split()):
            continue
        out.add(name)
    return out | set(_words(MORE_LANGUAGES))


def _gm_names() -> list[str]:
    import importlib.util

    spec = importlib.util.find_spec("pretty_midi")
    assert spec is not None and spec.submodule_search_locations, "pip install pretty-midi"
    path = Path(next(iter(spec.submodule_search_locations))) / "constants.py"
    loaded = importlib.util.spec_from_file_location("pretty_midi_constants", path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)  # (constants alone: the package's own imports need mido)
    return list(module.INSTRUMENT_MAP)


def gm_instruments() -> set[str]:
    """The General MIDI instruments (each name less its number and brackets, and its head),
    less patches and effects, and `MORE_INSTRUMENTS`."""
    out = set()
    for name in _gm_names():
        if _NOT_INSTRUMENT.search(name):
            continue
        plain = re.sub(r"\s*\(.*\)|\s+\d+$", "", name).strip().lower()
        words = plain.split()
        out.add(plain)
        if len(words) > 1:
            out.add(" ".join(words[-2:]))
            out.add(words[-1])
    out -= {"acoustic grand piano", "acoustic bass", "acoustic piano", "electric piano",
            "electric grand piano", "electric bass", "string", "bells"}
    return out | set(_words(MORE_INSTRUMENTS))


def main() -> None:
    rows = [("language", w) for w in sorted(languages())]
    rows += [("instrument", w) for w in sorted(gm_instruments())]
    rows += [("voice", w) for w in _words(VOICES)]
    rows += [(kind, w) for kind, block in (("subject", SUBJECTS), ("sport", SPORTS),
                                           ("pastime", PASTIMES)) for w in sorted(_words(block))]
    head = ("# kind<TAB>term, built by scripts/build_pastimes.py: languages from pycountry's ISO "
            "639-1 names (LGPL-2.1-only) and a list written for memlane; instruments from "
            "pretty-midi's General MIDI names (MIT) and a written list; voice parts, subjects, "
            "sports and pastimes written for memlane (memlane's licence)")
    OUT.write_text(head + "\n" + "".join(f"{k}\t{w}\n" for k, w in dict.fromkeys(rows)),
                   encoding="utf-8")
    print(f"wrote {len(rows)} terms to {OUT}")


if __name__ == "__main__":
    main()
