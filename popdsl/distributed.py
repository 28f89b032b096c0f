"""Instances: one script run as several processes, each running a slice of the replicas.

poprun/popdist's role. Start a script as I instances with ``python -m popdsl run --instances I
script.py`` or ``mpiexec -n I python script.py``; ``pd.Graph(dev, replicas=N)`` keeps N as the
*global* replica count and each instance runs replicas ``[index * N / I, (index + 1) * N / I)``
(``Session.replica_range``). Device collectives (pd.all_reduce, ...) cross the instances with
the bits of one process running all N replicas; the host collectives below (popdist.collectives'
and Horovod's role) work on numpy arrays. Without a launcher everything is one instance, with
no MPI import.

The instance count and index come from poprun/popdist's variables (POPDIST_NUM_INSTANCES,
POPDIST_INSTANCE_INDEX) where set, else MPI's own (Open MPI's OMPI_COMM_WORLD_SIZE/RANK,
MPICH/hydra's PMI_SIZE/PMI_RANK). Data travels over MPI (mpi4py); an instance that raises or
calls sys.exit with a non-zero status ends the whole run (MPI_Abort) after printing its error,
and one that ends while others wait in a collective makes them raise, naming it, so no
instance ever waits for one that is gone.

``run_in_threads(fn, instances)`` runs `fn` as instances on threads of one process (an
in-memory transport): tests of multi-instance behaviour that need no launcher.
"""

from __future__ import annotations

import atexit
import builtins
import io
import os
import runpy
import sys
import threading
import time
import traceback
from typing import Any, Callable, List, Optional

import numpy as np
from numpy.typing import ArrayLike

from popdsl._core import backend as _backend
from popdsl._core import poplar

# (instance count, instance index) variables, the launcher's first.
_LAUNCHER_VARIABLES = (("POPDIST_NUM_INSTANCES", "POPDIST_INSTANCE_INDEX"),
                       ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"),
                       ("PMI_SIZE", "PMI_RANK"))


__all__ = ["InstancesFailed", "num_instances", "instance_index", "is_main", "replica_range", "replicas",
           "engine_options", "all_gather", "all_reduce", "broadcast", "barrier", "broadcast_bytes", "shard",
           "shared_seed", "print_once", "save_once", "compile_once", "run_in_threads", "run_script"]


class InstancesFailed(RuntimeError):
    """run_in_threads: some instances raised; `errors[k]` is instance k's exception (None if it
    finished)."""

    def __init__(self, errors: List[Optional[BaseException]]):
        self.errors = errors
        lines = [f"instance {k}: {type(e).__name__}: {e}" for k, e in enumerate(errors) if e is not None]
        super().__init__(f"{len(lines)} of {len(errors)} instance(s) failed:\n" + "\n".join(lines))


class _Single:
    size, rank = 1, 0

    def allgather(self, mine: bytes) -> List[bytes]:
        return [mine]


# The first byte of each instance's part of an exchange over MPI: a collective's contribution,
# or the last exchange an instance makes as it exits, which tells any instance still waiting
# in a collective that this one is gone.
_CONTRIBUTION, _LEAVING = b"c", b"l"
# How long an aborting instance waits for the launcher to forward its last lines.
_ABORT_GRACE_SECONDS = 0.5


