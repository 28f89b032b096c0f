"""The host side of a session's data: what it knows of its tensors and streams, the
values going to the device (checked exactly) and what the device-to-host streams send back."""
import os

import numpy as np

from popdsl.debug import describe
from popdsl.dtypes import as_type
from popdsl.tensor import Tensor

# The public name (the API reference's); the rest serves popdsl.session.
__all__ = ["SessionError"]


class SessionError(RuntimeError):
    """Misuse of a session: not attached, unknown program, bad feeds or tensors."""


class TensorInfo:
    """What a session knows of a readable/writable tensor (enough to save and load)."""

    def __init__(self, name, handle, shape, dtype, constant, initialised):
        self.name, self.handle, self.shape, self.dtype = name, handle, tuple(shape), np.dtype(dtype)
        self.constant, self.initialised = constant, initialised

    def to_json(self):
        return {"name": self.name, "handle": self.handle, "shape": list(self.shape), "dtype": self.dtype.str,
                "constant": self.constant, "initialised": self.initialised}


class StreamInfo:
    """What a session knows of a data stream (enough to save and load)."""

    def __init__(self, handle, shape, dtype, to_device, broadcast):
        self.handle, self.shape, self.dtype, self.to_device = handle, tuple(shape), np.dtype(dtype), to_device
        self.broadcast = broadcast  # one feed for every replica

    def to_json(self):
        return {"handle": self.handle, "shape": list(self.shape), "dtype": self.dtype.str, "to_device": self.to_device,
                "broadcast": self.broadcast}


class Compiled:
    """What a session runs and knows of it: the executable, its programs' names, its
    tensors, streams and host callbacks (handle -> HostCallback), its replicas, the target
    a device is made for when none is given, the session's default name and the weights it
    starts from (handle -> host copy). Compiled from a graph it also holds the graph and
    its tensors' handles (id(tensor) -> handle); read from a file (Session.load), neither."""

    def __init__(self, executable, program_names, tensors, streams, callbacks, replicas, target, name,
                 weights=None, graph=None, handles=None):
        self.executable, self.program_names, self.tensors, self.streams = executable, program_names, tensors, streams
        self.callbacks, self.replicas, self.target, self.name = callbacks, replicas, target, name
        self.weights = weights or {}
        self.graph, self.handles = graph, handles or {}


def file_path(path, what: str) -> str:
    """A str or os.PathLike path with ~ expanded; anything else raises a TypeError naming `what`."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what}: path must be a str or os.PathLike, got {describe(path)}")
    return os.path.expanduser(os.fspath(path))


def device_values(values, dtype: np.dtype, what: str) -> np.ndarray:
    """`values` as an array of the device dtype. Integer and boolean tensors take only the
    values they hold exactly: 1.5, NaN, -1 for uint32 or 2**40 for int32 raise instead of
    being truncated or wrapped."""
    if isinstance(values, Tensor):
        raise SessionError(f"{what}: values must be host data, got {values!r}; read a tensor with session.read(t)")
    array = np.asarray(values)
    if array.dtype.kind not in "biuf":
        raise SessionError(f"{what}: {array.dtype} values cannot be converted to {dtype}")
    if array.dtype == dtype:
        return array  # the caller's array itself: session writes copy it, stream feeds only read it
    with np.errstate(invalid="ignore"):  # NaN and infinities into integers: refused below
        converted = array.astype(dtype)
    if dtype.kind in "biu" and not np.array_equal(converted, array):
        inexact = array.flat[np.flatnonzero(converted != array)[0]].item()
        raise SessionError(f"{what}: {inexact!r} is not exactly representable as {dtype}")
    return converted


def per_replica(stream: StreamInfo, feed, replicas: int) -> list:
    """A replicated stream's feed split along its leading replica axis (None: no feeds)."""
    if feed is None:
        return [None] * replicas
    array = np.asarray(feed) if not isinstance(feed, Tensor) else feed
    if not isinstance(array, np.ndarray) or array.ndim == 0 or array.shape[0] != replicas:
        raise SessionError(f"the feed for stream '{stream.handle}' needs a leading replica axis: shape "
                           f"({replicas}, *{stream.shape}) or ({replicas}, reads, *{stream.shape}), got "
                           f"{getattr(array, 'shape', describe(feed))}")
    return list(array)


def described(stream: StreamInfo) -> tuple:
    """The stream's buffer as the engine takes it: the sdk backend cannot read it from the executable."""
    return as_type(stream.dtype), int(np.prod(stream.shape)), stream.to_device


class Feed:
    """Feeds a host-to-device stream the rows of its feed (or the whole array once), one
    per read, through the engine (Engine.feedStream: no Python call per row); a run must
    read every row it was given."""

    def __init__(self, stream: StreamInfo, feed, replica=""):
        self.label = f"stream '{stream.handle}'{replica}"
        self.stream = stream
        row_size = int(np.prod(stream.shape))  # not -1: numpy cannot infer it for zero rows
        self.given = feed is not None
        if not self.given:
            self.rows = np.empty((0, row_size), stream.dtype)
            return
        array = device_values(feed, stream.dtype, f"the feed for {self.label}")
        if array.shape == stream.shape:
            self.rows = array.reshape(1, row_size)
        elif array.shape[1:] == stream.shape:
            self.rows = array.reshape(array.shape[0], row_size)
        else:
            raise SessionError(f"the feed for {self.label} has shape {array.shape}; expected "
                               f"{stream.shape} or (reads, *{stream.shape})")
        self.rows = np.ascontiguousarray(self.rows)

    def connect(self, engine, replica=None):
        self.host = engine.feedStream(self.stream.handle, self.rows, self.exhausted, replica, described(self.stream))

    def exhausted(self):
        """Raises the error of a read that finds no row left (called by the engine)."""
        if not self.given:
            raise SessionError(f"the program read {self.label} but run() got no feed for it")
        raise SessionError(f"{self.label} was read more than the {len(self.rows)} time(s) "
                           "its feed provides")

    def check_all_read(self, program):
        if self.given and self.host.count < len(self.rows):
            raise SessionError(f"the feed for {self.label} has {len(self.rows)} rows but program "
                               f"{program!r} read {self.host.count}: give one row per read")


class Collected:
    """Collects what a device-to-host stream sends in one run, row after row, in a buffer
    of the engine's (Engine.collectStream: no Python call per row)."""

    def __init__(self, engine, stream: StreamInfo, replica, expected: int):
        self.stream = stream
        self.host = engine.collectStream(stream.handle, replica, described(stream), expected)

    def rows(self) -> np.ndarray:
        """The run's writes as (writes, *shape)."""
        writes = self.host.count
        return self.host.take().reshape((writes,) + self.stream.shape)
