"""The compile behind `pip install .`: how long, how much CPU, and which units dominate.

    python benchmarks/build_time.py [--rounds N] [--top N] [--variant NAME KEY=VALUE ...]

Configures the project as the wheel build does (scikit-build-core's SKBUILD, Release, Ninja)
in a temporary directory per variant, then builds it from clean `--rounds` times, the
variants taking turns within each round: a shared machine's speed drifts by more than most
changes to the build save, so only side-by-side rounds compare. Prints each build's wall
time and CPU seconds (user + system, all compilers together), then, from the last round's
.ninja_log, when the emulator's and the bindings' jobs ran and their summed durations (waits
for a core included), and the longest jobs.
A variant is a name and CMake cache definitions, e.g. `--variant unity64 POPDSL_EMULATOR_UNITY_BATCH=64`;
the wheel's own settings always run as `wheel`. Needs cmake, ninja and pybind11 (the test extra).
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, NamedTuple

ROOT = Path(__file__).resolve().parents[1]


class Job(NamedTuple):
    """One line of a .ninja_log: an output and when its command ran, in seconds from the build's start."""
    output: str
    start: float
    end: float


def read_ninja_log(path: Path) -> List[Job]:
    """The jobs of the last build in a .ninja_log (format v5 and later: start, end, mtime, output, hash;
    times in milliseconds). A log holds every build since it was made, each job written as it ends:
    a build's ends rise, and the next build's times restart at 0."""
    jobs: List[Job] = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        start, end, _, output = line.split("\t")[:4]
        job = Job(output, int(start) / 1000, int(end) / 1000)
        if jobs and job.end < jobs[-1].end:  # a later build
            jobs = []
        jobs.append(job)
    return jobs


def part_of(output: str) -> str:
    """Which part of the project a build output belongs to."""
    if "_core" in output:
        return "bindings"
    if output.startswith("emulator/"):
        return "emulator"
    return "other"


def summarize(jobs: List[Job]) -> Dict[str, Dict[str, float]]:
    """Per part: the summed job durations (seconds; CPU seconds when jobs never wait for a
    core), the first start and the last end."""
    parts: Dict[str, Dict[str, float]] = {}
    for job in jobs:
        part = parts.setdefault(part_of(job.output), {"busy": 0.0, "start": job.start, "end": job.end})
        part["busy"] += job.end - job.start
        part["start"], part["end"] = min(part["start"], job.start), max(part["end"], job.end)
    return parts


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="clean builds of each variant, taking turns")
    parser.add_argument("--top", type=int, default=10, help="longest jobs to list")
    parser.add_argument("--variant", nargs="+", action="append", default=[], metavar="NAME KEY=VALUE",
                        help="a build with these CMake cache definitions besides the wheel's")
    return parser.parse_args()


def tool(name: str):
    """A tool's path: beside this Python first (a virtual environment's cmake and ninja), then on PATH."""
    found = shutil.which(name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if found is None:
        sys.exit(f"build_time.py needs {name} (pip install '.[test]' brings it)")
    return found


def configure(directory: Path, definitions: List[str]):
    import pybind11
    subprocess.run([tool("cmake"), "-S", str(ROOT), "-B", str(directory), "-G", "Ninja", "-DSKBUILD=ON",
                    "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_MAKE_PROGRAM={tool('ninja')}",
                    f"-Dpybind11_DIR={pybind11.get_cmake_dir()}", f"-DPython_EXECUTABLE={sys.executable}",
                    *(f"-D{definition}" for definition in definitions)],
                   check=True, stdout=subprocess.DEVNULL)


def clean_build(directory: Path):
    """(wall seconds, CPU seconds of the compilers) of a build from clean."""
    subprocess.run([tool("ninja"), "-C", str(directory), "-t", "clean"], check=True, stdout=subprocess.DEVNULL)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([tool("ninja"), "-C", str(directory)], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    args = parse_arguments()
    variants = {"wheel": [], **{name: definitions for name, *definitions in args.variant}}
    with tempfile.TemporaryDirectory(prefix="popdsl-build-time-") as scratch:
        directories = {name: Path(scratch) / name for name in variants}
        for name, definitions in variants.items():
            configure(directories[name], definitions)
        print(f"{os.cpu_count()} cores; clean builds, wall and CPU seconds:")
        for round_number in range(1, args.rounds + 1):
            for name, directory in directories.items():
                wall, cpu = clean_build(directory)
                print(f"  round {round_number} {name:12} wall {wall:6.1f} s  CPU {cpu:6.1f} s", flush=True)
        for name, directory in directories.items():
            jobs = read_ninja_log(directory / ".ninja_log")
            print(f"{name}, the last build's {len(jobs)} jobs (durations include waits for a core):")
            for part, times in sorted(summarize(jobs).items()):
                print(f"  {part:9} busy {times['busy']:6.1f} s, from {times['start']:5.1f} s to {times['end']:5.1f} s")
            for job in sorted(jobs, key=lambda j: j.start - j.end)[:args.top]:
                print(f"  {job.end - job.start:6.1f} s  {job.start:6.1f}-{job.end:6.1f}  {job.output}")


if __name__ == "__main__":
    main()
