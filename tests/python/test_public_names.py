"""`popdsl.__all__`: every public name of the package, nothing private, each one real and
each one in the API reference."""
import inspect
import pathlib
import re
import types

import popdsl as pd

API_PAGES = pathlib.Path(__file__).resolve().parents[2] / "docs" / "api"
# The raw bindings and the subpackages a user reaches as pd.<module>; popdsl's other modules
# (graph, tensor, ops, ...) are where the names are defined, not names themselves.
PUBLIC_MODULES = {"gcl", "poplar", "poplin", "popnn", "popops", "poprand", "poputil", "program", "random",
                  "optim", "nn", "distributed"}


def test_every_name_in_all_exists_once_and_is_public():
    assert len(pd.__all__) == len(set(pd.__all__))
    assert [n for n in pd.__all__ if n.startswith("_") or not hasattr(pd, n)] == []


def test_star_import_gives_exactly_all():
    namespace = {}
    exec("from popdsl import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(pd.__all__)
    assert namespace["Graph"] is pd.Graph and namespace["poplar"] is pd.poplar


def test_all_holds_every_public_attribute_and_only_the_public_modules():
    attributes = {n for n, v in vars(pd).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    modules = {n for n in pd.__all__ if isinstance(getattr(pd, n), types.ModuleType)}
    assert attributes == set(pd.__all__) - modules
    assert modules == PUBLIC_MODULES


def test_the_api_reference_documents_every_name():
    documented = set(re.findall(r"^\.\. automodule:: ([\w.]+)$", "".join(p.read_text() for p in API_PAGES.glob("*.rst")), re.M))
    for name in PUBLIC_MODULES:
        assert any(m in (f"popdsl.{name}", f"popdsl._core.{name}") or m.startswith(f"popdsl.{name}.") for m in documented), name
    for name in set(pd.__all__) - PUBLIC_MODULES:
        value = getattr(pd, name)
        # Functions and classes under the module that defines them (test_api_docstrings.py
        # checks their docstrings); the dtypes are instances of the documented DType.
        home = value.__module__ if inspect.isfunction(value) or inspect.isclass(value) else type(value).__module__
        assert home in documented, name
