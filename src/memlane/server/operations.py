"""The operation table of the REST API: each route's method, path, handler, parameters, body
and response schemas, in one place; `create_app` routes from it and `openapi_spec` (the
/openapi.json document, and docs/API.md through `apidoc`) is written from it."""

from __future__ import annotations

from typing import Any

from .._version import __version__
from ..step.schema import STEP_SCHEMA
from ..validate import ID_SCHEMA, INT64_MAX, KINDS, RECORD_ID_SCHEMA
from .openapi import Operation, Param, build_spec
from .rest import (
    h_add_record,
    h_append,
    h_context,
    h_delete_record,
    h_delete_thread,
    h_export,
    h_forget,
    h_ledger,
    h_record,
    h_records,
    h_search,
    h_step,
    h_thread,
    h_threads,
    h_update_record,
    h_whoami,
)

API = "/v1/memlane"

_ID = ID_SCHEMA  # a thread id's rule (`validate.identifier`), stated in the spec
_THREAD = Param("thread_id", "path", _ID,
                "Thread (conversation) id")
_RECORD = Param("record_id", "path", {"type": "integer", "minimum": 1, "maximum": INT64_MAX},
                "Record id")
_LIMIT = Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 1000,
                                  "default": 100})
_OFFSET = Param("offset", "query", {"type": "integer", "minimum": 0, "maximum": 10**9,
                                    "default": 0})
_SEQ = {"type": "integer", "minimum": 1, "maximum": 2**62}
_TEXT = {"type": "string", "minLength": 1, "maxLength": 100_000}
_TRUSTED = {"type": "boolean", "default": False,
            "description": "store the text plain even if it reads like an instruction (the "
                           "application vouches for it; the answer's `admission` and the "
                           "server's log say so). Without it a REST write is data like any "
                           "other: the same rule as every path into memory (`safety.admit`)"}
STEP_PROBLEM_OUT: dict[str, Any] = {
    "type": "object", "required": ["type", "message"],
    "description": "with `step: true`, a step that could not file: the messages are stored "
                   "(this answer is still 200), the steps filed before it stand, and the "
                   "stretch is filed by a later step",
    "properties": {"type": {"type": "string", "enum": ["step_stalled", "step_conflict",
                                                       "step_error", "upstream_error"]},
                   "message": {"type": "string"}, "start": {"type": "integer"},
                   "end": {"type": "integer"}},
}
ADMISSION_OUT: dict[str, Any] = {
    "type": "object", "required": ["quarantined", "reason", "flags"],
    "properties": {"quarantined": {"type": "boolean"},
                   "reason": {"type": "string", "enum": ["clean", "flagged",
                                                         "said by the user",
                                                         "trusted by the caller"]},
                   "flags": {"type": "array", "items": {"type": "string"}}},
}

