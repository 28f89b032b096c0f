"""How benchmarks report a ratio: a line for people, and a JSON row for run_all.py
(which names a file in POPDSL_BENCHMARK_RATIOS for the benchmark to append to)."""
import json
import os


def report(label, ratio, budget, detail="", unit="x"):
    """Prints `label: ratio (budget)` and records it for run_all.py; a ratio at or under
    the budget holds (`budget` None: reported, no budget). `unit` follows the figures
    ("x" for ratios, " ns" for a time against a budget in nanoseconds)."""
    verdict = "" if budget is None else (" holds" if ratio <= budget else " MISSES")
    print(f"{label}: {ratio:.2f}{unit}" + ("" if budget is None else f" (budget {budget:.2f}{unit}){verdict}") +
          (f"; {detail}" if detail else ""))
    path = os.environ.get("POPDSL_BENCHMARK_RATIOS")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"label": label, "ratio": ratio, "budget": budget, "unit": unit, "detail": detail}) + "\n")
