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
- ``seed=`` / ``session.seed`` set the engine's random seed, from which the hardware
  seeds (``pd.random.get_hw_seeds``) are derived.
"""
import hashlib
import json
import logging
import os
import struct
import sys
import threading
import time

import numpy as np

from popdsl._core import poplar
from popdsl._core import backend as _core_backend
from popdsl.callbacks import HostCallback
from popdsl.control import Block
from popdsl.dtypes import as_type, numpy_dtype
from popdsl.graph import Graph
from popdsl.instrument import Counter
from popdsl.profile import Profile, auto_report
from popdsl.tensor import Tensor

log = logging.getLogger("popdsl")

_SAVED_MAGIC = b"POPDSL-SESSION\n"
_SAVED_VERSION = 1
_CACHE_SUFFIX = ".popexe"
_SECTION_ORDER = ("target", "graph", "programs", "options")
_LONG_RUN_SECONDS = 2.0  # runs longer than this report progress while they run
_PROGRESS_INTERVAL_SECONDS = {True: 1.0, False: 10.0}  # terminal bar, log lines
_PROGRESS_POLL_SECONDS = 0.25  # how often the watcher looks at the runs going on
# id(device) -> the session holding it (several sessions may share one device).
_holders: dict = {}


class SessionError(RuntimeError):
    """Misuse of a session: not attached, unknown program, bad feeds or tensors."""


class _TensorInfo:
    """What a session knows of a readable/writable tensor (enough to save and load)."""

    def __init__(self, name, handle, shape, dtype, constant, initialised):
        self.name, self.handle, self.shape, self.dtype = name, handle, tuple(shape), np.dtype(dtype)
        self.constant, self.initialised = constant, initialised

    def to_json(self):
        return {"name": self.name, "handle": self.handle, "shape": list(self.shape), "dtype": self.dtype.str,
                "constant": self.constant, "initialised": self.initialised}


class _StreamInfo:
    def __init__(self, handle, shape, dtype, to_device):
        self.handle, self.shape, self.dtype, self.to_device = handle, tuple(shape), np.dtype(dtype), to_device

    def to_json(self):
        return {"handle": self.handle, "shape": list(self.shape), "dtype": self.dtype.str, "to_device": self.to_device}


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

    def __init__(self, graph: Graph, programs, device=None, options=None, cache_dir=None, seed=None,
                 name=None):
        if isinstance(programs, Block):
            programs = {"main": programs}
        if not isinstance(programs, dict) or not all(isinstance(p, Block) for p in programs.values()):
            raise TypeError("programs must be a pd.Sequence or a dict of name -> pd.Sequence")
        self.graph = graph
        handles = _host_handles(graph)
        self._by_id = {id(t): handles[id(t)] for t in graph.variables}
        tensors = [_TensorInfo(name, handles[id(t)], t.shape, numpy_dtype(t.dtype),
                               t.raw.containsConstant(), id(t) in graph.initialised)
                   for t, name in zip(graph.variables, _unique_names(t.name for t in graph.variables))]
        streams = [_StreamInfo(s.handle, s.shape, numpy_dtype(s.dtype), s.to_device) for s in graph.streams]
        self._stream_objects = {s.handle: s for s in graph.streams}
        executable = _compile_or_load(graph.raw, [p.build() for p in programs.values()], options or {},
                                      cache_dir if cache_dir is not None else os.environ.get("POPDSL_CACHE_DIR"),
                                      list(programs))
        self._setup(executable, list(programs), tensors, streams, graph.host_callbacks,
                    device or poplar.Device.createSimulatorDevice(graph.target), seed, name)

    def _setup(self, executable, program_names, tensors, streams, callbacks, device, seed, name):
        self.executable = executable
        self.program_names = program_names
        self.device = device
        self.name = name or "+".join(program_names)
        self._run_seconds = {}  # program name -> how long its last run took
        self._tensors = {t.handle: t for t in tensors}
        self._streams = {s.handle: s for s in streams}
        self._callbacks = dict(callbacks)
        start = time.perf_counter()
        self.engine = poplar.Engine(executable, {}, _progress(f"building the engine for {self.name!r}"))
        log.info("engine for %r ready in %.3f s", self.name, time.perf_counter() - start)
        for handle, callback in self._callbacks.items():
            # The arguments' types and sizes too: the sdk backend cannot read them from the executable.
            arguments = tuple([(as_type(dtype), int(np.prod(shape))) for shape, dtype in specs]
                              for specs in (callback.inputs, callback.outputs))
            self.engine.connectHostFunction(handle, 0, callback, arguments)
        if seed is not None:
            self.seed = seed
        self._host_data = {}  # handle -> host copy of a weight written through this session
        self._depth = 0

    # --- saving and loading -----------------------------------------------------------------
    def save(self, path):
        """Writes the executable and the names of its tensors, streams and host callbacks to `path`."""
        manifest = {
            "version": _SAVED_VERSION, "programs": self.program_names, "name": self.name,
            "tensors": [t.to_json() for t in self._tensors.values()],
            "streams": [s.to_json() for s in self._streams.values()],
            "host_callbacks": [c.to_json() for c in self._callbacks.values()],
        }
        header = json.dumps(manifest).encode()
        with open(path, "wb") as f:
            f.write(_SAVED_MAGIC + struct.pack("<Q", len(header)) + header + self.executable.serialize())

    @classmethod
    def load(cls, path, device=None, callbacks=None, seed=None) -> "Session":
        """A runnable session from a file written by save(). `device` must have the saved
        target (default: a simulator device for it); `callbacks` maps each saved host
        callback's handle to its Python function. Tensors are then read and written by name."""
        with open(path, "rb") as f:
            data = f.read()
        if not data.startswith(_SAVED_MAGIC):
            raise SessionError(f"{path} is not a saved popdsl session")
        (length,) = struct.unpack_from("<Q", data, len(_SAVED_MAGIC))
        start = len(_SAVED_MAGIC) + 8
        manifest = json.loads(data[start:start + length])
        if manifest.get("version") != _SAVED_VERSION:
            raise SessionError(f"{path} was saved in format {manifest.get('version')}; this popdsl reads "
                               f"format {_SAVED_VERSION}")
        executable = poplar.Executable.deserialize(data[start + length:])
        callbacks = dict(callbacks or {})
        saved = {c["name"]: c for c in manifest["host_callbacks"]}
        missing = [h for h in saved if h not in callbacks]
        unknown = [h for h in callbacks if h not in saved]
        if missing or unknown:
            raise SessionError(f"Session.load({path!r}): the saved session calls host callbacks "
                               f"{sorted(saved)}; give a function for each as callbacks={{name: fn}} "
                               f"(missing: {missing}, unknown: {unknown})")
        if device is None and _core_backend == "sdk":
            raise SessionError(f"Session.load({path!r}) needs device= on the sdk backend: the saved target is read "
                               "from the executable only by the emulator backend")
        target = (device.getTarget() if device is not None
                  else poplar.Target.deserialize(poplar._executableSections(executable)["target"]))
        self = cls.__new__(cls)
        self.graph = None
        self._by_id = {}
        self._stream_objects = {}
        tensors = [_TensorInfo(**t) for t in manifest["tensors"]]
        streams = [_StreamInfo(**s) for s in manifest["streams"]]
        self._setup(executable, manifest["programs"], tensors, streams,
                    {h: HostCallback.from_json(saved[h], fn) for h, fn in callbacks.items()},
                    device or poplar.Device.createSimulatorDevice(target), seed, manifest["name"])
        return self

    # --- lifecycle ------------------------------------------------------------------------
    def attach(self):
        """Attaches the device, loads the engine and copies the weights to it (`with` does this)."""
        holder = _holders.get(id(self.device))
        if holder is not None and holder is not self:
            raise SessionError(f"session {self.name!r} cannot attach: the device is attached to another session "
                               f"({holder.name!r}); leave that session's `with` block (or call its detach()) first")
        if holder is None:
            if not self.device.attach():
                raise SessionError(f"session {self.name!r} cannot attach: the device is attached elsewhere; "
                                   "detach it first")
            _holders[id(self.device)] = self
            try:
                self.engine.load(self.device)
                self.weights_from_host()
            except BaseException:
                del _holders[id(self.device)]
                self.device.detach()
                raise

    def detach(self):
        """Copies the weights to the host and releases the device (leaving `with` does this)."""
        if _holders.get(id(self.device)) is self:
            self.weights_to_host()
            del _holders[id(self.device)]
            self.device.detach()

    @property
    def attached(self) -> bool:
        return _holders.get(id(self.device)) is self

    def __enter__(self):
        if self._depth == 0:
            self.attach()
        self._depth += 1
        return self

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

    def _check_attached(self, what):
        if not self.attached:
            holder = _holders.get(id(self.device))
            held = f" (the device is held by session {holder.name!r})" if holder is not None else ""
            raise SessionError(f"Session.{what} needs an attached session: put the call inside "
                               f"`with session:`{held}")

    # --- seeds --------------------------------------------------------------------------
    @property
    def seed(self) -> int:
        """The engine's random seed; the hardware seeds (pd.random.get_hw_seeds) derive from it.
        Needs the emulator backend (NotImplementedError on the sdk backend)."""
        return self.engine.getRandomSeed()

    @seed.setter
    def seed(self, value: int):
        if not isinstance(value, (int, np.integer)) or not 0 <= int(value) < 2 ** 64:
            raise SessionError(f"the seed must be an integer in [0, 2**64), not {value!r}")
        self.engine.setRandomSeed(int(value))

    # --- data ----------------------------------------------------------------------------
    def _info(self, t) -> _TensorInfo:
        if isinstance(t, str):
            return self._named(t)
        if not isinstance(t, Tensor):
            raise TypeError(f"expected a pd.Tensor or a tensor name, not {type(t).__name__}")
        handle = self._by_id.get(id(t))
        if handle is None:
            raise SessionError(f"{t!r} was not created by this graph before the session was compiled; "
                               "read or write the tensor it is a view of")
        return self._tensors[handle]

    def _named(self, name: str) -> _TensorInfo:
        exact = [t for t in self._tensors.values() if t.name == name]
        matches = exact or [t for t in self._tensors.values() if t.name.rsplit("/", 1)[-1] == name]
        if len(matches) == 1:
            return matches[0]
        names = sorted(t.name for t in self._tensors.values())
        if not matches:
            raise SessionError(f"no tensor named {name!r}; this session has {names}")
        raise SessionError(f"{len(matches)} tensors are named {name!r}; use the full name, one of "
                           f"{sorted(t.name for t in matches)}")

    def write(self, t, values):
        """Writes `values` (broadcast to t's shape) to tensor `t` (a pd.Tensor or a name).
        The values are also kept as t's host copy: t becomes a weight."""
        self._check_attached("write")
        info = self._info(t)
        if info.constant:
            raise SessionError(f"tensor {info.name!r} is a constant and cannot be written")
        array = np.asarray(values)
        if array.shape != info.shape and array.size != 1:
            raise SessionError(f"cannot write an array of shape {array.shape} to tensor {info.name!r} "
                               f"of shape {info.shape}")
        array = np.ascontiguousarray(np.broadcast_to(array.astype(info.dtype), info.shape))
        self.engine.writeTensor("w" + info.handle, array)
        self._host_data[info.handle] = array.copy()

    def read(self, t) -> np.ndarray:
        """The device values of tensor `t` (a pd.Tensor or a name); for a pd.cycle_count /
        pd.cycle_stamp counter, its cycles as an int."""
        if isinstance(t, Counter):
            if t.tensor is None:
                raise SessionError(f"{t!r} has no value: its `with` block has not ended")
            return t.value(self.read(t.tensor))
        self._check_attached("read")
        return self._read(self._info(t))

    def _read(self, info: _TensorInfo) -> np.ndarray:
        out = np.empty(info.shape, info.dtype)
        self.engine.readTensor("r" + info.handle, out)
        return out

    def _weights(self):
        return [t for t in self._tensors.values()
                if not t.constant and (t.initialised or t.handle in self._host_data)]

    def weights_from_host(self):
        """Copies the host copies of the weights (values given to write()) to the device.
        Weights given only by init= are on the device from the engine load already."""
        self._check_attached("weights_from_host")
        for handle, array in self._host_data.items():
            self.engine.writeTensor("w" + handle, array)

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
    def run(self, name=None, feeds=None) -> dict:
        self._check_attached("run")
        if name is None:
            if len(self.program_names) != 1:
                raise SessionError(f"this session has programs {self.program_names}; say which to run")
            name = self.program_names[0]
        if name not in self.program_names:
            raise SessionError(f"no program named {name!r}; this session has {self.program_names}")
        feeds = {getattr(k, "handle", k): v for k, v in (feeds or {}).items()}
        unknown = [k for k in feeds if k not in self._streams or not self._streams[k].to_device]
        if unknown:
            raise SessionError(f"feeds given for unknown streams: {unknown}")
        outputs = {h: [] for h, s in self._streams.items() if not s.to_device}
        for handle, stream in self._streams.items():
            # The buffer's description too: the sdk backend cannot read it from the executable.
            described = (as_type(stream.dtype), int(np.prod(stream.shape)), stream.to_device)
            if stream.to_device:
                self.engine.connectStreamToCallback(handle, _feeder(stream, feeds.get(handle)), described)
            else:
                self.engine.connectStreamToCallback(handle, _collector(stream, outputs[handle]), described)
        start = time.perf_counter()
        with _RunProgress(f"running {name!r} in session {self.name!r}", self._run_seconds.get(name)):
            self.engine.run(self.program_names.index(name))
        seconds = self._run_seconds[name] = time.perf_counter() - start
        log.log(logging.INFO if seconds >= _LONG_RUN_SECONDS else logging.DEBUG,
                "run of %r in session %r took %.3f s", name, self.name, seconds)
        return {self._stream_objects.get(h, h): (np.stack(v) if len(v) > 1 else v[0])
                for h, v in outputs.items() if v}


