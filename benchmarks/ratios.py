"""How benchmarks report a ratio: a line for people, and a JSON row for run_all.py
(which names a file in POPDSL_BENCHMARK_RATIOS for the benchmark to append to)."""
import json
import os


def verdict(ratio, budget, floor=None):
    """'holds' or 'MISSES' (empty without a budget); a miss names the floor when the
    budget lies below it: no code could meet it on this machine."""
    if budget is None:
        return ""
    if ratio <= budget:
        return "holds"
    return "MISSES" if floor is None or floor <= budget else f"MISSES, out of reach (floor {floor:.2f}x)"


def report(label, ratio, budget, detail="", unit="x", floor=None):
    """Prints `label: ratio (budget)` and records it for run_all.py; a ratio at or under
    the budget holds (`budget` None: reported, no budget). `unit` follows the figures
    ("x" for ratios, " ns" for a time against a budget in nanoseconds). `floor`: the least
    ratio the machine allows (benchmarks/fma_peak.py), where one is known."""
    held = verdict(ratio, budget, floor)
    print(f"{label}: {ratio:.2f}{unit}" + ("" if budget is None else f" (budget {budget:.2f}{unit}) {held}") +
          (f"; {detail}" if detail else ""))
    path = os.environ.get("POPDSL_BENCHMARK_RATIOS")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"label": label, "ratio": ratio, "budget": budget, "unit": unit, "detail": detail,
                                "floor": floor}) + "\n")
