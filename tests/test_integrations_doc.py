"""Every Python example in docs/INTEGRATIONS.md runs, offline, in order."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from agents import OpenAIChatCompletionsModel, set_tracing_disabled
from openai import AsyncOpenAI

from memlane.server.testing import FakeUpstream, Reply

DOC = Path(__file__).resolve().parents[1] / "docs" / "INTEGRATIONS.md"


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_integrations_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    set_tracing_disabled(True)
    text = DOC.read_text()
    # Each block padded to its place in the file, so a failure points at the doc's own line.
    blocks = ["\n" * text[:m.start(1)].count("\n") + m.group(1)
              for m in re.finditer(r"```python\n(.*?)```", text, re.S)]
    assert len(blocks) == 6, "an example was added or removed: keep this test's count in step"

    def script(body: dict[str, Any]) -> Reply:
        return Reply(content="Thanks, noted.")

    with FakeUpstream(script) as up:
        model = OpenAIChatCompletionsModel(model="fake", openai_client=AsyncOpenAI(
            base_url=up.url, api_key="test", max_retries=0))
        for code in blocks:
            ns: dict[str, Any] = {"model": model}
            exec(compile(code, str(DOC), "exec"), ns)  # noqa: S102
        assert up.requests, "the Agents SDK example did not reach its model"
