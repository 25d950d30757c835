"""Every Python example in docs/INTEGRATIONS.md runs, offline, as written, twice in a row in the
same directory (an example whose files persist must not fail its own asserts the second time).
tests/test_docs_fresh_env.py runs them again in a new environment with only the documented
install."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "INTEGRATIONS.md"


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_integrations_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = DOC.read_text()
    # Each block padded to its place in the file, so a failure points at the doc's own line.
    blocks = ["\n" * text[:m.start(1)].count("\n") + m.group(1)
              for m in re.finditer(r"```python\n(.*?)```", text, re.S)]
    assert len(blocks) == 6, "an example was added or removed: keep this test's count in step"
    for _ in range(2):
        for code in blocks:
            ns: dict[str, Any] = {}  # nothing injected: each example stands alone
            exec(compile(code, str(DOC), "exec"), ns)  # noqa: S102
