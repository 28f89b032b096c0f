"""Every function of the raw libraries and of the Pythonic layer has a behavioural test.

tests/python_functions.api ties each function popdsl._core binds in popops, popnn, poplin,
poputil and gcl (with their submodules), and each function the popdsl package exports, to the
tests that exercise it; a new binding or Pythonic function without a line there fails here.
The tests' sources are read as test_sdk_api.py reads them for the SDK manifests."""
import types
from pathlib import Path

import popdsl
from popdsl import _core
from test_sdk_api import problems_with_tests

TABLE = Path(__file__).resolve().parents[1] / "python_functions.api"
LIBRARIES = ("popops", "popnn", "poplin", "poputil", "gcl")


def bound_functions(module, prefix) -> set:
    """'prefix.name' of each function bound in module and in its submodules."""
    names = set()
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        if isinstance(value, types.ModuleType) and value.__name__.startswith(module.__name__ + "."):
            names |= bound_functions(value, f"{prefix}.{name}")
        elif isinstance(value, types.BuiltinFunctionType):
            names.add(f"{prefix}.{name}")
    return names


def public_functions() -> set:
    names = {f"popdsl.{name}" for name, value in vars(popdsl).items()
             if not name.startswith("_") and isinstance(value, types.FunctionType)}
    for library in LIBRARIES:
        names |= bound_functions(getattr(_core, library), library)
    return names


def table() -> dict:
    """function -> [test module::test function]"""
    entries = {}
    for number, line in enumerate(TABLE.read_text().splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            assert "->" in line, f"{TABLE.name}:{number}: no '-> tests' in: {line}"
            name, tests = (part.strip() for part in line.split("->", 1))
            assert name not in entries, f"{TABLE.name}:{number}: {name} listed twice"
            entries[name] = [t.strip() for t in tests.split(",") if t.strip()]
    return entries


def test_every_function_is_exercised_by_a_named_test():
    functions, entries = public_functions(), table()
    assert len(functions) > 400  # the enumeration found the bindings
    problems = [f"{name}: no line in {TABLE.name}" for name in sorted(functions - entries.keys())]
    problems += [f"{name}: listed in {TABLE.name} but popdsl has no such function"
                 for name in sorted(entries.keys() - functions)]
    for name, tests in sorted(entries.items()):
        problems += problems_with_tests(name, tests, name.rsplit(".", 1)[-1])
    assert not problems, "\n".join(problems)
