"""From an `Operation` of the table to a Starlette endpoint: the path and query parameters read
and coerced (`?limit=5` is the integer 5), unknown or repeated parameters refused, the body
validated against the operation's schema, then the handler run in the thread pool (the store
is blocking) and its result sent as JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..validate import ID_SCHEMA, explain_id, finite
from .base import ApiError, Service, namespace_of, read_json
from .openapi import Operation, Param, coerce, problems


def _query_value(p: Param, raw: str) -> Any:
    t = p.schema.get("type")
    if t == "integer":
        s = raw  # nothing trimmed: " 5" is not an integer here, as " a" is not a thread id
        if not (s.isascii() and s.lstrip("-").isdigit() and len(s) < 20):
            raise ApiError(400, f"{p.name}: must be an integer, got {raw[:40]!r}",
                           "invalid_request")
        return int(s)
    if t == "boolean":
        if raw.lower() in ("true", "1", "yes"):
            return True
        if raw.lower() in ("false", "0", "no"):
            return False
        raise ApiError(400, f"{p.name}: must be true or false, got {raw[:40]!r}",
                       "invalid_request")
    return raw


def endpoint(svc: Service, op: Operation) -> Callable[[Request], Any]:
    """A Starlette endpoint for `op`: parse and validate, then run the handler in the pool."""
    validator = op.body_validator()
    known = {p.name for p in op.params if p.where == "query"}

    async def run(request: Request) -> Response:
        args: dict[str, Any] = {}
        bad: list[str] = []
        # Unknown or repeated query parameters are refused: `?budgte=100` silently meaning the
        # default budget is the kind of mistake that should fail loudly.
        names = [k for k, _ in request.query_params.multi_items()]
        bad += [f"{k[:60]}: unknown query parameter (known: {', '.join(sorted(known)) or 'none'})"
                for k in dict.fromkeys(names) if k not in known]
        bad += [f"{k}: given more than once" for k in known if names.count(k) > 1]
        for p in op.params:
            raw = request.path_params.get(p.name) if p.where == "path" else \
                request.query_params.get(p.name)
            if raw is None:
                if "default" in p.schema:
                    args[p.name] = p.schema["default"]
                elif p.required:
                    bad.append(f"{p.name}: is required")
                continue
            try:
                value = _query_value(p, raw)
                found = problems(p.schema, value, p.name)
            except ApiError as e:
                value, found = None, [e.message]
            if found and p.schema is ID_SCHEMA:  # the rule's own words, not its regex
                found = explain_id(value, p.name.replace("_", " "))
            if found and p.where == "path":
                # A path parameter that breaks its rule (the spec's schema, `validate`'s rule)
                # is a bad request, in the rule's words; 404 is for a well-formed id this
                # namespace does not hold.
                raise ApiError(400, "; ".join(found), "invalid_request", found)
            bad += found
            args[p.name] = value
        if bad:
            raise ApiError(400, "invalid query parameters", "invalid_request", bad)
        if op.body is not None:
            body = await read_json(request, svc.config.max_body)
            found = problems(validator or {}, body, "body")
            if found:
                raise ApiError(422, "request body failed validation", "invalid_request", found)
            args["body"] = coerce(validator or {}, body)
        mem = svc.mem(namespace_of(request))
        with svc.foreground.busy():  # background memory steps wait for it
            result = await svc.in_thread(op.handler, svc, mem, args)
        return StrictJSONResponse(result, status_code=op.status)

    return run


class StrictJSONResponse(JSONResponse):
    """JSON that renders rows stored before timestamps were checked (an infinite `ts`) with
    null in their place, instead of failing the whole answer (`export` must always work)."""

    def render(self, content: Any) -> bytes:
        try:
            return super().render(content)
        except ValueError:
            return super().render(finite(content))


def path_endpoint(svc: Service, ops: list[Operation]) -> Callable[[Request], Any]:
    """One route per path, dispatching on the method, so a 405 lists every allowed method."""
    by_method = {op.method: endpoint(svc, op) for op in ops}
    if "GET" in by_method:
        by_method.setdefault("HEAD", by_method["GET"])

    async def run(request: Request) -> Response:
        response: Response = await by_method[request.method](request)
        return response

    return run
