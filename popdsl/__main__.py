"""Command line: `python -m popdsl profile [--out DIR] script.py [script args]`,
`python -m popdsl run --instances I [--replicas N] [--hosts h1,h2] script.py [args]` (each instance
runs `python -m popdsl instance script.py [args]`), `python -m popdsl info`, `python -m popdsl sdk
--prefix|--enable`, `python -m popdsl docs [--out DIR]`, `python -m popdsl stubs [--out DIR]` and
`python -m popdsl popc [popc's options]` (the codelet compiler of the SDK-shaped prefix,
<prefix>/bin/popc)."""
import argparse
import json
import os
import platform
import runpy
import shlex
import subprocess
import sys

import numpy

import popdsl
import popdsl.profile
from popdsl import poplar
from popdsl import stubs as stub_files


def profile(script: str, out: str, script_args: list) -> int:
    """Runs `script` with autoReport on, so each pd.Session it closes writes its
    summary, JSON and PNGs under `out`; prints the summaries."""
    options = json.loads(os.environ.get("POPLAR_ENGINE_OPTIONS") or "{}")
    options.update({"autoReport.all": "true", "autoReport.directory": os.path.abspath(out)})
    os.environ["POPLAR_ENGINE_OPTIONS"] = json.dumps(options)
    sys.argv = [script] + script_args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    report_directories = popdsl.profile.report_directories  # read at the end: tests replace the list
    if not report_directories:
        print(f"popdsl profile: {script} closed no pd.Session, so there is no profile to write",
              file=sys.stderr)
        return 1
    for directory in report_directories:
        print(f"\n=== profile of {script} ({directory}) ===")
        with open(os.path.join(directory, "profile_summary.txt")) as f:
            print(f.read())
        print("files:", ", ".join(sorted(os.listdir(directory))))
    return 0


def launch(instances: int, replicas, hosts, script: str, script_args: list, mpiexec: str = None) -> int:
    """poprun's role: runs `script` as `instances` processes over `mpiexec` (by default the one
    next to this Python, the mpich wheel's, else the one on PATH), each line of output tagged
    with its instance (MPICH's "[instance R] ", Open MPI's "[1,R]<stdout>:"). Each instance runs
    as ``python -m popdsl instance script``, which joins the run before the script starts, so
    one that raises or exits non-zero, at any line, aborts the whole run (MPI_Abort) instead of
    leaving the others waiting."""
    import shutil

    if mpiexec is None:
        beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
        mpiexec = beside if os.path.exists(beside) else shutil.which("mpiexec")
    if mpiexec is None:
        print("popdsl run: no mpiexec found; install MPI with pip install 'popdsl[test]' (mpich, mpi4py) "
              "or use the system's MPI", file=sys.stderr)
        return 2
    if instances < 1:
        print(f"popdsl run: --instances must be at least 1, got {instances}", file=sys.stderr)
        return 2
    env = dict(os.environ)
    if replicas is not None:
        if replicas % instances:
            print(f"popdsl run: {replicas} replicas cannot be shared equally by {instances} instances",
                  file=sys.stderr)
            return 2
        env["POPDIST_NUM_TOTAL_REPLICAS"] = str(replicas)
    try:
        version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as e:
        print(f"popdsl run: {mpiexec} --version failed ({e}): is it an MPI launcher?", file=sys.stderr)
        return 2
    if "Open MPI" in version or "OpenRTE" in version:  # its own options; --host names slots: h1:2,h2:2
        command = [mpiexec, "-n", str(instances), "--tag-output"] + (["--host", hosts] if hosts else [])
        if replicas is not None:  # Open MPI passes on only the variables it is told to (hydra: all)
            command += ["-x", "POPDIST_NUM_TOTAL_REPLICAS"]
    else:  # MPICH's hydra
        command = [mpiexec, "-n", str(instances), "-prepend-pattern", "[instance %r] "] + (
            ["-hosts", hosts] if hosts else [])
    command += [sys.executable, "-u", "-m", "popdsl", "instance", script, *script_args]
    return subprocess.call(command, env=env)


