"""The model seam: one Protocol with one method that matters.

Every adapter (OpenAI-compatible HTTP, Anthropic, the local GGUF model, the scripted test model)
turns a list of chat messages plus optional tool schemas into a `ModelReply`. Streaming is a
callback, so the agent loop stays one code path whether or not the user sees tokens as they come.

Below the seam sit the helpers the two HTTP adapters share (retrying POST, SSE reader).
"""

from __future__ import annotations

import datetime
import email.utils
import http.client
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from memlane.errors import ModelError


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for."""

    id: str
    """The provider's call id (echoed back with the result)."""
    name: str
    """Tool name, e.g. `search_memory`."""
    arguments: dict[str, Any]
    """Parsed JSON arguments (`{}` when the model sent none)."""


@dataclass(frozen=True)
class Usage:
    """Tokens the provider billed for one call."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class ModelReply:
    """One model answer."""

    content: str
    """The text of the answer (may be empty when the model only called tools)."""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"
    raw: Any = None
    """The provider's response body, for debugging."""


class Model(Protocol):
    """Anything that answers chat messages."""

    name: str

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """Answer `messages` (OpenAI chat format: role, content, and tool_calls / tool_call_id).

        `tools` are OpenAI-style function schemas (`{"type": "function", "function": {...}}`).
        `json_schema`, when given, asks for structured output matching it (the memory step).
        `on_token`, when given, is called with each text fragment as it streams.
        """
        ...


# --- Helpers shared by the HTTP adapters ------------------------------------------------------
# They live here, beside the seam, so `openai.py` and `anthropic.py` stay one idea each (the
# provider's wire format) and share one transport: a POST with timeouts and retries, and an SSE
# reader. Standard library only: memlane's core install has no HTTP client dependency.

# Waits longer than this are not slept through: a call that would hang for minutes is worse than
# a clear error the caller can act on.
MAX_RETRY_AFTER = 60.0
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


@dataclass(frozen=True)
class HttpEndpoint:
    """Where and how an adapter POSTs: the shared transport's settings."""

    provider: str
    """Name used in error messages, e.g. `OpenAI`."""
    timeout: float
    """Seconds to wait for the connection and for each read."""
    max_retries: int
    """Retries after the first attempt, on 429, 5xx, timeouts and connection errors."""
    backoff: float = 0.5
    """First wait between attempts when the server names none; doubles each retry."""
    key_hint: str = ""
    """What to check when the server answers 401/403, e.g. `api_key= or OPENAI_API_KEY`."""

    def post_json(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        """POST `body` as JSON and return the parsed JSON answer."""
        raw = self._send(url, body, headers, read=True)
        try:
            return json.loads(raw)
        except ValueError:
            raise ModelError(
                f"{self.provider} answered with a body that is not JSON: {raw[:200]!r}"
            ) from None

    def open_stream(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        """POST `body` as JSON and return the open 2xx response for the caller to read as SSE.

        Only opening the response is retried: once tokens have reached `on_token`, starting over
        would show the user the same words twice.
        """
        return self._send(url, body, headers, read=False)

    def _send(self, url: str, body: dict[str, Any], headers: dict[str, str], read: bool) -> Any:
        # Retries with exponential backoff (or the server's Retry-After) on 429, 5xx, timeouts
        # and connection errors; any other 4xx is the caller's request at fault, so retrying
        # cannot help: raise at once with the server's message.
        data = json.dumps(body).encode("utf-8")
        headers = {"content-type": "application/json", **headers}
        attempts = self.max_retries + 1
        timed_out = f"timed out after {self.timeout:g} s (raise timeout= if the server is slow)"
        problem = ""
        for attempt in range(attempts):
            wait: float | None = None
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method="POST")
                response = urllib.request.urlopen(request, timeout=self.timeout)
                if not read:
                    return response
                with response:
                    return response.read()
            except urllib.error.HTTPError as exc:
                try:
                    status, detail = exc.code, error_message(exc.read())
                except OSError:  # the error body itself broke off
                    status, detail = exc.code, str(exc.reason)
                exc.close()
                if not is_retryable(status):
                    raise ModelError(self._rejected(status, detail)) from None
                problem = f"HTTP {status}: {detail}"
                wait = retry_after_seconds(exc.headers)
                if wait is not None and wait > MAX_RETRY_AFTER:
                    raise ModelError(
                        f"{self.provider} asks to wait {wait:.0f} s before retrying "
                        f"(HTTP {status}: {detail}); try again later"
                    ) from None
            except TimeoutError:
                problem = timed_out
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, TimeoutError):
                    problem = timed_out
                else:
                    problem = f"cannot connect: {exc.reason} (is the server up? check base_url)"
            except (OSError, http.client.HTTPException) as exc:
                problem = f"connection failed: {exc!r}"
            if attempt + 1 < attempts:
                time.sleep(wait if wait is not None else self._backoff(attempt))
        plural = "s" if attempts > 1 else ""
        raise ModelError(
            f"{self.provider} request to {url} failed after {attempts} attempt{plural}: {problem}"
        )

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


def iter_sse(response: Any, provider: str = "The server") -> Iterator[tuple[str, str]]:
    """Yield `(event, data)` for each server-sent event in a streamed HTTP response.

    Follows the SSE rules that matter here: `data:` lines of one event are joined with newlines,
    an empty line ends the event, lines starting with `:` are comments (keep-alive pings).
    A connection that stalls or dies mid-stream raises `ModelError`. It is not retried: tokens
    already reached `on_token`, and starting over would show the user the same words twice.
    """
    event = ""
    data: list[str] = []
    lines = iter(response)
    while True:
        try:
            raw = next(lines, None)
            line = None if raw is None else raw.decode("utf-8").rstrip("\r\n")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            problem = "stalled" if isinstance(exc, TimeoutError) else f"failed ({exc!r})"
            raise ModelError(f"{provider} stream broke off: the connection {problem}") from None
        if line is None:
            break
        if not line:
            if data:
                yield event or "message", "\n".join(data)
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data:
        yield event or "message", "\n".join(data)


def sse_json(data: str, provider: str = "The server") -> Any:
    """One SSE event's JSON payload; `ModelError` when it is not JSON."""
    try:
        return json.loads(data)
    except ValueError:
        raise ModelError(f"{provider} streamed an event that is not JSON: {data[:200]!r}") from None


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict; text that is not a JSON object is kept as `{"_raw": text}`.

    Small models and truncated answers send broken JSON; keeping the text lets the caller show
    or repair it instead of losing the whole reply.
    """
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return {"_raw": str(raw)}
    return value if isinstance(value, dict) else {"_raw": str(raw)}
