"""Graph builders written on the Pythonic layer."""
from popdsl.nn import lstm  # noqa: F401
