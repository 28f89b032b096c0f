"""Poplar tutorial 3 (custom vertices and codelets) with popdsl's raw API.

Four SumVertex vertices, vertex i on tile i, each summing v1[i:] into v2[i];
prints what the original C++ tutorial prints.
"""
import pathlib

from popdsl import poplar, program

model = poplar.IPUModel("ipu2")
model.tilesPerIPU = 4
device = model.createDevice()
graph = poplar.Graph(device.getTarget())
graph.addCodelets(pathlib.Path(__file__).with_name("tut3_codelets.cpp"))

v1 = graph.addVariable(poplar.FLOAT, [4], "v1")
v2 = graph.addVariable(poplar.FLOAT, [4], "v2")
for i in range(4):
    graph.setTileMapping(v1[i], i)
    graph.setTileMapping(v2[i], i)

prog = program.Sequence()
c1 = graph.addConstant(poplar.FLOAT, [4], [1.0, 1.5, 2.0, 2.5], "c1")
graph.setTileMapping(c1, 0)
prog.add(program.Copy(c1, v1))

compute_set = graph.addComputeSet("computeSet")
for i in range(4):
    vertex = graph.addVertex(compute_set, "SumVertex")
    graph.connect(vertex["in"], v1.slice(i, 4))
    graph.connect(vertex["out"], v2[i])
    graph.setTileMapping(vertex, i)
    graph.setPerfEstimate(vertex, 20)

prog.add(program.Execute(compute_set))
prog.add(program.PrintTensor("v2", v2))

engine = poplar.Engine(graph, prog)
engine.load(device)
print("Running program")
engine.run(0)
print("Program complete")
