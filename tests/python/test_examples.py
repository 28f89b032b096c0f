"""Every example runs as a script and prints what it promises."""
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_runs(script):
    result = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True, text=True,
                            timeout=120, cwd=EXAMPLES)
    assert result.returncode == 0, result.stderr
    assert "Program complete" in result.stdout
