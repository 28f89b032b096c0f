"""Damage for the fuzz tests of executables and saved sessions (test_executable_fuzz.py,
saved_session_fuzz.py): byte-level mutations, and the checksum executables carry, so a
mutant can be given a matching one and reach the checks behind it."""
import struct


def fnv1a(data: bytes) -> int:
    """The FNV-1a hash a serialized executable ends with (8 bytes, little-endian)."""
    h = 14695981039346656037
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def with_checksum(body: bytes) -> bytes:
    """The executable `body` followed by its checksum."""
    return body + struct.pack("<Q", fnv1a(body))


# Values a damaged length, count or index field is set to: small, boundaries, huge.
FIELD_VALUES = [0, 1, 2, 3, 7, 255, 2 ** 16, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 63, 2 ** 64 - 1]


def damage(body: bytes, rng) -> bytes:
    """`body` with one random kind of damage, mostly value changes, which keep the structure
    and so reach deeper checks."""
    kind = rng.choices(range(5), weights=[4, 1, 3, 1, 1])[0]
    data = bytearray(body)
    if kind == 0:  # flip bytes
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncate
        del data[rng.randrange(len(data)):]
    elif kind == 2:  # a little-endian u64 field (a length, count or index) set to another value
        at = rng.randrange(len(data) - 8)
        data[at:at + 8] = struct.pack("<Q", rng.choice(FIELD_VALUES))
    elif kind == 3:  # insert bytes
        at = rng.randrange(len(data))
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    else:  # drop bytes
        at = rng.randrange(len(data))
        del data[at:at + rng.randint(1, 16)]
    return bytes(data)
