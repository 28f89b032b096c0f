"""Devices: the embedded IPU-model emulator (or the SDK's IPUModel)."""
from popdsl._core import poplar
from popdsl.debug import LARGEST_INT, describe


def ipu_model(version: str = "ipu2", tiles: int = None, ipus: int = 1) -> poplar.Device:
    """An IPU-model device of `ipus` IPUs; tiles= (per IPU) shrinks it (tests use 4 to 16 tiles)."""
    if not isinstance(version, str):
        raise TypeError(f"pd.ipu_model: version must be a str such as 'ipu2', got {describe(version)}")
    model = poplar.IPUModel(version)
    if isinstance(ipus, bool) or not isinstance(ipus, int) or not 1 <= ipus <= LARGEST_INT:
        raise ValueError(f"pd.ipu_model: ipus must be a positive int, not {ipus!r}")
    model.numIPUs = ipus
    if tiles is not None:
        if isinstance(tiles, bool) or not isinstance(tiles, int) or not 1 <= tiles <= LARGEST_INT:
            raise ValueError(f"pd.ipu_model: tiles must be a positive int, not {tiles!r}")
        model.tilesPerIPU = tiles
    return model.createDevice()
