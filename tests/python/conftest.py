"""Fixtures shared by the raw-binding tests: a small IPU model and a graph on it."""
import pytest

from popdsl import poplar


@pytest.fixture
def device():
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4  # small models compile and run fastest
    return model.createDevice()


@pytest.fixture
def graph(device):
    return poplar.Graph(device.getTarget())
