"""`memlane demo`: the episodic buffer in one minute, offline.

Replays a bundled 60-turn conversation whose first turns plant four facts, files it with the
offline heuristic memory step, then asks for a planted fact at a small budget and compares what
the model would see with memlane against a plain sliding window.
"""

from __future__ import annotations

import json
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from .context.policy import Policy
from .memory import Memory
from .types import Context

QUESTION = "Remind me, what was my flight number to Lisbon?"
ANSWER = "TP 1353"


def load_demo_conversation() -> list[dict[str, Any]]:
    text = resources.files("memlane").joinpath("data/demo_conversation.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _in_view(ctx: Context, needle: str) -> bool:
    return any(needle in m.content for m in ctx.messages if m.layer != "new")


def run_demo(budget: int = 1500, as_json: bool = False, db: str | None = None) -> int:
    from .cli.core import ingest, render_context

    msgs = load_demo_conversation()
    with tempfile.TemporaryDirectory() as tmp:
        path = db or str(Path(tmp) / "demo.db")
        with Memory.open(path, namespace="demo") as mem:
            if mem.thread("lisbon-trip").exists():
                mem.thread("lisbon-trip").delete()
            stats = ingest(mem, "lisbon-trip", msgs)
            t = mem.thread("lisbon-trip")
            ctx = t.context(budget=budget, new_message=QUESTION)
            window = t.context(budget=budget, new_message=QUESTION,
                               policy=Policy(use_buffer=False, use_working=False,
                                             notes_share=0.0))
            # One pointer away: a visible buffer line whose record holds the fact.
            hit: dict[str, Any] | None = None
            for line in ctx.trace.buffer_lines:
                for rec in mem.records(list(line.record_ids)):
                    if ANSWER in rec.text and hit is None:
                        hit = {"line": line.to_dict(), "record": {"id": rec.id, "text": rec.text}}
            result = {
                "db": path if db else "(temporary)",
                "ingested": stats,
                "budget": budget,
                "question": QUESTION,
                "answer": ANSWER,
                "window_only": {"tokens": window.trace.tokens_total,
                                "fact_in_view": _in_view(window, ANSWER)},
                "memlane": {"tokens": ctx.trace.tokens_total,
                            "fact_in_view": _in_view(ctx, ANSWER),
                            "fact_in_notes": any(ANSWER in m.content for m in ctx.messages
                                                 if m.layer == "notes"),
                            "one_pointer_away": hit},
                "context": ctx.to_dict(),
            }
            if as_json:
                print(json.dumps(result, indent=2))
                return 0
            print(_story(result, render_context(ctx)))
    return 0


def _story(r: dict[str, Any], rendered: str) -> str:
    s = r["ingested"]
    hit = r["memlane"]["one_pointer_away"]
    noted = " (its record is among the notes relevant to the question)" \
        if r["memlane"]["fact_in_notes"] else ""
    out = [
        "memlane demo: the episodic buffer, offline (SQLite, heuristic memory step, no API key)",
        "",
        f"1. Replayed a {s['messages']}-message conversation about a trip to Lisbon. Its first "
        "turns plant four facts",
        "   (a peanut allergy, a dog called Biscuit, flight TP 1353, night shifts). Every 4 user "
        f"turns a memory step filed the stretch: {s['steps']} steps, {s['episodes']} buffer lines.",
        "",
        f"2. The user now asks: {r['question']!r}. This is what the model would see at a "
        f"{r['budget']}-token budget:",
        "",
        "   " + rendered.replace("\n", "\n   "),
        "",
        "3. Where is the answer (TP 1353)?",
        f"   window only  ({r['window_only']['tokens']} tokens): in view: "
        f"{'yes' if r['window_only']['fact_in_view'] else 'no'}; nothing in view says the "
        "conversation ever covered it.",
        f"   memlane      ({r['memlane']['tokens']} tokens): in view: "
        f"{'yes' if r['memlane']['fact_in_view'] else 'no'}{noted}; ",
    ]
    if hit:
        ln = hit["line"]
        out[-1] += "one pointer away:"
        out += [
            f"     buffer line (msgs {ln['start']}-{ln['end']}): {ln['line']!r} "
            f"-> records {ln['record_ids']}",
            f"     open_memory([{hit['record']['id']}]) -> {hit['record']['text']!r}",
            "",
            "The line is an index, not a summary: the fact lives once, in record "
            f"#{hit['record']['id']}, and the model decides to open it.",
        ]
    else:
        out[-1] += ("not reachable through a visible line at this budget "
                    "(search_memory still finds it).")
    out += ["", "Next: memlane --help; memlane context THREAD --budget N; docs/ for the design."]
    return "\n".join(out)
