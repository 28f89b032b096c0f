"""Run by test_distributed.py under mpiexec, instance 1 misbehaving while instance 0 goes on:
`fail` makes it raise before any collective, `exit` call sys.exit(1) there, `raise-exit` raise
SystemExit(3) there, `leave` end there with status 0 while instance 0 waits in a device
collective, `exit-early` call sys.exit(1) right after `import popdsl` (before any
pd.distributed call), `leave-host` end with status 0 while instance 0 waits in a host
collective, `raise-exit-after` raise SystemExit(3) after the last collective; `diverge` makes
the instances run different programs."""
import os
import sys

import numpy as np

import popdsl as pd

mode = sys.argv[1]
second = os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK")) == "1"
if mode == "exit-early" and second:
    sys.exit(1)
if mode == "leave-host":
    if not second:
        pd.distributed.all_reduce(np.ones(2))
    sys.exit(0)
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
        if mode == "raise-exit":
            raise SystemExit(3)
        if mode == "leave":
            sys.exit(0)
    s.run("reduce" if mode != "diverge" or pd.distributed.instance_index() == 0 else "gather")
if mode == "raise-exit-after" and second:
    raise SystemExit(3)
