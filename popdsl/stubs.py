"""Type stubs of the raw bindings: popdsl/_core/*.pyi, written by pybind11-stubgen.

`python -m popdsl stubs` regenerates them after a change to the bindings (they describe the
emulator build); tests/python/test_stubs.py fails while the checked-in ones differ, and
tests/python/test_stubs_mypy.py while mypy finds an error in them. What stubgen writes is made
valid for type checkers where pybind11's spellings are not (`for_type_checkers`).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


class StubError(RuntimeError):
    """pybind11-stubgen is missing or reported a signature it cannot write as Python."""


def generate(out: str) -> str:
    """Writes the stubs of popdsl._core into `out`/_core (replacing what is there) and
    returns that directory. Any stubgen error (an argument or default with no Python
    spelling: fix the binding's py::arg) raises StubError with stubgen's messages."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # The stubs describe the popdsl this module belongs to, whatever sys.path the caller has.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_parent] + sys.path))
    with tempfile.TemporaryDirectory() as scratch:
        try:
            done = subprocess.run([sys.executable, "-m", "pybind11_stubgen", "popdsl._core", "--exit-code",
                                   "-o", scratch], capture_output=True, text=True, env=env)
        except OSError as e:
            raise StubError(f"could not run pybind11-stubgen: {e}") from None
        if done.returncode != 0:
            if "No module named pybind11_stubgen" in done.stderr:
                raise StubError("needs pybind11-stubgen: pip install pybind11-stubgen (the test extra has it)")
            raise StubError(f"pybind11-stubgen failed:\n{done.stdout}{done.stderr}")
        target = os.path.join(out, "_core")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(os.path.join(scratch, "popdsl", "_core"), target)
    for directory, _, files in os.walk(target):
        for name in files:
            if name.endswith(".pyi"):
                path = os.path.join(directory, name)
                with open(path) as f:
                    text = for_type_checkers(f.read())
                with open(path, "w") as f:
                    f.write(text)
    return target


def for_type_checkers(text: str) -> str:
    """Stub text in the spellings type checkers accept, with the same meaning:

    - one overload of identical signatures (an enum's checked constructor and pybind11's own);
    - `__eq__`/`__ne__` of `other: object` (pybind11's operators return NotImplemented for
      another type); an operator DSL's `__eq__` returning an expression is marked as meant;
    - `__hash__ = None` marked as meant (an unhashable class, as typeshed marks them);
    - no annotation on `self` (stubgen spells some classes' self with a clashing name);
    - a `None` default typed `T | None`."""
    text = re.sub(r"def (__eq__|__ne__)\(self, \w+: [\w.| ]+\) -> bool:", r"def \1(self, other: object) -> bool:",
                  text)
    text = re.sub(r"(def (?:__eq__|__ne__)\(self, \w+: [\w.]+\) -> (?!bool)[\w.]+:)", r"\1  # type: ignore[override]",
                  text)
    text = text.replace("__hash__: typing.ClassVar[None] = None", "__hash__: typing.ClassVar[None] = None  "
                        "# type: ignore[assignment]")
    text = re.sub(r"\(self: [^,)]+", "(self", text)
    text = re.sub(r"(\w+): ([\w.]+) = None\b", r"\1: \2 | None = None", text)
    return _without_repeated_overloads(text)


def _without_repeated_overloads(text: str) -> str:
    """Each run of overloads of one function (decorator, signature, a body of `...`) without
    repeated signatures; a run of one signature repeated loses its decorator."""
    lines, kept, i = text.split("\n"), [], 0
    while i < len(lines):
        run = []
        while (i + 2 < len(lines) and lines[i].strip() == "@typing.overload" and lines[i + 2].strip() == "..."
               and (not run or _function(lines[i + 1]) == _function(run[0][1]))):
            run.append(tuple(lines[i:i + 3]))
            i += 3
        if not run:
            kept.append(lines[i])
            i += 1
            continue
        unique = list(dict.fromkeys(run))
        lone = len(unique) == 1 < len(run)  # a run of repeats only: no longer an overload
        kept.extend(unique[0][1:] if lone else [line for overload in unique for line in overload])
    return "\n".join(kept)


def _function(signature: str) -> str:
    return signature.strip().split("(", 1)[0]
