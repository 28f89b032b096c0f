"""Run by test_distributed.py in one process and as 2 instances: every raw device collective
of test_instances.build (each group type and operator; float32, half and int32) on this
instance's replicas, and the host collectives on an array of each instance's own; instance 0
saves them, the device results gathered to [replicas, ...], into argv[1]."""
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import popdsl as pd  # noqa: E402
from test_instances import REPLICAS, run_slice  # noqa: E402

dist = pd.distributed
count = REPLICAS // dist.num_instances()
results = {}
for dtype in (np.float32, np.float16, np.int32):
    for name, value in run_slice(dtype, dist.instance_index() * count, count).items():
        results[f"{np.dtype(dtype).name} {name}"] = np.concatenate(dist.all_gather(value))
mine = np.random.default_rng(dist.instance_index()).uniform(-1, 1, 5).astype(np.float32)
for op in ("sum", "mean", "max", "min"):
    results[f"host {op}"] = dist.all_reduce(mine, op)
last = dist.num_instances() - 1
results["host broadcast"] = dist.broadcast(mine if dist.instance_index() == last else None, root=last)
results["host gather"] = dist.all_gather(mine)
dist.save_once(sys.argv[1], **results)
