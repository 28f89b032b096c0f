"""A first popdsl program: build a graph on the Pythonic layer, then run it on the embedded
IPU emulator (README's first program).

Ops written inside a `with pd.Sequence()` block become the program's steps; nothing runs
until a session runs the program. examples/raw_api_quickstart.py does similar work on the
raw Poplar API, name for name.
"""
import numpy as np
import popdsl as pd

dev = pd.ipu_model(tiles=4)                        # the embedded IPU emulator, 4 tiles
g = pd.Graph(dev)
x = g.variable(pd.float32, (2, 4), name="x")       # a device tensor, spread over the tiles
w = g.constant(np.full((4, 3), 0.5, np.float32), name="w")

with pd.Sequence() as main:                        # the ops below become the program
    y = pd.tanh(x @ w) + 1.0                       # a matrix product, then element-wise ops
    with pd.Repeat(3):                             # a loop that runs on the device
        x *= 2                                     # in place, so every iteration doubles x

with pd.Session(g, main, device=dev) as s:         # compile, load onto the device
    s.write(x, np.arange(8).reshape(2, 4) / 8)
    s.run()
    print(s.read(y))                               # tanh(x @ w) + 1 from the x written
    print(s.read(x))                               # x * 8

print("Program complete")
