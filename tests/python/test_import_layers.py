"""popdsl's modules form layers: no import cycle among them, and the core knows nothing of
gradients (autodiff builds on the core and holds all gradient policy).

What counts as an import, strictly: every `import` and `from ... import` of a popdsl module
anywhere in a module, at module level, under `if TYPE_CHECKING:` (annotations are a
dependency too) and inside functions (the package has none left; a new one still counts, so
a cycle cannot hide in a late import). `from A import b` depends on the module A.b when
there is one, else on A. The one node left out is the package's `__init__.py`, the facade
that re-exports the layer: it imports every module, and the builders of popdsl.nn, written
on the layer like user code, `import popdsl as pd` and are imported by it last. Imports of
the compiled bindings (popdsl._core) are leaves and not counted.
"""
import ast
import pathlib

POPDSL = pathlib.Path(__file__).resolve().parents[2] / "popdsl"


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(POPDSL.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(POPDSL.rglob("*.py")) if "_core" not in p.parts}


def imported(module: str, node: ast.AST) -> list:
    """The popdsl modules an import statement of `module` depends on."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")
            if not MODULES[module].name == "__init__.py":
                package = package[:-1]
            base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
        targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
    found = []
    for target in targets:
        if target.split(".")[0] != "popdsl" or target.startswith("popdsl._core"):
            continue
        while target not in MODULES:
            target = target.rpartition(".")[0]
        found.append(target)
    return found


def imports_of(module: str) -> dict:
    """popdsl module -> line numbers of the statements importing it, and the function-local ones."""
    tree = ast.parse(MODULES[module].read_text())
    edges, local = {}, []
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    in_functions = {id(n) for f in functions for n in ast.walk(f)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in imported(module, node):
                if target not in ("popdsl", module):
                    edges.setdefault(target, []).append(node.lineno)
                    if id(node) in in_functions:
                        local.append(f"{MODULES[module].relative_to(POPDSL.parent)}:{node.lineno}")
    return {"edges": edges, "local": local}


GRAPH = {m: imports_of(m) for m in MODULES if m != "popdsl"}


def cycles() -> list:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]["edges"]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for v in GRAPH:
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_the_layers_imports():
    assert len(GRAPH) > 50
    assert "popdsl.tensor" in GRAPH["popdsl.graph"]["edges"]       # a module-level import
    assert "popdsl.control" in GRAPH["popdsl.graph"]["edges"]      # Block, for annotations
    assert "popdsl.recording" in GRAPH["popdsl.control"]["edges"]


def test_no_import_cycle_among_popdsl_modules():
    found = cycles()
    assert found == [], "import cycles: " + "; ".join(
        " ".join(f"{m} -> {sorted(t for t in GRAPH[m]['edges'] if t in c)}" for m in c) for c in found)


def test_annotations_import_their_names_like_any_other_import():
    # Without a cycle nothing needs hiding under `if TYPE_CHECKING:`.
    assert [m for m in GRAPH if "TYPE_CHECKING" in MODULES[m].read_text()] == []


def test_no_function_local_imports_of_popdsl_modules():
    assert [where for m in GRAPH.values() for where in m["local"]] == []


def test_the_core_knows_nothing_of_gradients():
    # Gradient rules and no_gradient declarations live in popdsl.autodiff; ops only record.
    outside = [m for m in GRAPH if not m.startswith(("popdsl.autodiff", "popdsl.nn", "popdsl.testing"))]
    assert [m for m in outside if any(t.startswith("popdsl.autodiff") for t in GRAPH[m]["edges"])] == []
    for m in outside:
        source = MODULES[m].read_text()
        assert "@gradient(" not in source and "no_gradient(" not in source, m

