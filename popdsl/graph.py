"""pd.Graph: variables, constants and streams on a device's target."""

from __future__ import annotations

import os
from typing import Callable, Optional, Sequence, Union

from numpy.typing import ArrayLike
import operator

import numpy as np

from popdsl._core import poplar, popops, poputil
from popdsl._core import program as _program
from popdsl.build_context import context
from popdsl.debug import BuildError, debug_name, describe, expect_int, expect_str, plain_name
from popdsl.dtypes import as_type, numpy_dtype, DType
from popdsl.control import emit, record, Block
from popdsl.functions import Function
from popdsl.placement import current_ipu
from popdsl.remote import RemoteBuffer
from popdsl.tensor import Tensor, as_shape, expect_tensor, Shape

LINEAR = "linear"


class Graph:
    """A Poplar graph for a device (or target). Every tensor it creates is a pd.Tensor.

    replicas=n replicates it: the device's IPUs are split into n replicas that run every
    program in lockstep, each with its own copy of every tensor (popdsl.replication has
    the collectives between them). `target` is then one replica's, `device_target` the
    whole device's. A replica of several IPUs places work on one of them inside
    ``with pd.ipu(k):`` (popdsl.placement)."""

    def __init__(self, device_or_target, replicas: int = 1):
        if isinstance(device_or_target, poplar.Device):
            self.device_target = device_or_target.getTarget()
        elif isinstance(device_or_target, poplar.Target):
            self.device_target = device_or_target
        else:
            raise TypeError(f"pd.Graph: device_or_target must be a device (pd.ipu_model()) or a poplar.Target, "
                            f"got {describe(device_or_target)}")
        ipus = self.device_target.getNumIPUs()
        self.replicas = expect_int(replicas, "pd.Graph: replicas", 1, ipus)
        if ipus % self.replicas:
            raise BuildError(f"pd.Graph: {self.replicas} replicas do not divide the device's {ipus} IPUs; make the "
                             f"device with pd.ipu_model(ipus=<replicas x IPUs per replica>)")
        self.top = poplar.Graph(self.device_target, poplar.replication_factor(self.replicas))
        self._ipu_graphs = {}  # IPU index -> the virtual graph of its tiles (pd.ipu)
        self.variables = []  # tensors a Session can read and write by handle
        self.initialised = set()  # ids of the variables made with init= (weights)
        self.streams = []
        self.remote_buffers = []
        self.host_callbacks = {}  # handle -> popdsl.callbacks.HostCallback
        self.host_handles = {}  # id(tensor) -> its host read/write handles' suffix (make_host_handles)
        context.graph = self

    @property
    def raw(self) -> poplar.Graph:
        """The poplar graph ops build on: the top-level graph, or inside ``with pd.ipu(k):``
        the virtual graph of IPU k's tiles."""
        index = current_ipu()
        if index is None:
            return self.top
        if index not in self._ipu_graphs:
            ipus, tiles = self.top.getTarget().getNumIPUs(), self.top.getTarget().getTilesPerIPU()
            if index >= ipus:
                raise BuildError(f"pd.ipu({index}): the graph has {ipus} IPU(s) per replica (IPUs 0 to {ipus - 1}); "
                                 f"make the device with pd.ipu_model(ipus=...)")
            self._ipu_graphs[index] = self.top.createVirtualGraph(index * tiles, (index + 1) * tiles)
        return self._ipu_graphs[index]

    @property
    def target(self) -> poplar.Target:
        """The target of ``raw``: one replica's, or inside ``with pd.ipu(k):`` IPU k's."""
        return self.raw.getTarget()

    @classmethod
    def latest(cls) -> "Graph":
        """The pd.Graph this thread created last (the default graph of pd.cycle_count)."""
        graph = context.graph
        if graph is None:
            raise BuildError("no pd.Graph exists yet in this thread; create one (or pass graph=)")
        return graph

    def make_host_handles(self) -> dict:
        """id(tensor) -> handle suffix for every tensor the graph tracks: host read "r<suffix>"
        and, unless it holds constants, host write "w<suffix>" (made once per tensor, so
        every session of the graph shares them)."""
        for t in self.variables:
            if id(t) not in self.host_handles:
                handle = str(len(self.host_handles))
                self.top.createHostRead("r" + handle, t.raw)
                if not t.raw.containsConstant():
                    self.top.createHostWrite("w" + handle, t.raw)
                self.host_handles[id(t)] = handle
        return self.host_handles

    def track(self, t: Tensor) -> Tensor:
        """Registers a tensor a Session should be able to read and write."""
        self.variables.append(t)
        return t

    def _map(self, t: Tensor, mapping):
        if mapping is None:
            return
        if isinstance(mapping, str) and mapping == LINEAR:
            poputil.mapTensorLinearly(self.raw, t.raw)
        elif isinstance(mapping, (int, np.integer)) and not isinstance(mapping, bool):
            self.raw.setTileMapping(t.raw, expect_int(mapping, "mapping (a tile)", 0, self.target.getNumTiles() - 1))
        else:
            self.raw.setTileMapping(t.raw, self._intervals(mapping))

    def _intervals(self, mapping) -> list:
        """Per-tile lists of (begin, end) intervals as poplar.Intervals."""
        try:
            tiles = [[(operator.index(begin), operator.index(end)) for begin, end in tile] for tile in mapping]
        except (TypeError, ValueError):
            raise BuildError(f"mapping must be 'linear', None, a tile number or per-tile lists of (begin, end) "
                             f"intervals, got {describe(mapping)}") from None
        if len(tiles) > self.target.getNumTiles() or any(b < 0 or e < b for tile in tiles for b, e in tile):
            raise BuildError(f"mapping {describe(mapping)} has more tiles than the target's "
                             f"{self.target.getNumTiles()} or an interval that is not 0 <= begin <= end")
        return [[poplar.Interval(b, e) for b, e in tile] for tile in tiles]

    def variable(self, dtype: DType, shape: Shape, name: Optional[str] = None, mapping: str = LINEAR,
                 init: Optional[ArrayLike] = None) -> Tensor:
        """A variable, mapped linearly over the tiles unless mapping= says otherwise
        (None: unmapped; a tile number; or per-tile lists of (begin, end) intervals)."""
        shape = as_shape(shape, f"variable {name!r}" if name else "variable")
        initial = None if init is None else _host_values(init, dtype, shape, "Graph.variable: init")
        t = Tensor(self.raw.addVariable(as_type(dtype), shape, plain_name(name)), self)
        self._map(t, mapping)
        if initial is not None:
            self.raw.setInitialValue(t.raw, initial)
            self.initialised.add(id(t))
        return self.track(t)

    def sliceable(self, dtype: DType, shape: Shape, axes: Sequence[int] = (0,), name: Optional[str] = None) -> Tensor:
        """A variable laid out for t.at[i] along `axes`: each tile holds whole columns
        across those axes, so every slice is spread over the tiles (popops createSliceableTensor)."""
        shape = as_shape(shape, f"sliceable variable {name!r}" if name else "sliceable variable")
        axes = [expect_int(a, "Graph.sliceable: axes", -len(shape), len(shape) - 1)
                for a in (axes if isinstance(axes, (tuple, list)) else [axes])]
        axes = [a + len(shape) if a < 0 else a for a in axes]
        try:
            raw = popops.createSliceableTensor(self.raw, as_type(dtype), shape, axes, [1] * len(axes), 0,
                                               plain_name(name))
        except poputil.poplibs_error as e:
            raise BuildError(str(e)) from None
        return self.track(Tensor(raw, self))

    def constant(self, value: ArrayLike, dtype: Optional[DType] = None, name: Optional[str] = None,
                 mapping: str = LINEAR) -> Tensor:
        """A constant from a scalar or an array (dtype defaults to the array's, float64 -> float32)."""
        array = _host_array(value, "Graph.constant: value")
        if dtype is None:
            dtype = np.float32 if array.dtype == np.float64 else np.int32 if array.dtype == np.int64 else array.dtype
        t = Tensor(self.raw.addConstant(as_type(dtype), list(array.shape),
                                        array.astype(numpy_dtype(dtype)), plain_name(name)), self)
        self._map(t, mapping)
        return self.track(t)

    def clone(self, t: Tensor, name: Optional[str] = None) -> Tensor:
        """A new variable shaped and mapped like t."""
        expect_tensor(t, "Graph.clone: t", self, "this graph")
        return self.track(Tensor(self.raw.clone(t.raw, plain_name(name)), self))

    def host_to_device(self, dtype: DType, shape: Shape, name: Optional[str] = None,
                       broadcast: bool = False) -> "HostToDevice":
        """A host-to-device stream; in a replicated graph each replica reads its own feed
        (Session.run's feed has a leading replica axis) unless broadcast=True (one feed
        that every replica reads)."""
        return self._stream(HostToDevice, dtype, shape, name, broadcast=broadcast)

    def device_to_host(self, dtype: DType, shape: Shape, name: Optional[str] = None) -> "DeviceToHost":
        """A device-to-host stream of `shape`: `out.write(t)` in a program copies t to the host;
        `Session.run` returns what the run wrote, {out: array}, with a leading axis of writes per run.
        """
        return self._stream(DeviceToHost, dtype, shape, name)

    def remote_buffer(self, dtype: DType, shape: Shape, rows: int = 1, name: Optional[str] = None) -> RemoteBuffer:
        """Off-chip memory of `rows` rows of `shape` (popdsl.remote): programs copy rows to and
        from tensors with load/store; a session reaches them with write_remote/read_remote."""
        handle = f"remote{len(self.remote_buffers)}" if name is None else expect_str(name, "remote buffer name")
        shape = tuple(as_shape(shape, f"remote buffer '{handle}'"))
        rows = expect_int(rows, f"remote buffer '{handle}': rows", 1)
        if any(b.handle == handle for b in self.remote_buffers) or any(s.handle == handle for s in self.streams):
            raise BuildError(f"a stream or remote buffer named '{handle}' already exists")
        buffer = RemoteBuffer(self, handle, as_type(dtype), shape, rows)
        self.remote_buffers.append(buffer)
        return buffer

    def _stream(self, kind, dtype, shape, name, **options):
        handle = f"stream{len(self.streams)}" if name is None else expect_str(name, "stream name")
        shape = tuple(as_shape(shape, f"stream '{handle}'"))
        if any(s.handle == handle for s in self.streams):
            raise BuildError(f"a stream named '{handle}' already exists")
        stream = kind(self, handle, as_type(dtype), shape, **options)
        self.streams.append(stream)
        return stream

    def add_codelets(self, source_or_path: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
                     flags: str = "") -> bool:
        """Compiles C++ codelets for custom vertices (pd.compute_set): C++ source text (a str
        with a line break or a '{') or the path of a codelet file (str or os.PathLike): a C/C++
        source, or a .gp object that popc wrote (docs/popc.rst). False if already added."""
        if not isinstance(source_or_path, (str, os.PathLike)):
            raise BuildError(f"add_codelets: source_or_path must be C++ source text or a file path, "
                             f"got {describe(source_or_path)}")
        expect_str(flags, "add_codelets: flags")
        try:
            return self.raw.addCodelets(source_or_path, flags)
        except poplar.graph_program_compilation_error as e:
            raise BuildError(str(e)) from None

    def function(self, fn: Optional[Callable] = None, name: Optional[str] = None,
                 remote_code: bool = False) -> Union[Function, Callable[[Callable], Function]]:
        """Decorator: the body is built once as a Poplar function and each call adds a
        program::Call. `fn` may take tensor arguments and return a tensor or a tuple of
        them: each call copies its arguments in and the results out (into new tensors it
        returns), and every call passes tensors of the first call's shapes and dtypes::

            @g.function
            def scaled(x):
                return x * 2 + 1
            y = scaled(a)     # in an open block; scaled(b) reuses the same Poplar function

        remote_code=True keeps the function's code in remote memory (a Poplar function
        buffer) and loads it onto the tiles before each call.
        """
        if fn is None:
            return lambda f: Function(self, f, name, remote_code)
        return Function(self, fn, name, remote_code)


