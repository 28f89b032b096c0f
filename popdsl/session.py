"""pd.Session: compile once (or load a cached executable), then attach, write, run and read.

Lifecycle, as popxl's sessions have it:

- ``Session(graph, programs, ...)`` compiles (``poplar::compileGraph``) and builds the
  engine. With ``cache_dir=`` (or the environment variable ``POPDSL_CACHE_DIR``) the
  executable is stored under a hash of its canonical serialization (target, graph,
  programs, options) and loaded instead of compiled next time; the ``popdsl`` logger
  says why it compiled when it did ("no cached executable", "graph changed", ...).
- ``with session:`` attaches the device, loads the engine (every variable back to its
  initial value) and runs ``weights_from_host()``; leaving runs ``weights_to_host()``
  and detaches. Nested ``with`` blocks are no-ops. A second session cannot attach a
  device another session holds (``SessionError`` names the holder).
- Weights are the variables with host data: those made with ``init=`` and those
  written with ``write()``. The session keeps a host copy of each written one;
  ``weights_from_host()`` copies the host copies to the device and
  ``weights_to_host()`` copies every weight from the device into them (and returns
  them by name), so a session that detaches and re-attaches finds its weights again.
- ``save(path)`` writes the executable with the names of its tensors, streams and host
  callbacks; ``Session.load(path, device=..., callbacks=...)`` makes a runnable session
  from it without the graph-building code. Tensors are then addressed by name:
  ``read("x")`` / ``write("x", values)`` accept a tensor's debug name (or its last
  ``/`` part when that is unique), ``run(feeds={"handle": array})`` a stream handle.
  A file whose graph has codelets is loaded only with ``trust_codelets=True``: loading
  compiles their C++ into this process (safe by default, as ``numpy.load``'s
  ``allow_pickle=False``).
- ``seed=`` / ``session.seed`` set the engine's random seed, from which the hardware
  seeds (``pd.random.get_hw_seeds``) are derived.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from typing import Callable, Dict, Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from popdsl._core import poplar
from popdsl._core import backend as _core_backend
from popdsl.callbacks import HostCallback
from popdsl.control import Block
from popdsl.debug import describe, expect_options
from popdsl.dtypes import as_type, numpy_dtype
from popdsl.executable_cache import compile_or_load
from popdsl.graph import Graph
from popdsl.instrument import Counter
from popdsl.profile import Profile, auto_report
from popdsl.remote import RemoteBuffer
from popdsl import distributed, progress
from popdsl.progress import RunProgress, engine_progress
from popdsl import loop_pitfall, remote, saved_session
from popdsl.session_io import (Collected, Compiled, Feed, SessionError, StreamInfo, TensorInfo, device_values,
                               file_path, per_replica)
from popdsl.session_views import VariableLayout
from popdsl.tensor import Tensor

log = logging.getLogger("popdsl")

def _one_at_a_time(method):
    """Runs the method holding the session's lock: a detach() or read() from another thread
    waits for a run to end instead of copying weights while it writes them (host callbacks,
    on the running thread, may still read and write)."""
    @functools.wraps(method)
    def exclusive(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return exclusive


class Session:
    """Compiles `programs` (a pd.Sequence or a dict of them) for `graph` at construction.

    `with session:` attaches to the device and loads the engine; inside it,
    write/read/run work. run(name, feeds={stream: array}) returns what the
    program sent on device-to-host streams, keyed by stream. See the module
    docstring for caching, weights, save/load and seeds.

    options are Poplar engine options (POPLAR_ENGINE_OPTIONS overrides them):
    `debug.instrument` times every step on the host; `autoReport.all` writes the
    profile files to `autoReport.directory` when the `with` block ends.
    """

    def __init__(self, graph: Union[Graph, Compiled], programs, device=None, options=None, cache_dir=None,
                 seed=None, name=None):
        # The one way a session is made: Session.load passes the Compiled it read from a file
        # as `graph` (and programs=None); a pd.Graph's programs are compiled here.
        if device is not None and not isinstance(device, poplar.Device):
            raise TypeError(f"Session: device must be a device (pd.ipu_model()) or None, got {describe(device)}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Session: name must be a str or None, got {describe(name)}")
        compiled = graph if isinstance(graph, Compiled) and programs is None else \
            _compile(graph, programs, options, cache_dir)
        self._lock = threading.RLock()
        self.graph = compiled.graph  # None for a loaded session, which reads and writes by name
        self._by_id = compiled.handles
        self._layout = VariableLayout(list(compiled.graph.variables) if compiled.graph else [], compiled.handles)
        self._stream_objects = {s.handle: s for s in compiled.graph.streams} if compiled.graph else {}
        # A replicated graph's tensors are read and written as [replicas, *shape], its
        # streams fed and collected per replica (a leading replica axis): this instance's
        # replicas, replica_range of the graph's `replicas` (pd.distributed).
        self.replicas = compiled.replicas
        self.replica_range = distributed.replica_range(compiled.replicas)
        self._local = len(self.replica_range)
        self.executable = compiled.executable
        self.program_names = compiled.program_names
        self.device = device or poplar.Device.createSimulatorDevice(compiled.target)
        self.name = name or compiled.name
        self._run_seconds = {}  # program name -> how long its last run took
        self._writes = {}  # (program name, stream handle) -> the rows its last run wrote
        self._tensors = {t.handle: t for t in compiled.tensors}
        self._streams = {s.handle: s for s in compiled.streams}
        self._callbacks = dict(compiled.callbacks)
        start = time.perf_counter()
        self.engine = poplar.Engine(self.executable, distributed.engine_options(self.replicas),
                                    engine_progress(f"building the engine for {self.name!r}"))
        log.info("engine for %r ready in %.3f s", self.name, time.perf_counter() - start)
        saved_session.check_tensors(self.engine, compiled.tensors)
        for handle, callback in self._callbacks.items():
            # The arguments' types and sizes too: the sdk backend cannot read them from the executable.
            arguments = tuple([(as_type(dtype), int(np.prod(shape))) for shape, dtype in specs]
                              for specs in (callback.inputs, callback.outputs))
            for replica in range(self._local):
                self.engine.connectHostFunction(handle, replica, callback, arguments)
        if seed is not None:
            self.seed = seed
        self._host_data = dict(compiled.weights)  # handle -> host copy of a weight written (or loaded)
        self._depth = 0

    # --- saving and loading -----------------------------------------------------------------
    @_one_at_a_time
    def save(self, path: Union[str, os.PathLike], weights: bool = False) -> None:
        """Writes the executable and the names of its tensors, streams and host callbacks to
        `path`; with weights=True also the weights' values (copied from the device first when
        attached), from which a session loaded from the file starts."""
        saved = {}
        if weights:
            if self.attached:
                self.weights_to_host()
            saved = {t.handle: self._host_data[t.handle] for t in self._weights() if t.handle in self._host_data}
        saved_session.write(file_path(path, "Session.save"), {
            "programs": self.program_names, "name": self.name, "replicas": self.replicas,
            "weight_replicas": [self.replica_range.start, self.replica_range.stop],
            "tensors": [t.to_json() for t in self._tensors.values()],
            "streams": [s.to_json() for s in self._streams.values()],
            "host_callbacks": [c.to_json() for c in self._callbacks.values()],
        }, saved, self.executable.serialize())

    @classmethod
    def load(cls, path: Union[str, os.PathLike], device: Optional[poplar.Device] = None,
             callbacks: Optional[Dict[str, Callable]] = None, seed: Optional[int] = None,
             trust_codelets: bool = False) -> "Session":
        """A runnable session from a file written by save(). `device` must have the saved
        target (default: a simulator device for it); `callbacks` maps each saved host
        callback's handle to its Python function. Tensors are then read and written by name.
        A file saved with weights=True starts from the saved weights (they are its host copies).
        A damaged or foreign file raises SessionError naming it and what is wrong.

        A file whose graph has codelets (custom vertices' C++) is refused unless
        `trust_codelets` is true: loading it compiles that C++ and loads it into this
        process, where it can do anything the process can. Pass trust_codelets=True only
        for files you trust (as torch.load(weights_only=False) and numpy.load(allow_pickle=True))."""
        path = file_path(path, "Session.load")
        if not isinstance(trust_codelets, bool):
            raise TypeError(f"Session.load: trust_codelets must be a bool, got {describe(trust_codelets)}")
        try:
            return cls(_read(path, dict(callbacks or {}), device is None, trust_codelets), None, device=device,
                       seed=seed)
        except saved_session.SavedSessionError as e:
            raise SessionError(f"Session.load({path!r}): {e}") from None
        except poplar.poplar_error as e:  # the engine's checks of what the executable holds
            raise SessionError(f"Session.load({path!r}): no engine can be made of the file's executable (for this "
                               f"device): {type(e).__name__}: {e}") from None

    # --- lifecycle ------------------------------------------------------------------------
    @_one_at_a_time
    def attach(self) -> None:
        """Attaches the device, loads the engine and copies the weights to it (`with` does this)."""
        holder = self.device.session
        if holder is not None and holder is not self:
            raise SessionError(f"session {self.name!r} cannot attach: the device is attached to another session "
                               f"({holder.name!r}); leave that session's `with` block (or call its detach()) first")
        if holder is None:
            if not self.device.attach():
                raise SessionError(f"session {self.name!r} cannot attach: the device is attached elsewhere; "
                                   "detach it first")
            self.device.session = self
            try:
                self.engine.load(self.device)
                self.weights_from_host()
            except BaseException:
                self.device.session = None
                self.device.detach()
                raise

    @_one_at_a_time
    def detach(self) -> None:
        """Copies the weights to the host and releases the device (leaving `with` does this)."""
        if self.device.session is self:
            self.weights_to_host()
            self.device.session = None
            self.device.detach()

    @property
    def attached(self) -> bool:
        """Whether this session holds its device: inside its with block, or after attach()."""
        return self.device.session is self

    @_one_at_a_time
    def __enter__(self):
        if self._depth == 0:
            self.attach()
        self._depth += 1
        return self

    @_one_at_a_time
    def __exit__(self, *exc):
        self._depth -= 1
        if self._depth == 0:
            self.detach()
            auto_report(self.engine)
        return False

    @property
    def profile(self) -> Profile:
        """What the engine recorded so far: summary(), steps, memory, plots (cycles estimated)."""
        return Profile.from_engine(self.engine)

    def report(self, execution: bool = True) -> "pva.Report":
        """libpva's report of the engine now (a ``pva.Report``, as ``Engine::getReport`` gives it in
        C++): compilation and, unless ``execution`` is false, the recorded runs (cycles estimated)."""
        return self.engine.getReport(execution)

    def _check_attached(self, what):
        if not self.attached:
            holder = self.device.session
            held = f" (the device is held by session {holder.name!r})" if holder is not None else ""
            weights = " (outside it only weights, variables made with init= or written, read as their host copies)" \
                if what == "read" else ""
            raise SessionError(f"Session.{what} needs an attached session: put the call inside "
                               f"`with session:`{held}{weights}")

    # --- seeds --------------------------------------------------------------------------
    @property
    def seed(self) -> int:
        """The engine's random seed; the hardware seeds (pd.random.get_hw_seeds) derive from it.
        Needs the emulator backend (NotImplementedError on the sdk backend)."""
        return self.engine.getRandomSeed()

    @seed.setter
    @_one_at_a_time
    def seed(self, value: int):
        if not isinstance(value, (int, np.integer)) or not 0 <= int(value) < 2 ** 64:
            raise SessionError(f"the seed must be an integer in [0, 2**64), not {value!r}")
        self.engine.setRandomSeed(int(value))

    # --- data ----------------------------------------------------------------------------
    def _info(self, t) -> TensorInfo:
        if isinstance(t, str):
            return self._named(t)
        if not isinstance(t, Tensor):
            raise TypeError(f"Session: t must be a pd.Tensor or a tensor name, got {describe(t)}")
        handle = self._by_id.get(id(t))
        if handle is None and self.graph is None:
            raise SessionError(f"Session: a loaded session reads and writes tensors by name (a str), not {t!r}")
        if handle is None:  # read and write take this graph's views before asking
            raise SessionError(f"Session: t {t!r} belongs to another graph than this session's")
        return self._tensors[handle]

    def _named(self, name: str) -> TensorInfo:
        exact = [t for t in self._tensors.values() if t.name == name]
        matches = exact or [t for t in self._tensors.values() if t.name.rsplit("/", 1)[-1] == name]
        if len(matches) == 1:
            return matches[0]
        names = sorted(t.name for t in self._tensors.values())
        if not matches:
            raise SessionError(f"no tensor named {name!r}; this session has {names} (t= takes one of these "
                               "names or a pd.Tensor)")
        raise SessionError(f"{len(matches)} tensors are named {name!r}; use the full name, one of "
                           f"{sorted(t.name for t in matches)}")

    @_one_at_a_time
    def write(self, t: Union[Tensor, str], values: ArrayLike) -> None:
        """Writes `values` (broadcast to t's shape) to tensor `t` (a pd.Tensor or a name).
        The values are also kept as t's host copy: t becomes a weight. A view (a slice,
        transpose, reshape, pd.concat, ...) writes its elements of the tensors it aliases,
        which keep their other values."""
        self._check_attached("write")
        if isinstance(t, Tensor) and id(t) not in self._by_id and t.graph is self.graph:
            return self._write_view(t, values)
        info = self._info(t)
        if info.constant:
            raise SessionError(f"tensor {info.name!r} is a constant and cannot be written")
        self._write(info, self._host_values(values, info.name, info.shape, info.dtype))

    def _host_values(self, values: ArrayLike, name: str, shape: tuple, dtype: np.dtype) -> np.ndarray:
        """`values` as a tensor's host buffer: [replicas, *shape] in a replicated graph, else shape."""
        array = device_values(values, dtype, f"writing tensor {name!r}")
        host_shape = self._host_shape(shape)
        if array.shape not in (shape, host_shape) and array.size != 1:
            per_replica = f" or {host_shape} (one per replica)" if self.replicas > 1 else ""
            raise SessionError(f"Session.write: cannot write an array of shape {array.shape} (values) to tensor "
                               f"{name!r} of shape {shape}{per_replica}")
        return np.ascontiguousarray(np.broadcast_to(array, host_shape))

    def _write(self, info: TensorInfo, array: np.ndarray) -> None:
        self.engine.writeTensor("w" + info.handle, array)
        self._host_data[info.handle] = array.copy()

    def _write_view(self, t: Tensor, values: ArrayLike) -> None:
        """Writes a tensor the session has no host write for (a view) into the tensors it aliases."""
        if t.raw.containsAliases():
            raise SessionError(f"Session.write: {t!r} holds some elements more than once (a broadcast or a "
                               "repeated slice), so its values cannot all be written; write the tensor it is a view of")
        if t.raw.containsConstant():
            raise SessionError(f"Session.write: {t!r} holds elements of a constant, which cannot be written")
        array = self._host_values(values, repr(t), t.shape, numpy_dtype(t.dtype))
        written = self._layout.write_view(t, array.reshape(self._local, -1),
                                          lambda handle: self._read(self._tensors[handle]))
        for handle, whole in written.items():
            info = self._tensors[handle]
            self._write(info, whole.reshape(self._host_shape(info.shape)))

    @_one_at_a_time
    def write_remote(self, buffer: RemoteBuffer, row: int, values: ArrayLike, replica: Optional[int] = None) -> None:
        """Writes `values` (broadcast to the buffer's row shape) to row `row` of remote buffer
        `buffer`, on every replica or on `replica`."""
        self._check_attached("write_remote")
        remote.write_rows(self.engine, buffer, row, values, replica, self._local)

    @_one_at_a_time
    def read_remote(self, buffer: RemoteBuffer, row: int, replica: Optional[int] = None) -> np.ndarray:
        """Row `row` of remote buffer `buffer`: ``[replicas, *shape]`` in a replicated graph
        unless `replica` picks one."""
        self._check_attached("read_remote")
        return remote.read_rows(self.engine, buffer, row, replica, self._local)

    @_one_at_a_time
    def read(self, t: Union[Tensor, str]) -> np.ndarray:
        """The device values of tensor `t` (a pd.Tensor or a name), as ``[replicas, *t.shape]`` in
        a replicated graph; for a pd.cycle_count / pd.cycle_stamp counter, its cycles as an int.
        Outside the `with` block a weight (a variable made with init= or written) reads as its
        host copy: its values when the session last detached (or as loaded or written).

        A view (a slice, transpose, reshape, broadcast, pd.concat, pd.argmax's result, ...),
        made before or after the session, reads as the current values of the storage it
        aliases; outside the `with` block, from the host copies of the weights it is a view of."""
        if isinstance(t, Counter):
            if t.tensor is None:
                raise SessionError(f"{t!r} has no value: its `with` block has not ended")
            return t.value(self.read(t.tensor))
        if isinstance(t, Tensor) and id(t) not in self._by_id and t.graph is self.graph:
            loop_pitfall.check_read([t])
            return self._read_view(t)
        info = self._info(t)
        loop_pitfall.check_read([t] if isinstance(t, Tensor) else [])
        if not self.attached and info.handle in self._host_data:
            return self._host_data[info.handle].copy()
        self._check_attached("read")
        return self._read(info)

    def _host_shape(self, shape: tuple) -> tuple:
        """[replicas, *shape] for a replicated graph's tensor, else its shape."""
        return ((self._local,) if self.replicas > 1 else ()) + tuple(shape)

    def _read(self, info: TensorInfo) -> np.ndarray:
        out = np.empty(self._host_shape(info.shape), info.dtype)
        self.engine.readTensor("r" + info.handle, out)
        return out

    def _read_view(self, t: Tensor) -> np.ndarray:
        """The values of a tensor the session has no host read for (a view)."""
        def values_of(handle):
            return self._read(self._tensors[handle]) if self.attached else self._host_data[handle]

        flat = self._layout.read_view(t, self._local, values_of,
                                      lambda handle: self.attached or handle in self._host_data,
                                      lambda: self._check_attached("read"))
        return flat.reshape(self._host_shape(t.shape))

    def _weights(self):
        return [t for t in self._tensors.values()
                if not t.constant and (t.initialised or t.handle in self._host_data)]

    @_one_at_a_time
    def weights_from_host(self) -> None:
        """Copies the host copies of the weights (values given to write()) to the device.
        Weights given only by init= are on the device from the engine load already."""
        self._check_attached("weights_from_host")
        for handle, array in self._host_data.items():
            self.engine.writeTensor("w" + handle, array)

    @_one_at_a_time
    def weights_to_host(self) -> dict:
        """Copies every weight (init= or written) from the device into its host copy;
        returns the copies by tensor name."""
        self._check_attached("weights_to_host")
        for t in self._weights():
            self._host_data[t.handle] = self._read(t)
        return {t.name: self._host_data[t.handle] for t in self._weights()}

    def weights(self) -> dict:
        """The host copies of the weights, by tensor name (as of the last weights_to_host or write)."""
        return {t.name: self._host_data[t.handle] for t in self._weights() if t.handle in self._host_data}

    # --- running ------------------------------------------------------------------------
    @_one_at_a_time
    def run(self, name: Optional[str] = None, feeds: Optional[dict] = None) -> dict:
        """Runs program `name` (optional when the session has one program) and returns what it
        sent on each device-to-host stream, keyed by the stream (a loaded session: its handle).

        `feeds` maps each host-to-device stream the program reads (or its handle) to its
        values: one array of the stream's shape when the program reads it once, or
        ``(reads, *shape)`` with one row per read, in order; a run must read every row.

        A device-to-host stream's output always has a leading axis of writes: shape
        ``(writes, *shape)``, one row per write in order, whatever the number of writes
        (0 writes: ``(0, *shape)``). In a replicated graph feeds and outputs have a further
        leading replica axis: ``(replicas, writes, *shape)``."""
        self._check_attached("run")
        if name is None:
            if len(self.program_names) != 1:
                raise SessionError(f"this session has programs {self.program_names}; say which to run")
            name = self.program_names[0]
        if name not in self.program_names:
            raise SessionError(f"no program named {name!r}; name= is one of this session's {self.program_names}")
        if feeds is not None and not isinstance(feeds, dict):
            raise TypeError(f"Session.run: feeds must be a dict of stream (or handle) -> values, got {describe(feeds)}")
        feeds = {getattr(k, "handle", k): v for k, v in (feeds or {}).items()}
        unknown = [k for k in feeds if k not in self._streams or not self._streams[k].to_device]
        if unknown:
            known = sorted(h for h, stream in self._streams.items() if stream.to_device)
            raise SessionError(f"feeds given for unknown streams: {unknown}; this session's host-to-device streams "
                               f"are {known}")
        replicated = self.replicas > 1
        inputs, outputs = [], {}
        for handle, stream in self._streams.items():
            if stream.to_device and (stream.broadcast or not replicated):
                inputs.append(Feed(stream, feeds.get(handle)))
                inputs[-1].connect(self.engine)
            elif stream.to_device:
                for replica, feed in enumerate(per_replica(stream, feeds.get(handle), self._local)):
                    inputs.append(Feed(stream, feed, f" of replica {replica}"))
                    inputs[-1].connect(self.engine, replica)
            else:  # room for as many rows as the program's last run wrote
                expected = self._writes.get((name, handle), 0)
                outputs[handle] = [Collected(self.engine, stream, replica, expected) for replica in range(self._local)]
        start = time.perf_counter()
        with RunProgress(f"running {name!r} in session {self.name!r}", self._run_seconds.get(name)):
            self.engine.run(self.program_names.index(name))
        seconds = self._run_seconds[name] = time.perf_counter() - start
        log.log(logging.INFO if seconds >= progress.LONG_RUN_SECONDS else logging.DEBUG,
                "run of %r in session %r took %.3f s", name, self.name, seconds)
        for feed in inputs:
            feed.check_all_read(name)
        collected = {h: [replica.rows() for replica in per_replica] for h, per_replica in outputs.items()}
        for h, rows in collected.items():
            self._writes[(name, h)] = len(rows[0])
        return {self._stream_objects.get(h, h): (np.stack(v) if replicated else v[0]) for h, v in collected.items()}


