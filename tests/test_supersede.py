"""The supersede rule (`step/supersede.py`), tried on conversations written for it.

Each correction thread is: a fact, small talk, the correction weeks later in its own wording,
more small talk, filed by the offline heuristic through the real `Memory` on both engines (the
`store` fixture). Checked: only the newest value is current and the old one is in the record's
dated history; unrelated facts and other people's facts are never touched; the same fact in
three threads is one record. The model step's "replaces #N" goes through the same rule.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from memlane.memory import Memory
from memlane.step.supersede import NEW, RELATED, SAME, SUPERSEDES, decide, read_claim

DAY = 86400.0
T0 = 1767225600.0  # 2026-01-01
SMALL_TALK = ["Thanks, that helps.", "What's a good podcast for a long drive?",
              "Haha, fair enough.", "Can you give me a quick pasta recipe?"]

# (first statement, the correction weeks later, a word of the old value, a word of the new)
CORRECTIONS = [
    ("I live in Manchester with my partner.", "We relocated to Glasgow in March.",
     "Manchester", "Glasgow"),
    ("My son is 5 years old.", "He turned 6 yesterday, we had a party!", "5", "6"),
    ("I work nights at the hospital.", "I switched to the day shift last week.",
     "nights", "day"),
    ("I work for Accenture as a consultant.", "I'm at Deloitte now, same role.",
     "Accenture", "Deloitte"),
    ("My rent is 1,200 dollars a month.", "They just put the rent up to 1,350 dollars.",
     "1,200", "1,350"),
    ("I drive a red Mazda 3.", "I sold the Mazda and bought a Tesla Model Y.", "red", "Tesla"),
    ("I weigh 92 kg.", "Good news, I'm down to 85 kg!", "92", "85"),
    ("My manager is Tom Baker.", "Tom moved to another team, so my manager is now Sara Lind.",
     "Baker", "Sara"),
    ("My daughter Mia is 11.", "Mia turned 12 last weekend.", "11", "12"),
    ("I'm vegetarian.", "I've started eating fish again, so I'm pescatarian now.",
     "vegetarian", "pescatarian"),
    ("My phone number is 07700 900123.", "I got a new phone number, it's 07700 900456.",
     "900123", "900456"),
    ("My appointment with the GP is on 4 March.",
     "The surgery rang and pushed my GP appointment back to 11 March.", "4", "11"),
    ("Our wifi password is bluefox42.", "We changed the wifi password to greenowl77.",
     "bluefox42", "greenowl77"),
    ("I'm 34 years old.", "I turned 35 on Friday.", "34", "35"),
    ("My train to work leaves at 7:10.",
     "They changed the timetable, my train now leaves at 7:25.", "7:10", "7:25"),
    ("Our cat Pixel is 3 years old.", "Pixel turned 4 this week.", "3", "4"),
    ("I work as a junior developer.", "I was promoted, I now work as a senior developer.",
     "junior", "senior"),
    ("My boss is Helen.", "Helen retired; Raj is my new boss now.", "Helen", "Raj"),
    ("My commute is 45 minutes.", "Since the move my commute is only 20 minutes.", "45", "20"),
    ("My parents live in Porto.", "My parents moved to Faro last year.", "Porto", "Faro"),
    ("My sister works at a bakery in Leith.", "My sister now works at a cafe in Portobello.",
     "bakery", "cafe"),
    ("My flight to Oslo is on 9 April.", "The airline moved my flight to 12 April.", "9", "12"),
]

# Written after the rule, to check it on wordings it was not built on (three it misses: a bare
# "I'm 29." holds no word a search finds; "moved up to the under-11s" reads as a move).
CORRECTIONS += [
    ("I live in Leeds, so anything up north works for me.",
     "Actually we moved to York last month, so update that.", "Leeds", "York"),
    ("My daughter is 7.", "She turned 8 on Sunday.", "7", "8"),
    ("I'm on the night shift.", "I switched to days.", "night", "days"),
    ("I work at Tesco.", "I'm at Aldi now.", "Tesco", "Aldi"),
    ("My rent is 950 pounds.", "The rent went up to 1,020 pounds from this month.", "950",
     "1,020"),
    ("My manager is Dave Hollis.", "Dave left the company; my new manager is Priya Shah.",
     "Hollis", "Priya"),
    ("I drive a 2014 Golf.", "Sold the Golf last week, got a bike now.", "2014", "bike"),
    ("I weigh 84 kg.", "I'm down to 78 kg.", "84", "78"),
    ("My husband works at Siemens.", "My husband just started at Bosch.", "Siemens", "Bosch"),
    ("We live in a flat in Hove.", "We've moved into a house in Lewes.", "Hove", "Lewes"),
    ("My son plays for the under-10s.", "My son moved up to the under-11s this season.",
     "under-10s", "under-11s"),
    ("I'm 29.", "It was my birthday yesterday, I'm 30 now.", "29", "30"),
    ("My gym membership is 35 pounds a month.", "The gym membership went up to 42 pounds.",
     "35", "42"),
    ("I'm a vegan.", "I'm not vegan anymore, I eat eggs now.", "a vegan", "not vegan"),
    ("My best friend Lou lives in Dublin.", "Lou moved to Galway in June.", "Dublin", "Galway"),
    ("My landlord is Mr Patel.", "We have a new landlord now, Mrs Okoye.", "Patel", "Okoye"),
    ("My team has 6 people.", "My team grew to 9 people.", "6", "9"),
    ("I sleep about 6 hours a night.", "These days I sleep 8 hours a night.", "6", "8"),
    ("My mum lives in Cork.", "My mum moved in with us in Leeds.", "Cork", "Leeds"),
    ("The kids' school starts at 8:45.", "The school changed the start time to 8:30.", "8:45",
     "8:30"),
]


def say(mem: Memory, tid: str, texts: list[str], t0: float) -> float:
    """Each text as a user turn with a reply, a quarter day apart; everything filed."""
    t = mem.thread(tid)
    ts = t0
    for text in texts:
        t.add("user", text, ts=ts)
        t.add("assistant", "Noted.", ts=ts + 5)
        ts += DAY / 4
        t.maybe_step()
    t.flush()
    return ts


def has(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w,.:]){re.escape(word)}(?![\w,:]|\.\d)", text) is not None


def applied(mem: Memory, old: str, new: str) -> bool:
    """Only the new value current, and the old one in that record's dated history."""
    current = [r for r in mem.records() if has(r.text, new)]
    if len(current) != 1 or any(has(r.text, old) for r in mem.records()):
        return False
    hist = mem.record_history(current[0].id)
    return any(has(h["text"], old) and h["superseded"] for h in hist)


