"""The type stubs of popdsl._core (popdsl/_core/*.pyi) and py.typed: shipped, valid Python,
complete for the bindings, and what `python -m popdsl stubs` generates today (a new
binding without regenerated stubs fails here)."""
import ast
import filecmp
import importlib
import inspect
import pathlib
import types

import pytest

import popdsl
from popdsl import stubs

PACKAGE = pathlib.Path(popdsl.__file__).resolve().parent
STUBS = PACKAGE / "_core"
STUB_FILES = sorted(STUBS.rglob("*.pyi"))


def module_of(stub: pathlib.Path) -> str:
    parts = stub.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(("popdsl",) + (parts[:-1] if parts[-1] == "__init__" else parts))


def defined_names(body: list) -> dict:
    """Top-level names a stub body defines: name -> the ClassDef (for classes) or None."""
    names = {}
    for node in body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = None
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = None
        elif isinstance(node, ast.Assign):
            names.update({t.id: None for t in node.targets if isinstance(t, ast.Name)})
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update({(a.asname or a.name).split(".")[0]: None for a in node.names})
    return names


def test_the_package_is_typed_and_ships_stubs_for_every_submodule():
    assert (PACKAGE / "py.typed").is_file()
    modules = {module_of(s) for s in STUB_FILES}
    expected = {"popdsl._core"}
    pending = [popdsl._core]
    while pending:
        module = pending.pop()
        for value in vars(module).values():
            if isinstance(value, types.ModuleType) and value.__name__.startswith(module.__name__ + "."):
                expected.add(value.__name__)
                pending.append(value)
    assert modules == expected


@pytest.mark.parametrize("stub", STUB_FILES, ids=lambda s: module_of(s))
def test_a_stub_is_valid_python_naming_every_binding(stub):
    tree = ast.parse(stub.read_text(), str(stub))
    module = importlib.import_module(module_of(stub))
    names = defined_names(tree.body)
    public = [n for n, v in vars(module).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)]
    assert [n for n in public if n not in names] == []
    for name, node in names.items():
        bound = getattr(module, name, None)
        if node is None or not inspect.isclass(bound):
            continue
        members = defined_names(node.body)
        missing = [m for m in vars(bound) if not m.startswith("_") and m not in members]
        assert missing == [], f"{module.__name__}.{name}"


@pytest.mark.needs_emulator("the checked-in stubs describe the emulator build")
def test_the_checked_in_stubs_are_what_stubgen_writes_today(tmp_path):
    generated = pathlib.Path(stubs.generate(str(tmp_path)))
    new = sorted(p.relative_to(generated) for p in generated.rglob("*.pyi"))
    assert new == sorted(p.relative_to(STUBS) for p in STUB_FILES), "run: python -m popdsl stubs"
    differ = [str(p) for p in new if not filecmp.cmp(generated / p, STUBS / p, shallow=False)]
    assert differ == [], f"the bindings changed since the stubs were generated: run python -m popdsl stubs ({differ})"


@pytest.mark.needs_emulator("the checked-in stubs describe the emulator build")
def test_python_m_popdsl_stubs_writes_them_where_asked(tmp_path, capsys):
    from popdsl.__main__ import main

    assert main(["stubs", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "_core")
    assert (tmp_path / "_core" / "poplar.pyi").is_file()


def test_a_stubgen_failure_is_reported_with_its_messages(monkeypatch):
    def failing(*args, **kwargs):
        return types.SimpleNamespace(returncode=1, stdout="", stderr="In popdsl._core.f : Invalid expression 'x'")

    monkeypatch.setattr(stubs.subprocess, "run", failing)
    with pytest.raises(stubs.StubError, match="pybind11-stubgen failed:\nIn popdsl._core.f : Invalid expression"):
        stubs.generate("unused")
