"""A source checkout's popdsl/ (Python files, no compiled extension) that comes first on
sys.path, as in the repository root after `pip install .`, hands over to the installed
package; without one, importing says what to do."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import popdsl

INSTALLED = Path(popdsl.__file__).resolve().parent


def source_checkout(root: Path) -> Path:
    """A copy of the package's Python files only, as a fresh clone has them."""
    shutil.copytree(INSTALLED, root / "popdsl", ignore=shutil.ignore_patterns("_core*", "sdk", "__pycache__"))
    return root


def run_python(args, cwd, pythonpath):
    env = dict(os.environ, PYTHONPATH=pythonpath, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_python_m_popdsl_in_a_source_checkout_uses_the_installed_package(tmp_path):
    checkout = source_checkout(tmp_path)
    info = run_python(["-m", "popdsl", "info"], checkout, str(INSTALLED.parent))
    assert info.returncode == 0, info.stderr
    assert "backend: emulator" in info.stdout or "backend: sdk" in info.stdout
    where = run_python(["-c", "import popdsl, popdsl.session; print(popdsl.session.__file__)"], checkout,
                       str(INSTALLED.parent))
    assert where.stdout.strip() == str(INSTALLED / "session.py")


def test_a_checkout_without_the_extension_and_no_installed_package_says_how_to_build(tmp_path):
    checkout = source_checkout(tmp_path)
    # -S: no site-packages, where CI's installed popdsl lives.
    result = run_python(["-S", "-c", "import popdsl"], checkout, "")
    assert result.returncode == 1
    assert "ImportError: popdsl's compiled extension (popdsl._core) is not in" in result.stderr
    assert "pip install ." in result.stderr
