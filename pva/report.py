"""The report's objects, read from the emulator's profile.pop (JSON, tagged with
``_FORMAT``; emulator/src/poplar/ProfileReport.cpp writes it)."""
import enum
import json
import os

from .debug import debug_contexts
from .liveness import Liveness, LivenessProgramStep, Variable

# The "format" tag and version of the emulator's report (ProfileReport.cpp).
_FORMAT = "popdsl emulator profile"
_FORMAT_VERSION = 2
_SDK_HINT = (" (a profile.pop from the Poplar SDK has the SDK's own format, which popdsl's libpva does not read: "
             "open it with the SDK's libpva or the PopVision Graph Analyser)")


class ReportError(RuntimeError):
    """A file openReport cannot read; the message names the file and says why."""


class PoplarVersion:
    def __init__(self, d):
        self.major, self.minor, self.point = d["major"], d["minor"], d["point"]
        self.string = d["string"]


class Target:
    class Type(enum.Enum):
        IPU = 0
        IPUModel = 1
        CPU = 2

    def __init__(self, d, num_replicas):
        self.type = Target.Type.IPUModel
        self.architecture = d["architecture"]
        self.numIPUs = d["numIPUs"]
        self.tilesPerIpu = d["tilesPerIPU"]
        self.numTiles = self.numIPUs * self.tilesPerIpu
        self.bytesPerTile = d["bytesPerTile"]
        self.bytesPerIPU = self.bytesPerTile * self.tilesPerIpu
        self.clockFrequency = float(d["clockFrequency"])
        self.numReplicas = num_replicas
        self.numWorkerContexts = d["numWorkerContexts"]


class Graph:
    def __init__(self, d):
        self.numComputeSets = d["numComputeSets"]
        self.numVertices = d["numVertices"]
        self.numVariables = d["numVariables"]


class VertexType:
    def __init__(self, name):
        self.name = name


class Vertex:
    """The vertices of one type in a compute set."""

    def __init__(self, d):
        self.type = VertexType(d["type"])
        self.count = d["count"]


class ComputeSet:
    def __init__(self, d):
        self.name = d["name"]
        self.vertices = [Vertex(v) for v in d["vertices"]]
        # each tile's estimated compute cycles for one execution (empty if no program runs it)
        self.estimatedCyclesByTile = list(d["estimatedCyclesByTile"])


class ComputeSetExecution:
    """A compute set that an execution step ran, with its tiles' cycles in that step (on the
    emulator, the estimate: both lists are the same)."""

    def __init__(self, compute_set):
        self.computeSet = compute_set
        self.name = compute_set.name
        self.cyclesByTile = self.estimatedCyclesByTile = compute_set.estimatedCyclesByTile


class Program:
    class Type(enum.Enum):
        Unknown = 0
        Sequence = 1
        Block = 2
        Repeat = 3
        RepeatWhileTrue = 4
        RepeatWhileFalse = 5
        If = 6
        Switch = 7
        Call = 8
        OnTileExecute = 9
        DoExchange = 10
        GlobalExchange = 11
        StreamCopyBegin = 12
        StreamCopyMid = 13
        StreamCopyEnd = 14
        Sync = 15

    def __init__(self, program_type, name, index):
        self.type = program_type
        self.name = name
        self._id = index
        self.children = []
        self.debugContexts = []  # the DebugContext it was made with, when it had a name

    def accept(self, visitor):
        """Calls the visitor's visit method for this program's type (visitOnTileExecute, ...)."""
        getattr(visitor, "visit" + self.type.name)(self)

    def __repr__(self):
        return f"<pva.Program {self.type.name} {self.name!r}>"


class OnTileExecuteProgram(Program):
    def __init__(self, name, index, compute_set):
        super().__init__(Program.Type.OnTileExecute, name, index)
        self.computeset = self.computeSet = compute_set
        self.vars = []  # the variables its vertices use are not recorded


