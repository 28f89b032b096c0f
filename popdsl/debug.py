"""Debug names from the user's source line, inside the enclosing name scopes.

Every op popdsl emits is named "scope/.../file.py:LINE: statement" unless the
caller passes name=, so profiles and errors point at the user's own code. The
builders in popdsl.nn are written on the Pythonic layer like user code: their ops
are named after the builder's lines, while errors name the line that called them.
"""
import contextlib
import linecache
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_BUILDERS_DIR = os.path.join(_PACKAGE_DIR, "nn") + os.sep
_scopes: list = []


def _is_library(frame, skip_builders: bool) -> bool:
    path = os.path.abspath(frame.f_code.co_filename)
    return path.startswith(_PACKAGE_DIR) and (skip_builders or not path.startswith(_BUILDERS_DIR))


def _user_frame(skip_builders: bool):
    frame = sys._getframe(1)
    while frame is not None and _is_library(frame, skip_builders):
        frame = frame.f_back
    return frame


def source_location(skip_builders: bool = False) -> str:
    """'file.py:LINE: statement' of the innermost caller outside popdsl (outside popdsl.nn
    too when skip_builders)."""
    frame = _user_frame(skip_builders)
    if frame is None:
        return "<unknown>"
    filename, line = frame.f_code.co_filename, frame.f_lineno
    statement = linecache.getline(filename, line).strip()
    location = f"{os.path.basename(filename)}:{line}"
    return f"{location}: {statement}" if statement else location


def debug_name(name=None) -> str:
    """The scoped debug name for an op: `name` if given, else the user's source line."""
    return "/".join(_scopes + [name if name is not None else source_location()])


@contextlib.contextmanager
def name_scope(name: str):
    """Prefix the debug names of ops built inside the block with `name/`."""
    _scopes.append(name)
    try:
        yield
    finally:
        _scopes.pop()


class BuildError(ValueError):
    """A graph-building error; its message names the user's source line."""

    def __init__(self, message: str):
        super().__init__(f"{source_location(skip_builders=True)}: {message}")
