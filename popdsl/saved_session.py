"""The file `Session.save` writes and `Session.load` reads: a magic line, the manifest's
length (8 bytes, little-endian), the manifest (JSON: program names, and the names,
handles, shapes and dtypes of the tensors, streams and host callbacks, and the handles
of the weights saved with it and the replicas they are of), the saved weights' values
(raw, in the manifest's order, each of its tensor's host shape and dtype: one row per
replica of the saving instance), then the serialized executable.

Saved sessions are files users copy between machines, so reading one checks every
field before anything uses it: a damaged or foreign file raises SessionError naming the
file and what is wrong, and no manifest can give a tensor a dtype that is not a device
element type (object arrays above all)."""
import json
import math
import re
import struct

import numpy as np

from popdsl import _core
from popdsl._core import poplar
from popdsl.dtypes import as_type
from popdsl.untrusted_files import UnreadableFile, read_marked_file

MAGIC = b"POPDSL-SESSION\n"
# 2: replicated sessions ("replicas", streams' "broadcast"); 3: saved weights; 4: the replicas
# whose weights are saved ("weight_replicas": [first, stop), one instance's of a multi-instance
# run). Format 3 files (all replicas' weights) are read too.
VERSION = 4
_READABLE = (3, 4)
_LENGTH = struct.Struct("<Q")


class SavedSessionError(ValueError):
    """What is wrong with a saved session's file (Session.load names the file)."""


def write(path, manifest: dict, weights: dict, executable: bytes):
    """Writes the manifest, the weights (handle -> host array) and the executable to `path`."""
    header = json.dumps(dict(manifest, version=VERSION, weights=list(weights))).encode()
    with open(path, "wb") as f:
        f.write(MAGIC + _LENGTH.pack(len(header)) + header)
        for array in weights.values():
            f.write(np.ascontiguousarray(array).tobytes())
        f.write(executable)


def read(path):
    """(manifest, weights: handle -> host array, executable bytes) of the saved session at
    `path`, checked field by field."""
    try:
        data = read_marked_file(path, MAGIC, "a saved popdsl session")
    except UnreadableFile as e:
        raise SavedSessionError(str(e)) from None
    start = len(MAGIC) + _LENGTH.size
    if len(data) < start:
        raise SavedSessionError(f"is truncated: {len(data)} bytes, not even the manifest's length")
    (length,) = _LENGTH.unpack_from(data, len(MAGIC))
    if length > len(data) - start:
        raise SavedSessionError(f"is truncated: its manifest needs {length} bytes, {len(data) - start} follow")
    try:
        manifest = json.loads(data[start:start + length].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SavedSessionError(f"has a damaged manifest ({e})") from None
    if not isinstance(manifest, dict):
        raise SavedSessionError("has a damaged manifest (not a JSON object)")
    if manifest.get("version") not in _READABLE:
        raise SavedSessionError(f"was saved in format {manifest.get('version')!r}; this popdsl reads format {VERSION}")
    _check_manifest(manifest)
    weights, end = _weights(manifest, data, start + length)
    return manifest, weights, data[end:]


def _weights(manifest: dict, data: bytes, begin: int):
    """The saved weights (handle -> array of the tensor's host shape) read from data[begin:],
    and where they end."""
    tensors = {t["handle"]: t for t in manifest["tensors"]}
    handles = manifest.get("weights")
    if not (isinstance(handles, list) and all(_is_name(h) and h in tensors and not tensors[h]["constant"]
                                              for h in handles) and len(set(handles)) == len(handles)):
        raise SavedSessionError(f"has a damaged manifest: 'weights' is not a list of its variables' handles: "
                                f"{handles!r}")
    replicas = manifest["replicas"]
    first, stop = weight_replicas(manifest)
    weights = {}
    for handle in handles:
        t = tensors[handle]
        shape = ((stop - first,) if replicas > 1 else ()) + tuple(t["shape"])
        dtype = np.dtype(t["dtype"])
        count = math.prod(shape)  # a Python int: numpy's product could wrap
        size = count * dtype.itemsize
        if begin + size > len(data):
            raise SavedSessionError(f"is truncated: the saved values of tensor {t['name']!r} need {size} bytes, "
                                    f"{len(data) - begin} follow")
        weights[handle] = np.frombuffer(data, dtype, count, begin).reshape(shape).copy()
        begin += size
    return weights, begin


def weight_replicas(manifest: dict):
    """[first, stop) of the replicas whose weights the file holds (all in format 3)."""
    return manifest.get("weight_replicas", [0, manifest["replicas"]])


# JSON can spell lone surrogates ("\udcff"), which UTF-8, and so no C++ name, can hold.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _is_name(value):
    return isinstance(value, str) and not _SURROGATE.search(value)


def _is_flag(value):
    return isinstance(value, bool)


# No tensor, stream or argument holds more elements (nor any of its dimensions): the
# product is a Python int, so a crafted shape cannot wrap around to a small count.
MAX_ELEMENTS = 2 ** 48
# The emulator's limit on tiles in all (so on replicas).
MAX_TILES = 2 ** 20


def _is_shape(value):
    return (isinstance(value, list) and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < MAX_ELEMENTS
                                            for n in value) and math.prod(value) < MAX_ELEMENTS)


def _is_device_dtype(value):
    if not _is_name(value):
        return False
    try:
        as_type(np.dtype(value))
    except TypeError:
        return False
    return True


def _is_arguments(value):
    return isinstance(value, list) and all(isinstance(a, list) and len(a) == 2 and _is_shape(a[0])
                                           and _is_device_dtype(a[1]) for a in value)


