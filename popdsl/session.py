"""pd.Session: compile once, then attach, write, run and read."""
import numpy as np

from popdsl._core import poplar
from popdsl.dtypes import numpy_dtype
from popdsl.graph import DeviceToHost, Graph, HostToDevice
from popdsl.control import Block
from popdsl.instrument import Counter
from popdsl.profile import Profile, auto_report
from popdsl.tensor import Tensor


class SessionError(RuntimeError):
    """Misuse of a session: not attached, unknown program, bad feeds or tensors."""


class Session:
    """Compiles `programs` (a pd.Sequence or a dict of them) for `graph` at construction.

    `with session:` attaches to the device and loads the engine; inside it,
    write/read/run work. run(name, feeds={stream: array}) returns what the
    program sent on device-to-host streams, keyed by stream.

    options are Poplar engine options (POPLAR_ENGINE_OPTIONS overrides them):
    `debug.instrument` times every step on the host; `autoReport.all` writes the
    profile files to `autoReport.directory` when the `with` block ends.
    """

    def __init__(self, graph: Graph, programs, device=None, options=None):
        if isinstance(programs, Block):
            programs = {"main": programs}
        if not isinstance(programs, dict) or not all(isinstance(p, Block) for p in programs.values()):
            raise TypeError("programs must be a pd.Sequence or a dict of name -> pd.Sequence")
        self.graph = graph
        self.device = device or poplar.Device.createSimulatorDevice(graph.target)
        self.program_names = list(programs)
        self._handles = _host_handles(graph)
        self.engine = poplar.Engine(graph.raw, [p.build() for p in programs.values()], options or {})
        self._attached = False

    # --- lifecycle ---------------------------------------------------------------------
    def __enter__(self):
        if not self.device.attach():
            raise SessionError("the device is attached to another session; leave that session's "
                               "`with` block (or detach it) first")
        self.engine.load(self.device)
        self._attached = True
        return self

    def __exit__(self, *exc):
        self._attached = False
        self.device.detach()
        auto_report(self.engine)
        return False

    @property
    def profile(self) -> Profile:
        """What the engine recorded so far: summary(), steps, memory, plots (cycles estimated)."""
        return Profile.from_engine(self.engine)

    def _check_attached(self, what):
        if not self._attached:
            raise SessionError(f"Session.{what} needs an attached session: put the call inside "
                               "`with session:`")

    # --- data ----------------------------------------------------------------------------
    def _handle(self, t: Tensor) -> str:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected a pd.Tensor, not {type(t).__name__}")
        handle = self._handles.get(id(t))
        if handle is None:
            raise SessionError(f"{t!r} was not created by this graph before the session was compiled; "
                               "read or write the tensor it is a view of")
        return handle

    def write(self, t: Tensor, values):
        self._check_attached("write")
        handle = self._handle(t)
        array = np.asarray(values)
        if array.shape != t.shape and array.size != 1:
            raise SessionError(f"cannot write an array of shape {array.shape} to {t!r}")
        array = np.ascontiguousarray(np.broadcast_to(array.astype(numpy_dtype(t.dtype)), t.shape))
        self.engine.writeTensor("w" + handle, array)

    def read(self, t: Tensor) -> np.ndarray:
        """The tensor's values; for a pd.cycle_count / pd.cycle_stamp counter, its cycles as an int."""
        if isinstance(t, Counter):
            if t.tensor is None:
                raise SessionError(f"{t!r} has no value: its `with` block has not ended")
            return t.value(self.read(t.tensor))
        self._check_attached("read")
        out = np.empty(t.shape, numpy_dtype(t.dtype))
        self.engine.readTensor("r" + self._handle(t), out)
        return out

    # --- running ------------------------------------------------------------------------
    def run(self, name=None, feeds=None) -> dict:
        self._check_attached("run")
        if name is None:
            if len(self.program_names) != 1:
                raise SessionError(f"this session has programs {self.program_names}; say which to run")
            name = self.program_names[0]
        if name not in self.program_names:
            raise SessionError(f"no program named {name!r}; this session has {self.program_names}")
        feeds = dict(feeds or {})
        outputs = {s: [] for s in self.graph.streams if isinstance(s, DeviceToHost)}
        for stream in self.graph.streams:
            if isinstance(stream, HostToDevice):
                self.engine.connectStreamToCallback(stream.handle, _feeder(stream, feeds.pop(stream, None)))
            else:
                self.engine.connectStreamToCallback(stream.handle, _collector(stream, outputs[stream]))
        if feeds:
            raise SessionError(f"feeds given for unknown streams: {list(feeds)}")
        self.engine.run(self.program_names.index(name))
        return {s: (np.stack(v) if len(v) > 1 else v[0]) for s, v in outputs.items() if v}


def _host_handles(graph: Graph) -> dict:
    """Host read/write handles for every tensor the graph tracks (made once per graph)."""
    handles = graph.__dict__.setdefault("_session_handles", {})
    for t in graph.variables:
        if id(t) not in handles:
            handle = str(len(handles))
            graph.raw.createHostRead("r" + handle, t.raw)
            if not t.raw.containsConstant():
                graph.raw.createHostWrite("w" + handle, t.raw)
            handles[id(t)] = handle
    return handles


def _feeder(stream: HostToDevice, feed):
    """Supplies successive rows of `feed` (or the whole array once) on each stream read."""
    if feed is None:
        def missing(buffer):
            raise SessionError(f"the program read stream '{stream.handle}' but run() got no feed for it")
        return missing
    array = np.asarray(feed, numpy_dtype(stream.dtype))
    if array.shape == stream.shape:
        rows = array.reshape(1, -1)
    elif array.shape[1:] == stream.shape:
        rows = array.reshape(array.shape[0], -1)
    else:
        raise SessionError(f"the feed for stream '{stream.handle}' has shape {array.shape}; expected "
                           f"{stream.shape} or (reads, *{stream.shape})")
    position = iter(range(len(rows)))

    def supply(buffer):
        i = next(position, None)
        if i is None:
            raise SessionError(f"stream '{stream.handle}' was read more than the {len(rows)} time(s) its feed provides")
        buffer[:] = rows[i]
    return supply


def _collector(stream: DeviceToHost, sink: list):
    def collect(values):
        sink.append(values.reshape(stream.shape))
    return collect
