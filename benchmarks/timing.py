"""Timing shared by the benchmarks that compare the emulator with numpy."""
import contextlib
import os
import time
from pathlib import Path


def best_times(functions, repeats):
    """The best time of each function over `repeats` runs, one function at a time."""
    best = []
    for fn in functions:
        time.sleep(0.5)  # let the previous library's BLAS threads go idle
        fn()  # warm up: first touch of memory, BLAS threads starting
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            runs.append(time.perf_counter() - start)
        best.append(min(runs))
    return best


def cpu_seconds_of_threads():
    """{thread id: CPU seconds (user + system)} of this process's threads, from /proc
    (empty where there is none): shows the work spread over threads even when the
    machine is too busy for the wall time to show it."""
    tasks = Path("/proc/self/task")
    if not tasks.is_dir():
        return {}
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for task in tasks.iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            seconds[int(task.name)] = (int(fields[11]) + int(fields[12])) / ticks
    return seconds