MESSAGE_IN: dict[str, Any] = {
    "type": "object",
    "required": ["role", "content"],
    "additionalProperties": False,
    "properties": {
        "role": {"type": "string", "enum": ["system", "user", "assistant", "tool"]},
        "content": {"type": "string", "maxLength": 1_000_000},
        "ts": {"type": ["number", "null"], "minimum": 0, "maximum": 1e11,
               "description": "epoch seconds (default: now)"},
        "name": {"type": ["string", "null"], "maxLength": 200},
    },
}
MESSAGE_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["id", "thread_id", "seq", "role", "content", "ts", "tokens"],
    "properties": {
        "id": {"type": "integer"}, "thread_id": {"type": "string"}, "seq": {"type": "integer"},
        "role": {"type": "string"}, "content": {"type": "string"}, "ts": {"type": "number"},
        "tokens": {"type": "integer"}, "relevance": {"type": ["number", "null"]},
        "name": {"type": ["string", "null"]},
    },
}
THREAD_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["namespace", "thread_id", "created", "last_active", "messages", "filed_to"],
    "properties": {
        "namespace": {"type": "string"}, "thread_id": {"type": "string"},
        "created": {"type": "number"}, "last_active": {"type": "number"},
        "messages": {"type": "integer"}, "filed_to": {"type": "integer"},
    },
}
EPISODE_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["thread_id", "start", "end", "line", "record_ids", "date"],
    "properties": {
        "thread_id": {"type": "string"}, "start": {"type": "integer"},
        "end": {"type": "integer"}, "line": {"type": "string"},
        "record_ids": {"type": "array", "items": {"type": "integer"}},
        "date": {"type": "number"}, "suspect": {"type": "boolean"},
    },
}
RECORD_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["id", "namespace", "text", "kind", "source_ids"],
    "properties": {
        "id": {"type": "integer"}, "namespace": {"type": "string"}, "text": {"type": "string"},
        "kind": {"type": "string"}, "source_ids": {"type": "array", "items": {"type": "integer"}},
        "thread_id": {"type": ["string", "null"]}, "created": {"type": "number"},
        "updated": {"type": "number"}, "pinned": {"type": "boolean"},
        "suspect": {"type": "boolean"}, "stated": {"type": "number"},
    },
}
HISTORY_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["text", "op", "stated"],
    "properties": {
        "text": {"type": "string"}, "op": {"type": "string"}, "changed": {"type": "number"},
        "stated": {"type": "number"}, "superseded": {"type": ["number", "null"]},
        "superseded_by": {"type": "array", "items": {"type": "integer"}},
        "sources": {"type": "array", "items": {"type": "integer"}},
    },
}
STEP_RESULT_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["thread_id", "start", "end", "added", "updated", "deleted", "episode"],
    "properties": {
        "thread_id": {"type": "string"}, "start": {"type": "integer"}, "end": {"type": "integer"},
        "added": {"type": "array", "items": {"type": "integer"}},
        "updated": {"type": "array", "items": {"type": "integer"}},
        "deleted": {"type": "array", "items": {"type": "integer"}},
        "episode": {"anyOf": [EPISODE_OUT, {"type": "null"}]},
        "dropped_ids": {"type": "array", "items": {"type": "string"}},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "replaced": {"type": "boolean"},
    },
}
CONTEXT_OUT: dict[str, Any] = {
    "type": "object",
    "required": ["thread_id", "messages", "tools", "trace"],
    "properties": {
        "thread_id": {"type": "string"},
        "system_prompt_from": {
            "enum": ["memory", "proxy"],
            "description": "proxy: the system prompt is the one the proxy last sent upstream "
                           "for this thread (the client's own); memory: memlane's policy's"},
        "messages": {"type": "array", "items": {
            "type": "object", "required": ["role", "content", "layer"],
            "properties": {"role": {"type": "string"}, "content": {"type": "string"},
                           "layer": {"type": "string"}}}},
        "tools": {"type": "array", "items": {"type": "object"}},
        "trace": {
            "type": "object",
            "required": ["budget", "tokens_total", "tokens_by_layer", "buffer"],
            "properties": {
                "budget": {"type": "integer"}, "tokens_total": {"type": "integer"},
                "tokens_by_layer": {"type": "object",
                                    "additionalProperties": {"type": "integer"}},
                "buffer": {"type": "object"}, "dropped": {"type": "array"},
                "window_start": {"type": ["integer", "null"]},
                "working_scores": {"type": "object",
                                   "additionalProperties": {"type": "number"}},
            },
        },
    },
}


_COMPACTED = {"type": ["boolean", "null"], "description": "whether the store was compacted "
              "after the forget, so the text is gone from its files (null: compaction is off)"}


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(props), "properties": props}


