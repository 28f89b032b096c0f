"""Element types: popdsl names for Poplar's types, convertible from numpy dtypes."""

from __future__ import annotations

from typing import Union

import numpy as np

from popdsl._core import poplar

# The public names (the API reference's); the module's other functions serve the package.
__all__ = ["DType", "as_type", "float32", "float16", "int32", "uint32", "int16", "uint16", "int8", "uint8", "bool_",
           "int64", "uint64"]

float32 = poplar.FLOAT
float16 = poplar.HALF
int32 = poplar.INT
uint32 = poplar.UNSIGNED_INT
int16 = poplar.SHORT
uint16 = poplar.UNSIGNED_SHORT
int8 = poplar.SIGNED_CHAR
uint8 = poplar.UNSIGNED_CHAR
bool_ = poplar.BOOL
int64 = poplar.LONGLONG
uint64 = poplar.UNSIGNED_LONGLONG

# What dtype= takes: a device type (pd.float32, ...) or anything numpy takes as a dtype.
DType = Union[poplar.Type, np.dtype, type, str]

_FROM_NUMPY = {
    np.dtype(np.float32): float32, np.dtype(np.float16): float16, np.dtype(np.int32): int32,
    np.dtype(np.uint32): uint32, np.dtype(np.int16): int16, np.dtype(np.uint16): uint16,
    np.dtype(np.int8): int8, np.dtype(np.uint8): uint8, np.dtype(np.bool_): bool_,
    np.dtype(np.int64): int64, np.dtype(np.uint64): uint64,
}


def as_type(dtype: DType, what: str = "dtype") -> "poplar.Type":
    """A poplar.Type from a poplar.Type, a numpy dtype or anything numpy accepts as one;
    anything else raises a TypeError naming `what`."""
    if isinstance(dtype, poplar.Type):
        return dtype
    try:
        return _FROM_NUMPY[np.dtype(dtype)]
    except (TypeError, KeyError):
        raise TypeError(f"{what} {dtype!r} is not a device element type; use one of pd.float32, pd.float16, "
                        "pd.int32, pd.uint32, pd.int16, pd.uint16, pd.int8, pd.uint8, pd.bool_") from None


def numpy_dtype(dtype: DType) -> np.dtype:
    return np.dtype(as_type(dtype).numpy_dtype)


def is_floating(dtype: DType) -> bool:
    return as_type(dtype).isFloatingPoint()


def is_integral_or_bool(dtype: DType) -> bool:
    return not is_floating(dtype)
