"""The benchmarks' verdicts (benchmarks/ratios.py) and the multiply-add peak their floors
come from (benchmarks/fma_peak.py): benchmarks are not tests, but what they conclude is."""
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from fma_peak import fma_peak_gflops  # noqa: E402
from ratios import verdict  # noqa: E402
from run_all import cpu_times, stolen_share  # noqa: E402


@pytest.mark.parametrize("ratio, budget, floor, expected", [
    (0.9, 1.0, None, "holds"),
    (1.0, 1.0, 0.7, "holds"),  # at the budget
    (1.2, 1.0, None, "MISSES"),
    (1.2, 1.0, 0.7, "MISSES"),  # the budget is reachable: a plain miss
    (1.2, 1.0, 1.0, "MISSES"),  # a floor at the budget can still be met
    (1.16, 0.8, 0.86, "MISSES, out of reach (floor 0.86x)"),
    (0.5, None, 0.9, ""),  # reported without a budget
])
def test_verdict_names_a_floor_only_above_the_budget(ratio, budget, floor, expected):
    assert verdict(ratio, budget, floor) == expected


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler named cc")
def test_fma_peak_is_a_plausible_rate():
    one = fma_peak_gflops(1, tries=1)
    # Any x86-64 or Arm core of the last decade does a few GFLOP/s of float multiply-adds at
    # least, and no core 10 TFLOP/s.
    assert one is not None and 2 < one < 10_000


def test_stolen_share_is_the_steal_ticks_over_all_ticks():
    # /proc/stat's cpu line: user nice system idle iowait irq softirq steal guest guest_nice
    before = [100, 0, 20, 500, 0, 0, 0, 30, 0, 0]
    after = [160, 0, 30, 620, 0, 0, 0, 60, 7, 0]  # guest time is part of user time: not added again
    assert stolen_share(before, after) == pytest.approx(30 / (60 + 10 + 120 + 30))
    assert stolen_share(before, before) is None  # no time passed
    assert stolen_share(None, after) is None and stolen_share(before[:4], after[:4]) is None


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="no /proc/stat")
def test_cpu_times_reads_this_machines_ticks():
    times = cpu_times()
    assert times is not None and len(times) >= 8 and all(t >= 0 for t in times)


def test_the_performance_pages_table_gives_each_row_its_verdict():
    # docs/performance.rst keeps run_all.py's table as printed: each verdict must be the one
    # ratios.verdict gives for the row's figures, so an edited figure cannot keep a stale verdict.
    page = (Path(__file__).resolve().parents[2] / "docs" / "performance.rst").read_text()
    table = page.split("   benchmark ")[1].split("\n\n")[0].splitlines()[2:]
    row = re.compile(r"^   (.+?)\s{2,}(\d+\.\d+)(?: ns|x)(?:\s+(\d+\.\d+)(?: ns|x)\s+(.*))?$")
    verdicts = []
    for line in table:
        label, measured, budget, printed = row.match(line).groups()
        floor = re.search(r"floor (\d+\.\d+)x", printed or "")
        expected = verdict(float(measured), None if budget is None else float(budget),
                           float(floor.group(1)) if floor else None)
        assert (printed or "") == expected, label
        verdicts.append(expected)
    assert len(verdicts) == 13 and verdicts.count("holds") == 9
