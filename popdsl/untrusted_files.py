"""Reading files other users or processes may have written (saved sessions, executable
cache entries) so that no file can make the reader hang, run out of memory or read
something else: only a regular file is read (a FIFO would block for ever and a device
such as /dev/zero never ends, also behind a symbolic link), checked on the open
descriptor (no window between the check and the read), and only after its first bytes
are the expected marker."""
import os
import stat


class UnreadableFile(ValueError):
    """Why a file was not read (the caller names the file)."""


def read_marked_file(path: str, marker: bytes, holds: str) -> bytes:
    """The whole file at `path` when it is a regular file that starts with `marker`; else
    raises UnreadableFile saying why (`holds` names what the file should hold)."""
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below).
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise UnreadableFile(f"cannot be read: {e.strerror}") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise UnreadableFile(f"is not a regular file (a directory, FIFO or device cannot hold {holds})")
    with os.fdopen(descriptor, "rb") as f:
        try:
            if f.read(len(marker)) != marker:
                raise UnreadableFile(f"is not {holds} (it does not start with popdsl's marker)")
            return marker + f.read()
        except OSError as e:
            raise UnreadableFile(f"cannot be read: {e.strerror}") from None
