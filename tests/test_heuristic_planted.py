"""Planted-fact recall of the offline writer on long threads of real dialogue, with facts written
apart from the writer's rules (`scripts/measure_planted.py --facts`):

- `tests/data/planted_facts_b.jsonl` (72): written before the writer's rules for facts without
  "I" (appositives, "the X who ... was Y", a thing's name, someone by name, facts inside
  questions); 62 filed then, tuned on since;
- `tests/data/planted_facts_c.jsonl` (24): written after those rules and never tuned on;
  measured once at 19 (main before them: 14).

Each thread is a stretch of the LoCoMo development split's conversations (not bundled: the
test skips without it) filed by the heuristic writer on a real SQLite file.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = Path(os.environ.get("MEMLANE_LOCOMO_DEV", "")
              or ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json")
B_FILED = 72
C_FILED = 19


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("measure_planted",
                                                  ROOT / "scripts" / "measure_planted.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not LOCOMO.is_file(), reason="the LoCoMo dev split is not here")
@pytest.mark.parametrize(("name", "least"), [("planted_facts_b.jsonl", B_FILED),
                                             ("planted_facts_c.jsonl", C_FILED)])
def test_planted_facts_written_apart_are_filed(name: str, least: int) -> None:
    m = _script()
    facts = m.load_facts(str(ROOT / "tests" / "data" / name))
    out = m.measure(str(LOCOMO), facts)
    assert out["planted"] == len(facts)
    assert out["filed"] >= least, out["missed"]


def test_a_facts_file_that_is_not_one_says_which_line(tmp_path: Path) -> None:
    m = _script()
    bad = tmp_path / "facts.jsonl"
    bad.write_text('{"fact": "My cat is Miso.", "key": "Miso"}\n{"fact": "no key"}\n')
    with pytest.raises(SystemExit, match=r"facts\.jsonl:2: not a planted fact"):
        m.load_facts(str(bad))
    bad.write_text('{"fact": "My cat is Miso.", "key": "Tofu"}\n')
    with pytest.raises(SystemExit, match="the key must be text inside the fact"):
        m.load_facts(str(bad))
