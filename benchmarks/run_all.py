"""Runs every benchmark and prints one table of the ratios they report.

    python benchmarks/run_all.py [--torch-python PYTHON] [--only NAME ...]

Each benchmark runs in its own process (its output is shown as it goes) and appends
its ratios to a file named by POPDSL_BENCHMARK_RATIOS (benchmarks/ratios.py). The LSTM
benchmark runs when torch is importable here or --torch-python names a Python that has
it. Ends with the table and the machine it ran on, with its float multiply-add peak
(benchmarks/fma_peak.py) measured before and after the benchmarks: a shared machine's
speed can move while they run, and the two figures show by how much. On a virtual machine
it also gives the share of the cores' time the hypervisor gave to others meanwhile (steal
time, /proc/stat): above a few percent, the ratios are noise as much as measurement.
Exits 1 when a benchmark failed.
"""
import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from fma_peak import fma_peak_gflops
from ratios import verdict

HERE = Path(__file__).resolve().parent
BENCHMARKS = ["dispatch", "host_io", "matmul", "elementwise", "attention", "lstm"]


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch-python", help="a Python that can import torch, for the LSTM benchmark")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, help="run only these benchmarks")
    return parser.parse_args()


def command(name, torch_python):
    """The command line of benchmark `name`, or None when it cannot run here."""
    script = [sys.executable, str(HERE / f"{name}.py")]
    if name != "lstm":
        return script
    if torch_python:
        return script + ["--torch-python", torch_python]
    return script if importlib.util.find_spec("torch") else None


def peak():
    """The machine's multiply-add peak on all its cores now, as text."""
    gflops = fma_peak_gflops(len(os.sched_getaffinity(0)))
    return "unmeasured (no C compiler)" if gflops is None else f"{gflops:.0f} GFLOP/s"


def cpu_times():
    """The cores' time so far (/proc/stat's `cpu` line, in ticks), or None where there is none."""
    try:
        with open("/proc/stat") as stat:
            return [int(ticks) for ticks in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None


def stolen_share(before, after):
    """The share of the cores' time between two cpu_times() that the hypervisor gave to
    others (steal, the eighth field), or None where it is not counted."""
    if before is None or after is None or len(before) < 8 or len(after) < 8:
        return None
    total = sum(after[:8]) - sum(before[:8])
    return (after[7] - before[7]) / total if total > 0 else None


def machine(peak_before, times_before):
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    stolen = stolen_share(times_before, cpu_times())
    steal = "" if stolen is None else f"; {100 * stolen:.0f}% of the cores' time stolen by the hypervisor meanwhile"
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average {load} at the end; "
            f"float multiply-add peak {peak_before} before the benchmarks, {peak()} after{steal}")


def table(rows):
    width = max(len(r["label"]) for r in rows)
    lines = [f"{'benchmark':{width}}  {'measured':>10}  {'budget':>10}  verdict", "-" * (width + 36)]
    for r in rows:
        unit = r.get("unit", "x")
        budget = "" if r["budget"] is None else f"{r['budget']:.2f}{unit}"
        measured = f"{r['ratio']:.2f}{unit}"
        held = verdict(r["ratio"], r["budget"], r.get("floor"))
        lines.append(f"{r['label']:{width}}  {measured:>10}  {budget:>10}  {held}".rstrip())
    return "\n".join(lines)


def main(args):
    rows, failed = [], []
    peak_before, times_before = peak(), cpu_times()
    with tempfile.TemporaryDirectory() as scratch:
        ratios = Path(scratch) / "ratios.jsonl"
        env = dict(os.environ, POPDSL_BENCHMARK_RATIOS=str(ratios))
        for name in args.only or BENCHMARKS:
            cmd = command(name, args.torch_python)
            if cmd is None:
                print(f"== {name}: skipped (torch is not importable; pass --torch-python)", flush=True)
                continue
            print(f"== {name}", flush=True)
            if subprocess.run(cmd, cwd=HERE, env=env).returncode != 0:
                failed.append(name)
        if ratios.exists():
            rows = [json.loads(line) for line in ratios.read_text().splitlines()]
    print()
    if rows:
        print(table(rows))
    print(f"machine: {machine(peak_before, times_before)}")
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(parse_arguments()))
