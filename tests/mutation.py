"""Scripted mutation testing: deliberate bugs the suite must catch.

    python tests/mutation.py                 every mutant (C++ ones rebuild build/dev)
    python tests/mutation.py --python        only the mutants of popdsl/
    python tests/mutation.py NAME...         the named mutants
    python tests/mutation.py --list          the mutants and the tests that should kill them

Each mutant replaces one snippet of one source file (it must occur there exactly once),
runs the tests named for it and counts as killed when they fail. The file is restored
afterwards whatever happens; after C++ mutants build/dev is rebuilt and installed again
as docs/developing.rst says. Exits 1 when a mutant survives. A mutant set is
small and chosen by hand (the bugs the issue tracker says survived, the cost model's
constants, kernels' operations), so each run takes minutes, not hours."""
import argparse
import dataclasses
import subprocess
import sys
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
REBUILD = "ninja -C build/dev -j2 > /dev/null && cmake --install build/dev --prefix . > /dev/null"
TIMEOUT_SECONDS = 600


@dataclasses.dataclass
class Mutant:
    name: str
    path: str
    before: str
    after: str
    tests: list

    @property
    def is_cpp(self) -> bool:
        return not self.path.endswith(".py")


MUTANTS = [
    # popdsl/
    Mutant("stream written twice returns only its first write", "popdsl/session_io.py",
           "reshape((writes,) + self.stream.shape)", "reshape((writes,) + self.stream.shape)[:1]",
           ["tests/python/test_pythonic.py"]),
    Mutant("Memory.total_bytes ignores constants", "popdsl/profile.py",
           "return sum(self.tile_bytes)", "return sum(self.variable_bytes)", ["tests/python/test_profile.py"]),
    Mutant("out_of_memory_tiles counts a tile filled exactly", "popdsl/profile.py",
           "if b > self.bytes_per_tile]", "if b >= self.bytes_per_tile]", ["tests/python/test_profile.py"]),
    Mutant("Step.total_cycles adds executions", "popdsl/profile.py",
           "self.executions * self.cycles_per_execution", "self.executions + self.cycles_per_execution",
           ["tests/python/test_profile.py"]),
    Mutant("pd.min computes a maximum", "popdsl/ops.py",
           'apply(pe.Min, a, b, what=("pd.min', 'apply(pe.Max, a, b, what=("pd.min',
           ["tests/python/test_pythonic_functions.py"]),
    Mutant("pd.pow swaps its operands", "popdsl/ops.py",
           "apply(pe.Pow, a, b,", "apply(pe.Pow, b, a,", ["tests/python/test_pythonic_functions.py"]),
    Mutant("pd.logical_or is an and", "popdsl/ops.py",
           'apply(pe.Or, a, b, what=("pd.logical_or', 'apply(pe.And, a, b, what=("pd.logical_or',
           ["tests/python/test_pythonic_functions.py"]),
    Mutant("pd.reduce_min reduces with MAX", "popdsl/reductions.py",
           '_reducer("reduce_min", popops.Operation.MIN', '_reducer("reduce_min", popops.Operation.MAX',
           ["tests/python/test_pythonic_functions.py"]),
    Mutant("assert_close compares the result with itself", "popdsl/testing/__init__.py",
           "actual.astype(np.float64), expected.astype(np.float64)",
           "actual.astype(np.float64), actual.astype(np.float64)", ["tests/python/test_testing_helpers.py"]),
    Mutant("assert_close ignores shapes of equal size", "popdsl/testing/__init__.py",
           "expected.ndim and actual.shape != expected.shape", "expected.ndim and actual.size != expected.size",
           ["tests/python/test_testing_helpers.py"]),
    Mutant("float32 tolerance ten times looser", "popdsl/testing/__init__.py",
           "np.dtype(np.float32): (1e-5, 1e-6)", "np.dtype(np.float32): (1e-4, 1e-6)",
           ["tests/python/test_testing_helpers.py"]),
    Mutant("reference sigmoid of -x", "popdsl/testing/__init__.py",
           '"sigmoid": lambda a: 1 / (1 + np.exp(-a))', '"sigmoid": lambda a: 1 / (1 + np.exp(a))',
           ["tests/python/test_testing_helpers.py"]),
    Mutant("ipu_device ignores the ipu_tiles marker", "popdsl/testing/plugin.py",
           "tiles=marker.args[0] if marker else 4", "tiles=4",
           ["tests/python/test_testing_helpers.py"]),
    # emulator/ (rebuilt into build/dev)
    Mutant("sync costs 101 cycles", "emulator/src/poplar/CostModel.hpp",
           "kSyncCycles = 100;", "kSyncCycles = 101;", ["tests/python/test_profile.py"]),
    Mutant("a kernel's fixed cost is 49 cycles", "emulator/src/poplar/CostModel.hpp",
           "kVertexCycles = 50;", "kVertexCycles = 49;", ["tests/python/test_profile.py"]),
    Mutant("element-wise work ignores the workers' turns", "emulator/src/poplar/CostModel.cpp",
           "ceilDiv(ceilDiv(elements, vectorWidth), workers) * workers", "ceilDiv(elements, vectorWidth)",
           ["tests/python/test_profile.py"]),
    Mutant("the summary's constants line shows every byte", "emulator/src/poplar/Profile.cpp",
           '"Constants", withCommas(constantBytes)', '"Constants", withCommas(all)',
           ["tests/python/test_profile.py"]),
    Mutant("strict memory refuses a tile filled exactly", "emulator/src/poplar/ProgramCompiler.cpp",
           "if (s.tileBytes[t] > target.getBytesPerTile())", "if (s.tileBytes[t] >= target.getBytesPerTile())",
           ["tests/python/test_engine_errors.py"]),
    Mutant("element-wise minimum takes the larger", "emulator/src/popops/ExprEval.cpp",
           "y != y ? x + y : y < x ? y : x; });", "y != y ? x + y : y > x ? y : x; });",
           ["tests/python/test_pythonic_functions.py", "tests/python/test_popops_named_elementwise.py"]),
]


