"""Builds small C++ programs against the emulator's headers (and, to run them, the
in-tree emulator library) for the tests of C++-only API; skips without a compiler."""
import glob
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "emulator" / "include"
INTERNAL = ROOT / "emulator" / "src"


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
    links it with the newest in-tree emulator library; returns the executable's path."""
    (tmp_path / "prog.cpp").write_text(source)
    exe = tmp_path / "prog"
    warnings = ["-Wall", "-Wextra", "-Werror", "-pedantic"] if strict else []
    command = [compiler(), f"-std={std}", *warnings, f"-I{include}", str(tmp_path / "prog.cpp"), "-o", str(exe)]
    if link_emulator:
        libraries = sorted(glob.glob(str(ROOT / "build" / "*" / "emulator" / "libpopdsl_emulator.a")),
                           key=os.path.getmtime)
        if not libraries:
            pytest.skip("needs an in-tree build of the emulator library (build/*/emulator)")
        import scipy_openblas32 as blas
        command += [libraries[-1], f"-L{blas.get_lib_dir()}", f"-l:{blas.get_library(fullname=True)}",
                    f"-Wl,-rpath,{blas.get_lib_dir()}", "-lpthread"]
    subprocess.run(command, check=True)
    return exe
