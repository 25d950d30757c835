"""Handlers for the memory tools the model is offered (`recall.schemas.TOOL_SCHEMAS`).

    tools = MemoryTools(memory, thread_id="support-42")
    out = tools.call("search_memory", {"query": "order number"})   # always a JSON-ready dict

Rules every handler follows, because its caller is an agent loop, not a person:

- it never raises into the loop: an unknown tool, a bad argument or an unknown id comes back as
  `{"error": "..."}` with a message that says what to do instead;
- its result is bounded in tokens (`max_tokens`, default 1200): long texts are shortened and
  trailing items dropped, and a `note` says so (the model can then narrow its request);
- it is scoped to the memory's namespace: ids of another namespace are indistinguishable from
  ids that do not exist;
- model-written text is untrusted: records and snapshots flagged by the injection scan (when
  written, or now) are withheld, and the result says how many.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import MemlaneError
from ..memory import Memory
from ..recall.schemas import TOOL_SCHEMAS
from ..safety import is_suspect, neutralise
from ..types import Record
from ..validate import date_text

log = logging.getLogger("memlane.tools")

DEFAULT_MAX_TOKENS = 1200
MAX_LIMIT = 20
MAX_OPEN = 50

# name -> (type, required); one table for validation and for the error messages.
_ARGS: dict[str, dict[str, tuple[type, bool]]] = {
    "search_memory": {"query": (str, True), "limit": (int, False), "kind": (str, False)},
    "open_memory": {"ids": (list, True), "sources": (bool, False)},
    "remember": {"text": (str, True), "kind": (str, False)},
    "update_memory": {"id": (int, True), "text": (str, True)},
    "forget": {"id": (int, True)},
    "recall": {"query": (str, True), "limit": (int, False)},
}


_ID_TEXT = re.compile(r"\s*#?(\d{1,18})\s*")


def _record_ids(v: Any) -> Any:
    """Record ids as models often send them, "74" or "#74" (the notes show ids as #74), read as
    the integers they name; anything else is left for the type check to refuse."""
    if isinstance(v, str):
        m = _ID_TEXT.fullmatch(v)
        return int(m.group(1)) if m else v
    if isinstance(v, list):
        return [_record_ids(x) if isinstance(x, str) else x for x in v]
    return v


class ToolError(Exception):
    """A tool call the handler refuses; becomes `{"error": message}`."""


def _date(ts: float | None) -> str | None:
    return date_text(ts, "%Y-%m-%d %H:%M")


class MemoryTools:
    """The six memory tools, bound to one `Memory` (one namespace)."""

    schemas = TOOL_SCHEMAS

    def __init__(self, memory: Memory, *, max_tokens: int = DEFAULT_MAX_TOKENS,
                 thread_id: str | None = None) -> None:
        """`thread_id`: the conversation the tools are used in; records the model saves and
        snapshots are attributed to it."""
        self.memory = memory
        self.max_tokens = max_tokens
        self.thread_id = thread_id
        self._handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "search_memory": self._search_memory,
            "open_memory": self._open_memory,
            "remember": self._remember,
            "update_memory": self._update_memory,
            "forget": self._forget,
            "recall": self._recall,
        }

    @property
    def names(self) -> list[str]:
        return list(self._handlers)

    # entry points ------------------------------------------------------------------------------
    def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> dict[str, Any]:
        """Run tool `name`. `arguments` is a dict or its JSON text (as models send it)."""
        handler = self._handlers.get(name) if isinstance(name, str) else None
        if handler is None:
            return {"error": f"unknown tool {name!r}: the memory tools are "
                             f"{', '.join(self._handlers)}"}
        try:
            args = self._validate(name, arguments)
            out = handler(args)
        except ToolError as e:
            return {"error": str(e)}
        except MemlaneError as e:
            return {"error": str(e)}
        except Exception:  # noqa: BLE001 - the promise above: a tool never raises into the loop
            # Input is validated before the store sees it, so this is a bug or an outage; the
            # driver's message (SQL, values) stays in the log, not in the model's context.
            log.exception("memory tool %s failed", name)
            return {"error": f"{name}: the memory store failed on this call; try again later, "
                             "or go on without it"}
        return self._bound(out)

    def save_snapshot(self, tool: str, args: Mapping[str, Any], result: Any) -> dict[str, Any]:
        """Keep a tool result for `recall` in later conversations (identical results are kept
        once). Returns `{"id", "stored"}` or `{"error"}`."""
        try:
            snap, new = self.memory.save_snapshot(tool, args, result, thread_id=self.thread_id)
        except MemlaneError as e:
            return {"error": str(e)}
        return {"id": snap.id, "stored": new}

    # validation --------------------------------------------------------------------------------
    def _validate(self, name: str, arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
        if arguments is None:
            arguments = {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as e:
                raise ToolError(f"{name}: arguments are not valid JSON ({e.msg})") from None
        if not isinstance(arguments, Mapping):
            raise ToolError(f"{name}: arguments must be a JSON object")
        spec = _ARGS[name]
        unknown = [k for k in arguments if k not in spec]
        if unknown:
            raise ToolError(f"{name}: unknown argument(s) {', '.join(map(str, unknown))}; "
                            f"it takes {', '.join(spec)}")
        out: dict[str, Any] = {}
        for key, (typ, required) in spec.items():
            if key not in arguments or arguments[key] is None:
                if required:
                    raise ToolError(f"{name}: missing required argument {key!r}")
                continue
            v = _record_ids(arguments[key]) if key in ("id", "ids") else arguments[key]
            if typ is int and isinstance(v, str) and v.strip().isdigit() and len(v) < 10:
                v = int(v)  # a count sent as text ("5"), as some clients and models do
            ok = isinstance(v, typ) and not (typ is int and isinstance(v, bool))
            if not ok:
                raise ToolError(f"{name}: {key!r} must be {_TYPE_NAMES[typ]}, got {v!r:.60}")
            out[key] = v
        return out

    # handlers ----------------------------------------------------------------------------------
    def _limit(self, args: dict[str, Any], default: int) -> int:
        n = args.get("limit", default)
        if not 1 <= n <= MAX_LIMIT:
            raise ToolError(f"limit must be from 1 to {MAX_LIMIT}, got {n}")
        return int(n)

    def _record_view(self, r: Record, score: float | None = None) -> dict[str, Any]:
        if r.suspect or is_suspect(r.text):
            return {"id": r.id, "withheld": "flagged by the injection scan; not shown"}
        # Links and images defused: a result must not make the client fetch a URL.
        out: dict[str, Any] = {"id": r.id, "text": neutralise(r.text), "kind": r.kind,
                               "date": _date(r.updated)}
        if r.thread_id is not None:
            out["thread"] = r.thread_id
        if r.pinned:
            out["pinned"] = True
        if score is not None:
            out["score"] = round(score, 4)
        return out

    def _search_memory(self, args: dict[str, Any]) -> dict[str, Any]:
        query = args["query"].strip()
        if not query:
            raise ToolError("search_memory: query is empty; say what to look for")
        kinds = [args["kind"]] if "kind" in args else None
        hits = self.memory.search(query, self._limit(args, 5), kinds=kinds)
        results = [self._record_view(h.record, h.score) for h in hits]
        out: dict[str, Any] = {"query": query, "results": results}
        withheld = sum(1 for r in results if "withheld" in r)
        if withheld:
            out["withheld"] = withheld
        if not results:
            out["note"] = "no records match; try other words, or recall for past tool results"
        return out

    def _open_memory(self, args: dict[str, Any]) -> dict[str, Any]:
        ids = args["ids"]
        if not ids:
            raise ToolError("open_memory: ids is empty; pass record ids such as [12, 15]")
        if len(ids) > MAX_OPEN:
            raise ToolError(f"open_memory: at most {MAX_OPEN} ids at once, got {len(ids)}")
        if any(isinstance(i, bool) or not isinstance(i, int) for i in ids):
            raise ToolError("open_memory: ids must be integers (record ids such as 12, shown "
                            "as #12 in memory notes)")
        wanted = list(dict.fromkeys(ids))
        recs = {r.id: r for r in self.memory.records(wanted)}
        missing = [i for i in wanted if i not in recs]
        if not recs:
            raise ToolError(f"open_memory: no records with ids {missing} in this memory (they "
                            "may have been forgotten); search_memory finds current ones")
        views = [self._record_view(recs[i]) for i in wanted if i in recs]
        if args.get("sources"):
            src_ids = sorted({m for r in recs.values() for m in r.source_ids})
            msgs = {m.id: m for m in self.memory.messages_by_id(src_ids)}
            for v in views:
                r = recs[v["id"]]
                if "withheld" in v:
                    continue
                v["sources"] = [
                    {"thread": m.thread_id, "seq": m.seq, "role": m.role, "date": _date(m.ts),
                     "content": m.content}
                    for m in (msgs.get(i) for i in r.source_ids) if m is not None
                ]
        out: dict[str, Any] = {"records": views}
        if missing:
            out["not_found"] = missing
        return out

    def _remember(self, args: dict[str, Any]) -> dict[str, Any]:
        rec = self.memory.remember(args["text"], args.get("kind", "fact"),
                                   thread_id=self.thread_id)
        out: dict[str, Any] = {"id": rec.id, "saved": True, "kind": rec.kind}
        if rec.suspect:
            out["note"] = "saved, but flagged by the injection scan: it will not be shown"
        return out

    def _update_memory(self, args: dict[str, Any]) -> dict[str, Any]:
        rec = self.memory.update(args["id"], args["text"])
        return {"id": rec.id, "updated": True, "text": rec.text}

    def _forget(self, args: dict[str, Any]) -> dict[str, Any]:
        if not self.memory.forget(args["id"]):
            raise ToolError(f"forget: no record #{args['id']} in this memory (already "
                            "forgotten, or never saved)")
        return {"id": args["id"], "forgotten": True}

    def _recall(self, args: dict[str, Any]) -> dict[str, Any]:
        query = args["query"].strip()
        if not query:
            raise ToolError("recall: query is empty; describe the tool result you need")
        hits = self.memory.recall(query, self._limit(args, 3))
        results = []
        for h in hits:
            s = h.snapshot
            if is_suspect(s.result):
                results.append({"id": s.id, "tool": s.tool,
                                "withheld": "flagged by the injection scan; not shown"})
                continue
            results.append({"id": s.id, "tool": s.tool, "args": s.args,
                            "date": _date(s.created), "result": neutralise(s.result)})
        out: dict[str, Any] = {"query": query, "results": results}
        if not results:
            out["note"] = "no stored tool results match; call the tool again"
        return out

    # bounding ----------------------------------------------------------------------------------
    def _tokens(self, obj: Any) -> int:
        return self.memory.tokenizer.count([json.dumps(obj, ensure_ascii=False)])[0]

    def _bound(self, out: dict[str, Any]) -> dict[str, Any]:
        """Cut `out` to `max_tokens`: shorten long strings, then drop trailing items."""
        if self._tokens(out) <= self.max_tokens:
            return out
        key = next((k for k in ("results", "records") if isinstance(out.get(k), list)), None)
        budget = max(self.max_tokens - 60, 1)  # room for the note
        items: list[Any] = out.get(key, []) if key else []
        total = len(items)
        share = max(budget // max(total, 1), 40)
        tk = self.memory.tokenizer

        def cut(v: Any, n: int) -> Any:
            if isinstance(v, str):
                return v if tk.count([v])[0] <= n else tk.head(v, n) + " [...cut]"
            if isinstance(v, list):
                return [cut(x, max(n // max(len(v), 1), 20)) for x in v]
            if isinstance(v, dict):
                return {k: cut(x, n) for k, x in v.items()}
            return v

        if key:
            out[key] = items = [cut(x, share) for x in items]
            while items and self._tokens(out) > budget:
                items.pop()
        else:
            for k, v in list(out.items()):
                out[k] = cut(v, budget // max(len(out), 1))
        shown = len(items)
        out["note"] = (f"result cut to fit {self.max_tokens} tokens: long texts shortened"
                       + (f", {total - shown} of {total} items not shown" if shown < total else "")
                       + "; ask for fewer results or open ids one at a time")
        return out


_TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false",
               list: "a list"}
