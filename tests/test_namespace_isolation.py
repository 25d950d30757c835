"""No query of one namespace returns another's rows: every tool, every recall CLI command."""

import json

import pytest

from memlane import Memory
from memlane.cli import main
from memlane.search.embed import HashEmbedder
from memlane.tools.handlers import MemoryTools

SHARED = "pineapple invoice"  # both namespaces hold records matching it


@pytest.fixture
def world(tmp_path):
    path = tmp_path / "iso.db"
    emb = HashEmbedder(64)
    a = Memory.open(path, namespace="ann", embedder=emb)
    b = a.namespace("ben")
    ids = {}
    for mem, who in ((a, "ann"), (b, "ben")):
        t = mem.thread("shared-thread-name")  # same thread id in both namespaces
        for i in range(4):
            t.add("user", f"My {SHARED} number is {who}-{i}.")
            t.add("assistant", "ok")
        t.step()
        mem.remember(f"{who} keeps the {SHARED} in a folder", thread_id="shared-thread-name")
        mem.save_snapshot("lookup", {"q": SHARED}, f"{who}: {SHARED} paid")
        ids[who] = {r.id for r in mem.records()}
    yield path, a, b, ids
    a.close()


def _only(rows, who, other):
    text = json.dumps(rows)
    assert who in text and other not in text, text


def test_python_api_and_search(world):
    _, a, b, ids = world
    for mem, who, other in ((a, "ann", "ben"), (b, "ben", "ann")):
        hits = mem.search(SHARED, 50)
        assert hits and {h.record.id for h in hits} <= ids[who]
        assert all(h.record.namespace == who for h in hits)
        assert {h.record.id for h in mem.search(SHARED, 50, thread_id="shared-thread-name")} \
            <= ids[who]
        assert {r.id for r in mem.records(sorted(ids[other]))} == set()
        assert all(h.snapshot.namespace == who for h in mem.recall(SHARED, 10))
        _only(mem.export(), who, other)
        # the vector half alone is scoped too
        q = mem.embedder.embed([SHARED])[0]
        got = mem.store.vector_candidates(mem.ns, q, 50, model=mem.embedder.name)
        assert {i for i, _ in got} <= ids[who]


def test_every_tool(world):
    _, a, b, ids = world
    for mem, who, other in ((a, "ann", "ben"), (b, "ben", "ann")):
        tools = MemoryTools(mem)
        out = tools.call("search_memory", {"query": SHARED, "limit": 20})
        assert {r["id"] for r in out["results"]} <= ids[who]
        _only(out, who, other)
        foreign = sorted(ids[other])
        assert "error" in tools.call("open_memory", {"ids": foreign, "sources": True})
        mixed = tools.call("open_memory", {"ids": foreign + sorted(ids[who]), "sources": True})
        _only(mixed["records"], who, other)
        assert "error" in tools.call("update_memory", {"id": foreign[0], "text": "hijack"})
        assert "error" in tools.call("forget", {"id": foreign[0]})
        _only(tools.call("recall", {"query": SHARED, "limit": 10}), who, other)
        new = tools.call("remember", {"text": f"{who} second {SHARED} note"})
        assert new["id"] not in ids[other]
        ids[who].add(new["id"])
    # nothing of ben's was changed through ann's tools
    assert all("hijack" not in r.text for r in b.records())


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out


def test_every_cli_command(world, capsys, tmp_path):
    path, a, b, ids = world
    db = str(path)
    for who, other in (("ann", "ben"), ("ben", "ann")):
        code, out = run(capsys, "--db", db, "-n", who, "records", "--json")
        assert code == 0
        rows = json.loads(out)
        assert {r["id"] for r in rows} == ids[who]
        _only(rows, who, other)
        for extra in ([], ["--embedder", "hash:64"], ["--thread", "shared-thread-name"]):
            code, out = run(capsys, "--db", db, "-n", who, "search", SHARED, "--k", "50",
                            "--json", *extra)
            assert code == 0
            rows = json.loads(out)
            assert rows and {r["id"] for r in rows} <= ids[who]
            _only(rows, who, other)
        code, out = run(capsys, "--db", db, "-n", who, "export")
        assert code == 0
        _only(json.loads(out), who, other)
        dest = tmp_path / f"{who}.json"
        assert run(capsys, "--db", db, "-n", who, "export", "--out", str(dest))[0] == 0
        _only(json.loads(dest.read_text()), who, other)
        # forgetting a record of the other namespace by id fails and changes nothing
        code, _ = run(capsys, "--db", db, "-n", who, "forget", "--record",
                      str(min(ids[other])), "--yes")
        assert code == 2
    # forgetting one namespace's thread and then the namespace leaves the other whole
    assert run(capsys, "--db", db, "-n", "ann", "forget", "--thread", "shared-thread-name",
               "--yes", "--json")[0] == 0
    assert run(capsys, "--db", db, "-n", "ann", "forget", "--namespace-all", "--yes")[0] == 0
    code, out = run(capsys, "--db", db, "-n", "ben", "records", "--json")
    assert {r["id"] for r in json.loads(out)} == ids["ben"]
    assert b.thread("shared-thread-name").exists()
    code, out = run(capsys, "--db", db, "-n", "ann", "records", "--json")
    assert json.loads(out) == []


def test_forget_without_yes_refuses_when_not_interactive(world, capsys, monkeypatch):
    path, *_ = world
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = main(["--db", str(path), "-n", "ann", "forget", "--namespace-all"])
    assert code == 2
    assert "pass --yes" in capsys.readouterr().err
