"""The report's objects, read from the emulator's profile.pop (JSON, tagged with
``_FORMAT``; emulator/src/poplar/ProfileReport.cpp writes it)."""
import enum
import json
import os

# The "format" tag and version of the emulator's report (ProfileReport.cpp).
_FORMAT = "popdsl emulator profile"
_FORMAT_VERSION = 1
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


class Variable:
    def __init__(self, d):
        self.name = d["name"]
        self.bytes = self.size = d["bytes"]
        self.alwaysLive = True  # the emulator does no liveness analysis


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


class MemoryCategory:
    def __init__(self, total_bytes):
        self.total = MemoryTotal(total_bytes, total_bytes)


class MemoryCategories:
    """A tile's bytes by what they hold. The emulator places variables and constants only
    (no code, vertex state, stacks or exchange buffers): the other categories are 0."""

    def __init__(self, variable_bytes, constant_bytes):
        self.variable = MemoryCategory(variable_bytes)
        self.constant = MemoryCategory(constant_bytes)
        for name in ("vertexCode", "vertexInstanceState", "vertexFieldData", "controlCode", "internalExchangeCode",
                     "hostExchangeCode", "stack"):
            setattr(self, name, MemoryCategory(0))


class TileMemory:
    def __init__(self, variable_bytes, constant_bytes):
        total = variable_bytes + constant_bytes
        self.total = MemoryTotal(total, total)
        self.category = MemoryCategories(variable_bytes, constant_bytes)
        self.alwaysLiveBytes = total
        self.notAlwaysLiveBytes = 0


class Tile:
    def __init__(self, number, ipu, memory):
        self.number, self.ipu, self.memory = number, ipu, memory


class Ipu:
    def __init__(self, tiles):
        self.tiles = tiles


class NotAlwaysLiveMemory:
    bytes = 0
    variables = []


class LivenessProgramStep:
    """A program step of the compiled engine, for liveness: nothing is ever not always live."""

    def __init__(self, program):
        self.program = program
        self.notAlwaysLiveMemory = NotAlwaysLiveMemory()

    def notAlwaysLiveMemoryForTile(self, tile):
        return NotAlwaysLiveMemory()


class Compilation:
    def __init__(self, d):
        self.target = Target(d["target"], d["target"]["numReplicas"])
        self.graph = Graph(d["graph"])
        self.computeSets = [ComputeSet(cs) for cs in d["computeSets"]]
        self.programs = [_program(p, i, self.computeSets) for i, p in enumerate(d["programs"])]
        for program, p in zip(self.programs, d["programs"]):
            program.children = [_at(self.programs, c, "program") for c in p["children"]]
        variables, constants = d["memory"]["variableBytesByTile"], d["memory"]["constantBytesByTile"]
        if len(variables) != self.target.numTiles or len(constants) != self.target.numTiles:
            raise ValueError(f"the memory lists do not have one entry per tile ({self.target.numTiles})")
        per_ipu = self.target.tilesPerIpu
        self.tiles = [Tile(n, n // per_ipu, TileMemory(v, c)) for n, (v, c) in enumerate(zip(variables, constants))]
        self.ipus = [Ipu(self.tiles[i * per_ipu:(i + 1) * per_ipu]) for i in range(self.target.numIPUs)]
        self.alwaysLiveVariables = [Variable(v) for v in d["variables"]]
        self.notAlwaysLiveVariables = []
        self.livenessProgramSteps = []  # filled by Report, from the steps


class IpuExecution:
    """One IPU's part of an execution step: all IPUs take the step's cycles (they run in
    lockstep); cyclesByTile are its tiles' compute cycles."""

    def __init__(self, ipu, cycles, cycles_by_tile):
        self.ipu, self.cycles, self.cyclesByTile = ipu, cycles, cycles_by_tile


class _Step:
    """A program step of the compiled engine; ExecutionSteps refer to these."""

    def __init__(self, d, programs, target):
        self.program = _at(programs, d["program"], "program")
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
    (empty for steps without per-tile work: syncs, stream copies, control programs)."""

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
        self._steps = [_Step(s, programs, self.compilation.target) for s in d["steps"]]
        self.compilation.livenessProgramSteps = [LivenessProgramStep(s.program) for s in self._steps
                                                 if not s.blockMarker]
        self.execution = Execution(d if with_execution else _NO_EXECUTION, self._steps, programs, entries)


_NO_EXECUTION = {"execution": {"truncated": False, "runs": []}, "blocks": []}


def _at(items, index, what):
    if not isinstance(index, int) or not 0 <= index < len(items):
        raise ValueError(f"{what} index {index!r} is out of range")
    return items[index]


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
