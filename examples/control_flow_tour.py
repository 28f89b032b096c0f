"""A short tour of popdsl control flow: Repeat, If/Else, While, Switch, functions, streams.

Computes a Collatz trajectory on the device: while n != 1, n becomes n/2 or 3n+1,
with each step streamed back to the host; then a Switch labels the step count.
"""
import numpy as np

import popdsl as pd

device = pd.ipu_model(tiles=4)
graph = pd.Graph(device)

n = graph.variable(pd.uint32, (1,), name="n")
steps = graph.variable(pd.uint32, (1,), name="steps")
label = graph.variable(pd.int32, (1,), name="label")
trajectory = graph.device_to_host(pd.uint32, (1,), name="trajectory")
start = graph.host_to_device(pd.uint32, (1,), name="start")


@graph.function
def collatz_step():                   # built once, called with program::Call
    with pd.If(n % 2 == 0):
        n[...] = n / 2
    with pd.Else():
        n[...] = n * 3 + 1


with pd.Sequence("main") as main:
    start.read(into=n)
    pd.zero(steps)
    with pd.While(lambda: n != 1):
        collatz_step()
        steps += 1
        trajectory.write(n)
    with pd.Switch(steps) as sw:      # label a few interesting lengths
        with sw.case(0):
            pd.fill(label, 0)
        with sw.case(111):
            pd.fill(label, 1)
        with sw.default():
            pd.fill(label, -1)
    with pd.Repeat(3):                # Repeat: a fixed trip count
        label *= 2

with pd.Session(graph, main, device=device) as session:
    out = session.run(feeds={start: np.array([27], np.uint32)})
    path = out[trajectory].ravel()
    print(f"27 reaches 1 in {session.read(steps)[0]} steps, peaking at {path.max()}")
    print(f"label after the Switch and three doublings: {session.read(label)[0]}")

expected = [27]
while expected[-1] != 1:
    expected.append(expected[-1] // 2 if expected[-1] % 2 == 0 else 3 * expected[-1] + 1)
assert list(path) == expected[1:], "the device trajectory differs from the host's"
print("Program complete")
