"""Debug names from the user's source line, inside the enclosing name scopes.

Every op popdsl emits is named "scope/.../path.py:LINE: statement", or
"scope/.../name @ path.py:LINE: statement" when the caller passes name=, so profiles
point at the user's own code. The path is the user's file relative to the working
directory (absolute outside it) and "popdsl/..." for the package's own files. The
builders in popdsl.nn are written on the Pythonic layer like user code: their ops are
named after the builder's lines ("popdsl/nn/lstm/fwd.py:44: ..."), while errors name
the line that called them (by file name: "lstm.py:31: ...").

Tensors made by name (Graph.variable(name="w"), constants, clones, streams' reads) keep
the plain name, which sessions read and write them by.
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import operator
import os
import sys
from typing import Any, Callable, ContextManager, Optional

from popdsl.build_context import context

# The public names (the API reference's); the module's other functions serve the package.
__all__ = ["BuildError", "name_scope"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_BUILDERS_DIR = os.path.join(_PACKAGE_DIR, "nn") + os.sep


def _is_library(frame, skip_builders: bool) -> bool:
    if frame.f_code.co_filename == "<string>":  # a dataclass's generated __init__ (LstmParams) is ours
        return type(frame.f_locals.get("self")).__module__.startswith("popdsl.")
    return _is_library_file(frame.f_code.co_filename, skip_builders)


@functools.lru_cache(maxsize=None)  # every op and every pd.grad record asks, for a handful of files
def _is_library_file(filename: str, skip_builders: bool) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE_DIR) and (skip_builders or not path.startswith(_BUILDERS_DIR))


def _user_frame(skip_builders: bool):
    frame = sys._getframe(1)
    while frame is not None and _is_library(frame, skip_builders):
        frame = frame.f_back
    return frame


@functools.lru_cache(maxsize=None)
def _display_path(filename: str, working_directory: str) -> str:
    """How a debug name shows a source file: popdsl's own as 'popdsl/...', the user's
    relative to the working directory, or absolute outside it."""
    path = os.path.abspath(os.path.join(working_directory, filename))
    if path.startswith(_PACKAGE_DIR):
        return "popdsl/" + path[len(_PACKAGE_DIR):].replace(os.sep, "/")
    relative = os.path.relpath(path, working_directory)
    return path if relative.startswith(os.pardir) else relative.replace(os.sep, "/")


def source_location(skip_builders: bool = False, file_name_only: bool = True) -> str:
    """'file.py:LINE: statement' of the innermost caller outside popdsl (outside popdsl.nn
    too when skip_builders); with file_name_only=False the file as debug names show it."""
    return _location(_user_frame(skip_builders), file_name_only)


def source_place(skip_builders: bool = False) -> Optional[tuple]:
    """(file, line) of the innermost caller outside popdsl, or None: source_location's place,
    kept to be shown later (place_location) without reading the source now."""
    frame = _user_frame(skip_builders)
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def _location(frame, file_name_only: bool) -> str:
    return place_location(None if frame is None else (frame.f_code.co_filename, frame.f_lineno), file_name_only)


def place_location(place: Optional[tuple], file_name_only: bool = True) -> str:
    """A source_place shown as source_location shows it."""
    if place is None:
        return "<unknown>"
    filename, line = place
    statement = linecache.getline(filename, line).strip()
    shown = os.path.basename(filename) if file_name_only else _display_path(filename, os.getcwd())
    location = f"{shown}:{line}"
    return f"{location}: {statement}" if statement else location


def debug_name(name: Optional[str] = None, op: Optional[str] = None) -> str:
    """The scoped debug name for an op: the user's source line, after `name @ ` if given,
    and `/op` (the op's kind) when given, which tells one line's several ops apart; a
    second place on the line that builds an op of the same name adds ` #2` (` #3`, ...)."""
    frame = _user_frame(skip_builders=False)
    location = context.backward_of or _location(frame, file_name_only=False)
    named = location if name is None else f"{_checked(name)} @ {location}"
    return _told_apart("/".join(context.scopes + [named] + ([op] if op else [])), frame)


def _told_apart(name: str, frame) -> str:
    # The build context keeps, per debug name, the places in the code that built ops of that
    # name, in the order first seen. A place is the calling frame's instruction, so
    # `x @ w + x @ w` has two while the iterations of a Python loop, and every rebuild of a
    # program, share one: the names stay the same.
    if frame is None:
        return name
    code = frame.f_code
    places = context.places_by_name.setdefault(name, [])
    place = (code.co_filename, code.co_firstlineno, code.co_name, frame.f_lasti)
    if place not in places:
        places.append(place)
    occurrence = places.index(place) + 1
    return name if occurrence == 1 else f"{name} #{occurrence}"


def plain_name(name: Optional[str] = None) -> str:
    """The scoped debug name for a tensor or program made by name: `name` if given
    (sessions read and write tensors, and run programs, by that name), else the user's
    source line."""
    return "/".join(context.scopes + [source_location(file_name_only=False) if name is None else _checked(name)])


def _checked(name: object) -> str:
    if not isinstance(name, str):
        raise BuildError(f"name= must be a str (a debug name) or None, got {describe(name)}")
    return name


@contextlib.contextmanager
def backward_of(place: Optional[tuple]):
    """Names the ops built inside "grad of <place's line>" instead of the line calling pd.grad,
    so a profile charges each forward op's backward to that op."""
    outer, context.backward_of = context.backward_of, f"grad of {place_location(place, file_name_only=False)}"
    try:
        yield
    finally:
        context.backward_of = outer


def name_scope(name: str) -> ContextManager[None]:
    """Prefix the debug names of ops built inside the block with `name/`."""
    return _scoped(expect_str(name, "pd.name_scope: name"))  # checked now, not when the block is entered


@contextlib.contextmanager
def _scoped(name: str):
    context.scopes.append(name)
    try:
        yield
    finally:
        context.scopes.pop()


class BuildError(ValueError):
    """A graph-building error; its message names the user's source line."""

    def __init__(self, message: str):
        super().__init__(f"{source_location(skip_builders=True)}: {message}")


def describe(value: Any) -> str:
    """A refused argument as error messages show it: its type and a short repr."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


# Counts, tiles and dimensions are 32-bit on the device; a larger Python int cannot reach it.
LARGEST_INT = 2 ** 32 - 1


def expect_int(value: Any, what: str, minimum: int = 0, maximum: int = LARGEST_INT) -> int:
    """`value` as an int in [minimum, maximum]; anything else (bool, float, str, numpy
    arrays, out of range) raises a BuildError naming `what`."""
    try:
        valid = not isinstance(value, bool) and minimum <= operator.index(value) <= maximum
    except TypeError:
        valid = False
    if not valid:
        raise BuildError(f"{what} must be an int in [{minimum}, {maximum}], got {describe(value)}")
    return operator.index(value)


def expect_str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise BuildError(f"{what} must be a str, got {describe(value)}")
    return value


def expect_options(options: Optional[dict], what: str) -> dict:
    """Poplar option flags: a dict of option names to str, bool or number values (None: none)."""
    if options is None:
        return {}
    if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, (str, bool, int, float))
                                                for k, v in options.items()):
        raise BuildError(f"{what}: options must be a dict of option names to values (str, bool or number), "
                         f"got {describe(options)}")
    return options


def expect_callable(value: Any, what: str) -> Callable:
    if not callable(value):
        raise BuildError(f"{what} must be a function, got {describe(value)}")
    return value
