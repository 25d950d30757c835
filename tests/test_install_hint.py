"""An install hint names the pip command that works for this memlane: memlane is not on PyPI,
so `pip install 'memlane[server]'` finds nothing for someone who installed from a clone. The
hint reads pip's record of where memlane came from (PEP 610's direct_url.json) in a real
dist-info directory put first on sys.path."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from memlane.errors import MissingExtra, install_hint


def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, origin: dict | None) -> None:
    info = tmp_path / "site" / "memlane-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: memlane\nVersion: 0.1.0\n")
    if origin is not None:
        (info / "direct_url.json").write_text(json.dumps(origin))
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site"), *sys.path])


def test_a_clone_installed_editable_gets_its_own_path(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    installed(tmp_path, monkeypatch, {"url": "file:///home/ada/src/mem%20lane",
                                      "dir_info": {"editable": True}})
    assert install_hint("server") == "pip install -e '/home/ada/src/mem lane[server]'"
    assert str(MissingExtra("memlane serve", "server", "starlette")) == (
        "memlane serve needs the 'starlette' package: "
        "pip install -e '/home/ada/src/mem lane[server]'")


def test_a_clone_installed_plain_is_not_made_editable(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    installed(tmp_path, monkeypatch, {"url": "file:///opt/memlane", "dir_info": {}})
    assert install_hint("embed") == "pip install '/opt/memlane[embed]'"


def test_a_git_install_gets_its_url_without_credentials(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    installed(tmp_path, monkeypatch, {"url": "https://bot:s3cret@git.example.org/ml/memlane.git",
                                      "vcs_info": {"vcs": "git", "commit_id": "ab12"}})
    hint = install_hint("postgres")
    assert hint == "pip install 'memlane[postgres] @ git+https://git.example.org/ml/memlane.git'"
    assert "s3cret" not in hint


@pytest.mark.parametrize("origin", [None, {"url": "https://files.example.org/memlane.whl",
                                           "archive_info": {}}, {"no": "url"}])
def test_without_a_record_of_a_clone_the_name_is_the_fallback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, origin: dict | None) -> None:
    installed(tmp_path, monkeypatch, origin)
    assert install_hint("server") == "pip install 'memlane[server]'"


def test_the_demo_says_how_to_add_the_server_when_it_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memlane.demo import serve_command

    assert serve_command("memlane", "/d b/demo.db") == (
        "memlane --db '/d b/demo.db' serve    # the inspector, in a browser")
    installed(tmp_path, monkeypatch, {"url": "file:///src/memlane", "dir_info": {"editable": True}})
    monkeypatch.setitem(sys.modules, "starlette", None)  # as when the package is not installed
    monkeypatch.chdir(tmp_path)  # the interpreter's path is then shown whole
    line = serve_command(".venv/bin/memlane", "demo.db")
    assert line == (".venv/bin/memlane --db demo.db serve    # the inspector, in a browser "
                    f"(needs the server extra: {shlex.quote(sys.executable)} -m pip install -e "
                    "'/src/memlane[server]')")
    assert serve_command("memlane", "demo.db").endswith(
        "(needs the server extra: pip install -e '/src/memlane[server]')")
