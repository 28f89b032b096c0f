"""Command line: `python -m popdsl profile script.py [--out DIR] [-- script args]`
and `python -m popdsl info`."""
import argparse
import json
import os
import platform
import runpy
import sys


def profile(script: str, out: str, script_args: list) -> int:
    from popdsl.profile import report_directories

    """Runs `script` with autoReport on, so each pd.Session it closes writes its
    summary, JSON and PNGs under `out`; prints the summaries."""
    options = json.loads(os.environ.get("POPLAR_ENGINE_OPTIONS") or "{}")
    options.update({"autoReport.all": "true", "autoReport.directory": os.path.abspath(out)})
    os.environ["POPLAR_ENGINE_OPTIONS"] = json.dumps(options)
    sys.argv = [script] + script_args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
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


def info() -> int:
    import numpy

    import popdsl
    from popdsl import poplar

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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m popdsl", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("profile", help="run a script with profiling on and write the reports")
    p.add_argument("script")
    p.add_argument("--out", default=None, help="report directory (default: profile-<script name>)")
    p.add_argument("script_args", nargs="*", help="arguments for the script (after --)")
    commands.add_parser("info", help="print the backend, the targets and the versions")
    args, unknown = parser.parse_known_args(argv)
    if args.command == "info":
        return info()
    out = args.out or "profile-" + os.path.splitext(os.path.basename(args.script))[0]
    return profile(args.script, out, args.script_args + unknown)


if __name__ == "__main__":
    sys.exit(main())
