"""The REST API's contract: one table of operations that both validates requests and is served
as `/openapi.json`, so the published schema cannot drift from what the server accepts.

Validation is `memlane.validate.problems` (the one validator of JSON-schema-shaped input, the
memory tools' arguments too): the JSON Schema subset the table uses (type, enum, bounds,
lengths, items, properties, required, additionalProperties, anyOf), every problem reported as
`path: what is wrong`, the same shape a rejected memory step reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..validate import coerce as coerce  # re-exported: app.py, proxy.py
from ..validate import problems as problems


@dataclass(frozen=True)
class Param:
    """A path or query parameter."""

    name: str
    where: str
    """`path` or `query`."""
    schema: dict[str, Any]
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class Operation:
    """One REST operation: its route, its inputs, and what it answers."""

    method: str
    path: str
    """Starlette path, e.g. `/v1/memlane/threads/{thread_id}`; also the OpenAPI path."""
    handler: Callable[..., Any]
    summary: str
    op_id: str
    params: tuple[Param, ...] = ()
    body: dict[str, Any] | None = None
    response: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    status: int = 200
    tags: tuple[str, ...] = ()
    errors: tuple[tuple[str, str], ...] = ()
    """Error statuses this operation answers beyond the common ones, each with its meaning."""
    checked_by_handler: tuple[tuple[str, dict[str, Any]], ...] = ()
    """Body fields the handler validates itself (with better messages than the schema's), each
    with the looser schema checked here: e.g. a memory step's output, whose problems come back
    from `parse_step`."""

    def body_validator(self) -> dict[str, Any] | None:
        if self.body is None or not self.checked_by_handler:
            return self.body
        props = dict(self.body["properties"])
        for name, loose in self.checked_by_handler:
            props[name] = loose
        return {**self.body, "properties": props}


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["message", "type"],
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "problems": {"type": "array", "items": {"type": "string"}},
            },
        }
    },
}

_ERRORS = {
    "400": "Invalid request (bad JSON, a bad argument, a budget too small)",
    "401": "Missing or invalid API key (`Authorization: Bearer KEY`)",
    "403": "Dev mode (no keys): the request was not addressed to localhost",
    "404": "No such thread, record or route in this namespace",
    "413": "Request body over the size limit",
    "415": "Body is not JSON",
    "422": "Body failed validation; `problems` lists what is wrong",
}


def build_spec(ops: list[Operation], *, title: str, version: str, description: str,
               extra_paths: dict[str, Any] | None = None, auth: bool = True) -> dict[str, Any]:
    """The OpenAPI 3.1 document for `ops`."""
    paths: dict[str, Any] = {}
    for op in ops:
        responses: dict[str, Any] = {
            str(op.status): {"description": "OK",
                             "content": {"application/json": {"schema": op.response}}},
        }
        for code, text in _ERRORS.items():
            if (code == "401" and not auth) or (code == "403" and auth):
                continue
            if code in ("413", "415", "422") and op.body is None:
                continue
            responses[code] = {"description": text,
                               "content": {"application/json": {"schema": ERROR_SCHEMA}}}
        for code, text in op.errors:
            responses[code] = {"description": text,
                               "content": {"application/json": {"schema": ERROR_SCHEMA}}}
        entry: dict[str, Any] = {
            "operationId": op.op_id,
            "summary": op.summary,
            "tags": list(op.tags),
            "parameters": [
                {"name": p.name, "in": p.where, "required": p.where == "path" or p.required,
                 "schema": p.schema, "description": p.description}
                for p in op.params
            ],
            "responses": responses,
        }
        if op.body is not None:
            entry["requestBody"] = {"required": True,
                                    "content": {"application/json": {"schema": op.body}}}
        paths.setdefault(op.path, {})[op.method.lower()] = entry
    paths.update(extra_paths or {})
    spec: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version, "description": description},
        "paths": paths,
        "components": {"schemas": {"Error": ERROR_SCHEMA}},
    }
    if auth:
        spec["components"]["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer",
                       "description": "A memlane API key (`memlane keys add NAMESPACE`); the key "
                                      "decides the namespace."}}
        spec["security"] = [{"bearer": []}]
    return spec
