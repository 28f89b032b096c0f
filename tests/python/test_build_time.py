"""benchmarks/build_time.py's reading of a .ninja_log: the last build's jobs, per part of the project."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from build_time import Job, read_ninja_log, summarize  # noqa: E402

# Two builds: jobs are written as they end, so starts interleave while ends rise; the
# second build's times restart at 0.
LOG = """# ninja log v7
2\t11\t1\t/tmp/b/CMakeFiles/cmake.verify_globs\tcd63
12\t4660\t1\temulator/CMakeFiles/poplar.dir/Unity/unity_0_cxx.cxx.o\ta63c
0\t9000\t1\tCMakeFiles/_core.dir/Unity/unity_0_cxx.cxx.o\te27f
4660\t9500\t1\temulator/libpoplar.so\taa3d
1\t3000\t1\temulator/CMakeFiles/poplar.dir/Unity/unity_0_cxx.cxx.o\ta63c
3000\t3500\t1\temulator/libpoplar.so\taa3d
2500\t10000\t1\tCMakeFiles/_core.dir/Unity/unity_0_cxx.cxx.o\te27f
10000\t10500\t1\t_core.cpython-311-x86_64-linux-gnu.so\tff00
"""


def test_the_last_build_is_read_and_split_into_emulator_and_bindings(tmp_path):
    log = tmp_path / ".ninja_log"
    log.write_text(LOG)
    jobs = read_ninja_log(log)
    assert jobs == [Job("emulator/CMakeFiles/poplar.dir/Unity/unity_0_cxx.cxx.o", 0.001, 3.0),
                    Job("emulator/libpoplar.so", 3.0, 3.5),
                    Job("CMakeFiles/_core.dir/Unity/unity_0_cxx.cxx.o", 2.5, 10.0),
                    Job("_core.cpython-311-x86_64-linux-gnu.so", 10.0, 10.5)]
    parts = summarize(jobs)
    assert set(parts) == {"emulator", "bindings"}
    assert parts["emulator"] == pytest.approx({"busy": 3.499, "start": 0.001, "end": 3.5})
    assert parts["bindings"] == pytest.approx({"busy": 8.0, "start": 2.5, "end": 10.5})
