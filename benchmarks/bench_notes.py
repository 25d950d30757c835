"""`Thread.context` with a new message (so with the notes search), on one thread of N messages.

    python benchmarks/bench_notes.py 4000 /tmp/notes.db     # builds the database on first run

The thread is `ingest`ed (filed as it goes by the heuristic): user/assistant pairs over a
20-word vocabulary, each user message a fact with its own number. Then 100 distinct new messages
("what did I say about X and Y?") are timed after 20 warm-up calls; p50 and p90 are printed.
"""

from __future__ import annotations

import os
import random
import sys
import time

from memlane import Memory
from memlane.cli.core import ingest

WORDS = ("flight hotel Lisbon dog sitter Dana nurse shift tram Alfama dinner pasteis Sintra card"
         " photos fado novel sunset bands chores").split()


def main(n: int, path: str) -> None:
    rnd = random.Random(1)
    if not os.path.exists(path):
        msgs = []
        for i in range(n // 2):
            w = rnd.sample(WORDS, 4)
            msgs.append({"role": "user", "content": f"My {w[0]} plan number {i} is about {w[1]}"
                         f" and {w[2]}, I like {w[3]} a lot."})
            msgs.append({"role": "assistant", "content": f"Noted about {w[0]} and {w[1]}."})
        m = Memory.open(path)
        t0 = time.perf_counter()
        ingest(m, "t", msgs)
        print(f"ingest {n} messages: {time.perf_counter() - t0:.1f} s")
        m.close()
    m = Memory.open(path)
    t = m.thread("t")
    qs = [f"what did I say about {a} and {b}?" for a in WORDS for b in WORDS[:5]]
    for q in qs[:20]:
        t.context(budget=4000, new_message=q)
    ts = []
    for q in qs:
        t0 = time.perf_counter()
        t.context(budget=4000, new_message=q)
        ts.append(time.perf_counter() - t0)
    ts.sort()
    print(f"context p50 {ts[len(ts) // 2] * 1000:.2f} ms  p90 {ts[int(len(ts) * .9)] * 1000:.2f}"
          f" ms  (records {len(m.records(limit=100000))})")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