OPERATIONS: list[Operation] = [
    Operation("GET", f"{API}/threads", h_threads, "List threads, most recently active first",
              "listThreads", (_LIMIT, _OFFSET),
              response=_obj(threads={"type": "array", "items": THREAD_OUT}), tags=("threads",)),
    Operation("GET", f"{API}/threads/{{thread_id}}", h_thread,
              "A thread: its bookkeeping, messages (paged by seq) and buffer lines", "getThread",
              (_THREAD, Param("start", "query", {**_SEQ, "default": 1}, "first seq"),
               Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 10000,
                                        "default": 1000})),
              response=_obj(thread=THREAD_OUT,
                            messages={"type": "array", "items": MESSAGE_OUT},
                            episodes={"type": "array", "items": EPISODE_OUT}),
              tags=("threads",)),
    Operation("DELETE", f"{API}/threads/{{thread_id}}", h_delete_thread,
              "Forget a thread: its messages, buffer lines, the records filed from it and its "
              "snapshots (counts by kind)", "deleteThread",
              (_THREAD,), response=_obj(deleted=_obj(thread_id={"type": "string"}),
                                              compacted=_COMPACTED),
              tags=("threads", "forget")),
    Operation("POST", f"{API}/threads/{{thread_id}}/messages", h_append,
              "Append messages in order (creates the thread); `step: true` files due stretches "
              "(a step that cannot file is reported in `step_problem`: the messages are stored)",
              "appendMessages", (_THREAD,),
              body={"type": "object", "required": ["messages"], "additionalProperties": False,
                    "properties": {
                        "messages": {"type": "array", "items": MESSAGE_IN, "minItems": 1,
                                     "maxItems": 1000},
                        "step": {"type": "boolean", "default": False,
                                 "description": "run due memory steps now (offline "
                                                "heuristic unless a model is configured)"}}},
              response={**_obj(messages={"type": "array", "items": MESSAGE_OUT},
                               steps={"type": "array", "items": STEP_RESULT_OUT}),
                        "properties": {
                            "messages": {"type": "array", "items": MESSAGE_OUT},
                            "steps": {"type": "array", "items": STEP_RESULT_OUT},
                            "step_problem": STEP_PROBLEM_OUT}},
              tags=("threads",)),
    Operation("GET", f"{API}/threads/{{thread_id}}/context", h_context,
              "The assembled context for the next model call, by layer, with its trace",
              "getContext",
              (_THREAD,
               Param("budget", "query", {"type": "integer", "minimum": 1, "maximum": 10**7,
                                         "default": 4000}, "token budget"),
               Param("message", "query", {"type": "string", "maxLength": 100_000},
                     "the new user message, if any"),
               Param("tools", "query", {"type": "boolean", "default": True},
                     "offer (and count) memlane's memory tools")),
              response=CONTEXT_OUT, tags=("context",)),
    Operation("POST", f"{API}/threads/{{thread_id}}/step", h_step,
              "Apply a memory step: `output` is the step JSON (STEP_SCHEMA), validated, applied "
              "in one transaction; without it the configured extractor files the next stretch. "
              "Malformed output is 422 with `problems` and changes nothing; a stretch that is "
              "filed already (or overlaps one), or an output with nothing left to file, is 409.",
              "applyStep", (_THREAD,),
              body={"type": "object", "additionalProperties": False, "properties": {
                  "output": {"anyOf": [STEP_SCHEMA | {"additionalProperties": True},
                                       {"type": "string"}, {"type": "null"}]},
                  "start": _SEQ, "end": _SEQ}},
              response=_obj(result={"anyOf": [STEP_RESULT_OUT, {"type": "null"}]}),
              tags=("memory step",),
              errors=(("409", "The stretch overlaps one filed already, or an output was given "
                              "with nothing left to file; nothing was applied"),),
              checked_by_handler=(("output", {"type": ["object", "string", "null"]}),)),
    Operation("GET", f"{API}/records", h_records, "List long-term records", "listRecords",
              (_LIMIT, _OFFSET,
               Param("ids", "query", {"type": "string", "pattern": r"^[0-9]{1,19}(,[0-9]{1,19})"
                                      r"{0,199}$"}, "only these ids, comma-separated")),
              response=_obj(records={"type": "array", "items": RECORD_OUT}), tags=("records",)),
    Operation("POST", f"{API}/records", h_add_record, "Add a record", "addRecord",
              body={"type": "object", "required": ["text"], "additionalProperties": False,
                    "properties": {"text": _TEXT,
                                   "kind": {"type": "string", "enum": list(KINDS)},
                                   "pinned": {"type": "boolean"},
                                   "thread_id": _ID,
                                   "trusted": _TRUSTED}},
              response=_obj(record=RECORD_OUT, admission=ADMISSION_OUT), status=201,
              tags=("records",)),
    Operation("GET", f"{API}/records/{{record_id}}", h_record,
              "A record, and with `sources=true` the messages it came from, with "
              "`history=true` its versions (when each was stated and superseded)", "getRecord",
              (_RECORD, Param("sources", "query", {"type": "boolean", "default": False}),
               Param("history", "query", {"type": "boolean", "default": False})),
              response={**_obj(record=RECORD_OUT),
                        "properties": {"record": RECORD_OUT,
                                       "sources": {"type": "array", "items": MESSAGE_OUT},
                                       "history": {"type": "array", "items": HISTORY_OUT}}},
              tags=("records",)),
    Operation("PATCH", f"{API}/records/{{record_id}}", h_update_record,
              "Replace a record's text (its history keeps the old one), or pin it",
              "updateRecord", (_RECORD,),
              body={"type": "object", "additionalProperties": False, "minProperties": 1,
                    "properties": {"text": _TEXT, "pinned": {"type": "boolean"},
                                   "trusted": _TRUSTED}},
              response={**_obj(record=RECORD_OUT),
                        "properties": {"record": RECORD_OUT, "admission": ADMISSION_OUT}},
              tags=("records",)),
    Operation("DELETE", f"{API}/records/{{record_id}}", h_delete_record, "Delete a record",
              "deleteRecord", (_RECORD,),
              response=_obj(deleted=_obj(record_id={"type": "integer"}),
                            compacted=_COMPACTED),
              tags=("records", "forget")),
    Operation("GET", f"{API}/search", h_search,
              "Search long-term records (hybrid lexical + vector when an embedder is set)",
              "search",
              (Param("q", "query", {"type": "string", "minLength": 1, "maxLength": 2000},
                     required=True),
               Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 100,
                                        "default": 10})),
              response=_obj(query={"type": "string"}, results={"type": "array", "items": _obj(
                  record=RECORD_OUT, score={"type": "number"})}), tags=("records",)),
    Operation("POST", f"{API}/forget", h_forget,
              "Forget one record, one thread, or the whole namespace (exactly one)", "forget",
              body={"anyOf": [
                  {"type": "object", "required": ["record_id"], "additionalProperties": False,
                   "properties": {"record_id": RECORD_ID_SCHEMA}},
                  {"type": "object", "required": ["thread_id"], "additionalProperties": False,
                   "properties": {"thread_id": _ID}},
                  {"type": "object", "required": ["namespace"], "additionalProperties": False,
                   "properties": {"namespace": {"type": "boolean", "enum": [True],
                                                "description": "forget everything of this "
                                                               "namespace"}}}]},
              response=_obj(deleted={"type": "object"}, compacted=_COMPACTED),
              tags=("forget",)),
    Operation("GET", f"{API}/export", h_export, "Everything this namespace holds, as JSON",
              "export", response=_obj(namespace={"type": "string"}, format={"type": "string"},
                                      threads={"type": "array"}, records={"type": "array"}),
              tags=("export",)),
    Operation("GET", f"{API}/ledger", h_ledger,
              "Quality ledger rows of this namespace (when the ledger exists)", "ledger",
              (Param("thread_id", "query", _ID),
               Param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 10000,
                                        "default": 500})),
              response=_obj(enabled={"type": "boolean"},
                            rows={"type": "array", "items": {"type": "object"}}),
              tags=("ledger",)),
    Operation("GET", f"{API}/whoami", h_whoami, "The namespace this key reads and writes",
              "whoami", response=_obj(namespace={"type": "string"},
                                      dev_mode={"type": "boolean"},
                                      version={"type": "string"}, proxy={"type": "boolean"}),
              tags=("meta",)),
]


def openapi_spec(dev: bool = False) -> dict[str, Any]:
    from .proxy import OPENAPI_PATH

    return build_spec(
        OPERATIONS, title="memlane", version=__version__, auth=not dev,
        description="Memory and context engine for LLM agents: REST API, plus an "
                    "OpenAI-compatible proxy at /v1/chat/completions and MCP at /mcp.",
        extra_paths=OPENAPI_PATH,
    )