# --- compiling and the executable cache -------------------------------------------------------

def _compile_or_load(raw_graph, programs, options, cache_dir, program_names):
    """The executable for the graph: from `cache_dir` when an identical one was stored, else compiled
    (and stored). Logs why it compiled."""
    start = time.perf_counter()
    executable = poplar.compileGraph(raw_graph, programs, options)
    if not cache_dir:
        log.info("compiled %s in %.3f s (no executable cache)", program_names, time.perf_counter() - start)
        return executable
    if _core_backend == "sdk":
        # The cache keys on the emulator's canonical executable sections; the SDK has none.
        log.warning("compiled %s without the executable cache: it needs the emulator backend "
                    "(popdsl.backend() is 'sdk'); cache_dir %r is not used", program_names, cache_dir)
        return executable
    os.makedirs(cache_dir, exist_ok=True)
    sections = poplar._executableSections(executable)
    digests = {k: hashlib.sha256(sections[k]).hexdigest() for k in _SECTION_ORDER}
    key = hashlib.sha256("".join(digests[k] for k in _SECTION_ORDER).encode()).hexdigest()[:40]
    path = os.path.join(cache_dir, key + _CACHE_SUFFIX)
    if os.path.exists(path):
        try:
            with open(path, "rb") as f:
                cached = poplar.Executable.deserialize(f.read())
            log.info("loaded the cached executable %s for %s", path, program_names)
            return cached
        except poplar.poplar_error as e:
            log.warning("recompiling %s: the cached executable %s cannot be read (%s)", program_names, path, e)
    else:
        log.info("recompiling %s: %s", program_names, _why_recompiled(cache_dir, digests, program_names))
    data = executable.serialize()
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, path)  # readers never see a half-written executable
    with open(os.path.join(cache_dir, key + ".json"), "w") as f:
        json.dump({"programs": program_names, "digests": digests, "time": time.time()}, f)
    return executable


