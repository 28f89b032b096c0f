"""How debug names show a test's own file (popdsl.debug's rule, written out for the tests)."""
import os


def shown_path(path: str) -> str:
    """`path` relative to the working directory, or absolute outside it, with '/' separators."""
    relative = os.path.relpath(path)
    return os.path.abspath(path) if relative.startswith(os.pardir) else relative.replace(os.sep, "/")
