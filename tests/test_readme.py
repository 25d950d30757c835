"""Every Python example in the README runs."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLANE_DB", str(tmp_path / "readme.db"))
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README has no python examples"
    for code in blocks:
        ns: dict = {}
        exec(compile(code, str(README), "exec"), ns)  # noqa: S102
        if "ctx" in ns:
            ctx = ns["ctx"]
            assert ctx.trace.tokens_total <= 4000
            assert ctx.openai_messages()[-1]["content"] == "Any news on my order?"
        if "hits" in ns:
            assert ns["hits"]["results"][0]["text"] == "Prefers aisle seats."
            assert ns["hits"]["results"][0]["score"] == 0.3333  # as the README shows it


def test_readme_first_screen_has_the_two_commands():
    head = "\n".join(README.read_text().splitlines()[:20])
    assert "make demo" in head and "make test" in head


def test_readme_shell_commands_parse():
    """Each `memlane ...` command of the README's shell block is one the CLI accepts."""
    import shlex

    from memlane.cli import build_parser

    block = re.findall(r"```sh\n(.*?)```", README.read_text(), re.S)
    cmds = [c.strip() for b in block for line in b.splitlines()
            for c in line.split("#", 1)[0].split(";") if c.strip().startswith("memlane ")]
    assert len(cmds) >= 12
    parser = build_parser()
    for cmd in cmds:
        argv = shlex.split(cmd)[1:]
        if argv in (["--help"], ["--version"]):
            continue
        args = parser.parse_args(argv)
        assert getattr(args, "func", None), cmd


def test_readme_standing_facts_are_shown_as_it_says():
    """README: needs, agreements and pinned records on every turn; people and preferences on a
    turn whose message shares a word with them."""
    from memlane import Memory

    assert "people and preferences (`profile`, `preference`) on a turn whose\nmessage shares " \
        "a word with them" in README.read_text()
    with Memory.open(":memory:") as mem:
        for i in range(40):  # more than fits the notes, so only the core layer shows these
            mem.remember(f"Fact {i} about compost batch {i} in the garden.")
        need = mem.remember("Allergic to shellfish.", kind="constraint")
        pinned = mem.remember("Works nights.")
        mem.pin(pinned.id)
        seat = mem.remember("Prefers aisle seats.", kind="preference")
        t = mem.thread("t")
        t.add("user", "hello")

        def core(message):
            ctx = t.context(budget=1500, new_message=message)
            return " ".join(m.content for m in ctx.messages if m.layer == "core")

        unrelated = core("What should I cook tonight?")
        assert need.text in unrelated and pinned.text in unrelated
        assert seat.text not in unrelated
        assert seat.text in core("Book me a seat on the train.")
