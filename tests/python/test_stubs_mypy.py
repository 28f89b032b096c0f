"""mypy finds no error in the type stubs of popdsl._core (what `python -m popdsl stubs` writes,
made valid for type checkers by popdsl.stubs.for_type_checkers); each of that function's
rewrites turns an error mypy reports in stubgen's spelling into a stub mypy accepts."""
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

import popdsl
from popdsl import stubs

pytest.importorskip("mypy", reason="mypy is not installed (pip install '.[test]' brings the pinned version)")

STUBS = pathlib.Path(popdsl.__file__).resolve().parent / "_core"


def mypy(paths, cache: pathlib.Path, *options, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-color-output",
                           *options, *map(str, paths)], capture_output=True, text=True, timeout=600, cwd=cwd)


def stub_tree(tmp_path: pathlib.Path) -> pathlib.Path:
    """The stubs copied to tmp_path/stubs/popdsl/_core, beside an empty popdsl/__init__.pyi:
    checked where an installed package keeps them, mypy would take site-packages for a
    source root and refuse the modules there ("shadows library module")."""
    root = tmp_path / "stubs"
    shutil.copytree(STUBS, root / "popdsl" / "_core", ignore=lambda _, names: [n for n in names if not
                                                                                 n.endswith(".pyi") and "." in n])
    (root / "popdsl" / "__init__.pyi").write_text("")
    return root


@pytest.mark.slow  # about 30 s on two busy cores: mypy reads numpy's stubs too
def test_mypy_finds_no_error_in_the_stubs(tmp_path):
    # silent: errors in the popdsl modules mypy reaches through the package are not the stubs' (issue 18)
    root = stub_tree(tmp_path)
    done = mypy(sorted(p.relative_to(root) for p in root.rglob("*.pyi")), tmp_path / "cache",
                "--follow-imports=silent", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout


# stubgen's spellings that mypy refuses, one of each kind for_type_checkers rewrites
STUBGEN_SPELLINGS = textwrap.dedent('''\
    import typing
    class Cache:
        ...
    class Kind:
        @typing.overload
        def __init__(self, value: typing.SupportsInt) -> None:
            ...
        @typing.overload
        def __init__(self, value: typing.SupportsInt) -> None:
            ...
    class Interval:
        __hash__: typing.ClassVar[None] = None
        def __eq__(self, arg0: Interval) -> bool:
            ...
    class Expr:
        def __eq__(self, arg0: Expr) -> Expr:
            ...
    class Sequence:
        def add(self: typing.Sequence, item: int) -> None:
            ...
    def plan(cache: Cache = None) -> None:
        ...
    ''')


def test_each_rewrite_turns_a_mypy_error_into_an_accepted_stub(tmp_path):
    raw, fixed = tmp_path / "raw.pyi", tmp_path / "fixed.pyi"
    raw.write_text(STUBGEN_SPELLINGS)
    fixed.write_text(stubs.for_type_checkers(STUBGEN_SPELLINGS))
    before = mypy([raw], tmp_path / "cache", "--follow-imports=skip")
    for code in ["overload-cannot-match", "assignment", "override", "misc"]:
        assert f"[{code}]" in before.stdout, before.stdout
    after = mypy([fixed], tmp_path / "cache", "--follow-imports=skip")
    assert after.returncode == 0, after.stdout + fixed.read_text()
    text = fixed.read_text()
    assert "def __init__(self, value: typing.SupportsInt) -> None:" in text and "@typing.overload" not in text
    assert "def __eq__(self, other: object) -> bool:" in text and "cache: Cache | None = None" in text
