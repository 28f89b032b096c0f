"""The executable cache (``cache_dir=`` / ``POPDSL_CACHE_DIR``): compiled executables
stored under a hash of their canonical sections (target, graph, programs, options).

Entries are files other machines and processes may have written (shared or copied cache
directories): one is used only when its sections are the ones just compiled, compared
before anything in it is built, so an entry's codelets are only ever the graph's own
(nothing planted in a cache directory is compiled or loaded); one that is truncated,
unreadable, not a regular file or for another graph is compiled again, with a log line
saying why. Writers write a private temporary file (exclusive: a planted link is not
followed) and rename it into place, so concurrent writers never leave a half-written entry."""
import hashlib
import json
import logging
import os
import struct
import tempfile
import time

from popdsl._core import backend as _core_backend
from popdsl._core import poplar
from popdsl.untrusted_files import UnreadableFile, read_marked_file

log = logging.getLogger("popdsl")

ENTRY_SUFFIX = ".popexe"
SECTION_ORDER = ("target", "graph", "programs", "options")
# How a serialized executable starts: the length of its magic string, then the string.
EXECUTABLE_MARKER = struct.pack("<Q", 17) + b"POPDSL-EXECUTABLE"


def compile_or_load(raw_graph, programs, options, cache_dir, program_names):
    """The executable for the graph: from `cache_dir` when an identical one was stored, else
    the one compiled now (and stored). Logs why it compiled."""
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
    cache_dir = os.path.expanduser(os.fspath(cache_dir))
    os.makedirs(cache_dir, exist_ok=True)
    sections = poplar._executableSections(executable)
    digests = {k: hashlib.sha256(sections[k]).hexdigest() for k in SECTION_ORDER}
    key = hashlib.sha256("".join(digests[k] for k in SECTION_ORDER).encode()).hexdigest()[:40]
    path = os.path.join(cache_dir, key + ENTRY_SUFFIX)
    if os.path.exists(path):
        cached, problem = _read_entry(path, sections)
        if cached is not None:
            log.info("loaded the cached executable %s for %s", path, program_names)
            return cached
        log.warning("recompiling %s: the cached executable %s %s", program_names, path, problem)
    else:
        log.info("recompiling %s: %s", program_names, _why_recompiled(cache_dir, digests, program_names))
    _write_atomically(path, executable.serialize())
    _write_atomically(os.path.join(cache_dir, key + ".json"),
                      json.dumps({"programs": program_names, "digests": digests, "time": time.time()}).encode())
    return executable


def _read_entry(path, sections):
    """(the executable, None) when the entry at `path` holds exactly `sections`, else
    (None, what is wrong with it). The entry is compared before it is deserialized: its
    codelets, compiled then, are the graph's own."""
    try:
        data = read_marked_file(path, EXECUTABLE_MARKER, "a popdsl executable")
        if poplar._serializedSections(data) != sections:
            return None, "is not for this graph (its sections differ from the executable just compiled)"
        return poplar.Executable.deserialize(data), None
    except UnreadableFile as e:
        return None, str(e)
    except poplar.poplar_error as e:
        return None, f"cannot be read ({e})"


def _write_atomically(path, data: bytes):
    """Writes a private temporary file beside `path`, then renames it over `path`: readers
    and other writers see the old file or the new one, never a mixture."""
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=os.path.basename(path) + ".",
                                     suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _entry_time(entry) -> float:
    time_written = entry.get("time")
    return time_written if isinstance(time_written, (int, float)) else 0.0


def _why_recompiled(cache_dir, digests, program_names) -> str:
    """Compares with the newest cached executable of the same programs (or any, if none)."""
    entries = []
    for file in os.listdir(cache_dir):
        if file.endswith(".json"):
            try:
                entry = json.loads(read_marked_file(os.path.join(cache_dir, file), b"{", "a cache record"))
            except ValueError:  # unreadable (UnreadableFile) or not JSON
                continue
            if isinstance(entry, dict) and isinstance(entry.get("digests"), dict):
                entries.append(entry)
    if not entries:
        return "no cached executable"
    same_programs = [e for e in entries if e.get("programs") == program_names]
    newest = max(same_programs or entries, key=_entry_time)
    changed = [k for k in SECTION_ORDER if newest["digests"].get(k) != digests[k]]
    return ", ".join(f"{k} changed" for k in changed) or "no cached executable"
