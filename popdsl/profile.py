"""session.profile: what the Engine recorded, as text, data and pictures.

Execution counts are exact. Every cycle figure is an ESTIMATE from the emulator's
cost model (docs/emulator.rst, emulator/src/poplar/CostModel.hpp), as on
Poplar's IPUModel. Host times are measured only with the engine option
`debug.instrument` (or `autoReport.all`). Memory per tile follows the tile mapping.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from typing import List, Union

from popdsl import _core, _plots, distributed
from popdsl._core import poplar

# A source location in a debug name: the file as popdsl.debug shows it ("popdsl/nn/lstm/fwd.py",
# "examples/lstm.py", an absolute path), after any name scopes, and the line; "grad of " before
# it for the ops pd.grad built for that line's ops.
_LOCATION = re.compile(r"(?:grad of )?/?(?:[\w.<>-]+/)*[\w.<>-]+\.py:\d+")
# The op kind popdsl.debug ends an op's debug name with ("/pd.matmul", "/pd.map ADD(_1, _2)").
_OP_KIND = re.compile(r"/(?:pd|Tensor)\.[\w.]+(?: [^/]*)?$")


@dataclasses.dataclass
class Step:
    """One program step: a compute set, copy, stream copy or control decision."""
    index: int
    kind: str
    name: str
    executions: int
    sync_cycles: int      # estimated, per execution
    exchange_cycles: int  # estimated, per execution
    compute_cycles: int   # estimated, per execution
    exchange_bytes: int   # per execution
    host_seconds: float   # measured, all executions (0 unless instrumented)
    ipu_link_bytes: int = 0  # per execution: the part of exchange_bytes between IPUs or replicas

    @property
    def cycles_per_execution(self) -> int:
        """Estimated sync + exchange + compute cycles of one execution of the step."""
        return self.sync_cycles + self.exchange_cycles + self.compute_cycles

    @property
    def total_cycles(self) -> int:
        """Estimated cycles of all executions."""
        return self.executions * self.cycles_per_execution

    @property
    def source(self) -> str:
        """The source line in the debug name ('path.py:LINE: statement', after any name
        scopes, and what a library appended to it), else the name."""
        match = _LOCATION.search(self.name)
        return self.name[match.start():] if match else (self.name or "<unnamed>")


@dataclasses.dataclass
class LineCost:
    """Steps grouped by the source line that built them; `parts` tells them apart."""
    location: str  # 'path.py:LINE' (or the whole name when it has no location)
    label: str     # location and statement
    total_cycles: int
    executions: int
    steps: int
    parts: list = dataclasses.field(default_factory=list)  # [StepPart] of the line's steps, costliest first


@dataclasses.dataclass
class StepPart:
    """The steps of one source line that share a step kind and debug name."""
    kind: str  # Execute, Copy, StreamCopy(...), Repeat, Call, ...
    name: str  # the whole debug name (a library's suffix tells a line's compute sets apart)
    total_cycles: int
    executions: int
    steps: int


@dataclasses.dataclass
class Target:
    arch: str
    num_ipus: int
    tiles_per_ipu: int
    bytes_per_tile: int
    clock_hz: float
    workers: int
    exchange_bytes_per_cycle: int

    @property
    def num_tiles(self) -> int:
        """Tiles of all the IPUs."""
        return self.num_ipus * self.tiles_per_ipu


@dataclasses.dataclass
class Memory:
    """Bytes per tile of the variables and constants the programs use, and the bytes of
    each variable by debug name.

    The emulator gives every variable its own memory (``tile_bytes``); Poplar overlaps the
    variables that are never live at once, so what a tile needs is its constants, its
    always-live variables and the most its other variables hold at one step
    (``live_tile_bytes``, the figure ``out_of_memory_tiles`` and ``fits`` judge by). Host
    handles keep a variable always live; a pd.Session makes one for every tensor it can
    read, so ``live_tile_bytes(host_handles=False)`` says what the tiles would need in a
    program that reads back only its weights and streams (variables the programs read
    before writing, or that have initial values, stay always live either way)."""
    variable_bytes: list
    constant_bytes: list
    bytes_per_tile: int  # the per-tile limit
    variables: dict = dataclasses.field(default_factory=dict)  # debug name -> bytes
    tiles_per_ipu: int = 0  # 0: all tiles on one IPU
    # Variable bytes per tile by liveness (empty in profiles written before liveness).
    always_live_bytes: list = dataclasses.field(default_factory=list)
    kept_by_host_handles_bytes: list = dataclasses.field(default_factory=list)  # part of always_live_bytes
    peak_not_always_live_bytes: list = dataclasses.field(default_factory=list)
    peak_without_handles_bytes: list = dataclasses.field(default_factory=list)
    # The step (an index of Profile.steps) of each tile's peak, -1 where it holds none.
    peak_step: list = dataclasses.field(default_factory=list)
    peak_step_without_handles: list = dataclasses.field(default_factory=list)

    def by_ipu(self) -> list:
        """Bytes of each IPU's tiles (one replica's IPUs), IPU 0 first."""
        tiles = self.tile_bytes
        per_ipu = self.tiles_per_ipu or len(tiles) or 1
        return [sum(tiles[i:i + per_ipu]) for i in range(0, len(tiles), per_ipu)]

    def by_variable(self) -> dict:
        """Bytes of each variable (not constant) the programs or host handles use, by debug
        name (variables sharing a name add up), largest first."""
        return dict(sorted(self.variables.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def tile_bytes(self) -> list:
        """Bytes per tile: its variables and constants, each in its own memory."""
        return [v + c for v, c in zip(self.variable_bytes, self.constant_bytes)]

    def live_tile_bytes(self, host_handles: bool = True) -> list:
        """Bytes each tile needs with liveness: constants, always-live variables and the
        peak of the others; host_handles=False: as if host handles kept nothing live."""
        if not self.always_live_bytes:
            return self.tile_bytes
        if host_handles:
            variables = [a + p for a, p in zip(self.always_live_bytes, self.peak_not_always_live_bytes)]
        else:
            variables = [a - k + p for a, k, p in zip(self.always_live_bytes, self.kept_by_host_handles_bytes,
                                                      self.peak_without_handles_bytes)]
        return [v + c for v, c in zip(variables, self.constant_bytes)]

    @property
    def total_bytes(self) -> int:
        """Bytes of every tile together."""
        return sum(self.tile_bytes)

    def largest_tiles(self, n: int = 5) -> list:
        """[(tile, bytes)] of the n fullest tiles, fullest first."""
        return sorted(enumerate(self.tile_bytes), key=lambda tb: (-tb[1], tb[0]))[:n]

    def out_of_memory_tiles(self, host_handles: bool = True) -> list:
        """The tiles needing more than the target's bytes per tile (``live_tile_bytes``)."""
        return [t for t, b in enumerate(self.live_tile_bytes(host_handles)) if b > self.bytes_per_tile]

    def fits(self, host_handles: bool = True) -> bool:
        """Whether every tile's need (``live_tile_bytes``) is within the target's bytes per tile."""
        return not self.out_of_memory_tiles(host_handles)