def test_forty_two_corrections_in_varied_wording(store: Any) -> None:
    done = []
    for n, (first, second, old, new) in enumerate(CORRECTIONS):
        mem = Memory(store, f"c{n}")
        ts = say(mem, "t", [first, *SMALL_TALK], T0)
        # weeks later, in another thread for every other case: one memory per user
        say(mem, "t" if n % 2 else "later", [second, *SMALL_TALK[::-1]], ts + 40 * DAY)
        if applied(mem, old, new):
            done.append(n)
    missed = [CORRECTIONS[i][:2] for i in range(len(CORRECTIONS)) if i not in done]
    print(f"corrections applied: {len(done)} of {len(CORRECTIONS)}; missed: {missed}")
    assert len(done) >= 38, missed


def test_a_correction_never_touches_an_unrelated_record(store: Any) -> None:
    mem = Memory(store, "u")
    ts = say(mem, "a", ["We moved to York last month.",
                        "I have a dentist appointment on 12 May at 10:00.", *SMALL_TALK], T0)
    say(mem, "b", ["The dentist rang and moved my appointment to 19 May.", *SMALL_TALK],
        ts + 20 * DAY)
    texts = [r.text for r in mem.records()]
    assert "We moved to York last month." in texts
    assert not [t for t in texts if "12 May" in t] and [t for t in texts if "19 May" in t]

    mem = Memory(store, "boss")
    ts = say(mem, "a", ["My boss drives a Tesla.", "My boss's name is Dave.", *SMALL_TALK], T0)
    say(mem, "a", ["Actually my boss is Priya now, Dave retired.", *SMALL_TALK], ts + 9 * DAY)
    texts = [r.text for r in mem.records()]
    assert "My boss drives a Tesla." in texts
    assert "My boss's name is Dave." not in texts
    assert [t for t in texts if "Priya" in t]


