"""Every Python code block of README.md and docs/ runs as written in a new virtual environment
made from the clone with the install command docs/INTEGRATIONS.md gives, twice in a row.

Nothing of the dev environment leaks in: the venv is made without system site packages and gets
only what the documented `pip install -e '/path/to/memlane[...]'` pulls in (pip resolves it
through whatever index/cache the machine has; in CI that is the same one `make test` used, so the
wheels are cached and the install takes under a minute)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Runs in the new environment: every ```python block of the given files, each in a fresh
# namespace, in the current directory; the whole set twice (files the first pass left behind
# must not break the second).
RUNNER = textwrap.dedent('''
    import re, sys, warnings
    from pathlib import Path
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    ran = 0
    for round_ in (1, 2):
        for doc in sys.argv[1:]:
            text = Path(doc).read_text()
            for m in re.finditer(r"```python\\n(.*?)```", text, re.S):
                code = "\\n" * text[:m.start(1)].count("\\n") + m.group(1)
                exec(compile(code, doc, "exec"), {"__name__": "__main__"})
                ran += 1
    print("ran", ran)
''')


def _install_command(clone: Path) -> list[str]:
    """The documented from-a-clone install line, pointed at `clone`."""
    text = (ROOT / "docs" / "INTEGRATIONS.md").read_text()
    start = "pip install -e '/path/to/memlane["
    line = next(ln for ln in text.splitlines() if ln.startswith(start))
    argv = shlex.split(line.split("#", 1)[0])
    return [a.replace("/path/to/memlane", str(clone)) for a in argv]


@pytest.mark.slow
def test_every_doc_python_block_runs_in_a_fresh_env(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("needs git to list the clone's files")
    # The clone: the files git would check out (tracked, plus new ones not ignored), as they are
    # on disk now, so the test checks this tree and not the last commit.
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    clone = tmp_path / "memlane"
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, clone / rel)
    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    py = env_dir / "bin" / "python"
    cmd = _install_command(clone)
    assert cmd[:3] == ["pip", "install", "-e"], cmd
    done = subprocess.run([str(py), "-m", *cmd, "-q"], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    work = tmp_path / "work"
    work.mkdir()
    docs = [str(clone / p.relative_to(ROOT)) for p in DOCS
            if "```python" in p.read_text()]
    (tmp_path / "runner.py").write_text(RUNNER)
    run = subprocess.run([str(py), str(tmp_path / "runner.py"), *docs], cwd=work,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    expected = sum(len(re.findall(r"```python\n", p.read_text())) for p in DOCS)
    assert run.stdout.split()[-1] == str(2 * expected)
    assert expected >= 8