def _host_array(values, what: str) -> np.ndarray:
    """Host numbers (a scalar, a list or an array) as an array; a tensor, strings or objects
    raise a BuildError naming `what`."""
    if isinstance(values, Tensor):
        raise BuildError(f"{what} must be host data (numbers or an array), got {values!r}; "
                         "pd.copy copies between tensors")
    try:
        array = np.asarray(values)
    except ValueError:  # ragged lists
        array = np.empty(0, object)
    if array.dtype.kind not in "biuf":
        raise BuildError(f"{what} must be numbers (a scalar, a list or an array), got {describe(values)}")
    return array


def _host_values(values, dtype, shape, what: str) -> np.ndarray:
    """Host numbers as a contiguous array of the device dtype, broadcast to `shape`."""
    array = _host_array(values, what)
    try:
        return np.broadcast_to(array.astype(numpy_dtype(dtype)), shape).copy()
    except ValueError:
        raise BuildError(f"{what} of shape {array.shape} does not broadcast to the variable's shape "
                         f"{tuple(shape)}") from None


class HostToDevice:
    """A host-to-device FIFO; each read() copies the next feed element into a new tensor."""

    to_device = True

    def __init__(self, graph, handle, dtype, shape, broadcast=False):
        self.graph, self.handle, self.dtype, self.shape = graph, handle, dtype, shape
        self.size = int(np.prod(shape))
        if not isinstance(broadcast, bool):
            raise TypeError(f"stream '{handle}': broadcast must be a bool, got {describe(broadcast)}")
        self.broadcast = broadcast
        mode = poplar.ReplicatedStreamMode.BROADCAST if broadcast else poplar.ReplicatedStreamMode.REPLICATE
        self.raw = graph.raw.addHostToDeviceFIFO(handle, dtype, self.size, mode)

    def read(self, into: Tensor = None, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
        """Copies the next item of the stream into `into` (a new variable when None) and returns it;
        `Session.run(feeds={stream: array})` supplies the items along the array's leading axis.
        """
        if into is None:
            into = self.graph.variable(self.dtype, self.shape, name=name or f"{self.handle}.read")
        elif expect_tensor(into, f"stream '{self.handle}' read: into", self.graph, "the stream").dtype != self.dtype \
                or into.size != self.size:
            raise BuildError(f"stream '{self.handle}' carries {self.shape} {self.dtype}, not {into!r}")
        emit(_program.Copy(self.raw, into.raw, False, debug_name(name)), prog)
        record("stream read", [], [into], prog, written=[into])
        return into

    def __repr__(self):
        return f"<pd.HostToDevice '{self.handle}' shape={self.shape} dtype={self.dtype}>"


class DeviceToHost:
    """A device-to-host FIFO; each write(t) sends t's values to the host."""

    to_device = False
    broadcast = False

    def __init__(self, graph, handle, dtype, shape):
        self.graph, self.handle, self.dtype, self.shape = graph, handle, dtype, shape
        self.size = int(np.prod(shape))
        self.raw = graph.raw.addDeviceToHostFIFO(handle, dtype, self.size)

    def write(self, t: Tensor, name: Optional[str] = None, prog: Optional[Block] = None) -> None:
        """Copies `t` (the stream's shape and dtype) to the host: one item of the run's result."""
        if expect_tensor(t, f"stream '{self.handle}' write: t", self.graph, "the stream").dtype != self.dtype \
                or t.size != self.size:
            raise BuildError(f"stream '{self.handle}' carries {self.shape} {self.dtype}, not {t!r}")
        emit(_program.Copy(t.raw, self.raw, False, debug_name(name)), prog)
        record("stream write", [t], [], prog)  # a read of t (the loop pitfall's check sees it used)

    def __repr__(self):
        return f"<pd.DeviceToHost '{self.handle}' shape={self.shape} dtype={self.dtype}>"