class _Mpi:
    """The instances of an MPI job: mpi4py's COMM_WORLD, handed to the emulator's engines too."""

    def __init__(self, size: int, rank: int, source: str):
        if ("OMPI_COMM_WORLD_SIZE" in os.environ and "mpi4py.MPI" not in sys.modules
                and not {"MPI4PY_LIBMPI", "MPI4PY_MPIABI"} & set(os.environ)):
            # Open MPI's launch (mpirun, poprun): mpi4py's wheel would load the libmpi it finds
            # first beside this Python (the mpich wheel's), which is not the launcher's.
            os.environ["MPI4PY_LIBMPI"] = "libmpi.so.40"
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise RuntimeError(f"popdsl.distributed: {source} say this is instance {rank} of {size}, but mpi4py "
                               f"cannot be imported ({e}); install it with pip install 'popdsl[test]' or "
                               f"pip install mpi4py mpich") from None
        self.mpi, self.comm = MPI, MPI.COMM_WORLD
        if (self.comm.Get_size(), self.comm.Get_rank()) != (size, rank):
            raise RuntimeError(f"popdsl.distributed: {source} say instance {rank} of {size}, but MPI's "
                               f"COMM_WORLD has rank {self.comm.Get_rank()} of {self.comm.Get_size()} "
                               f"(was the script started by mpiexec of the MPI that mpi4py uses?)")
        self.size, self.rank = size, rank
        self.gone: Optional[str] = None  # why no exchange can complete any more
        poplar._setProcessInstanceExchange(size, rank, self.device_allgather)
        # Dropped before Python finalizes: the exchange holds a Python function.
        atexit.register(poplar._setProcessInstanceExchange, size, rank, None)
        # At exit, last registered first: a failed status aborts every instance, else this one
        # leaves the run; then mpi4py's MPI_Finalize, registered at its import.
        atexit.register(self.leave)
        _abort_on_failure(self)

    def allgather(self, mine: bytes, waiting_in: str = "a host collective (pd.distributed)") -> List[bytes]:
        if self.gone is not None:
            raise RuntimeError(self.gone)
        gathered = self.comm.allgather(_CONTRIBUTION + bytes(mine))
        left = [k for k, part in enumerate(gathered) if part[:1] == _LEAVING]
        if left:
            self.gone = (f"pd.distributed: instance {self.rank} waits in {waiting_in}, but instance(s) "
                         f"{', '.join(map(str, left))} of {self.size} ended before reaching it (its script returned "
                         f"or exited): every instance must make the same collectives")
            raise RuntimeError(self.gone)
        return [part[1:] for part in gathered]

    def device_allgather(self, mine: bytes) -> List[bytes]:
        return self.allgather(mine, "a device collective (Engine::run)")

    def leave(self) -> None:
        """The last exchange, at exit: instances waiting in a collective learn that this one is gone."""
        if self.gone is not None or self.mpi.Is_finalized():  # the others know, or the script ended MPI
            return
        gathered = self.comm.allgather(_LEAVING)
        waiting = [str(k) for k, part in enumerate(gathered) if part[:1] != _LEAVING]
        if waiting:
            sys.stderr.write(f"[instance {self.rank}] ended while instance(s) {', '.join(waiting)} wait in a "
                             f"collective: they stop with an error naming instance {self.rank}\n")
            sys.stderr.flush()

    def end_with(self, status: Any) -> None:
        """Ends every instance (MPI_Abort) when `status`, a SystemExit code, is a failure."""
        if status is None or status == 0:
            return
        code = status if isinstance(status, int) else 1  # sys.exit("message") exits with 1
        sys.stderr.write(f"[instance {self.rank}] exiting with status {code}: MPI_Abort ends every instance\n")
        self.abort(code)

    def abort(self, code: int) -> None:
        """MPI_Abort, after a pause that lets the launcher forward what this instance just
        wrote: the abort tears the launcher's output pipes down, and under load lines were lost."""
        sys.stderr.flush()
        time.sleep(_ABORT_GRACE_SECONDS)
        self.comm.Abort(code)


class _Threaded:
    """Instance `rank` of a run_in_threads group."""

    def __init__(self, group, size: int, rank: int):
        self.group, self.size, self.rank = group, size, rank

    def allgather(self, mine: bytes) -> List[bytes]:
        return self.group.allGather(self.rank, bytes(mine))


def _abort_on_failure(instance: _Mpi) -> None:
    """An uncaught exception (its traceback printed first) or ``sys.exit(n)`` with n != 0 on
    the main thread ends every instance (MPI_Abort): the others would otherwise wait for this
    one forever, in a collective or in MPI_Finalize. (Python's exit status is out of reach
    at exit, so sys.exit records it on its way; a bare ``raise SystemExit(n)`` is seen by
    run_script, else only as _Mpi.leave's, by instances waiting for this one.)"""
    def hook(kind, value, tb):
        sys.stderr.write(f"[instance {instance.rank}] " + "".join(traceback.format_exception(kind, value, tb)))
        instance.abort(1)

    plain_exit = sys.exit
    status = []

    def recording_exit(code=None):
        if threading.current_thread() is threading.main_thread():
            status.append(code)
        plain_exit(code)

    sys.excepthook = hook
    sys.exit = recording_exit
    atexit.register(lambda: instance.end_with(status[-1] if status else None))


