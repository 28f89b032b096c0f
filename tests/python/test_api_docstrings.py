"""Every public name of the Pythonic layer has a docstring (what help() shows) and annotations.

The public API is what the documentation's reference pages document: the modules named by
their `automodule` directives, each module's functions and classes (its `__all__`, else the
ones it defines), the classes' public methods and properties, and the pytest plugin's
fixtures. Every `pd.<name>` must come from one of those modules, so the reference is whole.
"""
import inspect
import pathlib
import re
import types

import pytest

import popdsl as pd
from popdsl.testing import plugin

API_PAGES = pathlib.Path(__file__).resolve().parents[2] / "docs" / "api"
AUTOMODULE = re.compile(r"^\.\. automodule:: (popdsl[\w.]*)\n((?:   :.*\n)*)", re.M)
DIRECTIVES = [(name, options) for page in sorted(API_PAGES.glob("*.rst")) for name, options in AUTOMODULE.findall(page.read_text())]
DOCUMENTED_MODULES = sorted({name for name, _ in DIRECTIVES if not name.startswith("popdsl._core")})
# Modules documented with `:ignore-module-all:`: autodoc shows the names they define, not their
# `__all__` (the package's `__all__` re-exports what the other sections document).
IGNORING_ALL = {name for name, options in DIRECTIVES if ":ignore-module-all:" in options}


def module_members(module: types.ModuleType) -> dict:
    """The functions and classes autodoc documents for `module`."""
    if hasattr(module, "__all__") and module.__name__ not in IGNORING_ALL:
        names = module.__all__
    else:
        names = [n for n, v in vars(module).items()
                 if getattr(v, "__module__", None) == module.__name__ and not n.startswith("_")]
    return {n: getattr(module, n) for n in names
            if inspect.isfunction(getattr(module, n)) or inspect.isclass(getattr(module, n))}


def class_members(cls: type) -> dict:
    """Public methods, class/static methods and properties defined in `cls` itself."""
    members = {}
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            members[name] = value.fget
        elif isinstance(value, (classmethod, staticmethod)):
            members[name] = value.__func__
        elif inspect.isfunction(value):
            members[name] = value
    return members


def public_api() -> dict:
    api = {}
    for module_name in DOCUMENTED_MODULES:
        module = __import__(module_name, fromlist=["_"])
        for name, value in module_members(module).items():
            api[f"{module_name}.{name}"] = value
            if inspect.isclass(value) and value.__module__.startswith("popdsl"):
                for member, fn in class_members(value).items():
                    api[f"{module_name}.{name}.{member}"] = fn
    return api


API = public_api()


def test_the_reference_documents_a_meaningful_api():
    assert len(DOCUMENTED_MODULES) > 20
    for name in ("popdsl.session.Session.run", "popdsl.graph.Graph.device_to_host", "popdsl.ops.exp",
                 "popdsl.nn.lstm.forward", "popdsl.optim.Adam", "popdsl.testing.assert_close"):
        assert name in API


def test_every_pd_name_is_in_a_documented_module():
    documented = {id(v) for v in API.values()}
    missing = [n for n, v in vars(pd).items() if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
               and v.__module__.startswith("popdsl.") and not v.__module__.startswith("popdsl._core")
               and id(v) not in documented]
    assert missing == []


def test_every_public_name_has_a_docstring():
    # inspect.getdoc would inherit a base class's docstring; help() of an override without
    # its own shows the comment above it instead, so the docstring must be its own.
    missing = [name for name, value in API.items() if not (value.__doc__ or "").strip()]
    assert missing == []


def test_every_public_function_is_annotated():
    unannotated = []
    for name, value in API.items():
        if not inspect.isfunction(value):
            continue
        signature = inspect.signature(value)
        parameters = [p for p in signature.parameters.values()
                      if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if signature.return_annotation is signature.empty or any(p.annotation is p.empty for p in parameters):
            unannotated.append(name)
    assert unannotated == []


@pytest.mark.parametrize("fixture", [plugin.ipu_device, plugin.session_factory], ids=lambda f: f.__name__)
def test_the_plugin_fixtures_have_docstrings(fixture):
    assert len((fixture.__doc__ or "").strip()) > 20
