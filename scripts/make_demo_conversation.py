"""Writes src/memlane/data/demo_conversation.jsonl: the demo's bundled conversation.

Hand-written lines (no benchmark data), arranged deterministically: four facts planted in the
first turns, then a long conversation that pushes them out of any small window.
Run: python scripts/make_demo_conversation.py
"""

import json
from pathlib import Path

PLANTED = [
    ("Hi! I'm Dana. Before anything else: I'm allergic to peanuts, so keep that in mind for any "
     "recipes you suggest.", "Nice to meet you, Dana. Noted: no peanuts in anything I suggest."),
    ("My dog is called Biscuit, he's a three-year-old beagle and he hates thunderstorms.",
     "Biscuit sounds lovely. Beagles are famously sensitive to loud noises."),
    ("My flight to Lisbon is on June 14th, TAP flight TP 1353, leaving Boston at 7:40 in the "
     "evening.", "Got it: TP 1353 to Lisbon on June 14th, departing 7:40 pm."),
    ("I work as a night-shift nurse at St. Mary's, so I usually sleep until about 2 pm.",
     "Thanks, I'll keep your schedule in mind when suggesting times."),
]

TOPICS = {
    "packing": [
        "What should I pack for a week in Lisbon in June?",
        "Is it worth bringing a rain jacket or is June always dry there?",
        "How many pairs of shoes would you take for walking the hills?",
        "Should I bring an adapter, or do they use the same plugs as Boston?",
    ],
    "neighbourhoods": [
        "Which neighbourhood is nicer to stay in, Alfama or Chiado?",
        "Is Bairro Alto too loud at night for someone who sleeps badly?",
        "How far is Belem from the centre by tram?",
        "Are the trams worth it or should I just walk everywhere?",
    ],
    "food": [
        "What dishes should I try in Lisbon?",
        "Are pasteis de nata something I can find everywhere or only at certain bakeries?",
        "Is grilled sardine season already running in June?",
        "Can you suggest a simple dinner I could cook in an apartment kitchen there?",
    ],
    "dog": [
        "Who should look after the dog while I'm away, a sitter or a kennel?",
        "How do I make a sitter's instructions short but complete?",
        "Should I leave the sitter my vet's number and the insurance card?",
        "What's a good way to keep a dog calm during a storm when I'm not home?",
    ],
    "work": [
        "How do I shift my sleep schedule before a flight after a run of night shifts?",
        "Is melatonin a reasonable idea for jet lag or does it just make you groggy?",
        "How many days before the trip should I stop taking extra shifts?",
        "Any tips for staying awake on the first afternoon after landing?",
    ],
    "day_trips": [
        "Is Sintra worth a day trip, and how do I get there?",
        "Should I book Pena Palace tickets in advance?",
        "What about Cascais, is the beach there nice in June?",
        "Could I fit Sintra and Cascais into a single day or is that too much?",
    ],
    "money": [
        "Should I use cash or card in Lisbon?",
        "Is tipping expected in restaurants there?",
        "Roughly what does a good dinner cost per person?",
        "Are there tourist cards that actually save money on transport?",
    ],
    "language": [
        "Which Portuguese phrases are worth learning before I go?",
        "How do I say thank you politely, obrigado or obrigada?",
        "Do most people in shops speak English?",
        "Is there an app you'd recommend for learning a few words a day?",
    ],
    "photos": [
        "Where are the best viewpoints for sunset photos?",
        "Is Miradouro da Senhora do Monte very crowded at sunset?",
        "Should I bring my old camera or just use my phone?",
        "Any tips for photographing the tiled facades without glare?",
    ],
    "fado": [
        "Where can I hear fado without it being a tourist trap?",
        "Do fado houses expect you to order dinner?",
        "How late do the performances usually start?",
        "Is it rude to talk during the singing?",
    ],
    "books": [
        "Can you recommend a novel set in Lisbon to read on the plane?",
        "Is Pessoa's Book of Disquiet hard going for a beginner?",
        "What about something lighter, maybe a mystery?",
        "Should I buy paper books there or stick to the e-reader?",
    ],
    "return": [
        "What do I need to sort out before flying home?",
        "How early should I be at Lisbon airport for a flight back to the US?",
        "Can I bring a bottle of port in my checked bag?",
        "Any last things you'd tell a first-time visitor?",
    ],
    "fitness": [
        "How do I keep up my running routine while travelling?",
        "Are there good running routes along the river in Lisbon?",
        "Is it too hot to run there in the middle of the day in June?",
        "Should I pack resistance bands or just do bodyweight workouts?",
    ],
    "weekend": [
        "Can you help me plan the last weekend before the trip?",
        "What chores should I batch on Saturday so Sunday is free?",
        "Is it a good idea to do a test pack the weekend before?",
        "How do I avoid forgetting things on the morning I leave?",
    ],
}

REPLIES = [
    "Good question. In short: keep it simple, and plan one thing per day so you have slack.",
    "I'd go with the lighter option; you can always buy what you forgot once you're there.",
    "Most visitors find that works well, especially early in the day before it gets busy.",
    "That depends a little on your energy, but it's very doable with a bit of planning.",
    "Yes, that's a sensible plan. Write it down somewhere you'll see it the day before.",
]


def main() -> None:
    msgs = []
    ts = 1_780_000_000.0  # a fixed start so the demo is reproducible
    for u, a in PLANTED:
        msgs.append({"role": "user", "content": u, "ts": ts})
        msgs.append({"role": "assistant", "content": a, "ts": ts + 20})
        ts += 90
    i = 0
    for _topic, qs in TOPICS.items():
        for q in qs:
            msgs.append({"role": "user", "content": q, "ts": ts})
            msgs.append({"role": "assistant", "content": REPLIES[i % len(REPLIES)], "ts": ts + 25})
            ts += 120
            i += 1
    out = Path(__file__).resolve().parents[1] / "src/memlane/data/demo_conversation.jsonl"
    out.write_text("".join(json.dumps(m) + "\n" for m in msgs), encoding="utf-8")
    print(f"wrote {len(msgs)} messages to {out}")


if __name__ == "__main__":
    main()