@dataclasses.dataclass
class Profile:
    """A snapshot of an Engine's profile (Session.profile takes a fresh one each time)."""
    target: Target
    memory: Memory
    steps: list
    runs: int
    host_timed: bool
    num_variables: int
    num_constants: int
    num_compute_sets: int
    num_programs: int
    summary_text: str
    # Estimated cycles of the runs with a replica's IPUs in parallel (each runs its own
    # program; they wait for each other only in the steps that involve several: copies
    # between them, host transfers, syncs). total_cycles adds up every IPU's work; on one
    # IPU the two are equal.
    elapsed_cycles: int

    @classmethod
    def from_engine(cls, engine: poplar.Engine) -> "Profile":
        """The engine's recorded profile. Needs the emulator backend: on the sdk backend
        this raises NotImplementedError (the SDK reports through libpva and autoReport.*)."""
        import io

        data = engine.getProfileData()
        t = data["target"]
        text = io.StringIO()
        engine.printProfileSummary(text)
        return cls(
            target=Target(t.getTargetArchString(), t.getNumIPUs(), t.getTilesPerIPU(), t.getBytesPerTile(),
                          t.getTileClockFrequency(), t.getNumWorkerContexts(), t.getExchangeBytesPerCycle()),
            memory=Memory(list(data["variable_bytes_per_tile"]), list(data["constant_bytes_per_tile"]),
                          t.getBytesPerTile(), dict(data["variable_bytes"]), t.getTilesPerIPU(),
                          *(list(data[key]) for key in ("always_live_bytes", "kept_by_host_handles_bytes",
                                                        "peak_not_always_live_bytes", "peak_without_handles_bytes",
                                                        "peak_step", "peak_step_without_handles"))),
            steps=[Step(index=i, **s) for i, s in enumerate(data["steps"])],
            runs=data["runs"], host_timed=data["host_timed"], num_variables=data["num_variables"],
            num_constants=data["num_constants"], num_compute_sets=data["num_compute_sets"],
            num_programs=data["num_programs"], summary_text=text.getvalue(),
            elapsed_cycles=data["elapsed_cycles"])

    # --- figures ------------------------------------------------------------------------
    @property
    def total_cycles(self) -> int:
        """Estimated cycles of everything the engine ran."""
        return sum(s.total_cycles for s in self.steps)

    @property
    def ipu_link_bytes(self) -> int:
        """Bytes of every execution that crossed between IPUs (copies) or replicas (collectives)."""
        return sum(s.executions * s.ipu_link_bytes for s in self.steps)

    @property
    def estimated_seconds(self) -> float:
        """Estimated cycles of the runs profiled, at the target's clock."""
        return self.total_cycles / self.target.clock_hz

    def summary(self) -> str:
        """Poplar's printProfileSummary text: Target, Graph, Memory Usage, Execution."""
        return self.summary_text

    def top_steps(self, n: int = 10) -> list:
        """The n steps with the most estimated cycles, costliest first."""
        return sorted(self.steps, key=lambda s: (-s.total_cycles, s.index))[:n]

    def by_name(self) -> dict:
        """Estimated cycles per debug name, costliest first."""
        totals = {}
        for s in self.steps:
            totals[s.name] = totals.get(s.name, 0) + s.total_cycles
        return dict(sorted(totals.items(), key=lambda kv: -kv[1]))

    def by_line(self) -> list:
        """[LineCost] per source line that built steps, costliest first; each line's
        `parts` split its steps by step kind and debug name."""
        groups = {}
        parts = {}  # (location, kind, name) -> its StepPart
        for s in self.steps:
            source = s.source
            match = _LOCATION.match(source)
            key = match.group(0) if match else source
            statement = _OP_KIND.sub("", source)
            g = groups.setdefault(key, LineCost(key, statement, 0, 0, 0))
            if len(statement) < len(g.label):
                g.label = statement  # the plain statement, without library suffixes
            g.total_cycles += s.total_cycles
            g.executions += s.executions
            g.steps += 1
            part = parts.get((key, s.kind, s.name))
            if part is None:
                part = parts[key, s.kind, s.name] = StepPart(s.kind, s.name, 0, 0, 0)
                g.parts.append(part)
            part.total_cycles += s.total_cycles
            part.executions += s.executions
            part.steps += 1
        for g in groups.values():
            g.parts.sort(key=lambda p: -p.total_cycles)
        return sorted(groups.values(), key=lambda g: (-g.total_cycles, g.location))

    # --- files --------------------------------------------------------------------------
    def to_json(self) -> str:
        """The profile as JSON text (Profile.from_json reads it back)."""
        return json.dumps(dataclasses.asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> "Profile":
        """The Profile that `to_json` wrote."""
        d = json.loads(text)
        d["target"] = Target(**d["target"])
        d["memory"] = Memory(**d["memory"])
        d["steps"] = [Step(**s) for s in d["steps"]]
        return cls(**d)

    def plot_memory(self, path: Union[str, os.PathLike]) -> None:
        """A PNG of the bytes per tile (variables and constants) against the per-tile limit."""
        _plots.memory(self, path)

    def plot_execution(self, path: Union[str, os.PathLike], top: int = 15) -> None:
        """A PNG of the `top` costliest steps and source lines by estimated cycles."""
        _plots.execution(self, path, top)

    def write_report(self, directory: Union[str, os.PathLike]) -> list:
        """Writes profile_summary.txt, profile.json and (with matplotlib) memory.png and
        execution.png to `directory`; returns the paths written."""
        os.makedirs(directory, exist_ok=True)
        paths = []

        def write(name, text):
            paths.append(os.path.join(directory, name))
            with open(paths[-1], "w") as f:
                f.write(text)

        write("profile_summary.txt", self.summary())
        write("profile.json", self.to_json())
        return paths + self.write_plots(directory)

    def write_plots(self, directory: Union[str, os.PathLike]) -> list:
        """Writes memory.png and execution.png to `directory` when matplotlib is installed;
        returns the paths written."""
        os.makedirs(directory, exist_ok=True)
        paths = []
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return paths
        for name, plot in (("memory.png", self.plot_memory), ("execution.png", self.plot_execution)):
            paths.append(os.path.join(directory, name))
            plot(paths[-1])
        return paths


_TRUE = "true"
_REPORT_SWITCHES = ("autoReport.all", "autoReport.outputGraphProfile", "autoReport.outputExecutionProfile")
report_directories = []  # where auto_report wrote, in order (the CLI lists them)


def auto_report(engine: poplar.Engine) -> List[str]:
    """Writes the report files when the engine's options (POPLAR_ENGINE_OPTIONS included)
    ask for them: into autoReport.directory (default "."), the first engine of a process
    directly, later ones into sub-directories session2, session3, ...; under several
    instances (pd.distributed) inside instance<k>/; returns the paths.
    The engine writes profile_summary.txt, profile.json and profile.pop (libpva's
    report, read by ``import pva``; and so does not write them
    again when destroyed, as C++ programs' engines do); this adds the plots.
    On the sdk backend the SDK's engine writes its own report files (profile.pop) from
    the same options, so this writes nothing and returns []."""
    if _core.backend == "sdk":
        return []
    options = dict(engine.getEngineOptions())
    if not any(options.get(k) == _TRUE for k in _REPORT_SWITCHES):
        return []
    directory = options.get("autoReport.directory", ".")
    if distributed.num_instances() > 1:  # each instance profiles its own replicas
        directory = os.path.join(directory, f"instance{distributed.instance_index()}")
    if report_directories:
        directory = os.path.join(directory, f"session{len(report_directories) + 1}")
    report_directories.append(directory)
    paths = list(engine.writeProfileReport(directory))
    return paths + Profile.from_engine(engine).write_plots(directory)
