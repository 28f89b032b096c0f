"""Poplar tutorial 4 (profiling a matrix product on the IPU model) in popdsl.

Prints what the original prints: "Program complete", then the profile summary with
every execution step (printProfileSummary with showExecutionSteps). The emulator's
cycle figures are estimates, as on Poplar's IPUModel. Run it through
`python -m popdsl profile examples/tut4_profiling.py` to also get the PNGs.
"""
import sys

import popdsl as pd

device = pd.ipu_model("ipu2")  # the whole IPU: 1,472 tiles
graph = pd.Graph(device)

m1 = graph.variable(pd.float32, (900, 600), name="m1")  # each mapped linearly over the tiles
m2 = graph.variable(pd.float32, (600, 300), name="m2")
m3 = graph.variable(pd.float32, (300, 200), name="m3")

with pd.Sequence("main") as prog:
    m4 = pd.matmul(m1, m2, name="m4")
    m5 = pd.matmul(m4, m3, name="m5")

with pd.Session(graph, prog, device=device, options={"debug.retainDebugInformation": "true"}) as session:
    session.run()
print("Program complete")

session.engine.printProfileSummary(sys.stdout, {"showExecutionSteps": "true"})

# popdsl's structured profile answers "which lines of my builder cost most".
print("\nEstimated cycles by source line:")
for line in session.profile.by_line():
    print(f"  {line.total_cycles:>12,}  {line.label}")