def test_one_holder_corrected_the_other_untouched(store: Any) -> None:
    mem = Memory(store, "people")
    ts = say(mem, "a", ["My sister lives in Bristol and I live in Leeds.",
                        "My brother is 29 and I'm 31 years old.", *SMALL_TALK], T0)
    say(mem, "b", ["My sister moved to Cardiff in the spring.", "My brother turned 30.",
                   *SMALL_TALK], ts + 30 * DAY)
    texts = [r.text for r in mem.records()]
    assert "I live in Leeds." in texts and "I'm 31 years old." in texts
    assert not [t for t in texts if "Bristol" in t] and [t for t in texts if "Cardiff" in t]
    assert not [t for t in texts if has(t, "29")] and [t for t in texts if has(t, "30")]


def test_a_correction_of_one_clause_keeps_the_other(store: Any) -> None:
    mem = Memory(store, "job")
    ts = say(mem, "a", ["My employer is Novo Nordisk and my start date is 15 September 2026.",
                        *SMALL_TALK], T0)
    say(mem, "a", ["Quick update: my start date moved to 1 October 2026.", *SMALL_TALK],
        ts + 14 * DAY)
    texts = [r.text for r in mem.records()]
    assert "My employer is Novo Nordisk." in texts
    assert not [t for t in texts if "15 September" in t]
    assert [t for t in texts if "1 October 2026" in t]
    assert [h.record.text for h in mem.search("employer", 3)] == ["My employer is Novo Nordisk."]


def test_the_same_fact_in_three_threads_is_one_record(store: Any) -> None:
    mem = Memory(store, "cat")
    ts = T0
    for tid in ("a", "b", "c"):
        ts = say(mem, tid, ["My cat is called Pumpernickel and she is 14 years old.",
                            *SMALL_TALK], ts) + 3 * DAY
    texts = sorted(r.text for r in mem.records())
    assert texts == ["My cat is 14 years old.", "My cat is called Pumpernickel."]
    name = next(r for r in mem.records() if "Pumpernickel" in r.text)
    assert {m.thread_id for m in mem.messages_by_id(name.source_ids)} == {"a", "b", "c"}
    # a changed value in a fourth thread supersedes across threads
    say(mem, "d", ["Pumpernickel turned 15 last week.", *SMALL_TALK], ts + 60 * DAY)
    texts = [r.text for r in mem.records()]
    assert not [t for t in texts if has(t, "14")] and [t for t in texts if has(t, "15")]


def test_a_models_wrong_replace_is_refused_and_both_kept(store: Any) -> None:
    mem = Memory(store, "model")
    t = mem.thread("t")
    t.add("user", "My boss drives a Tesla. I live in York.", ts=T0)
    t.add("assistant", "Noted.", ts=T0 + 1)
    res = t.step({"records": [{"op": "add", "text": "My boss drives a Tesla.", "source": [1]},
                              {"op": "add", "text": "I live in York.", "source": [1]}],
                  "episode": "Boss and home.", "relevance": []}, start=1, end=2)
    tesla, york = res.added
    t.add("user", "My boss is Priya now. We moved to Leeds.", ts=T0 + 9 * DAY)
    t.add("assistant", "Noted.", ts=T0 + 9 * DAY + 1)
    res = t.step({"records": [
        {"op": "add", "text": "My boss is Priya.", "source": [3], "replaces": tesla},
        {"op": "add", "text": "We moved to Leeds.", "source": [3], "replaces": york}],
        "episode": "Changes.", "relevance": []}, start=3, end=4)
    texts = {r.id: r.text for r in mem.records()}
    assert texts[tesla] == "My boss drives a Tesla."  # refused: another attribute
    assert texts[york] == "We moved to Leeds."  # accepted: same holder and attribute
    assert [h["text"] for h in mem.record_history(york)][0] == "I live in York."
    marked = [x for x in texts.values() if "Priya" in x]
    assert marked == [f"My boss is Priya. [newer than #{tesla}; may update it]"]
    assert any(f"replacing #{tesla} refused" in w for w in res.warnings)
    assert res.updated == (york,)
    # a model's plain update across holders is refused the same way
    t.add("user", "My sister lives in Bath.", ts=T0 + 20 * DAY)
    t.add("assistant", "Noted.", ts=T0 + 20 * DAY + 1)
    res = t.step({"records": [{"op": "update", "id": york, "text": "My sister lives in Bath.",
                               "source": [5]}], "episode": "Sister.", "relevance": []},
                 start=5, end=6)
    assert mem.records([york])[0].text == "We moved to Leeds." and res.updated == ()
    assert len(res.added) == 1