def _why_recompiled(cache_dir, digests, program_names) -> str:
    """Compares with the newest cached executable of the same programs (or any, if none)."""
    entries = []
    for file in os.listdir(cache_dir):
        if file.endswith(".json"):
            try:
                with open(os.path.join(cache_dir, file)) as f:
                    entries.append(json.load(f))
            except (OSError, ValueError):
                continue
    if not entries:
        return "no cached executable"
    same_programs = [e for e in entries if e.get("programs") == program_names]
    newest = max(same_programs or entries, key=lambda e: e.get("time", 0))
    changed = [k for k in _SECTION_ORDER if newest.get("digests", {}).get(k) != digests[k]]
    return ", ".join(f"{k} changed" for k in changed) or "no cached executable"


def _progress(what):
    """A Poplar progress function: a bar on stderr when it is a terminal, else log lines."""
    def report(done, total):
        if sys.stderr.isatty():
            filled = int(30 * done / max(total, 1))
            sys.stderr.write(f"\r{what}: [{'#' * filled}{' ' * (30 - filled)}] {done}/{total}")
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()
        else:
            log.debug("%s: %d/%d", what, done, total)
    return report


class _RunProgress:
    """While a run lasts longer than _LONG_RUN_SECONDS, reports how long it has run (and,
    after a first run of the program, a bar against that run's time): on stderr when it
    is a terminal, else in log lines. The engine releases the GIL while it runs, so one
    watcher thread, shared by all runs and started once, can report; a run only
    registers itself, which keeps short runs cheap."""

    _active = {}  # id -> the runs going on now
    _lock = threading.Lock()  # a run does not end while the watcher reports it
    _watcher = None

    def __init__(self, what: str, expected_seconds):
        self.what, self.expected = what, expected_seconds
        self.terminal = sys.stderr.isatty()
        self.next_report = _LONG_RUN_SECONDS  # seconds into the run
        self.reported = False

    def __enter__(self):
        self.start = time.perf_counter()
        _RunProgress._active[id(self)] = self
        if _RunProgress._watcher is None:
            _RunProgress._watcher = threading.Thread(target=_RunProgress._watch, daemon=True)
            _RunProgress._watcher.start()
        return self

    def __exit__(self, *exc):
        with _RunProgress._lock:
            del _RunProgress._active[id(self)]
        if self.reported and self.terminal:
            sys.stderr.write("\n")
        return False

    @staticmethod
    def _watch():
        while True:
            time.sleep(_PROGRESS_POLL_SECONDS)
            with _RunProgress._lock:
                for run in list(_RunProgress._active.values()):
                    elapsed = time.perf_counter() - run.start
                    if elapsed >= run.next_report:
                        run._report(elapsed)
                        run.next_report = elapsed + _PROGRESS_INTERVAL_SECONDS[run.terminal]

    def _report(self, elapsed):
        self.reported = True
        if not self.terminal:
            log.info("%s: still running after %.1f s", self.what, elapsed)
            return
        bar = ""
        if self.expected:
            filled = min(30, int(30 * elapsed / self.expected))
            bar = f" [{'#' * filled}{' ' * (30 - filled)}] of the last run's {self.expected:.1f} s"
        sys.stderr.write(f"\r{self.what}: {elapsed:.0f} s{bar}")
        sys.stderr.flush()


# --- host handles, streams and callbacks ------------------------------------------------------

def _unique_names(names) -> list:
    """The names, with '#2', '#3', ... added to repeats (views of one variable share its name)."""
    seen = {}
    unique = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return unique


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


def _feeder(stream: _StreamInfo, feed):
    """Supplies successive rows of `feed` (or the whole array once) on each stream read."""
    if feed is None:
        def missing(buffer):
            raise SessionError(f"the program read stream '{stream.handle}' but run() got no feed for it")
        return missing
    array = np.asarray(feed, stream.dtype)
    row_size = int(np.prod(stream.shape))  # not -1: numpy cannot infer it for zero rows
    if array.shape == stream.shape:
        rows = array.reshape(1, row_size)
    elif array.shape[1:] == stream.shape:
        rows = array.reshape(array.shape[0], row_size)
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


def _collector(stream: _StreamInfo, sink: list):
    def collect(values):
        sink.append(values.reshape(stream.shape))
    return collect
