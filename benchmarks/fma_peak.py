"""The machine's float multiply-add peak in GFLOP/s, measured: fma_peak.c compiled with the
C compiler the project builds with ($CC, else cc) and run on `threads` threads at once.

No product of floats on this machine runs faster, so a budget that asks for less time than
a case's multiply-adds take at this rate is out of reach whatever the code (benchmarks/lstm.py
prints that floor beside its ratios). Returns None where no C compiler runs.

    python benchmarks/fma_peak.py [--threads N]
"""
import argparse
import ctypes
import functools
import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

SOURCE = Path(__file__).resolve().with_suffix(".c")
ROUNDS = 20_000_000  # about 0.1 s a thread at 100 GFLOP/s


@functools.lru_cache(maxsize=None)
def _library():
    """fma_peak.c built and loaded, once a process; None without a C compiler."""
    with tempfile.TemporaryDirectory() as directory:  # the loaded library stays mapped
        library = Path(directory) / "fma_peak.so"
        try:
            subprocess.run([os.environ.get("CC", "cc"), "-O3", "-funroll-loops", "-march=native", "-ffp-contract=fast",
                            "-shared", "-fPIC", str(SOURCE), "-o", str(library)], check=True, capture_output=True)
            loaded = ctypes.CDLL(str(library))
        except (OSError, subprocess.CalledProcessError):
            return None
    loaded.multiply_adds.argtypes, loaded.multiply_adds.restype = [ctypes.c_long], ctypes.c_float
    loaded.multiply_adds_per_round.restype = ctypes.c_long
    return loaded


def fma_peak_gflops(threads: int, tries: int = 3) -> Optional[float]:
    """The best rate of `tries` runs of the multiply-add chains on `threads` threads at once
    (ctypes lets go of the GIL during the call), or None without a C compiler."""
    library = _library()
    if library is None:
        return None
    flops = 2 * ROUNDS * library.multiply_adds_per_round() * threads
    best = float("inf")
    for _ in range(tries):
        workers = [threading.Thread(target=library.multiply_adds, args=(ROUNDS,)) for _ in range(threads)]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        best = min(best, time.perf_counter() - start)
    return flops / best / 1e9


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    threads = parser.parse_args().threads
    peak = fma_peak_gflops(threads)
    print("no C compiler ran" if peak is None else f"float multiply-add peak on {threads} thread(s): {peak:.0f} GFLOP/s")
