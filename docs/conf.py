"""Sphinx configuration of popdsl's documentation: `python -m popdsl docs` builds it."""
import os
import sys

# The checkout's popdsl (with its built extension) comes first, as it does for the tests.
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

project = "popdsl"
author = "the popdsl developers"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
exclude_patterns = ["_build"]
html_theme = "alabaster"  # Sphinx's own: the test extra stays small
html_static_path = []
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# Docstrings write `name` for code, as Markdown does; render it as code too.
default_role = "code"
nitpicky = False
# The Pythonic layer's Tensor, Graph, Sequence and Block share their names with classes of
# the raw bindings; an annotation's bare name links to the first, the layer's own.
suppress_warnings = ["ref.python"]


def _raw_binding_docstrings(app, what, name, obj, options, lines):
    # pybind11's docstrings are plain text (signatures with names such as `in_`), not
    # reStructuredText: show them as written.
    if name.startswith("popdsl._core.") and lines:
        lines[:] = ["::", ""] + ["   " + line for line in lines] + [""]


def _skip_pybind11_internals(app, what, name, obj, skip, options):
    # pybind11 3 keeps a capsule of its function records in each module.
    return True if name.startswith("pybind11_") else None


def setup(app):
    app.connect("autodoc-process-docstring", _raw_binding_docstrings)
    app.connect("autodoc-skip-member", _skip_pybind11_internals)
