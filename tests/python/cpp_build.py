"""Builds small C++ programs for the tests of C++-only API: against the SDK-shaped
prefix of the popdsl under test (its headers and libraries), or against the
emulator's sources for internals; skips without a compiler."""
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import popdsl

ROOT = pathlib.Path(__file__).resolve().parents[2]
PREFIX = pathlib.Path(popdsl.__file__).resolve().parent / "sdk"
INCLUDE = PREFIX / "include"
INTERNAL = ROOT / "emulator" / "src"
LINK_LINE = ["-lpoplar", "-lpopops", "-lpoputil", "-lpoplin", "-lpopnn", "-lpoprand", "-lgcl", "-lpva"]


def compiler():
    found = shutil.which("g++") or shutil.which("c++")
    if found is None:
        pytest.skip("needs a C++ compiler")
    return found


def check_syntax(tmp_path, source, std="c++17", include=INCLUDE):
    """Compiles `source` with -Wall -Wextra -Werror, without linking."""
    (tmp_path / "check.cpp").write_text(source)
    subprocess.run([compiler(), f"-std={std}", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-I{include}",
                    str(tmp_path / "check.cpp")], check=True)


def build_program(tmp_path, source, std="c++17", include=INCLUDE, link_emulator=True, strict=False):
    """Compiles `source` (with -Wall -Wextra -Werror -pedantic when strict) and, when asked,
    links it with the prefix's libraries as SDK programs link; returns the executable's path."""
    (tmp_path / "prog.cpp").write_text(source)
    exe = tmp_path / "prog"
    warnings = ["-Wall", "-Wextra", "-Werror", "-pedantic"] if strict else []
    # -iquote: the programs' shared test helpers (tests/cpp/*.hpp) beside their sources.
    command = [compiler(), f"-std={std}", *warnings, f"-I{include}", "-iquote", str(ROOT / "tests" / "cpp"),
               str(tmp_path / "prog.cpp"), "-o", str(exe)]
    if link_emulator:
        command += [f"-L{PREFIX / 'lib'}", f"-Wl,-rpath,{PREFIX / 'lib'}", *LINK_LINE]
    subprocess.run(command, check=True)
    return exe


def run_labelled_program(work, stem, *args, env=None):
    """Builds tests/cpp/<stem>.cpp (C++14, strict) in `work`, once, runs it with `args` and
    returns the "label: value" lines it prints as a dict (and its stderr)."""
    exe = work / "prog"
    if not exe.exists():
        build_program(work, (ROOT / "tests" / "cpp" / f"{stem}.cpp").read_text(), std="c++14", strict=True)
    result = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(line.split(": ", 1) for line in result.stdout.splitlines()), result.stderr


def labelled_array(out: dict, label: str, shape) -> np.ndarray:
    """The numbers a run_labelled_program line printed under `label`, as a float array of `shape`."""
    return np.array(out[label].split(), dtype=float).reshape(shape)
