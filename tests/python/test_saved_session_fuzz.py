"""Damaged saved sessions are refused with SessionError or run correctly: a few hundred
mutants of one checkpoint (saved_session_fuzz.py says how they are made and judged) each
loaded and run in a forked child; none may crash, hang, raise another exception or give
wrong results. Longer runs: docs/developing.rst."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import popdsl as pd

MUTANTS = 300
pytestmark = pytest.mark.needs_emulator("popdsl executables (the sdk's are its own format)")
HERE = Path(__file__).parent


def test_mutated_saved_sessions_are_refused_or_run_correctly(tmp_path):
    path = os.pathsep.join([str(Path(pd.__file__).resolve().parents[1]), str(HERE)])
    result = subprocess.run([sys.executable, str(HERE / "saved_session_fuzz.py"), "--mutants", str(MUTANTS),
                             "--seed", "1", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, PYTHONPATH=path, POPDSL_NUM_THREADS="1"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    *failures, summary = result.stdout.splitlines()
    assert not failures, f"{result.stdout}\n{result.stderr[-3000:]}"
    endings = {k: int(v) for k, v in (item.split("=") for item in summary.split())}
    assert sum(endings.values()) == MUTANTS
    # Enough mutants load to test the run and its results, and enough are refused.
    assert endings["correct"] >= MUTANTS // 10 and endings["refused"] >= MUTANTS // 3, endings
