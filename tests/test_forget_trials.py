"""Ten forget trials on each engine: a name, a place or a code said by the user, echoed by the
assistant, said again later, filed as a record and written into a buffer line, beside a kept
fact that shares its common words. After `forget_record` and `compact` the value is nowhere
(messages of every role, records, histories, lines, the export, `pg_stats`, the files) and the
kept fact, its message and the small talk are as they were."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from memlane.memory import Memory
from test_forget_canary import _db_bytes, _holders, _pg_stats_hold


@dataclass(frozen=True)
class Trial:
    said: str
    """The user's message stating the fact."""
    echo: str
    """The assistant's reply repeating the value."""
    later: str
    """A later user message that names the value again (not a source of the record)."""
    record: str
    line: str
    kept_said: str
    """A fact kept, sharing the forgotten one's common words."""
    kept: str
    needles: tuple[str, ...]
    """The value as it may be stored (lower case): nowhere after the forget."""


TRIALS = [
    Trial("My cat is called Crumbworth.", "Crumbworth sounds delicious!",
          "Crumbworth knocked a glass over again today.", "The user's cat is called Crumbworth.",
          "The user named their cat Crumbworth; it ended with thanks.",
          "My other cat sleeps on the sofa all day.", "The user's other cat sleeps on the sofa.",
          ("crumbworth",)),
    Trial("We just moved to Harrogate last month.", "Harrogate is lovely, enjoy the new place!",
          "The schools in Harrogate seem good so far.", "Harrogate is where the user moved to.",
          "The user moved to Harrogate; they asked about schools.",
          "My sister moved to Leeds last month as well.", "The user's sister moved to Leeds.",
          ("harrogate",)),
    Trial("My locker code at the gym is QZ-77812.", "Got it: QZ-77812 for the gym locker.",
          "Is QZ-77812 too easy to guess?", "The user's gym locker code is QZ-77812.",
          "The user shared their locker code QZ-77812; it ended with a question.",
          "The gym is open until 10pm on weekdays.", "The user's gym is open until 10pm.",
          ("qz-77812", "77812")),
    Trial("My new manager is Priya Okonkwo-Hale.", "I hope Priya Okonkwo-Hale is a good manager.",
          "Okonkwo-Hale wants a report every Friday.",
          "The user's new manager is Priya Okonkwo-Hale.",
          "The user talked about their new manager Priya Okonkwo-Hale.",
          "My old manager was strict about deadlines.",
          "The user's old manager was strict about deadlines.", ("okonkwo", "priya")),
    Trial("My passport number is X9981234.", "Noted, X9981234.", "Wait, was it X9981234? Yes.",
          "The user's passport number is X9981234.",
          "The user shared their passport number; it ended with a check.",
          "My passport expires next year.", "The user's passport expires next year.",
          ("x9981234",)),
    Trial("I grew up in Zürich.", "Zürich is beautiful in winter.",
          "Zürich had the best bakeries.", "The user grew up in Zürich.",
          "The user grew up in Zürich; bakeries came up.",
          "I grew up speaking two languages.", "The user grew up speaking two languages.",
          ("zürich", "zurich")),
    Trial("Our dog Biscuit\u2019s birthday is on 14 March.", "Happy early birthday to Biscuit!",
          "Biscuit will be five, by the way.",
          "The user's dog Biscuit has his birthday on 14 March.",
          "The user talked about Biscuit's birthday on 14 March.",
          "Our dog loves the beach.", "The user's dog loves the beach.",
          ("biscuit", "14 march")),
    Trial("My GP is Dr. Vantongeren at the Elmfield surgery.",
          "Dr. Vantongeren at Elmfield, noted.", "Vantongeren retires soon, sadly.",
          "The user's GP is Dr. Vantongeren at the Elmfield surgery.",
          "The user named their GP, Dr. Vantongeren of Elmfield.",
          "My dentist is at the surgery on the high street.",
          "The user's dentist is at the surgery on the high street.",
          ("vantongeren", "elmfield")),
    Trial("The wifi password is bluefinch2291.", "Thanks, bluefinch2291 it is.",
          "Remind me: bluefinch2291, right?", "The user's wifi password is bluefinch2291.",
          "The user shared the wifi password bluefinch2291.",
          "The wifi is slow in the evenings.", "The user's wifi is slow in the evenings.",
          ("bluefinch2291",)),
    Trial("Everyone at work calls me Moonpie.", "Moonpie is a fun nickname!",
          "Even my boss says Moonpie now.", "The user's nickname at work is Moonpie.",
          "The user's work nickname is Moonpie.",
          "I work at a bakery in town.", "The user works at a bakery in town.", ("moonpie",)),
]
SMALL_TALK = [("user", "Anyway, how are you today?"), ("assistant", "All good, thanks!")]


def _everything(mem: Memory, thread: str) -> str:
    """Every stored text of the namespace: the export (messages of every role, records with
    their histories, lines, snapshots) and each record's history as read."""
    out = [repr(mem.export())]
    out += [repr(mem.record_history(r.id)) for r in mem.records()]
    out += [e.line for e in mem.thread(thread).episodes()]
    return "\n".join(out).lower()


@pytest.mark.parametrize("n", range(len(TRIALS)))
def test_a_forgotten_value_is_nowhere_and_the_rest_stays(
        store: Any, store_kind: str, request: pytest.FixtureRequest, n: int) -> None:
    tr = TRIALS[n]
    url = request.getfixturevalue("pg_url") if store_kind == "postgres" else ""
    mem = Memory(store, f"trial{n}")
    # What holds the value before anyone said it is the package's own text (a name in the
    # evaluation's templates), not memory: only holders beyond those count.
    shipped = {h for v in tr.needles for h in _holders(mem, v)}
    t = mem.thread("t")
    said = [("user", tr.said), ("assistant", tr.echo), ("user", tr.kept_said),
            ("assistant", "Noted."), *SMALL_TALK, ("user", tr.later), ("assistant", "Ha, I see.")]
    t.extend([{"role": r, "content": c} for r, c in said])
    res = t.step({"records": [{"op": "add", "text": tr.record, "source": [1]},
                              {"op": "add", "text": tr.kept, "source": [3]}],
                  "episode": tr.line, "relevance": []}, start=1, end=len(said))
    assert res is not None
    rid, kept = res.added
    mem.update(rid, tr.record.rstrip(".") + ", as of this year.")  # a history row too
    t.context(budget=2000, new_message=tr.later)
    everything = _everything(mem, "t")
    assert all(v in everything for v in tr.needles[:1])  # the check can see it

    mem.forget_record(rid)
    mem.compact()
    everything = _everything(mem, "t")
    left = [v for v in tr.needles if v in everything]
    assert left == [], f"{left} still stored"
    holders = [h for v in tr.needles for h in _holders(mem, v) if h not in shipped]
    assert holders == [], holders
    if url:
        assert not any(_pg_stats_hold(url, v) for v in tr.needles)
    engine, data = _db_bytes(store, url)
    in_files = [v for v in tr.needles if v.encode() in data.lower()]
    assert in_files == [], f"{in_files} in the {engine} files"
    # The kept fact, its message and the small talk are as they were.
    assert [(r.id, r.text) for r in mem.records()] == [(kept, tr.kept)]
    msgs = {m.seq: m.content for m in t.messages()}
    assert msgs[3] == tr.kept_said and msgs[5] == SMALL_TALK[0][1] and msgs[6] == SMALL_TALK[1][1]
