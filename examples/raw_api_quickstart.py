"""A first Poplar program on popdsl's embedded device, on the raw API (examples/quickstart.py
is the README's first program, on the Pythonic layer).

Builds a graph with a variable, views of it (slices, a reversed row, a transposed
column) and nested control flow (a Repeat whose body holds an If), then runs it on
the IPU-model emulator and prints the result. The API is Poplar's, name for name.
"""
import numpy as np

from popdsl import poplar, program

model = poplar.IPUModel("ipu2")
model.tilesPerIPU = 4  # a small model compiles and runs fastest
device = model.createDevice()
graph = poplar.Graph(device.getTarget())

rows = graph.addVariable(poplar.FLOAT, [4, 4], "rows")
flag = graph.addVariable(poplar.BOOL, [1], "flag")
ramp = graph.addConstant(poplar.FLOAT, [4], np.arange(4, dtype=np.float32), "ramp")
for tile, t in enumerate([rows, flag, ramp]):
    graph.setTileMapping(t, tile)

flags_in = graph.addHostToDeviceFIFO("flags", poplar.BOOL, 1)
data_in = graph.addHostToDeviceFIFO("data", poplar.FLOAT, 4)

# Each step scrolls the matrix up one row (a copy between overlapping views), then
# fills the last row from the host, reversed when the host's flag says so.
step = program.Sequence([
    program.Copy(rows.slice(1, 4), rows.slice(0, 3)),
    program.Copy(flags_in, flag),
    program.If(flag, program.Copy(data_in, rows[3].reverse(0)), program.Copy(data_in, rows[3])),
])
main = program.Sequence([
    program.Copy(ramp, rows.transpose()[0]),  # column 0 = 0, 1, 2, 3
    program.Repeat(3, step),
    program.PrintTensor("rows", rows),
])

graph.createHostRead("rows", rows)
engine = poplar.Engine(graph, main)
engine.load(device)
flags = np.array([False, True, False])
data = np.arange(100, 112, dtype=np.float32)
engine.connectStream("flags", flags)
engine.connectStream("data", data)
engine.run(0)

result = np.zeros((4, 4), np.float32)
engine.readTensor("rows", result)
expected = np.array([[3, 0, 0, 0], [100, 101, 102, 103], [107, 106, 105, 104], [108, 109, 110, 111]])
assert np.array_equal(result, expected), result
print("Program complete")