@pytest.mark.parametrize(("old", "new", "verdict"), [
    ("I live in Leeds.", "Actually we moved to York last month, so update that.", SUPERSEDES),
    ("My daughter is 7.", "She turned 8 on Sunday.", SUPERSEDES),
    ("I'm on the night shift.", "I switched to days.", SUPERSEDES),
    ("I work at Tesco.", "I'm at Aldi now.", SUPERSEDES),
    ("My manager is Dave Hollis.", "My new manager is Priya Shah.", SUPERSEDES),
    ("I drive a 2014 Golf.", "Sold the Golf last week, got a bike now.", SUPERSEDES),
    ("I weigh 82 kg.", "I'm down to 78 kg.", SUPERSEDES),
    ("My rent is 950 pounds.", "The rent went up to 1,020 pounds from this month.", SUPERSEDES),
    ("We moved to York last month.", "The dentist rang and moved my appointment to 19 May.",
     NEW),
    ("My boss drives a Tesla.", "My boss is Priya now, Dave retired.", NEW),
    ("My sister lives in Bristol.", "I live in Leeds.", NEW),
    ("I live in Leeds.", "My sister moved to Cardiff.", NEW),
    ("I'm allergic to shellfish.", "I'm allergic to penicillin.", NEW),
    ("I drive to work every day.", "I drive a Golf.", NEW),
    ("My cat is called Pumpernickel.", "My cat is called Pumpernickel.", SAME),
    ("My son is 9.", "He turned 10.", SUPERSEDES),
    ("I am 40 years old.", "She turned 8 on Sunday.", NEW),  # "she" is never the speaker
    ("My sister's cat is 4 years old.", "My sister turned 40.", NEW),  # the cat's, not hers
    ("My sister is 39.", "My sister's cat turned 5.", NEW),
    ("I'm learning Spanish on Duolingo.", "Actually I'm learning Italian on Duolingo.", RELATED),
    ("I'm learning Spanish on Duolingo.", "Now I'm learning Italian on Duolingo.", NEW),
])
def test_the_rule_on_pairs(old: str, new: str, verdict: str) -> None:
    d = decide(new, [old])
    assert d.verdict == verdict, (d, read_claim(old), read_claim(new))
    assert d.reasons


def test_a_supersede_never_crosses_holders() -> None:
    """Every pair of holders, every attribute: a new value for one never replaces another's."""
    holders = ["I", "My sister", "My brother", "My mum", "My friend Ana", "My neighbour"]
    facts = ["{h} lives in Leeds.", "{h} works at Tesco.", "{h} is 40 years old.",
             "{h} drives a Golf."]
    newer = ["{h} moved to York.", "{h} works at Aldi now.", "{h} turned 41.",
             "{h} sold the Golf and got a bike."]
    for a in holders:
        for b in holders:
            for old, new in zip(facts, newer, strict=True):
                held = old.format(h=a).replace("I lives", "I live").replace(
                    "I works", "I work").replace("I is", "I am").replace("I drives", "I drive")
                said = new.format(h=b).replace("I works", "I work")
                d = decide(said, [held])
                if a != b:
                    assert d.verdict in (NEW, RELATED), (held, said, d)
                else:
                    assert d.verdict == SUPERSEDES, (held, said, d)


