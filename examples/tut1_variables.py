"""Poplar tutorial 1 (variables, constants, host handles, streams) in popdsl.

Prints what the original C++ tutorial prints.
"""
import numpy as np

import popdsl as pd

device = pd.ipu_model(tiles=4)
graph = pd.Graph(device)

v1 = graph.variable(pd.float32, (4,), name="v1", mapping=0)
v2 = graph.variable(pd.float32, (4,), name="v2", mapping=[[(i, i + 1)] for i in range(4)])  # one element per tile
v3 = graph.variable(pd.float32, (4, 4), name="v3", mapping=0)
v4 = graph.variable(pd.int32, (10,), name="v4", mapping=0)
c1 = graph.constant([1.0, 1.5, 2.0, 2.5], name="c1", mapping=0)
in_stream = graph.host_to_device(pd.int32, (10,), name="v4-input-stream")

with pd.Sequence("main") as main:
    pd.copy(c1, v1)
    pd.print_tensor(v1, "v1-debug")
    pd.copy(v1, v2)
    pd.print_tensor(v2, "v2-debug")
    pd.copy(v1[0:3], v3[1, 1:4])
    in_stream.read(into=v4)
    pd.print_tensor(v4, "v4-0")
    in_stream.read(into=v4)
    pd.print_tensor(v4, "v4-1")

with pd.Session(graph, main, device=device) as session:
    session.write(v3, np.zeros((4, 4), np.float32))
    print("Running program")
    session.run(feeds={in_stream: np.arange(20, dtype=np.int32).reshape(2, 10)})  # two reads of 10
    print("Program complete")
    h3 = session.read(v3)

print("\nh3 data:")
for row in h3:
    print("  " + "".join(f"{value:g} " for value in row))