def _from_environment():
    for size_name, rank_name in _LAUNCHER_VARIABLES:
        if size_name in os.environ:
            source = f"{size_name}/{rank_name}"
            try:
                size, rank = int(os.environ[size_name]), int(os.environ.get(rank_name, ""))
            except ValueError:
                raise RuntimeError(f"popdsl.distributed: {source} must be integers, got "
                                   f"{os.environ.get(size_name)!r} and {os.environ.get(rank_name)!r}") from None
            if size < 1 or not 0 <= rank < size:
                raise RuntimeError(f"popdsl.distributed: {source} = {size}/{rank} is not an instance of a run")
            return (_Single() if size == 1 else _Mpi(size, rank, source))
    return _Single()


_thread = threading.local()
_process = None
_process_lock = threading.Lock()


def _instances():
    context = getattr(_thread, "context", None)
    if context is not None:
        return context
    global _process
    with _process_lock:
        if _process is None:
            _process = _from_environment()
        return _process


def num_instances() -> int:
    """How many instances run this script (1 without a launcher)."""
    return _instances().size


def instance_index() -> int:
    """This instance's index, 0 to num_instances() - 1."""
    return _instances().rank


# Under a launch of several instances, join the run at import: an instance that fails before
# its first collective then still ends the others (MPI's launcher waits forever for a process
# that never initialised MPI). An error here (no mpi4py) is raised again at first use.
if any(os.environ.get(size, "1") not in ("", "1") for size, _ in _LAUNCHER_VARIABLES):
    try:
        _instances()
    except RuntimeError:
        pass


def is_main() -> bool:
    """Whether this is instance 0 (the one that prints and saves)."""
    return instance_index() == 0


def replica_range(replicas: int) -> range:
    """This instance's replicas of a graph with `replicas` (global) replicas."""
    instances, index = num_instances(), instance_index()
    if replicas % instances:
        raise ValueError(f"the graph's {replicas} replicas cannot be shared equally by {instances} instances: "
                         f"make the replica count a multiple of {instances}")
    local = replicas // instances
    return range(index * local, (index + 1) * local)


def replicas(default: int) -> int:
    """The global replica count the launcher asked for (python -m popdsl run --replicas N, or
    poprun's POPDIST_NUM_TOTAL_REPLICAS), else `default`."""
    return int(os.environ.get("POPDIST_NUM_TOTAL_REPLICAS", default))


def engine_options(replicas: int) -> dict:
    """The engine options that make an engine of a `replicas`-replica graph run this instance's
    replicas (what poprun's popdist sets for PopART and TensorFlow): none for one instance."""
    if num_instances() == 1:
        return {}
    mine = replica_range(replicas)
    return {"target.firstRuntimeReplica": str(mine.start), "target.numberRuntimeReplica": str(len(mine)),
            "target.syncReplicasIndependently": "true"}