def _unique_names(names) -> list:
    """The names, with '#2', '#3', ... added to repeats (views of one variable share its name)."""
    seen = {}
    unique = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return unique


def _compile(graph: Graph, programs, options, cache_dir) -> Compiled:
    """`programs` (a pd.Sequence or a dict of them) of `graph`, compiled (or loaded from the
    executable cache) with the host handles of the graph's tensors."""
    if not isinstance(graph, Graph):
        raise TypeError(f"Session: graph must be a pd.Graph, got {describe(graph)}")
    if isinstance(programs, Block):
        programs = {"main": programs}
    if not isinstance(programs, dict) or not all(isinstance(p, Block) for p in programs.values()):
        raise TypeError(f"Session: programs must be a pd.Sequence or a dict of name -> pd.Sequence, "
                        f"got {describe(programs)}")
    if cache_dir is not None:
        file_path(cache_dir, "Session: cache_dir")
    handles = graph.make_host_handles()
    tensors = [TensorInfo(name, handles[id(t)], t.shape, numpy_dtype(t.dtype),
                          t.raw.containsConstant(), id(t) in graph.initialised)
               for t, name in zip(graph.variables, _unique_names(t.name for t in graph.variables))]
    streams = [StreamInfo(s.handle, s.shape, numpy_dtype(s.dtype), s.to_device, s.broadcast) for s in graph.streams]
    built = [p.build() for p in programs.values()]
    executable = distributed.compile_once(lambda: compile_or_load(
        graph.top, built, expect_options(options, "Session"),
        cache_dir if cache_dir is not None else os.environ.get("POPDSL_CACHE_DIR"), list(programs)))
    return Compiled(executable, list(programs), tensors, streams, dict(graph.host_callbacks), graph.replicas,
                    graph.device_target, "+".join(programs), graph=graph,
                    handles={id(t): handles[id(t)] for t in graph.variables})


