"""Run by test_distributed.py under mpiexec: `fail` makes instance 1 raise before any
collective; `exit` makes it call sys.exit(1) there, `exit-early` right after `import popdsl`
(before any pd.distributed call); `diverge` makes the instances run different programs."""
import os
import sys

import numpy as np

import popdsl as pd

mode = sys.argv[1]
if mode == "exit-early" and os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK")) == "1":
    sys.exit(1)
dev = pd.ipu_model(tiles=4, ipus=2)
g = pd.Graph(dev, replicas=2)
x = g.variable(pd.float32, (3,), name="x", init=np.ones(3, np.float32))
with pd.Sequence() as reduce:
    pd.all_reduce(x, op="sum")
with pd.Sequence() as gather:
    pd.all_gather(x)
with pd.Session(g, {"reduce": reduce, "gather": gather}, device=dev) as s:
    if pd.distributed.instance_index() == 1:
        if mode == "fail":
            raise RuntimeError("instance 1 failed on purpose")
        if mode == "exit":
            sys.exit(1)
    s.run("reduce" if mode != "diverge" or pd.distributed.instance_index() == 0 else "gather")