# field -> the check its value must pass, per kind of manifest entry
_ENTRY_FIELDS = {
    "tensors": {"name": _is_name, "handle": _is_name, "shape": _is_shape, "dtype": _is_device_dtype,
                "constant": _is_flag, "initialised": _is_flag},
    "streams": {"handle": _is_name, "shape": _is_shape, "dtype": _is_device_dtype, "to_device": _is_flag,
                "broadcast": _is_flag},
    "host_callbacks": {"name": _is_name, "where": _is_name, "inputs": _is_arguments, "outputs": _is_arguments},
}


def _check_manifest(manifest):
    programs = manifest.get("programs")
    if not (isinstance(programs, list) and programs and all(_is_name(p) for p in programs)):
        raise SavedSessionError("has a damaged manifest: 'programs' is not a list of program names")
    if not _is_name(manifest.get("name")):
        raise SavedSessionError("has a damaged manifest: 'name' is not a string")
    replicas = manifest.get("replicas")
    if not (isinstance(replicas, int) and not isinstance(replicas, bool) and 1 <= replicas <= MAX_TILES):
        raise SavedSessionError(f"has a damaged manifest: 'replicas' is not an int from 1 to 2**20: {replicas!r}")
    saved = weight_replicas(manifest)
    numbers = isinstance(saved, list) and len(saved) == 2 and all(
        isinstance(n, int) and not isinstance(n, bool) for n in saved)
    if not (numbers and 0 <= saved[0] < saved[1] <= replicas):
        raise SavedSessionError(f"has a damaged manifest: 'weight_replicas' is not a range of its {replicas} "
                                f"replicas: {saved!r}")
    for kind, fields in _ENTRY_FIELDS.items():
        entries = manifest.get(kind)
        if not isinstance(entries, list):
            raise SavedSessionError(f"has a damaged manifest: '{kind}' is not a list")
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or set(entry) != set(fields):
                raise SavedSessionError(f"has a damaged manifest: {kind}[{i}] does not have the fields {sorted(fields)}")
            bad = [field for field, valid in fields.items() if not valid(entry[field])]
            if bad:
                raise SavedSessionError(f"has a damaged manifest: {kind}[{i}] has an invalid {bad[0]!r}: "
                                        f"{entry[bad[0]]!r}")


def check_tensors(engine, tensors):
    """Each saved tensor's dtype and shape are those of its host handles in the executable:
    reads and writes size their buffers by the manifest, so a manifest that disagrees
    raises SavedSessionError naming the handle and both dtypes. The sdk backend's
    Engine does not describe its handles; there the buffers' sizes are still checked."""
    if _core.backend == "sdk":
        return
    for t in tensors:
        for read in (True, False) if not t.constant else (True,):
            handle = ("r" if read else "w") + t.handle
            found = engine._hostTensor(handle, read)
            if found is None:
                raise SavedSessionError(f"the file's manifest names tensor {t.name!r}, but its executable "
                                        f"has no host {'read' if read else 'write'} handle {handle!r}")
            element_type, elements = found
            if np.dtype(element_type.numpy_dtype) != t.dtype or elements != int(np.prod(t.shape)):
                raise SavedSessionError(
                    f"the file's manifest gives tensor {t.name!r} (handle {handle!r}) dtype "
                    f"{t.dtype} and shape {t.shape}, but the executable's handle holds {elements} elements of "
                    f"{element_type} (numpy {np.dtype(element_type.numpy_dtype)}); the file is damaged")


def check_streams_and_callbacks(executable, streams, callbacks):
    """Each saved stream and host callback is one of the executable's, with its element types,
    sizes and direction: feeds, collected outputs and callback arguments are shaped by the
    manifest, so one that disagrees raises SavedSessionError naming the handle and both
    descriptions. The sdk backend cannot look inside an executable; there nothing is checked."""
    interface = poplar._executableInterface(executable)
    if interface is None:
        return
    executable_streams, host_functions = interface
    for s in streams:
        found = executable_streams.get(s.handle)
        if found is None:
            raise SavedSessionError(f"the file's manifest names stream {s.handle!r}, but its executable "
                                    f"has no data stream {s.handle!r}")
        element_type, elements, to_device = found
        if (np.dtype(element_type.numpy_dtype), elements, to_device) != (s.dtype, int(np.prod(s.shape)), s.to_device):
            raise SavedSessionError(
                f"the file's manifest gives stream {s.handle!r} dtype {s.dtype}, shape "
                f"{s.shape}, {_direction(s.to_device)}, but the executable's stream holds {elements} elements of "
                f"{element_type} (numpy {np.dtype(element_type.numpy_dtype)}), {_direction(to_device)}; "
                "the file is damaged")
    for c in callbacks:
        found = host_functions.get(c.name)
        if found is None:
            raise SavedSessionError(f"the file's manifest names host callback {c.name!r}, but its "
                                    f"executable has no host function {c.name!r}")
        for role, saved, arguments in (("inputs", c.inputs, found[0]), ("outputs", c.outputs, found[1])):
            executable_arguments = [(np.dtype(element_type.numpy_dtype), elements) for element_type, elements in arguments]
            if [(dtype, int(np.prod(shape))) for shape, dtype in saved] != executable_arguments:
                raise SavedSessionError(
                    f"the file's manifest gives host callback {c.name!r} {role} "
                    f"{_arguments(saved)}, but the executable's host function has "
                    f"{[f'{n} x {dtype}' for dtype, n in executable_arguments]}; the file is damaged")


def _direction(to_device: bool) -> str:
    return "host to device" if to_device else "device to host"


def _arguments(specs) -> list:
    """Callback arguments (shape, dtype) as the error messages show them."""
    return [f"{shape} {dtype}" for shape, dtype in specs]