class DoExchangeProgram(Program):
    def __init__(self, name, index):
        super().__init__(Program.Type.DoExchange, name, index)
        self.vars = []  # the variables it moves are not recorded


class ProgramVisitor:
    """Subclass and override the visit methods of the types to visit; the others do nothing."""

    def visitProgram(self, program):
        pass


for _type in Program.Type:
    setattr(ProgramVisitor, "visit" + _type.name, lambda self, program: self.visitProgram(program))
del _type


class MemoryTotal:
    def __init__(self, including_gaps, excluding_gaps):
        self.includingGaps, self.excludingGaps = including_gaps, excluding_gaps


class _Bytes(int):
    """A category's bytes: an int (as scripts sum them), also read as MemoryTotal's fields."""

    @property
    def includingGaps(self):
        return int(self)

    @property
    def excludingGaps(self):
        return int(self)


class MemoryCategory:
    def __init__(self, total_bytes):
        self.total = _Bytes(total_bytes)


# The categories the report gives per tile (memory.<name>BytesByTile), then those it has none of.
_CATEGORIES = ("variable", "constant", "vertexCode", "vertexInstanceState", "controlCode", "internalExchangeCode",
               "hostExchangeCode", "stack")
_EMPTY_CATEGORIES = ("vertexFieldData", "vectorListDescriptor")


class MemoryCategories:
    """A tile's bytes by what they hold: variables and constants as mapped, code, vertex state
    and stacks as the emulator estimates them (docs/profiling_pva.rst); the others are 0."""

    def __init__(self, by_name):
        for name in _CATEGORIES + _EMPTY_CATEGORIES:
            setattr(self, name, MemoryCategory(by_name.get(name, 0)))


class TileMemory:
    """A tile's memory: the categories add up to the total (no gaps: both totals equal), and the
    not-always-live variables' bytes are the part not always live (the emulator overlaps none)."""

    def __init__(self, by_name, not_always_live):
        total = sum(by_name.values())
        self.total = MemoryTotal(total, total)
        self.category = MemoryCategories(by_name)
        self.alwaysLiveBytes = total - not_always_live
        self.notAlwaysLiveBytes = not_always_live


class Tile:
    def __init__(self, number, ipu, memory):
        self.number, self.ipu, self.memory = number, ipu, memory


class Ipu:
    def __init__(self, tiles):
        self.tiles = tiles


class Compilation:
    def __init__(self, d):
        self.target = Target(d["target"], d["target"]["numReplicas"])
        self.graph = Graph(d["graph"])
        self.computeSets = [ComputeSet(cs) for cs in d["computeSets"]]
        self.programs = [_program(p, i, self.computeSets) for i, p in enumerate(d["programs"])]
        for program, p in zip(self.programs, d["programs"]):
            program.children = [_at(self.programs, c, "program") for c in p["children"]]
        self.debugContexts = debug_contexts(d["debugContexts"])
        for program, p in zip(self.programs, d["programs"]):
            program.debugContexts = _contexts(p, self.debugContexts)
        per_ipu, num_tiles = self.target.tilesPerIpu, self.target.numTiles
        self._liveness = Liveness(d["variables"], per_ipu, len(d["steps"]))
        for r in self._liveness.ranges:
            r.variable.debugContexts = _contexts(r.source, self.debugContexts)
        self.notAlwaysLiveVariables = [r.variable for r in self._liveness.ranges]
        self.alwaysLiveVariables = [Variable(v["name"], v["bytes"], True, _contexts(v, self.debugContexts))
                                    for v in d["variables"] if v["alwaysLive"]]
        by_tile = {name: d["memory"][name + "BytesByTile"] for name in _CATEGORIES}
        if any(len(b) != num_tiles for b in by_tile.values()):
            raise ValueError(f"the memory lists do not have one entry per tile ({num_tiles})")
        self.tiles = [Tile(n, n // per_ipu, TileMemory({name: b[n] for name, b in by_tile.items()},
                                                       self._liveness.bytesOnTile(n)))
                      for n in range(num_tiles)]
        self.ipus = [Ipu(self.tiles[i * per_ipu:(i + 1) * per_ipu]) for i in range(self.target.numIPUs)]
        self.livenessProgramSteps = []  # filled by Report, from the steps


