"""libpva's Python API (``import pva``) over the reports the popdsl emulator writes.

``pva.openReport("report/profile.pop")`` reads a ``profile.pop`` written by an engine with
the ``autoReport.*`` options (or by ``Engine.writeProfileReport``) and gives the SDK's
views: ``report.compilation`` (target, graph, programs, compute sets, tiles and their
memory by category, variables and their liveness, debug contexts) and
``report.execution`` (runs, steps with their cycles per tile and per IPU and the compute
sets they ran, lightweight-profiling blocks). Names follow the SDK's libpva (camelCase
attributes, ``pva.Program.Type``, ``pva.ProgramVisitor``). Every cycle figure is an
estimate of the emulator's cost model, and so are code memory and liveness. This is a reader in Python of the same file
that the C++ libpva (``pva/pva.hpp``, ``-lpva``) reads; a ``profile.pop`` from the Poplar
SDK has the SDK's own format, which it refuses with :class:`ReportError`.
docs/profiling_pva.rst lists what is covered.
"""
from .debug import DebugContext, SourceLocation
from .liveness import LivenessProgramStep, NotAlwaysLiveMemory, Variable
from .report import (BlockExecution, Compilation, ComputeSet, ComputeSetExecution, DoExchangeProgram, Execution,
                     ExecutionStep, Ipu, IpuExecution, MemoryCategories, MemoryCategory, MemoryTotal,
                     OnTileExecuteProgram, PoplarVersion, Program, ProgramVisitor, Report, ReportError, Run, Target,
                     Tile, TileMemory, Vertex, openReport)

__all__ = ["BlockExecution", "Compilation", "ComputeSet", "ComputeSetExecution", "DebugContext", "DoExchangeProgram",
           "Execution", "ExecutionStep", "Ipu", "IpuExecution", "LivenessProgramStep", "MemoryCategories",
           "MemoryCategory", "MemoryTotal", "NotAlwaysLiveMemory", "OnTileExecuteProgram", "PoplarVersion", "Program",
           "ProgramVisitor", "Report", "ReportError", "Run", "SourceLocation", "Target", "Tile", "TileMemory",
           "Variable", "Vertex", "openReport"]
