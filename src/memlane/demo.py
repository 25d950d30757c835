"""`memlane demo`: the episodic buffer in one minute, offline.

Replays a bundled 60-turn conversation whose first turns plant four facts, files it with the
offline heuristic memory step, then asks for a planted fact at a small budget and compares what
the model would see with memlane against a plain sliding window.

The thread is kept in a database file of its own (`~/.memlane/demo.db` unless `--db` names
another), never in the user's memory, so that every "Next:" command it prints works on it; a
second run replaces the thread.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from .context.policy import Policy
from .errors import install_hint
from .ingest import ingest
from .memory import Memory
from .render import render_context
from .types import Context

QUESTION = "Remind me, what was my flight number to Lisbon?"
THREAD = "lisbon-trip"
ANSWER = "TP 1353"


def load_demo_conversation() -> list[dict[str, Any]]:
    text = resources.files("memlane").joinpath("data/demo_conversation.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _in_view(ctx: Context, needle: str) -> bool:
    return bool(_layers_with(ctx, needle))


def _layers_with(ctx: Context, needle: str) -> list[str]:
    """The layers of `ctx` whose text holds `needle` (the new message aside)."""
    return list(dict.fromkeys(m.layer for m in ctx.messages
                              if m.layer != "new" and needle in m.content))


def default_demo_db() -> str:
    """Where the demo keeps its thread unless told otherwise: beside the default memory file,
    never in it."""
    return str(Path.home() / ".memlane" / "demo.db")


def run_demo(budget: int = 1500, as_json: bool = False, db: str | None = None,
             namespace: str = "default") -> int:
    msgs = load_demo_conversation()
    path = db or default_demo_db()
    if path != ":memory:" and "://" not in path:
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
    with Memory.open(path, namespace=namespace) as mem:
        if mem.thread(THREAD).exists():
            # With its records: a rerun starts from the same state, ids aside.
            mem.forget_thread(THREAD)
        stats = ingest(mem, THREAD, msgs)
        t = mem.thread(THREAD)
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
            "db": path,
            "namespace": namespace,
            "thread": THREAD,
            "ingested": stats,
            "budget": budget,
            "question": QUESTION,
            "answer": ANSWER,
            "window_only": {"tokens": window.trace.tokens_total,
                            "fact_in_view": _in_view(window, ANSWER)},
            "memlane": {"tokens": ctx.trace.tokens_total,
                        "fact_in_view": _in_view(ctx, ANSWER),
                        "in_layers": _layers_with(ctx, ANSWER),
                        "one_pointer_away": hit},
            "program": program(),
            "next": next_commands(path, namespace, budget, program()),
            "context": ctx.to_dict(),
        }
    if as_json:
        print(json.dumps(result, indent=2))
        return 0
    print(_story(result, render_context(ctx)))
    return 0


def program() -> str:
    """How to run memlane from this shell, as printed in "Next:": `memlane` when that is on PATH
    and is this installation; else the script beside this interpreter (`.venv/bin/memlane` after
    `make demo`, which puts nothing on PATH), relative to the current directory when it is under
    it; else `PYTHON -m memlane`."""
    script = Path(sys.executable).parent / "memlane"
    found = shutil.which("memlane")
    if found and script.exists() and Path(found).resolve() == script.resolve():
        return "memlane"
    if not script.exists():
        return f"{shlex.quote(_shorter(Path(sys.executable)))} -m memlane"
    return shlex.quote(_shorter(script))


def serve_command(prog: str, db: str) -> str:
    """The "Next:" line that serves the inspector, and, when the server extra is missing, the
    command that installs it into this environment: with this interpreter's pip (a bare `pip`
    is often another environment's) and from where memlane was installed (`install_hint`)."""
    line = f"{prog} --db {shlex.quote(db)} serve    # the inspector, in a browser"
    if importlib.util.find_spec("starlette") is not None:
        return line
    pip = "pip" if prog == "memlane" else f"{shlex.quote(_shorter(Path(sys.executable)))} -m pip"
    return f"{line} (needs the server extra: {pip}{install_hint('server')[len('pip'):]})"


def _shorter(path: Path) -> str:
    """`path` relative to the current directory when it is under it (kept as a path: ./x)."""
    try:
        rel = path.absolute().relative_to(Path.cwd())
    except ValueError:
        return str(path.absolute())
    return str(rel) if os.sep in str(rel) else f".{os.sep}{rel}"


def next_commands(db: str, namespace: str, budget: int, prog: str = "memlane") -> list[str]:
    """Commands to run next, on the demo's own database (a test runs each of them). `prog`: how
    to start memlane (`program()`)."""
    pre = f"{prog} --db {shlex.quote(db)}"
    if namespace != "default":
        pre += f" -n {shlex.quote(namespace)}"
    out = [
        f"{pre} threads",
        f"{pre} context {THREAD} --budget {budget} --message {shlex.quote(QUESTION)}",
        f"{pre} show {THREAD}",
        f"{pre} search 'flight Lisbon'",
        f"{pre} records --limit 5",
    ]
    return out


def _story(r: dict[str, Any], rendered: str) -> str:
    s = r["ingested"]
    hit = r["memlane"]["one_pointer_away"]
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
        f"{'yes' if r['window_only']['fact_in_view'] else 'no'}"
        + ("." if r["window_only"]["fact_in_view"] else
           "; nothing in view says the conversation ever covered it."),
        f"   memlane      ({r['memlane']['tokens']} tokens): in view: "
        + (f"yes, in {' and '.join(r['memlane']['in_layers'])}; and "
           if r["memlane"]["fact_in_view"] else "no; "),
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
            f"#{hit['record']['id']}, and the model decides to open it"
            + (" (here the record is also shown as a note, being relevant to the question)."
               if r["memlane"]["fact_in_view"] else "."),
        ]
    elif "notes" in r["memlane"]["in_layers"]:
        out[-1] += ("its record is shown as a note, relevant to the question "
                    "(search_memory finds it too).")
    else:
        out[-1] += ("not reachable through a visible line at this budget "
                    "(search_memory still finds it).")
    out += ["", f"The thread {r['thread']!r} is kept in {r['db']} (a demo file, not your "
            "memory). Next:"]
    out += [f"  {c}" for c in r["next"]]
    prog = r["program"]
    out += [f"  {serve_command(prog, r['db'])}"]
    if prog != "memlane":
        out += ["", f"memlane is not on your PATH here: run it as {prog}"
                + (f", or `source {shlex.quote(str(Path(prog).parent))}/activate` first"
                   if prog.endswith("memlane") else "") + "."]
    out += ["", f"Every command: {prog} --help; the design: docs/."]
    return "\n".join(out)
