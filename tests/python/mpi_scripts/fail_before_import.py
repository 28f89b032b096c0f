"""Run by test_distributed.py under `python -m popdsl run`: instance 1 fails before it imports
popdsl or mpi4py while instance 0 waits in a host collective."""
import os

if os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK")) == "1":
    raise RuntimeError("instance 1 failed before importing popdsl")

import numpy as np  # noqa: E402

import popdsl as pd  # noqa: E402

pd.distributed.all_reduce(np.ones(2))
