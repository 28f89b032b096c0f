"""Random tensors (poprand) and Poplar's hardware seeds (RandomSeed.hpp).

uniform, normal, truncated_normal and bernoulli fill a new tensor; dropout zeroes
elements of a tensor at random. With seed=None (the default) they draw from the
hardware generators, whose state each session's `seed` decides (see pd.Session): the
same session seed gives the same numbers, and every tile draws independently. A seed
tensor (uint32, 2 elements) instead makes the numbers a function of its value (and of
seed_modifier). The raw poplibs functions are bound as popdsl.poprand.
get_hw_seeds/set_hw_seeds are the SDK's API and work on both backends; a session's
`seed` (the engine's seed) needs the emulator backend (NotImplementedError on the sdk one)."""

from __future__ import annotations

from typing import Optional

from popdsl._core import poplar, poprand
from popdsl._core import program as _program
from popdsl.control import emit, record, Block
from popdsl.debug import BuildError, debug_name, describe, expect_int
from popdsl.dtypes import as_type, is_floating, DType
from popdsl.graph import Graph
from popdsl.ops import _run_library, map as _map
from popdsl.tensor import Tensor, as_shape, expect_tensor, Shape


def _sample(kind, graph, shape, dtype, seed, seed_modifier, draw, name, prog) -> Tensor:
    """A new tensor of shape and dtype filled by draw(raw graph, seed, modifier, reference,
    type, seq, debug context): the reference is a variable laid out as pd.Graph lays out
    its own, so the result is spread over the tiles the same way."""
    what = f"pd.random.{kind}"
    if not isinstance(graph, Graph):
        raise BuildError(f"{what}: graph must be a pd.Graph, got {describe(graph)}")
    shape = as_shape(shape, f"{what}: shape")
    dtype = as_type(dtype, f"{what}: dtype")
    if seed is not None:
        expect_tensor(seed, f"{what}: seed", graph)
        if seed.size != 2 or seed.dtype != poplar.UNSIGNED_INT:
            raise BuildError(f"{what}: seed must be a uint32 tensor of 2 elements (or None for the hardware "
                             f"generators), got {seed!r}")
    modifier = expect_int(seed_modifier, f"{what}: seed_modifier", 0, 2 ** 32 - 1)
    reference = graph.variable(dtype, shape, name=f"{what}/reference")
    raw = _run_library(lambda seq, dc: draw(graph.raw, None if seed is None else seed.raw.reshape([2]), modifier,
                                            reference.raw, dtype, seq, dc), name, prog, what)
    out = graph.track(Tensor(raw, graph))
    record(what, [] if seed is None else [seed], [out], prog)  # no gradient: nothing to differentiate
    return out


def uniform(graph: Graph, shape: Shape, low: float = 0.0, high: float = 1.0, dtype: DType = poplar.FLOAT,
            seed: Optional[Tensor] = None, seed_modifier: int = 0, name: Optional[str] = None,
            prog: Optional[Block] = None) -> Tensor:
    """Uniform in [low, high) for floats; for int dtypes, integers in [low, high]."""
    return _sample("uniform", graph, shape, dtype, seed, seed_modifier, lambda g, s, m, ref, t, seq, dc:
                   poprand.uniform(g, s, m, ref, t, low, high, seq, dc), name, prog)


def normal(graph: Graph, shape: Shape, mean: float = 0.0, std: float = 1.0, dtype: DType = poplar.FLOAT,
           seed: Optional[Tensor] = None, seed_modifier: int = 0, name: Optional[str] = None,
           prog: Optional[Block] = None) -> Tensor:
    """Normally distributed with the given mean and standard deviation (float dtypes)."""
    return _sample("normal", graph, shape, dtype, seed, seed_modifier, lambda g, s, m, ref, t, seq, dc:
                   poprand.normal(g, s, m, ref, t, mean, std, seq, dc), name, prog)


def truncated_normal(graph: Graph, shape: Shape, mean: float = 0.0, std: float = 1.0, alpha: float = 2.0,
                     dtype: DType = poplar.FLOAT, seed: Optional[Tensor] = None, seed_modifier: int = 0,
                     name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """Normal, redrawn wherever a value falls more than alpha standard deviations from the mean."""
    return _sample("truncated_normal", graph, shape, dtype, seed, seed_modifier, lambda g, s, m, ref, t, seq, dc:
                   poprand.truncatedNormal(g, s, m, ref, t, mean, std, alpha, seq, dc), name, prog)


def bernoulli(graph: Graph, shape: Shape, p: float = 0.5, dtype: DType = poplar.FLOAT, seed: Optional[Tensor] = None,
              seed_modifier: int = 0, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """1 with probability p, else 0."""
    return _sample("bernoulli", graph, shape, dtype, seed, seed_modifier, lambda g, s, m, ref, t, seq, dc:
                   poprand.bernoulli(g, s, m, ref, t, p, seq, dc), name, prog)


def dropout(x: Tensor, rate: float, seed: Optional[Tensor] = None, seed_modifier: int = 0, name: Optional[str] = None,
            prog: Optional[Block] = None) -> Tensor:
    """x with each element zeroed with probability `rate` and the others scaled by
    1 / (1 - rate), so the mean is kept. The mask is a tensor of its own (a bernoulli
    draw), and pd.grad's gradient multiplies by that same mask."""
    expect_tensor(x, "pd.random.dropout: x")
    if not is_floating(x.dtype):
        raise BuildError(f"pd.random.dropout: x must be a float tensor, got {x!r}")
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not 0.0 <= rate < 1.0:
        raise BuildError(f"pd.random.dropout: rate must be a number in [0, 1), got {describe(rate)}")
    keep = 1.0 - float(rate)
    mask = bernoulli(x.graph, x.shape, keep, x.dtype, seed, seed_modifier, name, prog)
    return _map(lambda a, m: a * m * (1.0 / keep), x, mask, name=name, prog=prog)


def get_hw_seeds(graph: Graph, name: Optional[str] = None, prog: Optional[Block] = None) -> Tensor:
    """The hardware seeds of every tile and worker, uint32 [tiles, workers, 4] (poplar::getHwSeeds)."""
    if not isinstance(graph, Graph):
        raise BuildError(f"get_hw_seeds: graph must be a pd.Graph, got {describe(graph)}")
    steps = _program.Sequence()
    seeds = graph.track(Tensor(poplar.getHwSeeds(graph.raw, steps, debug_name(name)), graph))
    emit(steps, prog)
    return seeds


def set_hw_seeds(seeds: Tensor, name: Optional[str] = None, prog: Optional[Block] = None) -> None:
    """Sets the hardware seeds from a tensor shaped like get_hw_seeds' result (poplar::setHwSeeds)."""
    expect_tensor(seeds, "set_hw_seeds: seeds")
    target = seeds.graph.target
    expected = (target.getNumTiles(), target.getNumWorkerContexts(), 4)
    if seeds.shape != expected or seeds.dtype != poplar.UNSIGNED_INT:
        raise BuildError(f"set_hw_seeds: seeds must be an UNSIGNED_INT tensor of shape {expected} "
                         f"(get_hw_seeds' result), got {seeds!r}")
    steps = _program.Sequence()
    poplar.setHwSeeds(seeds.graph.raw, seeds.raw, steps, debug_name(name))
    emit(steps, prog)