def info() -> int:
    try:
        from importlib.metadata import version
        popdsl_version = version("popdsl")
    except Exception:  # not installed as a distribution (a source checkout)
        popdsl_version = "(source checkout)"
    print(f"popdsl {popdsl_version}, backend: {popdsl.backend()}")
    print(f"python {platform.python_version()}, numpy {numpy.__version__}", end="")
    try:
        import matplotlib
        print(f", matplotlib {matplotlib.__version__}")
    except ImportError:
        print(", matplotlib not installed (profile plots need it: pip install 'popdsl[plot]')")
    print("\nTargets (IPU models):")
    header = ("arch", "tiles/IPU", "bytes/tile", "memory/IPU", "clock", "workers", "exchange B/cycle",
              "vector float/half")
    rows = []
    for arch in ("ipu1", "ipu2", "ipu21"):
        t = poplar.IPUModel(arch).createDevice().getTarget()
        rows.append((arch, f"{t.getTilesPerIPU():,}", f"{t.getBytesPerTile():,}",
                     f"{t.getMemoryBytes() / 2**20:,.1f} MB", f"{t.getTileClockFrequency() / 1e6:,.0f} MHz",
                     str(t.getNumWorkerContexts()), str(t.getExchangeBytesPerCycle()),
                     f"{t.getFloatVectorWidth()}/{t.getHalfVectorWidth()}"))
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  " + "  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
    return 0


def sdk_prefix() -> str:
    """The SDK-shaped prefix the emulator is installed as: include/, lib/ (libpoplar.so,
    libpopops.so, ...) and lib/cmake/ (the poplar and poplibs CMake packages)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdk")


def sdk(show_prefix: bool) -> int:
    prefix = sdk_prefix()
    if not os.path.isfile(os.path.join(prefix, "lib", "libpoplar.so")):
        print(f"popdsl sdk: there is no emulator prefix at {prefix} (popdsl was built against a Poplar SDK, "
              "or the developer build was not installed: cmake --install build/dev --prefix .)", file=sys.stderr)
        return 1
    if show_prefix:
        print(prefix)
        return 0
    # As the SDK's enable.sh: prepend to what is set, and mark the shell as enabled.
    for variable, directory in (("PATH", "bin"), ("CPATH", "include"), ("LIBRARY_PATH", "lib"),
                                ("LD_LIBRARY_PATH", "lib"), ("CMAKE_PREFIX_PATH", "")):
        path = shlex.quote(os.path.join(prefix, directory) if directory else prefix)
        print(f"export {variable}={path}${{{variable}:+:${variable}}}")
    print(f"export POPLAR_SDK_ENABLED={shlex.quote(prefix)}")
    return 0


def popc(args: list) -> int:
    """Runs the prefix's popc with `args` (its own options: popc --help)."""
    popc_path = os.path.join(sdk_prefix(), "bin", "popc")
    if not os.access(popc_path, os.X_OK):
        print(f"popdsl popc: there is no popc at {popc_path} (popdsl was built against a Poplar SDK, whose "
              "popc is on its PATH, or the developer build was not installed)", file=sys.stderr)
        return 1
    return subprocess.run([popc_path] + args).returncode


def _newest_change(*directories: str) -> float:
    """The latest modification time of the files under `directories`, build outputs left out."""
    newest = 0.0
    for directory in directories:
        for root, dirs, files in os.walk(directory):
            dirs[:] = [d for d in dirs if d not in ("_build", "__pycache__", "sdk")]
            newest = max([newest] + [os.path.getmtime(os.path.join(root, f)) for f in files])
    return newest


