"""Run by test_distributed.py under `python -m popdsl run`: instance 1 raises (`raise`) or
exits with status 0 (`exit`) before it imports popdsl or mpi4py, while instance 0 waits in a
host collective."""
import os
import sys

if os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK")) == "1":
    if sys.argv[1] == "raise":
        raise RuntimeError("instance 1 failed before importing popdsl")
    sys.exit(0)

import numpy as np  # noqa: E402

import popdsl as pd  # noqa: E402

pd.distributed.all_reduce(np.ones(2))
