"""
Raw bindings of the Poplar/poplibs C++ API (embedded emulator or SDK)
"""
from __future__ import annotations
from . import poplar
from . import program
from . import poputil
from . import popops
from . import poplin
from . import popnn
from . import poprand
from . import gcl
__all__: list[str] = ['backend', 'gcl', 'poplar', 'poplin', 'popnn', 'popops', 'poprand', 'poputil', 'program']
backend: str = 'emulator'