class IpuExecution:
    """One IPU's part of an execution step: all IPUs take the step's cycles (they run in
    lockstep); cyclesByTile are its tiles' compute cycles, activeCycles the most of them (its
    busiest tile's) and activeTiles the number of its tiles that compute."""

    def __init__(self, ipu, cycles, cycles_by_tile):
        self.ipu, self.cycles, self.cyclesByTile = ipu, cycles, cycles_by_tile
        self.activeCycles = max(cycles_by_tile, default=0)
        self.activeTiles = sum(1 for c in cycles_by_tile if c)


class _Step:
    """A program step of the compiled engine; ExecutionSteps refer to these."""

    def __init__(self, d, programs, compute_sets, target):
        self.program = _at(programs, d["program"], "program")
        self.computeSets = [ComputeSetExecution(_at(compute_sets, d["computeSet"], "compute set"))] \
            if "computeSet" in d else []
        self.blockMarker = d["kind"] in ("BlockBegin", "BlockEnd")
        self.syncCycles, self.exchangeCycles = d["syncCycles"], d["exchangeCycles"]
        self.computeCycles = d["computeCycles"]
        self.cycles = self.syncCycles + self.exchangeCycles + self.computeCycles
        self.cyclesByTile = list(d.get("computeCyclesByTile", []))
        if self.cyclesByTile and len(self.cyclesByTile) != target.numTiles:
            raise ValueError(f"a step has cycles for {len(self.cyclesByTile)} tiles, not {target.numTiles}")
        n = target.tilesPerIpu
        self.ipus = [IpuExecution(i, self.cycles, self.cyclesByTile[i * n:(i + 1) * n])
                     for i in range(target.numIPUs)]


class ExecutionStep:
    """One execution of a program step, in the order the steps ran. Its cycles are sync,
    exchange and the busiest tile's compute; cyclesByTile each tile's compute cycles
    (empty for steps without per-tile work: syncs, stream copies, control programs);
    computeSets the compute set it ran (an OnTileExecute's). A stream copy runs as three
    steps: StreamCopyBegin (the host sync), StreamCopyMid (the data), StreamCopyEnd."""

    def __init__(self, step, cycles_from):
        self._step = step
        self.program = step.program
        self.cyclesFrom = cycles_from
        self.cyclesTo = cycles_from + step.cycles
        self.cycles = step.cycles
        self.syncCycles, self.exchangeCycles, self.computeCycles = (step.syncCycles, step.exchangeCycles,
                                                                    step.computeCycles)
        self.cyclesByTile = step.cyclesByTile
        self.ipus = step.ipus
        self.computeSets = step.computeSets


class Run:
    def __init__(self, program_index, program, steps):
        self.programIndex, self.program, self.steps = program_index, program, steps


class BlockExecution:
    """One execution of a Block program that lightweight profiling times, seen from one tile."""

    def __init__(self, d, programs):
        self.program = _at(programs, d["program"], "program")
        self.tile = d["tile"]
        self.cyclesFrom, self.cyclesTo = d["cyclesFrom"], d["cyclesTo"]
        # Every timed block is a Block program's execution: the emulator times no stream
        # copies as blocks, and its block buffer never overflows or flushes.
        self.isCommon = True
        self.isStreamCopy = self.isOverflow = self.isBlockFlush = False


class _Blocks(list):
    """All timed blocks; called with a tile, those seen from that tile (C++: blocks(tile))."""

    def __call__(self, tile=None):
        return list(self) if tile is None else [b for b in self if b.tile == tile]


