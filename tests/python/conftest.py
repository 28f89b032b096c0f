"""Fixtures shared by the raw-binding tests: a small IPU model and a graph on it."""
import os

import pytest

import popdsl
from popdsl import poplar

import background_builds


def pytest_collection_modifyitems(config, items):
    """On the sdk backend, tests marked needs_emulator skip with the marker's reason."""
    if popdsl.backend() != "sdk":
        return
    for item in items:
        marker = item.get_closest_marker("needs_emulator")
        if marker is not None:
            reason = marker.args[0] if marker.args else "uses an emulator-only feature"
            item.add_marker(pytest.mark.skip(reason=f"needs the emulator backend: {reason}"))


def pytest_collection_finish(session):
    """Starts the builds of the chosen slow tests (background_builds.py)."""
    modules = dict.fromkeys(getattr(item, "module", None) for item in session.items)  # in collection order
    for module in modules:
        if hasattr(module, "background_build"):
            background_builds.start(module)


@pytest.fixture
def device():
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4  # small models compile and run fastest
    return model.createDevice()


@pytest.fixture
def graph(device):
    return poplar.Graph(device.getTarget())


@pytest.fixture(scope="module")
def codelet_cache(tmp_path_factory):
    """A private codelet cache (POPDSL_CACHE_DIR) for one test module: its first
    addCodelets of a source compiles into it, later ones load from it."""
    cache = tmp_path_factory.mktemp("popdsl-cache")
    saved = os.environ.get("POPDSL_CACHE_DIR")
    os.environ["POPDSL_CACHE_DIR"] = str(cache)
    yield cache
    if saved is None:
        del os.environ["POPDSL_CACHE_DIR"]
    else:
        os.environ["POPDSL_CACHE_DIR"] = saved
