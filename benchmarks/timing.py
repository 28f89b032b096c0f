"""Timing shared by the benchmarks that compare the emulator with numpy."""
import time


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