def _read(path: str, callbacks: dict, needs_target: bool, trust_codelets: bool) -> Compiled:
    """The saved session at `path` with `callbacks` (handle -> function) for its host
    callbacks; the target a device is made for when `needs_target`. Its codelets are
    compiled and loaded only when `trust_codelets`."""
    try:
        manifest, weights, serialized = saved_session.read(path)
    except saved_session.SavedSessionError as e:
        raise SessionError(f"Session.load({path!r}): the file {e}") from None
    try:
        codelets = poplar._serializedCodelets(serialized)
        if codelets and not trust_codelets:
            raise SessionError(
                f"Session.load({path!r}): the file's graph has codelets {codelets}: C++ that loading would "
                "compile and load into this process, where it could do anything. Load it with "
                "Session.load(..., trust_codelets=True) only if you trust the file (you saved it, or trust whoever did)")
        executable = poplar.Executable.deserialize(serialized)
    except poplar.poplar_error as e:
        raise SessionError(f"Session.load({path!r}): the file's executable cannot be read: {e}") from None
    saved = {c["name"]: c for c in manifest["host_callbacks"]}
    missing = [h for h in saved if h not in callbacks]
    unknown = [h for h in callbacks if h not in saved]
    if missing or unknown:
        raise SessionError(f"Session.load({path!r}): the saved session calls host callbacks "
                           f"{sorted(saved)}; give a function for each as callbacks={{name: fn}} "
                           f"(missing: {missing}, unknown: {unknown})")
    if needs_target and _core_backend == "sdk":
        raise SessionError(f"Session.load({path!r}) needs device= on the sdk backend: the saved target is read "
                           "from the executable only by the emulator backend")
    replicas = manifest["replicas"]
    held, mine = range(*saved_session.weight_replicas(manifest)), distributed.replica_range(replicas)
    if weights and held != mine:
        raise SessionError(f"Session.load({path!r}): the file holds the weights of replicas {held.start} to "
                           f"{held.stop - 1}, but this instance runs replicas {mine.start} to {mine.stop - 1}: "
                           "load it on the instance that saved it (each instance saves its own file)")
    target = None
    if needs_target:  # the executable's target is one replica's
        target = poplar.Target.deserialize(poplar._executableSections(executable)["target"])
        ipus = replicas * target.getNumIPUs()
        if ipus * target.getTilesPerIPU() > saved_session.MAX_TILES:
            raise SessionError(f"Session.load({path!r}): the file's {replicas} replicas of {target.getNumIPUs()} "
                               f"IPUs of {target.getTilesPerIPU()} tiles are more than the emulator's "
                               f"{saved_session.MAX_TILES} tiles; the file is damaged")
        target = target.createVirtualTarget(ipus, target.getTilesPerIPU())
    tensors = [TensorInfo(**t) for t in manifest["tensors"]]
    streams = [StreamInfo(**s) for s in manifest["streams"]]
    callbacks = {h: HostCallback.from_json(saved[h], fn) for h, fn in callbacks.items()}
    saved_session.check_streams_and_callbacks(executable, streams, callbacks.values())
    return Compiled(executable, manifest["programs"], tensors, streams, callbacks, replicas, target,
                    manifest["name"], weights=weights)
