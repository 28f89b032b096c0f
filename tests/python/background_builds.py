"""The slow tests' builds (the sanitized libpopops, the sdk-mode bindings), started in the
background as soon as collection has chosen their tests, so they compile while the fast
tests run instead of after them: a plain `pytest` (CI) took 600 s with them in series.

A test module takes part by defining `background_build(directory)`, which builds into an
empty directory and returns what its fixture needs; the fixture then calls `result`. One
build runs at a time, in the order collection met them. A pytest.skip or a failure inside
a build reaches the fixture that asks for its result."""
import atexit
import concurrent.futures
import os
import shutil
import subprocess
import tempfile

_builds = {}
# The environment when collection started the builds. A build's child must not exec with the
# C library's `environ`: a test's monkeypatch.setenv in the main thread may be reallocating it
# (CI saw execve fail with EFAULT), and its variables are not the build's anyway.
_ENVIRONMENT = dict(os.environ)
_worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="background build")


def start(module) -> None:
    """Starts module.background_build, once, in a fresh directory removed at exit."""
    if module.__name__ in _builds:
        return
    directory = tempfile.mkdtemp(prefix=f"popdsl-{module.__name__}-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    _builds[module.__name__] = _worker.submit(module.background_build, directory)


def run(command, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run for a build, in the environment collection saw (see _ENVIRONMENT)."""
    return subprocess.run(command, env=kwargs.pop("env", _ENVIRONMENT), **kwargs)


def result(module):
    """What module.background_build returned (started now if collection did not)."""
    start(module)
    return _builds[module.__name__].result()