def run_tests(tests) -> bool:
    """Whether the tests pass (coverage off: a mutant run measures nothing)."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
               "-m", "not slow", *tests]
    try:
        return subprocess.run(command, cwd=REPOSITORY, capture_output=True, timeout=TIMEOUT_SECONDS).returncode == 0
    except subprocess.TimeoutExpired:
        return False  # a hang is caught too


def rebuild():
    subprocess.run(REBUILD, shell=True, cwd=REPOSITORY, check=True)


def try_mutant(mutant: Mutant) -> bool:
    """Whether the mutant is killed."""
    path = REPOSITORY / mutant.path
    original = path.read_text()
    count = original.count(mutant.before)
    if count != 1:
        raise SystemExit(f"{mutant.name}: {mutant.path} holds {mutant.before!r} {count} times, not once")
    try:
        path.write_text(original.replace(mutant.before, mutant.after))
        if mutant.is_cpp:
            try:
                rebuild()
            except subprocess.CalledProcessError:
                return True  # it does not compile: nothing to run
        return not run_tests(mutant.tests)
    finally:
        path.write_text(original)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--python", action="store_true", help="only the mutants of popdsl/")
    parser.add_argument("--list", action="store_true", help="list the mutants and their tests")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if (not args.names or m.name in args.names) and not (args.python and m.is_cpp)]
    unknown = set(args.names) - {m.name for m in MUTANTS}
    if unknown:
        raise SystemExit(f"no mutants named {sorted(unknown)}")
    if args.list:
        for m in chosen:
            print(f"{m.name}  ({m.path}) -> {' '.join(m.tests)}")
        return 0
    survivors = []
    try:
        for m in chosen:
            start = time.perf_counter()
            killed = try_mutant(m)
            print(f"{'killed  ' if killed else 'SURVIVED'} {time.perf_counter() - start:6.1f} s  {m.name}", flush=True)
            if not killed:
                survivors.append(m.name)
    finally:
        if any(m.is_cpp for m in chosen):
            rebuild()  # the unmutated build again
    print(f"{len(chosen) - len(survivors)} of {len(chosen)} mutants killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
