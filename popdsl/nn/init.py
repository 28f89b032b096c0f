"""Initial values for parameters, as torch.nn.init computes them, for Graph.variable(init=...).

Fans follow torch's layout: a weight ``[out, in, kernel...]`` has fan_in = in * prod(kernel) and
fan_out = out * prod(kernel) (pd.nn.linear and pd.nn.conv's weights are laid out so). Each
function takes `seed=` (an int or a numpy Generator); instances of a multi-instance run
that must start alike pass the same seed (pd.distributed.shared_seed())."""
import math
from typing import Optional, Sequence, Union

import numpy as np
from numpy.typing import DTypeLike

from popdsl.debug import BuildError, describe

__all__ = ["calculate_gain", "kaiming_normal", "kaiming_uniform", "normal", "uniform", "xavier_normal",
           "xavier_uniform"]

Seed = Union[None, int, np.random.Generator]


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """torch.nn.init.calculate_gain: the gain that keeps activations' variance through `nonlinearity`."""
    slope = 0.01 if param is None else float(param)
    gains = {"linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0, "sigmoid": 1.0, "tanh": 5.0 / 3,
             "relu": math.sqrt(2.0), "leaky_relu": math.sqrt(2.0 / (1 + slope ** 2)), "selu": 3.0 / 4}
    if nonlinearity not in gains:
        raise BuildError(f"pd.nn.init.calculate_gain: unknown nonlinearity {describe(nonlinearity)}; "
                         f"choose from {sorted(gains)}")
    return gains[nonlinearity]


def uniform(shape: Sequence[int], low: float = 0.0, high: float = 1.0, seed: Seed = None,
            dtype: DTypeLike = np.float32) -> np.ndarray:
    """Values drawn uniformly from [low, high)."""
    return _rng(seed).uniform(low, high, _shape(shape)).astype(dtype)


def normal(shape: Sequence[int], mean: float = 0.0, std: float = 1.0, seed: Seed = None,
           dtype: DTypeLike = np.float32) -> np.ndarray:
    """Values drawn from N(mean, std^2)."""
    return _rng(seed).normal(mean, std, _shape(shape)).astype(dtype)


def xavier_uniform(shape: Sequence[int], gain: float = 1.0, seed: Seed = None, dtype: DTypeLike = np.float32) -> np.ndarray:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio, 2010)."""
    fan_in, fan_out = _fans(shape)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform(shape, -bound, bound, seed, dtype)


def xavier_normal(shape: Sequence[int], gain: float = 1.0, seed: Seed = None, dtype: DTypeLike = np.float32) -> np.ndarray:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(shape)
    return normal(shape, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), seed, dtype)


def kaiming_uniform(shape: Sequence[int], a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    seed: Seed = None, dtype: DTypeLike = np.float32) -> np.ndarray:
    """U(-b, b) with b = gain * sqrt(3 / fan) (He et al., 2015), fan the mode's."""
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(shape, mode))
    return uniform(shape, -bound, bound, seed, dtype)


def kaiming_normal(shape: Sequence[int], a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                   seed: Seed = None, dtype: DTypeLike = np.float32) -> np.ndarray:
    """N(0, std^2) with std = gain / sqrt(fan), fan the mode's."""
    return normal(shape, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(_fan(shape, mode)), seed, dtype)


def _shape(shape) -> tuple:
    if not isinstance(shape, (tuple, list)) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                       for d in shape):
        raise BuildError(f"pd.nn.init: shape must be a tuple of non-negative ints, got {describe(shape)}")
    return tuple(shape)


def _fans(shape) -> tuple:
    shape = _shape(shape)
    if len(shape) < 2:
        raise BuildError(f"pd.nn.init: fans need a weight of at least 2 dimensions [out, in, ...], got {shape}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fan(shape, mode: str) -> int:
    fan_in, fan_out = _fans(shape)
    if mode not in ("fan_in", "fan_out"):
        raise BuildError(f"pd.nn.init: mode must be 'fan_in' or 'fan_out', got {describe(mode)}")
    return fan_in if mode == "fan_in" else fan_out


def _rng(seed: Seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