# --- host collectives ---------------------------------------------------------------------
def _to_bytes(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def _from_bytes(data: bytes) -> np.ndarray:
    return np.load(io.BytesIO(data), allow_pickle=False)


def all_gather(array: ArrayLike) -> np.ndarray:
    """Every instance's `array` (same shape and dtype on each), stacked: ``[instances, ...]``."""
    arrays = [_from_bytes(b) for b in _instances().allgather(_to_bytes(array))]
    kinds = {(a.shape, a.dtype.str) for a in arrays}
    if len(kinds) > 1:
        described = ", ".join(f"instance {k}: {a.shape} {a.dtype}" for k, a in enumerate(arrays))
        raise ValueError(f"pd.distributed.all_gather: the instances gave arrays of different shapes or dtypes "
                         f"({described})")
    return np.stack(arrays)


_REDUCTIONS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


def all_reduce(array: ArrayLike, op: str = "sum") -> np.ndarray:
    """The element-wise `op` ("sum", "mean", "max", "min") of every instance's `array`, reduced in
    instance order (the same bits on every instance), in the array's dtype."""
    if op not in _REDUCTIONS:
        raise ValueError(f"pd.distributed.all_reduce: op must be one of {sorted(_REDUCTIONS)}, got {op!r}")
    stacked = all_gather(array)
    return _REDUCTIONS[op](stacked, axis=0).astype(stacked.dtype, copy=False)


def broadcast(array: Optional[ArrayLike], root: int = 0) -> np.ndarray:
    """Instance `root`'s `array` on every instance (the others may pass None)."""
    instances = num_instances()
    if not isinstance(root, int) or not 0 <= root < instances:
        raise ValueError(f"pd.distributed.broadcast: root must be an instance index, 0 to {instances - 1}, "
                         f"got {root!r}")
    mine = _to_bytes(array) if instance_index() == root else b""
    return _from_bytes(_instances().allgather(mine)[root])


def barrier() -> None:
    """Returns once every instance has called it."""
    _instances().allgather(b"")


def broadcast_bytes(data: Optional[bytes], root: int = 0) -> bytes:
    """Instance `root`'s bytes on every instance (one compile shared by all, for example)."""
    return _instances().allgather(data if instance_index() == root else b"")[root]


# --- what a training script needs ------------------------------------------------------------
def shard(data: ArrayLike, axis: int = 0) -> np.ndarray:
    """This instance's contiguous part of `data` along `axis` (its replicas' rows when the axis
    is the replica axis); the length must divide by num_instances()."""
    data = np.asarray(data)
    instances, index = num_instances(), instance_index()
    if data.shape[axis] % instances:
        raise ValueError(f"pd.distributed.shard: {data.shape[axis]} rows along axis {axis} cannot be shared "
                         f"equally by {instances} instances")
    part = data.shape[axis] // instances
    return np.take(data, range(index * part, (index + 1) * part), axis=axis)


def shared_seed(seed: Optional[int] = None) -> int:
    """A seed equal on every instance: `seed`, or one instance 0 draws; also seeds numpy's
    global generator with it."""
    if seed is None and is_main():
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    value = int(broadcast(np.array(seed if is_main() else 0, dtype=np.uint64)))
    np.random.seed(value % 2**32)
    return value


def print_once(*args: Any, **kwargs: Any) -> None:
    """print() on instance 0 only."""
    if is_main():
        builtins.print(*args, **kwargs)


def save_once(path: str, **arrays: ArrayLike) -> None:
    """``np.savez(path, **arrays)`` on instance 0 only; returns when the file is written."""
    if is_main():
        np.savez(path, **arrays)
    barrier()


def compile_once(compile: Callable[[], Any]) -> Any:
    """The executable `compile()` gives, compiled on instance 0 only and sent to the others (one
    compile for all instances)."""
    if num_instances() == 1:
        return compile()
    serialized = compile().serialize() if is_main() else None
    return poplar.Executable.deserialize(broadcast_bytes(serialized))


# --- instances as threads ------------------------------------------------------------------------
def run_in_threads(fn: Callable[[], Any], instances: int, timeout: float = 60.0) -> List[Any]:
    """Runs `fn()` as `instances` instances, each on a thread of this process (the emulator
    backend only): inside, num_instances() and instance_index() say which, and sessions and host
    collectives cross the threads as they would cross processes. Returns each instance's result;
    raises InstancesFailed when any raised (the others are released, never left waiting). An
    exchange that an instance which has returned or raised will never reach fails at once,
    naming it; one that waits `timeout` seconds for an instance fails."""
    if _backend == "sdk":
        raise NotImplementedError("pd.distributed.run_in_threads needs popdsl's emulator backend")
    if not isinstance(instances, int) or instances < 1:
        raise ValueError(f"run_in_threads: instances must be a positive int, got {instances!r}")
    group = poplar._ThreadInstances(instances, float(timeout))
    results: List[Any] = [None] * instances
    errors: List[Optional[BaseException]] = [None] * instances

    def body(k: int) -> None:
        _thread.context = _Threaded(group, instances, k)
        group.use(k)
        try:
            results[k] = fn()
            # Done: an instance still waiting for this one in an exchange would wait in vain.
            group.abort(f"instance {k} ended (its function returned) before reaching the exchange")
        except BaseException as e:  # reported by the caller; the others must not wait for this one
            errors[k] = e
            group.abort(f"instance {k} raised {type(e).__name__}: {e}")
        finally:
            group.release()
            _thread.context = None

    threads = [threading.Thread(target=body, args=(k,), name=f"popdsl-instance-{k}") for k in range(instances)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if any(e is not None for e in errors):
        raise InstancesFailed(errors)
    return results


# --- as the launcher starts each instance ------------------------------------------------------
def run_script(script: str, args: List[str]) -> None:
    """Runs `script` with `args` as ``python script.py args`` would, as this process's instance:
    what ``python -m popdsl run`` starts under mpiexec. The instance joins the run before the
    script's first line, so that however the script ends (an exception, ``raise SystemExit(n)``,
    a failure before it imports popdsl) the run ends with it, never waiting for it."""
    instance = _instances()
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:  # other exceptions reach sys.excepthook, which aborts under MPI
        if isinstance(instance, _Mpi):
            instance.end_with(e.code)
        raise
