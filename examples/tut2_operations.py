"""Poplar tutorial 2 (element-wise operations, transposed views) in popdsl.

Prints what the original C++ tutorial prints.
"""
import popdsl as pd

device = pd.ipu_model(tiles=4)
graph = pd.Graph(device)

v1 = graph.variable(pd.float32, (2, 2), name="v1")
v2 = graph.variable(pd.float32, (2, 2), name="v2")
c1 = graph.constant([1.0, 1.5, 2.0, 2.5], name="c1")
c2 = graph.constant([4.0, 3.0, 2.0, 1.0], name="c2")

with pd.Sequence("main") as main:
    pd.copy(c1, v1.flatten())
    pd.copy(c2, v2.flatten())
    v3 = v1 + v2
    pd.print_tensor(v3, "v3")
    v4 = v3 + v2
    pd.print_tensor(v4, "v4")
    v5 = v1 + v2.T
    pd.print_tensor(v5, "v5")

with pd.Session(graph, main, device=device) as session:
    session.run()
print("Program complete")
