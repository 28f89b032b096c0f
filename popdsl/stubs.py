"""Type stubs of the raw bindings: popdsl/_core/*.pyi, written by pybind11-stubgen.

`python -m popdsl stubs` regenerates them after a change to the bindings (they describe the
emulator build); tests/python/test_stubs.py fails while the checked-in ones differ.
"""
import os
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
    return target
