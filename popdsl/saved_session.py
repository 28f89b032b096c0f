"""The file `Session.save` writes and `Session.load` reads: a magic line, the manifest's
length (8 bytes, little-endian), the manifest (JSON: program names, and the names,
handles, shapes and dtypes of the tensors, streams and host callbacks), then the
serialized executable.

Saved sessions are files users copy between machines, so reading one checks every
field before anything uses it: a damaged or foreign file raises SessionError naming the
file and what is wrong, and no manifest can give a tensor a dtype that is not a device
element type (object arrays above all)."""
import json
import struct

import numpy as np

from popdsl.dtypes import as_type

MAGIC = b"POPDSL-SESSION\n"
VERSION = 2  # 2: replicated sessions ("replicas", streams' "broadcast")
_LENGTH = struct.Struct("<Q")


class SavedSessionError(ValueError):
    """What is wrong with a saved session's manifest (Session.load names the file)."""


def write(path, manifest: dict, executable: bytes):
    header = json.dumps(dict(manifest, version=VERSION)).encode()
    with open(path, "wb") as f:
        f.write(MAGIC + _LENGTH.pack(len(header)) + header + executable)


def read(path):
    """(manifest, executable bytes) of the saved session at `path`, checked field by field."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(MAGIC):
        raise SavedSessionError("is not a saved popdsl session (it does not start with popdsl's marker)")
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
    if manifest.get("version") != VERSION:
        raise SavedSessionError(f"was saved in format {manifest.get('version')!r}; this popdsl reads format {VERSION}")
    _check_manifest(manifest)
    return manifest, data[start + length:]


def _is_name(value):
    return isinstance(value, str)


def _is_flag(value):
    return isinstance(value, bool)


def _is_shape(value):
    return isinstance(value, list) and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2 ** 48
                                           for n in value)


def _is_device_dtype(value):
    if not isinstance(value, str):
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
    if not (isinstance(replicas, int) and not isinstance(replicas, bool) and replicas >= 1):
        raise SavedSessionError(f"has a damaged manifest: 'replicas' is not a positive int: {replicas!r}")
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
