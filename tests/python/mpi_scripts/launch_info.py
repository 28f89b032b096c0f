"""Run by test_distributed.py under `python -m popdsl run --replicas N`: prints what the
launcher told this instance."""
import popdsl as pd

replicas = pd.distributed.replicas(1)
print(f"replicas {replicas}: {pd.distributed.replica_range(replicas)} of instance "
      f"{pd.distributed.instance_index()} of {pd.distributed.num_instances()}")
