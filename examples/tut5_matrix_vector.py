"""Poplar tutorial 5 (matrix-vector multiplication with a custom vertex) on popdsl's
Pythonic layer: one DotProductVertex per matrix row, on the tile that holds the row.
"""
import pathlib
import sys

import numpy as np

import popdsl as pd

NUM_ROWS, NUM_COLS, TILES = 100, 40, 16

print(f"Multiplying matrix of size {NUM_ROWS}x{NUM_COLS} by vector of size {NUM_COLS}")
device = pd.ipu_model(tiles=TILES)
graph = pd.Graph(device)
print("Creating environment (compiling vertex programs)")
graph.add_codelets(pathlib.Path(__file__).with_name("tut5_codelets.cpp"))

print("Constructing compute graph and control program")
row_tile = [row * TILES // NUM_ROWS for row in range(NUM_ROWS)]
matrix = graph.variable(pd.float32, (NUM_ROWS, NUM_COLS), name="matrix",
                        mapping=[[(r * NUM_COLS, (r + 1) * NUM_COLS) for r in range(NUM_ROWS) if row_tile[r] == t]
                                 for t in range(TILES)])
vector = graph.variable(pd.float32, (NUM_COLS,), name="vector")
result = graph.variable(pd.float32, (NUM_ROWS,), name="result",
                        mapping=[[(r, r + 1) for r in range(NUM_ROWS) if row_tile[r] == t] for t in range(TILES)])

with pd.Sequence("main") as main:
    with pd.compute_set("mulCS") as cs:
        for row in range(NUM_ROWS):
            cs.vertex("DotProductVertex", tile=row_tile[row], a=matrix[row], b=vector, out=result[row],
                      perf_estimate=20)

rng = np.random.default_rng(5)
host_matrix = rng.random((NUM_ROWS, NUM_COLS), dtype=np.float32)
host_vector = rng.random(NUM_COLS, dtype=np.float32)

print("Running graph program to multiply matrix by vector")
with pd.Session(graph, main, device=device) as session:
    session.write(matrix, host_matrix)
    session.write(vector, host_vector)
    session.run()
    product = session.read(result)

expected = host_matrix.astype(np.float64) @ host_vector.astype(np.float64)
if not np.allclose(product, expected, rtol=1e-5):
    print("Multiplication result incorrect")
    sys.exit(1)
print("Multiplication result OK")
print("Program complete")