def docs(out: str = None) -> int:
    """Builds the documentation site (docs/ of the checkout) with warnings as errors when
    its sources or the package changed since the last build, and prints its index.html."""
    package = os.path.dirname(os.path.abspath(__file__))
    # The sources are the repository's docs/: beside a checkout's package, else (popdsl
    # pip-installed) in the clone the command runs in.
    candidates = [os.path.join(os.path.dirname(package), "docs"), os.path.abspath("docs")]
    source = next((c for c in candidates if os.path.isfile(os.path.join(c, "conf.py"))), None)
    if source is None:
        print(f"popdsl docs: no documentation sources (docs/conf.py) beside this popdsl ({package}) or in the "
              "current directory: run it from a clone of the repository", file=sys.stderr)
        return 1
    out = os.path.abspath(out or os.path.join(source, "_build", "html"))
    index = os.path.join(out, "index.html")
    if not os.path.isfile(index) or os.path.getmtime(index) < _newest_change(source, package):
        try:
            from sphinx.cmd.build import build_main
        except ImportError:
            print("popdsl docs: building the documentation needs Sphinx: pip install sphinx "
                  "(the test extra has it: pip install '.[test]')", file=sys.stderr)
            return 1
        # -E: autodoc reads the docstrings afresh; -W: a warning fails the build.
        if build_main(["-b", "html", "-E", "-W", "-q", source, out]) != 0:
            return 1
    print(index)
    return 0


def stubs(out: str = None) -> int:
    """Writes the type stubs of popdsl._core (pybind11-stubgen) into `out`, by default the
    package itself (popdsl/_core/*.pyi), and prints the directory written."""
    package = os.path.dirname(os.path.abspath(__file__))
    out = os.path.abspath(out or package)
    try:
        stub_files.generate(out)
    except stub_files.StubError as e:
        print(f"popdsl stubs: {e}", file=sys.stderr)
        return 1
    print(os.path.join(out, "_core"))
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["popc"]:  # every argument is popc's, options included
        return popc(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m popdsl", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("profile", help="run a script with profiling on and write the reports")
    p.add_argument("--out", default=None, help="report directory (default: profile-<script name>)")
    p.add_argument("script")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="the script's arguments: all after the script")
    commands.add_parser("info", help="print the backend, the targets and the versions")
    p = commands.add_parser("run", help="run a script as several instances over MPI (poprun's role)")
    p.add_argument("--instances", type=int, required=True, help="how many processes")
    p.add_argument("--replicas", type=int, help="the global replica count (pd.distributed.replicas())")
    p.add_argument("--hosts", help="comma-separated host names (MPICH's -hosts, Open MPI's --host)")
    p.add_argument("--mpiexec", help="the MPI launcher to use (default: the one beside this Python, else on PATH)")
    p.add_argument("script")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    p = commands.add_parser("instance", help="run a script as this process's instance of a run (what `run` "
                                             "starts under mpiexec)")
    p.add_argument("script")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    p = commands.add_parser("sdk", help="the SDK-shaped prefix for C++ programs and CMake projects")
    shown = p.add_mutually_exclusive_group(required=True)
    shown.add_argument("--prefix", action="store_true", help="print the prefix")
    shown.add_argument("--enable", action="store_true",
                       help='print export lines like the SDK\'s enable.sh: eval "$(python -m popdsl sdk --enable)"')
    commands.add_parser("popc", help="compile codelets into a .gp that Graph::addCodelets loads (popc --help)")
    p = commands.add_parser("docs", help="build the documentation site (when needed) and print its index.html")
    p.add_argument("--out", default=None, help="the HTML directory (default: docs/_build/html)")
    p = commands.add_parser("stubs", help="regenerate the type stubs of popdsl._core (pybind11-stubgen)")
    p.add_argument("--out", default=None, help="the directory to write _core/*.pyi into (default: the package)")
    args = parser.parse_args(argv)
    if args.command == "run":
        return launch(args.instances, args.replicas, args.hosts, args.script, args.script_args, args.mpiexec)
    if args.command == "instance":
        popdsl.distributed.run_script(args.script, args.script_args)
        return 0
    if args.command == "info":
        return info()
    if args.command == "docs":
        return docs(args.out)
    if args.command == "stubs":
        return stubs(args.out)
    if args.command == "sdk":
        return sdk(args.prefix)
    out = args.out or "profile-" + os.path.splitext(os.path.basename(args.script))[0]
    script_args = args.script_args[1:] if args.script_args[:1] == ["--"] else args.script_args  # the older form
    return profile(args.script, out, script_args)


if __name__ == "__main__":
    sys.exit(main())