# Two holders with alike facts; the correction names one ("me and my sister").
PEOPLE = [
    (["My sister lives in Bath.", "I live in Bristol."], "My sister moved to Oxford.",
     "Bath", "Oxford", "I live in Bristol."),
    (["I live in Bath.", "My sister lives in Bristol."], "We moved to Frome last month.",
     "Bath", "Frome", "My sister lives in Bristol."),
    (["My brother works at Asda.", "I work at Asda too."], "My brother is at Lidl now.",
     "brother works at Asda", "Lidl", "I work at Asda too."),
    (["My son is 8.", "My daughter is 11."], "My daughter turned 12 on Monday.",
     "11", "12", "My son is 8."),
    (["My mum is 70.", "My dad is 72."], "My dad turned 73 last week.", "72", "73",
     "My mum is 70."),
    (["My husband drives a Volvo.", "I drive a Fiat 500."], "I sold the Fiat and got a Mini.",
     "Fiat 500", "Mini", "My husband drives a Volvo."),
    (["My friend Ana lives in Porto.", "My friend Rui lives in Porto too."],
     "Ana moved to Braga.", "Ana lives in Porto", "Braga",
     "My friend Rui lives in Porto too."),
    (["My manager is Kim.", "My wife's manager is Lee."], "My new manager is Sam.",
     "Kim", "Sam", "My wife's manager is Lee."),
    (["I'm on the night shift.", "My partner is on the day shift."],
     "I switched to the early shift.", "night", "early", "My partner is on the day shift."),
    (["My cat Luna is 4 years old.", "My dog Max is 4 years old."], "Luna turned 5.",
     "Luna is 4", "5", "My dog Max is 4 years old."),
    (["My rent is 800 pounds.", "My sister's rent is 800 pounds too."],
     "They put my rent up to 850 pounds.", "rent is 800 pounds.", "850",
     "My sister's rent is 800 pounds too."),
    (["My son plays football.", "My son is 9 years old.", "My nephew is 9 years old."],
     "He turned 10 yesterday.", "son is 9", "10", "My nephew is 9 years old."),
    (["My sister Mia is a nurse.", "My sister Zoe is a teacher."],
     "My sister Zoe works as a headteacher now.", "teacher.", "headteacher",
     "My sister Mia is a nurse."),
    (["My grandad lives in Kent.", "My grandma lives in Kent."], "My grandma moved to Devon.",
     "grandma lives in Kent", "Devon", "My grandad lives in Kent."),
    (["I weigh 70 kg.", "My brother weighs 70 kg."], "I'm down to 66 kg.", "I weigh 70",
     "66", "My brother weighs 70 kg."),
    (["My boss drives a BMW.", "I drive a Golf."], "My boss sold the BMW and drives a Tesla.",
     "BMW.", "Tesla", "I drive a Golf."),
]


def test_people_the_other_holder_is_never_touched(store: Any) -> None:
    updated = 0
    missed = []
    for n, (facts, correction, old, new, other) in enumerate(PEOPLE):
        mem = Memory(store, f"p{n}")
        ts = say(mem, "a", [*facts, *SMALL_TALK], T0)
        say(mem, "b", [correction, *SMALL_TALK], ts + 30 * DAY)
        texts = [r.text for r in mem.records()]
        assert other in texts, (n, texts)  # the other holder: untouched, every case
        if [t for t in texts if new in t] and not [t for t in texts if old in t]:
            updated += 1
        else:
            missed.append(texts)
    print(f"people: corrected holder updated {updated} of {len(PEOPLE)}; missed {missed}")
    assert updated >= 14


def test_forgetting_one_fact_of_a_sentence_keeps_the_other(store: Any) -> None:
    """One sentence, two records: forgetting one takes its words out of the message and leaves
    the other fact, its record and its words."""
    mem = Memory(store, "forget")
    t = mem.thread("t")
    t.add("user", "My sister Ana lives in Bristol and I live in Leeds.")
    t.add("assistant", "Noted.")
    t.flush()
    recs = {r.text: r.id for r in mem.records()}
    assert set(recs) == {"My sister Ana lives in Bristol.", "I live in Leeds."}
    assert mem.forget(recs["My sister Ana lives in Bristol."])
    assert [r.text for r in mem.records()] == ["I live in Leeds."]
    (said,) = [m.content for m in t.messages() if m.role == "user"]
    assert "Bristol" not in said and "Ana" not in said and "Leeds" in said


@pytest.mark.parametrize("again", [
    "Like I said before, celery is a no for me.",
    "As I mentioned, celery is a no for me.",
    "like i told you already, celery is a no for me",
])
def test_a_fact_said_again_as_said_is_the_same_fact(again: str) -> None:
    assert decide(again, ["Celery is a no for me."]).verdict == SAME


def test_a_fact_said_again_in_another_thread_is_one_record(tmp_path: Any) -> None:
    mem = Memory.open(str(tmp_path / "m.db"))
    for tid, said in (("a", "Celery is a no for me, I get hives from it."),
                      ("b", "Like I said before, celery is a no for me, I get hives from it.")):
        t = mem.thread(tid)
        t.add("user", said)
        t.add("assistant", "Noted.")
        t.step()
    assert sum("elery" in r.text for r in mem.records(limit=-1)) == 1