class Execution:
    """The recorded runs (an execution profile: autoReport.all, autoReport.outputExecutionProfile,
    debug.instrument; the first autoReport.executionProfileProgramRunCount runs, default 2)."""

    def __init__(self, d, steps, programs, entries):
        self.truncated = d["execution"]["truncated"]
        self.runs, self.steps = [], []
        clock = 0
        for r in d["execution"]["runs"]:
            run_steps = []
            for index in r["steps"]:
                step = _at(steps, index, "step")
                if step.blockMarker:
                    continue
                run_steps.append(ExecutionStep(step, clock))
                clock += step.cycles
            program = _at(entries, r["program"], "engine program")
            self.runs.append(Run(r["program"], programs[program], run_steps))
            self.steps.extend(run_steps)
        self.totalCycles = clock
        self.blocks = _Blocks(BlockExecution(b, programs) for b in d["blocks"])


class Report:
    def __init__(self, d, with_execution=True):
        self.poplarVersion = PoplarVersion(d["poplarVersion"])
        self.compilation = Compilation(d)
        programs = self.compilation.programs
        entries = [_at(programs, e, "program")._id for e in d["entryPrograms"]]
        self._steps = [_Step(s, programs, self.compilation.computeSets, self.compilation.target)
                       for s in d["steps"]]
        self.compilation.livenessProgramSteps = [LivenessProgramStep(s.program, i, self.compilation._liveness)
                                                 for i, s in enumerate(self._steps) if not s.blockMarker]
        self.execution = Execution(d if with_execution else _NO_EXECUTION, self._steps, programs, entries)


_NO_EXECUTION = {"execution": {"truncated": False, "runs": []}, "blocks": []}


def _at(items, index, what):
    if not isinstance(index, int) or not 0 <= index < len(items):
        raise ValueError(f"{what} index {index!r} is out of range")
    return items[index]


def _contexts(d, contexts):
    """The debug contexts (a list of one, or none) of a program or variable entry `d`."""
    return [_at(contexts, d["debugContext"], "debug context")] if "debugContext" in d else []


def _program(d, index, compute_sets):
    program_type = Program.Type[d["type"]]
    if program_type == Program.Type.OnTileExecute:
        return OnTileExecuteProgram(d["name"], index, _at(compute_sets, d["computeSet"], "compute set"))
    if program_type == Program.Type.DoExchange:
        return DoExchangeProgram(d["name"], index)
    return Program(program_type, d["name"], index)


def _not_our_format(data):
    """Why the bytes are no report of the emulator's, before parsing; None when they may be one."""
    if not data:
        return "the file is empty"
    if data.startswith(b"SQLite format 3\0"):
        return "it is an SQLite database, not a report written by the popdsl emulator" + _SDK_HINT
    if not data.lstrip().startswith(b"{"):
        return "it is not a report written by the popdsl emulator (a JSON object)" + _SDK_HINT
    return None


def _report_from_bytes(data, source, with_execution=True):
    def fail(why):
        return ReportError(f"pva.openReport: cannot read '{source}': {why}")

    problem = _not_our_format(data)
    if problem:
        raise fail(problem)
    try:
        d = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise fail(f"not a valid report: {e}") from None
    if not isinstance(d, dict) or d.get("format") != _FORMAT:
        raise fail(f'it is JSON but not a report written by the popdsl emulator (no "format": "{_FORMAT}")')
    if d.get("formatVersion") != _FORMAT_VERSION:
        raise fail(f"its format version {d.get('formatVersion')!r} is not {_FORMAT_VERSION}, the one this pva reads")
    try:
        return Report(d, with_execution)
    except (KeyError, TypeError, ValueError, IndexError) as e:
        what = f"the field {e} is missing" if isinstance(e, KeyError) else str(e)
        raise fail(f"not a valid report: {what}") from None


def openReport(path, debugPath=None):
    """The report at ``path`` (a profile.pop the emulator wrote); ``debugPath`` (debug.cbor)
    is accepted and not read. Raises :class:`ReportError` naming the file when it is missing,
    unreadable, not a report, or a report in the real SDK's format."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError(f"pva.openReport: cannot open '{path}': {e.strerror or e}") from None
    return _report_from_bytes(data, path)
