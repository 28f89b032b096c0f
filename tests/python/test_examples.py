"""Every example runs as a script and prints what it promises."""
import os
import pathlib
import runpy
import subprocess
import sys

import pytest

import popdsl

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

# The Poplar tutorials' expected output (their own tests check these lines).
EXPECTED = {
    "tut1_variables.py": [
        "v1-debug: [1.0000000 1.5000000 2.0000000 2.5000000]",
        "v2-debug: [1.0000000 1.5000000 2.0000000 2.5000000]",
        "v4-0: [0 1 2 3 4 5 6 7 8 9]",
        "v4-1: [10 11 12 13 14 15 16 17 18 19]",
        "h3 data:\n  0 0 0 0 \n  0 1 1.5 2 \n  0 0 0 0 \n  0 0 0 0 \n",
    ],
    "tut2_operations.py": [
        "v3: [\n  [5.0000000 4.5000000]\n  [4.0000000 3.5000000]\n]",
        "v4: [\n  [9.0000000 7.5000000]\n  [6.0000000 4.5000000]\n]",
        "v5: [\n  [5.0000000 3.5000000]\n  [5.0000000 3.5000000]\n]",
    ],
    "tut3_vertices.py": ["v2: [7.0000000 6.0000000 4.5000000 2.5000000]"],
    "tut5_matrix_vector.py": ["Multiplication result OK"],
    "tut6_matrix_vector_opt.py": [
        "Multiplying matrix of size 10000x1000 by vector of size 1000",
        "colsAxisSplit=7, total cost=3996 (compute cost=3696,",
        "Worst cost seen: 53807",
        "Multiplication result OK",
        "Execute: mulCS",
    ],
    "tut4_profiling.py": ["Memory Usage:", "Total cycles (estimated):", "Execute: m4"],
}


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_runs(script):
    # The examples import the popdsl under test (a build tree's or the installed one).
    path = os.pathsep.join(filter(None, [str(pathlib.Path(popdsl.__file__).parents[1]), os.environ.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True, text=True,
                            timeout=120, cwd=EXAMPLES, env=dict(os.environ, PYTHONPATH=path))
    assert result.returncode == 0, result.stderr
    assert "Program complete" in result.stdout
    for expected in EXPECTED.get(script, []):
        assert expected in result.stdout


def test_tut6_plans_for_ipu1_as_the_tutorial_does(capsys):
    # The tutorial's documented plan for 10000x1000 on a Mk1 model (building the graph
    # is the same as for Mk2, which test_example_runs covers).
    tut6 = runpy.run_path(str(EXAMPLES / "tut6_matrix_vector_opt.py"))
    target = popdsl.poplar.IPUModel("ipu1").createDevice().getTarget()
    assert tut6["best_split"](target, 10000, 1000) == 5
    printed = capsys.readouterr().out
    assert "colsAxisSplit=5, total cost=4751 (compute cost=4410, exchange cost=200," in printed
    assert "Worst cost seen: 64373" in printed
