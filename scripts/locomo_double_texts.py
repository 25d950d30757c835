"""Write LoCoMo development conversations as `memlane ingest` JSONL threads with double texts.

Each conversation becomes one thread: the first speaker is the user, the second the assistant,
every session in order (consecutive turns of one speaker stay consecutive). Every 7th user turn
is followed by a second user message that plants a fact ("By the way, my locker code is K1234."),
so the thread has double texts all along, at every offset from a stretch boundary.

    python scripts/locomo_double_texts.py ../shared/data/locomo/locomo-dev.json OUTDIR

The data is read by path and the threads are written outside the repository (CC BY-NC 4.0: never
copy it into the project). Prints one line per thread: its file, messages and double texts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memlane.eval.locomo import load_locomo


def main(src: str, outdir: str) -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    for conv in load_locomo(src):
        msgs: list[dict[str, object]] = []
        users = doubles = 0
        for session in conv.sessions:
            for turn in session.turns:
                role = "user" if turn.speaker == conv.speaker_a else "assistant"
                msgs.append({"role": role, "content": turn.text, "ts": turn.ts})
                if role == "user":
                    users += 1
                    if users % 7 == 0:
                        doubles += 1
                        msgs.append({"role": "user", "ts": turn.ts, "content":
                                     f"By the way, my locker code is K{1000 + doubles}."})
        path = out / f"{conv.sample_id}.jsonl"
        path.write_text("".join(json.dumps(m) + "\n" for m in msgs))
        print(f"{path}: {len(msgs)} messages, {doubles} double texts")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
