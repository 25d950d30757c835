"""The one HTTP transport: the model adapters (`models/openai.py`, `models/anthropic.py`), the
embedder (`search/embed.py`) and the proxy's upstream (`server/upstream.py`) all call through
`Transport`. Standard library only: memlane's core install has no HTTP client dependency.
Connections are kept alive between calls (`connections.py`).

One retry policy: 429, 5xx (Anthropic's 529 "overloaded" included), timeouts and connection
errors are retried up to `max_retries` times; the wait is the server's `retry-after-ms` /
`Retry-After` (seconds or an HTTP date) when it names one, else an exponential backoff from
`backoff` seconds, doubled each retry, capped at `MAX_BACKOFF`, with jitter (clients that failed
together do not retry together). A server asking for more than `MAX_RETRY_AFTER` seconds gets a
clear error instead of a hung call. Any other 4xx is the request at fault: no retry.

Failures are `ModelError`s that carry what callers need to word their own message or pass the
answer on: `HttpRefused` (a 4xx that is not retried: status, body, headers) and `HttpFailed`
(retries spent: the last status and body if the server answered, else the problem, and whether
it timed out). Their default messages name the provider and what to check.
"""

from __future__ import annotations

import datetime
import email.utils
import http.client
import json
import random
import time
import urllib.error
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ModelError
from . import connections

MAX_RETRY_AFTER = 60.0
"""Waits longer than this are not slept through: a call that would hang for minutes is worse
than a clear error the caller can act on."""
MAX_BACKOFF = 20.0


def is_retryable(status: int) -> bool:
    """Rate limits and server-side failures (including Anthropic's 529 "overloaded")."""
    return status == 429 or status >= 500


def retry_after_seconds(headers: Any) -> float | None:
    """The wait a 429/5xx answer asks for, in seconds, or None when it names none.

    Reads `retry-after-ms` (OpenAI), then `Retry-After` as seconds (fractions allowed, as some
    servers send them) or as an HTTP date.
    """
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def error_message(body: bytes) -> str:
    """The server's own words from an error body (`{"error": {"message": ...}}`), else the text."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:500] or "(empty body)"
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return text[:500]


class HttpRefused(ModelError):
    """The server answered a 4xx that retrying cannot help."""

    def __init__(self, message: str, status: int, body: bytes, headers: Mapping[str, str]):
        super().__init__(message)
        self.status, self.body, self.headers = status, body, dict(headers)
        self.detail = error_message(body)


class HttpFailed(ModelError):
    """Every attempt failed (429/5xx, timeouts, connection errors)."""

    def __init__(self, message: str, *, attempts: int, problem: str, status: int | None = None,
                 body: bytes = b"", headers: Mapping[str, str] | None = None,
                 timed_out: bool = False, reason: str = "") -> None:
        super().__init__(message)
        self.attempts, self.problem, self.status, self.body = attempts, problem, status, body
        self.headers = dict(headers or {})
        self.timed_out = timed_out
        self.reason = reason
        """The connection problem in a few words (no URL), when the server did not answer."""


class BadBody(ModelError):
    """A 2xx answer whose body is not the JSON asked for."""

    def __init__(self, message: str, raw: bytes) -> None:
        super().__init__(message)
        self.raw = raw


@dataclass(frozen=True)
class Transport:
    """Where and how a caller sends: the provider's name for messages, timeouts, retries."""

    provider: str
    """Name used in error messages, e.g. `OpenAI`."""
    timeout: float
    """Seconds to wait for the connection and for each read."""
    max_retries: int = 2
    """Retries after the first attempt, on 429, 5xx, timeouts and connection errors."""
    backoff: float = 0.5
    """First wait between attempts when the server names none; doubles each retry."""
    key_hint: str = ""
    """What to check when the server answers 401/403, e.g. `api_key= or OPENAI_API_KEY`."""

    def post_json(self, url: str, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        """POST `body` as JSON and return the parsed JSON answer (reading it is retried too)."""
        raw = self.send("POST", url, json.dumps(body).encode("utf-8"),
                        {"content-type": "application/json", **headers}, read=True)
        try:
            return json.loads(raw)
        except ValueError:
            raise BadBody(f"{self.provider} answered with a body that is not JSON: "
                          f"{raw[:200]!r}", raw) from None

    def open_stream(self, url: str, body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        """POST `body` as JSON and return the open 2xx response for the caller to read as SSE.

        Only opening the response is retried: once tokens have reached the user, starting over
        would show them the same words twice.
        """
        return self.send("POST", url, json.dumps(body).encode("utf-8"),
                         {"content-type": "application/json", **headers})

    def send(self, method: str, url: str, data: bytes | None, headers: Mapping[str, str],
             *, read: bool = False) -> Any:
        """The open 2xx response (or its body, with `read`), retried by the policy above."""
        attempts = self.max_retries + 1
        timed_out = f"timed out after {self.timeout:g} s (raise timeout= if the server is slow)"
        for attempt in range(attempts):
            wait: float | None = None
            status: int | None = None
            raw, got, timeout, reason = b"", {}, False, ""
            try:
                response = connections.urlopen(method, url, data, dict(headers), self.timeout)
                if not read:
                    return response
                with response:
                    return response.read()
            except urllib.error.HTTPError as exc:
                status, got = exc.code, dict(exc.headers.items())
                try:
                    raw = exc.read()
                    detail = error_message(raw)
                except OSError:  # the error body itself broke off
                    detail = str(exc.reason)
                finally:
                    exc.close()
                if not is_retryable(status):
                    raise HttpRefused(self._rejected(status, detail), status, raw,
                                      got) from None
                problem = f"HTTP {status}: {detail}"
                wait = retry_after_seconds(exc.headers)
            except (TimeoutError, urllib.error.URLError, OSError,
                    http.client.HTTPException) as exc:
                cause = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                timeout = isinstance(cause, TimeoutError)
                if timeout:
                    problem, reason = timed_out, "timed out"
                elif isinstance(exc, urllib.error.URLError):
                    reason = str(cause)
                    problem = f"cannot connect: {cause} (is the server up? check base_url)"
                else:
                    reason = f"{exc!r}"
                    problem = f"connection failed: {exc!r}"
            if wait is not None and wait > MAX_RETRY_AFTER:
                raise HttpFailed(
                    f"{self.provider} asks to wait {wait:.0f} s before retrying ({problem}); "
                    "try again later", attempts=attempt + 1, problem=problem, status=status,
                    body=raw, headers=got)
            if attempt + 1 == attempts:
                plural = "s" if attempts > 1 else ""
                raise HttpFailed(
                    f"{self.provider} request to {url} failed after {attempts} "
                    f"attempt{plural}: {problem}", attempts=attempts, problem=problem,
                    status=status, body=raw, headers=got, timed_out=timeout, reason=reason)
            time.sleep(wait if wait is not None else self._backoff(attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _backoff(self, attempt: int) -> float:
        # Jitter spreads retries from many clients that failed at the same moment.
        return min(MAX_BACKOFF, self.backoff * 2.0**attempt) * (1 + 0.25 * random.random())

    def _rejected(self, status: int, detail: str) -> str:
        hint = ""
        if status in (401, 403):
            hint = f" Check the API key ({self.key_hint})." if self.key_hint else ""
        elif status == 404:
            hint = " Check the model name and base_url."
        return f"{self.provider} rejected the request (HTTP {status}): {detail}{hint}"


__all__ = ["MAX_BACKOFF", "MAX_RETRY_AFTER", "BadBody", "HttpFailed", "HttpRefused",
           "Transport", "error_message", "is_retryable", "retry_after_seconds"]
