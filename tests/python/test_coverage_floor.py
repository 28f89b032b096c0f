"""The Python layer's coverage floor, checked where CI runs `pytest` (slow tests included).

Measuring coverage on every `pytest` run costs about a third more time (five modules: 71 s
plain, 97 s under coverage, on the shared 2-core machine) and a full fast suite under
coverage did not finish there in 12 minutes, so `pytest` does not measure it each run.
This test runs the Pythonic layer's own test modules under coverage.py (line and branch,
pyproject.toml's [tool.coverage.run]) and fails when their coverage of popdsl/ drops below
the floor measured when it was written."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import popdsl

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGE = Path(popdsl.__path__[0])  # the checkout's, or the installed package it redirects to
FLOOR = 85  # measured: 88% of 3,964 statements and 1,000 branches (with the autodiff modules)
MODULES = ["test_pythonic.py", "test_pythonic_functions.py", "test_pythonic_misuse.py", "test_session_lifecycle.py",
           "test_profile.py", "test_testing_helpers.py", "test_vertices_pythonic.py",
           "test_autodiff.py", "test_custom_grad.py", "test_losses.py", "test_optim.py", "test_autodiff_ops.py",
           "test_autodiff_control.py", "test_random_ops.py"]

pytestmark = [pytest.mark.slow, pytest.mark.needs_emulator("the floor is measured on the emulator backend")]


def test_python_coverage_of_the_pythonic_tests_stays_above_its_floor(tmp_path):
    pytest.importorskip("pytest_cov")
    if PACKAGE != REPOSITORY / "popdsl":
        # Measured on a pip-installed package the same run gives 65% (not understood yet)
        pytest.skip("the floor is measured on the checkout's popdsl/ (a developer build), not an installed package")
    env = dict(os.environ, COVERAGE_FILE=str(tmp_path / ".coverage"))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                          f"--cov={PACKAGE}", "--cov-report=term", f"--cov-fail-under={FLOOR}",
                          *(str(REPOSITORY / "tests" / "python" / m) for m in MODULES)],
                         cwd=REPOSITORY, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert f"Required test coverage of {FLOOR}% reached" in run.stdout
