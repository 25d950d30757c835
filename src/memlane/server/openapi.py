"""The REST API's contract: one table of operations that both validates requests and is served
as `/openapi.json`, so the published schema cannot drift from what the server accepts.

Validation covers the JSON Schema subset the table uses (type, enum, bounds, lengths, items,
properties, required, additionalProperties, anyOf). It is deliberately small: every problem is
reported as `path: what is wrong`, the same shape a rejected memory step reports.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def _is_integer(v: Any) -> bool:
    # JSON Schema: 3.0 is an integer (JSON has one number type); `coerce` makes it an int.
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def problems(schema: dict[str, Any], value: Any, path: str = "$") -> list[str]:
    """Everything wrong with `value` under `schema` (empty: valid)."""
    out: list[str] = []
    if "anyOf" in schema:
        options = [problems(s, value, path) for s in schema["anyOf"]]
        if all(options):
            out.append(f"{path}: matches none of the allowed forms ("
                       + "; ".join(o[0] for o in options) + ")")
        return out
    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_TYPES[x](value) for x in types):
            return [f"{path}: must be {' or '.join(types)}, got {_json_type(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: must be one of {schema['enum']}, got {value!r}"[:300])
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(f"{path}: must have at least {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append(f"{path}: must have at most {schema['maxLength']:,} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: must match {schema['pattern']}")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            out.append(f"{path}: is not valid Unicode text (lone surrogate)")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            out.append(f"{path}: must be a finite number")
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{path}: must be <= {schema['maximum']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{path}: must have at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{path}: must have at most {schema['maxItems']} items")
        if "items" in schema:
            for i, v in enumerate(value):
                out.extend(problems(schema["items"], v, f"{path}[{i}]"))
                if len(out) > 20:
                    break
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                out.append(f"{path}.{k}: is required")
        extra = schema.get("additionalProperties", True)
        for k, v in value.items():
            if k in props:
                out.extend(problems(props[k], v, f"{path}.{k}"))
            elif extra is False:
                out.append(f"{path}.{k}: unknown field")
            elif isinstance(extra, dict):
                out.extend(problems(extra, v, f"{path}.{k}"))
            if len(out) > 20:
                break
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            out.append(f"{path}: must have at most {schema['maxProperties']} fields")
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            out.append(f"{path}: must have at least {schema['minProperties']} fields")
    return out


def coerce(schema: dict[str, Any], value: Any) -> Any:
    """`value` (already valid under `schema`) with integral floats made ints where the schema
    says integer, so handlers never see `3.0` for a seq or an id."""
    if "anyOf" in schema:
        for s in schema["anyOf"]:
            if not problems(s, value):
                return coerce(s, value)
        return value
    t = schema.get("type")
    types = t if isinstance(t, list) else [t]
    if "integer" in types and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list) and "items" in schema:
        return [coerce(schema["items"], v) for v in value]
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: coerce(props[k], v) if k in props else v for k, v in value.items()}
    return value


def _json_type(v: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPES[name](v):
            return name
    return type(v).__name__


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
