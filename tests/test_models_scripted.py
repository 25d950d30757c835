"""ScriptedModel and FunctionModel: the test models every other test leans on."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from memlane.errors import ModelError, UsageError
from memlane.models import (
    FunctionModel,
    Model,
    ModelReply,
    ScriptedModel,
    ToolCall,
    Usage,
    get_model,
)
from memlane.models import __all__ as exported
from memlane.models.scripted import words


def test_replies_in_order_and_calls_recorded() -> None:
    model = ScriptedModel()
    model.enqueue("first", ModelReply("second", usage=Usage(3, 1)))
    model.enqueue(lambda messages: f"you said {messages[-1]['content']!r}")
    messages = [{"role": "user", "content": "hi"}]
    tools = [{"type": "function", "function": {"name": "search_memory"}}]

    assert model.complete(messages).content == "first"
    assert model.complete(messages, tools=tools, max_tokens=5).usage == Usage(3, 1)
    messages.append({"role": "user", "content": "again"})
    assert model.complete(messages, json_schema={"type": "object"}).content == "you said 'again'"

    assert [len(c.messages) for c in model.calls] == [1, 1, 2]  # copies, taken at call time
    assert model.calls[1].tools == tools and model.calls[1].max_tokens == 5
    assert model.calls[2].json_schema == {"type": "object"}
    assert model.pending == 0


def test_empty_queue_is_a_clear_error() -> None:
    model = ScriptedModel("only one")
    model.complete([{"role": "user", "content": "one"}])
    with pytest.raises(ModelError, match=r"no reply queued for call #2 .*'two'.*enqueue\(\)"):
        model.complete([{"role": "user", "content": "two"}])


def test_on_token_gets_words_that_join_back() -> None:
    reply = ModelReply("Hello  there,\nfriend.", tool_calls=(ToolCall("c1", "f", {}),))
    tokens: list[str] = []
    model = ScriptedModel(reply)
    assert model.complete([], on_token=tokens.append) is reply
    assert tokens == ["Hello", "  there,", "\nfriend."]
    assert model.calls[0].streamed
    assert words("") == [] and "".join(words(" a b ")) == " a b "


def test_a_bad_reply_type_fails_loudly() -> None:
    with pytest.raises(ModelError, match="str or ModelReply"):
        ScriptedModel(lambda messages: 42).complete([])  # type: ignore[arg-type,return-value]


def test_shared_between_threads() -> None:
    model = ScriptedModel(*[str(i) for i in range(50)])
    answers: list[str] = []

    def ask() -> None:
        for _ in range(10):
            answers.append(model.complete([{"role": "user", "content": "n?"}]).content)

    threads = [threading.Thread(target=ask) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers, key=int) == [str(i) for i in range(50)]
    assert len(model.calls) == 50


def test_function_model() -> None:
    def answer(messages: Any, tools: Any, json_schema: Any) -> str:
        return '{"ok": true}' if json_schema else f"{len(messages)} messages, tools={tools}"

    model = FunctionModel(answer)
    assert model.complete([{"role": "user", "content": "x"}]).content == "1 messages, tools=None"
    assert model.complete([], json_schema={"type": "object"}).content == '{"ok": true}'
    assert len(model.calls) == 2


def test_every_adapter_fits_the_seam() -> None:
    def check(model: Model) -> str:
        return model.name

    assert check(ScriptedModel()) == "scripted"
    assert check(FunctionModel(lambda m, t, s: "")) == "function"
    assert isinstance(get_model("scripted"), ScriptedModel)


def test_exports() -> None:
    import memlane.models

    assert all(hasattr(memlane.models, name) for name in exported)
    assert set(exported) >= {
        "Model", "ModelReply", "ToolCall", "Usage", "get_model", "OpenAIModel",
        "AnthropicModel", "LocalModel", "ScriptedModel", "FunctionModel",
    }


def test_local_specs_are_checked() -> None:
    with pytest.raises(UsageError, match="local:PATH.gguf"):
        get_model("local:llama")
    # Either the packages are missing (MissingExtra) or the file is (UsageError): both name a fix.
    with pytest.raises(UsageError, match="pip install|no GGUF file"):
        get_model("local:/nowhere/model.gguf")
