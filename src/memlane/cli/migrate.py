"""`memlane migrate`: bring a store's schema up to date, and say what that did.

Opening a store already applies its migrations (in a transaction, under an advisory lock on
PostgreSQL), so this command is for deployments that want the schema change to be its own step:
run it once from a release job, as a user allowed to create tables and extensions, before rolling
out the service processes, which then open the store and find nothing to do.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..memory import open_store
from ..store import migrations
from . import JSON_HELP, emit


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "migrate",
        help="apply the store's schema migrations and print their numbers",
        description="Open the store given by --db (a SQLite path or postgresql:// URL), apply "
                    "every migration it lacks, and print the migration numbers: all applied, "
                    "and those this run applied.",
    )
    p.add_argument("--json", action="store_true", help=JSON_HELP)
    p.set_defaults(func=cmd_migrate)


def cmd_migrate(args: argparse.Namespace) -> int:
    # $MEMLANE_DB may hold a postgresql:// URL: resolve it here so it is routed as one.
    target = args.db if args.db is not None else os.environ.get("MEMLANE_DB") or None
    store = open_store(target)
    try:
        applied = list(store.migrations_applied())
        run = store.migrations_run  # what this open applied, on either engine
        engine = store.capabilities.engine
        known = [m.number for m in (migrations.POSTGRES if engine == "postgresql"
                                    else migrations.SQLITE)]
        new = list(run)
        unknown = [n for n in applied if n not in known]
        data: dict[str, Any] = {
            "store": store.url,
            "engine": engine,
            "applied": applied,
            "new": new,
            "latest": max(known),
            "unknown": unknown,
        }
    finally:
        store.close()
    if data["new"]:
        text = f"{data['store']}: applied migrations {_nums(new)}"
    else:
        text = f"{data['store']}: up to date"
    text += f" (schema at {max(applied)}; migrations recorded: {_nums(applied)})"
    if data["unknown"]:
        text += (f"\nwarning: migrations {_nums(unknown)} were applied by a newer "
                 "memlane; upgrade this installation before writing to the store")
    emit(data, args.json, text)
    return 0


def _nums(ns: list[int]) -> str:
    return ", ".join(str(n) for n in ns) or "none"
