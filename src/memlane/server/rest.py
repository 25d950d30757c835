"""The REST handlers under /v1/memlane: each is `(service, memory of the key's namespace,
validated arguments) -> JSON-ready dict`, run in the thread pool; memlane's errors become HTTP
ones in `base.error_response`. Routes, parameters and schemas are the operation table's
(`operations.py`)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any

from .._version import __version__
from ..errors import ModelError, NotFound, StepConflict, StepError, StepStalled, UsageError
from ..memory import Memory
from ..safety import Admission
from ..types import Message, Record, StepResult, public_dict
from ..validate import INT64_MAX, record_ref, record_text
from .base import Service

log = logging.getLogger("memlane.server")


def dataclass_json(obj: Any) -> Any:
    """A dataclass as JSON-ready data (tuples become lists)."""
    return json.loads(json.dumps(public_dict(obj), default=list))


def _message(m: Message) -> dict[str, Any]:
    return public_dict(m)


def _record(r: Record) -> dict[str, Any]:
    d = public_dict(r)
    d["source_ids"] = list(r.source_ids)
    return d


def _get_record(mem: Memory, record_id: int) -> Record:
    found = mem.records([record_id])
    if not found:
        raise NotFound(f"no record #{record_id} in this namespace")
    return found[0]


def h_threads(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return {"threads": [public_dict(t) for t in mem.threads(limit=a["limit"], offset=a["offset"])]}


def h_thread(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    info = t.info()
    return {
        "thread": public_dict(info),
        "messages": [_message(m) for m in t.messages(a["start"], limit=a["limit"])],
        "episodes": [public_dict(e) for e in t.episodes()],
    }


def _erased(svc: Service, mem: Memory, deleted: dict[str, Any],
            thread_id: str | None = None, ledger: bool = False) -> dict[str, Any]:
    """A forget's answer, once its text is gone from disk: the ledger's notes of the thread or
    namespace are erased and the store is compacted (`compacted` says whether it was)."""
    if ledger and svc.ledger is not None:
        svc.ledger.forget(mem.ns, thread_id)
    return {"deleted": deleted, "compacted": svc.compact_after_forget()}


def h_delete_thread(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    if not t.exists():
        raise NotFound(f"no thread {t.id!r} in this namespace")
    svc.note_sent_system(mem.ns, t.id, None)
    return _erased(svc, mem, {"thread_id": t.id, **mem.forget_thread(t.id)}, t.id, ledger=True)


def h_append(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    body = a["body"]
    added = t.extend(body["messages"])
    steps: list[StepResult] = []
    out: dict[str, Any] = {}
    if body.get("step"):
        # The messages are stored whatever the step does: a step that cannot file is reported
        # in this 200 answer (`step_problem`), never as an error status a client would read as
        # "not stored" and resend (the messages would then be stored twice).
        try:
            steps = svc.step_runner(mem.ns).file_due(t.id, max_steps=50)
        except StepStalled as e:
            steps = list(e.results)
            out["step_problem"] = {"type": "step_stalled", "message": str(e),
                                   "start": e.start, "end": e.end}
        except (StepConflict, StepError, ModelError) as e:
            kind = ("step_conflict" if isinstance(e, StepConflict) else
                    "step_error" if isinstance(e, StepError) else "upstream_error")
            out["step_problem"] = {"type": kind, "message": str(e)}
        if len(steps) == 50:  # a long import: the rest is filed in the background
            svc.submit_step(mem.ns, t.id)
    return {"messages": [_message(m) for m in added],
            "steps": [_step_result(s) for s in steps], **out}


def h_context(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    # A proxied thread's model got the client's system prompt, not memlane's: show that one.
    sent = svc.sent_system(mem.ns, t.id)
    policy = replace(mem.policy, system_prompt=sent) if sent is not None else None
    ctx = t.context(budget=a["budget"], new_message=a.get("message"),
                    tools=None if a["tools"] else [], policy=policy)
    return {"thread_id": t.id, "system_prompt_from": "proxy" if sent is not None else "memory"
            } | ctx.to_dict()


def _step_result(r: StepResult) -> dict[str, Any]:
    out: dict[str, Any] = dataclass_json(r)
    return out


def h_step(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    t = mem.thread(a["thread_id"])
    t.info()  # 404 for a thread that does not exist
    body = a["body"]
    start, end = body.get("start"), body.get("end")
    if (start is None) != (end is None):
        raise UsageError("give both start and end (the stretch's seqs), or neither for the "
                         "next pending stretch")
    res = svc.step_runner(mem.ns).file(t.id, body.get("output"), start=start, end=end)
    return {"result": None if res is None else _step_result(res)}


def h_records(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    ids = [int(x) for x in a["ids"].split(",")] if a.get("ids") else None
    if ids is not None and any(i > INT64_MAX for i in ids):
        raise NotFound("no such record ids")
    return {"records": [_record(r) for r in mem.records(ids, limit=a["limit"],
                                                        offset=a["offset"])]}


def h_record(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    r = _get_record(mem, a["record_id"])
    out: dict[str, Any] = {"record": _record(r)}
    if a["sources"]:
        out["sources"] = [_message(m) for m in
                          mem.messages_by_id(list(r.source_ids))]
    if a["history"]:
        out["history"] = mem.record_history(r.id)
    return out


def _admitted(mem: Memory, b: dict[str, Any]) -> tuple[str, Admission]:
    """A REST write's text (cleaned, as stored) and how `safety.admit` takes it: the rule of
    every path into memory, for a text an application asks to store (`origin="caller"`). Read
    once: the write and the answer share it."""
    text = record_text(b["text"])
    return text, mem.admit(text, trusted=bool(b.get("trusted", False)), origin="caller")


def _admission(mem: Memory, rec: Record, adm: Admission) -> dict[str, Any]:
    """How a REST write was taken, for the answer; a flagged text stored plain because the
    caller vouched for it is logged too."""
    if adm.flags and adm.reason == "trusted by the caller":
        log.warning("namespace %s: record #%d stored plain as trusted by the caller, though it "
                    "reads like an instruction (%s)", mem.ns, rec.id, ", ".join(adm.flags))
    return {"quarantined": rec.suspect, "reason": adm.reason, "flags": list(adm.flags)}


def h_add_record(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    b = a["body"]
    text, adm = _admitted(mem, b)
    rec = mem.remember(text, b.get("kind", "fact"), thread_id=b.get("thread_id"),
                       pinned=bool(b.get("pinned", False)), admission=adm)
    return {"record": _record(rec), "admission": _admission(mem, rec, adm)}


def h_update_record(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    b = a["body"]
    out: dict[str, Any] = {}
    if "text" in b:
        text, adm = _admitted(mem, b)
        rec = mem.update(a["record_id"], text, admission=adm)
        out["admission"] = _admission(mem, rec, adm)
    else:
        rec = _get_record(mem, a["record_id"])
    if "pinned" in b:
        rec = mem.pin(rec.id, bool(b["pinned"]))
    return {"record": _record(rec), **out}


def h_delete_record(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    rid = a["record_id"]
    if not mem.forget(rid):
        raise NotFound(f"no record #{rid} in this namespace")
    return _erased(svc, mem, {"record_id": rid})


def h_search(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    if not a["q"].strip():
        raise UsageError("q is empty: give some words to search for")
    hits = mem.search(a["q"], a["limit"])
    return {"query": a["q"], "results": [{"record": _record(h.record), "score": h.score}
                                         for h in hits]}


def h_forget(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    b = a["body"]  # validated: exactly one of the three
    if "record_id" in b:  # 74, "74" or "#74": the one id rule (`validate.RECORD_ID_SCHEMA`)
        return h_delete_record(svc, mem, {"record_id": record_ref(b["record_id"])})
    if "thread_id" in b:
        return h_delete_thread(svc, mem, {"thread_id": b["thread_id"]})
    return _erased(svc, mem, {"namespace": mem.ns, **mem.forget_namespace()}, ledger=True)


def h_export(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return mem.export()


def h_ledger(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    if svc.ledger is None:
        return {"enabled": False, "rows": []}
    rows = svc.ledger.rows(namespace=mem.ns, thread_id=a.get("thread_id"))
    return {"enabled": True, "rows": [r.to_dict() for r in rows[-a["limit"]:]]}


def h_whoami(svc: Service, mem: Memory, a: dict[str, Any]) -> dict[str, Any]:
    return {"namespace": mem.ns, "dev_mode": svc.auth.dev, "version": __version__,
            "proxy": svc.config.upstream is not None or svc.model is not None}
