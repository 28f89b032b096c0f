"""pytest fixtures for popdsl graphs on the embedded IPU model.

    def test_double(ipu_device, session_factory):
        g = pd.Graph(ipu_device)
        ...
        with session_factory(g, main) as s: ...

Mark a test with @pytest.mark.ipu_tiles(n) to choose the tile count (default 4).

Under pytest, custom vertices check every field access by default (the engine option
emulator.checkVertexAccess, through POPDSL_CHECK_VERTEX_ACCESS): an out-of-bounds index
in a codelet fails its test with the vertex, field, index and tile named, instead of
writing over memory. Set POPDSL_CHECK_VERTEX_ACCESS=0 to time codelets under pytest.
"""
import os
from typing import Callable

import pytest

from popdsl._core import poplar
from popdsl.device import ipu_model
from popdsl.session import Session


# The default this plugin gives POPDSL_CHECK_VERTEX_ACCESS where the environment has none.
CHECK_VERTEX_ACCESS = "1"


def pytest_configure(config: pytest.Config) -> None:
    """Registers the ipu_tiles marker; makes custom vertices check their field accesses."""
    config.addinivalue_line("markers", "ipu_tiles(n): number of tiles of the ipu_device fixture")
    os.environ.setdefault("POPDSL_CHECK_VERTEX_ACCESS", CHECK_VERTEX_ACCESS)


@pytest.fixture
def ipu_device(request: pytest.FixtureRequest) -> poplar.Device:
    """An emulated IPU2 device (pd.ipu_model) with 4 tiles, or n with @pytest.mark.ipu_tiles(n)."""
    marker = request.node.get_closest_marker("ipu_tiles")
    return ipu_model("ipu2", tiles=marker.args[0] if marker else 4)


@pytest.fixture
def session_factory(ipu_device: poplar.Device) -> Callable[..., Session]:
    """Makes Sessions on the test's device: session_factory(graph, programs, options=None)."""
    def make(graph, programs, options=None):
        return Session(graph, programs, device=ipu_device, options=options)
    return make
