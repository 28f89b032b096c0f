"""Random seeds: Poplar's hardware seeds (RandomSeed.hpp); each session's `seed` decides
them (see pd.Session). poplibs' random functions are bound raw as popdsl.poprand.
get_hw_seeds/set_hw_seeds are the SDK's API and work on both backends; a session's
`seed` (the engine's seed) needs the emulator backend (NotImplementedError on the sdk one)."""
from popdsl._core import poplar
from popdsl._core import program as _program
from popdsl.control import emit
from popdsl.debug import BuildError, debug_name, describe
from popdsl.graph import Graph
from popdsl.tensor import Tensor, expect_tensor


def get_hw_seeds(graph, name=None, prog=None) -> Tensor:
    """The hardware seeds of every tile and worker, uint32 [tiles, workers, 4] (poplar::getHwSeeds)."""
    if not isinstance(graph, Graph):
        raise BuildError(f"get_hw_seeds: graph must be a pd.Graph, got {describe(graph)}")
    steps = _program.Sequence()
    seeds = graph.track(Tensor(poplar.getHwSeeds(graph.raw, steps, debug_name(name)), graph))
    emit(steps, prog)
    return seeds


def set_hw_seeds(seeds: Tensor, name=None, prog=None):
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
