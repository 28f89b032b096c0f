"""Devices: the embedded IPU-model emulator (or the SDK's IPUModel)."""
from popdsl._core import poplar


def ipu_model(version: str = "ipu2", tiles: int = None) -> poplar.Device:
    """An IPU-model device; tiles= shrinks it (tests use 4 to 16 tiles)."""
    model = poplar.IPUModel(version)
    if tiles is not None:
        if not isinstance(tiles, int) or tiles < 1:
            raise ValueError(f"tiles must be a positive int, not {tiles!r}")
        model.tilesPerIPU = tiles
    return model.createDevice()
