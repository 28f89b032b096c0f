"""Liveness of the report's variables (libpva's livenessProgramSteps, alwaysLiveVariables,
notAlwaysLiveVariables): the emulator's estimate (emulator/src/poplar/Liveness.hpp), read
from each variable's live range over the report's steps."""


class Variable:
    """A variable of the graph: its debug name, its bytes (on one tile, where a liveness view
    per tile gives it) and whether it is live through every program step."""

    def __init__(self, name, size, always_live, debug_contexts=()):
        self.name = name
        self.bytes = self.size = size
        self.alwaysLive = always_live
        self.debugContexts = list(debug_contexts)

    def __repr__(self):
        return f"<pva.Variable {self.name!r} {self.size} B{'' if self.alwaysLive else ' not always live'}>"


class _Range:
    """A not-always-live variable: live from report step `first` to `last`, its bytes by tile."""

    def __init__(self, variable, first, last, bytes_by_tile, source):
        self.variable, self.first, self.last, self.source = variable, first, last, source
        self.bytesByTile = {int(tile): int(n) for tile, n in bytes_by_tile}
        if sum(self.bytesByTile.values()) != variable.size:
            raise ValueError(f"the bytes by tile of variable {variable.name!r} do not add up to its size")


class NotAlwaysLiveMemory:
    """The not-always-live variables live at a step (on a tile or an IPU when asked for one)
    and their bytes; the list is made when read."""

    def __init__(self, size, variables):
        self.bytes = size
        self._variables = variables

    @property
    def variables(self):
        return self._variables()


class LivenessProgramStep:
    """A program step of the compiled engine, in compiled order, with the variables live in it."""

    def __init__(self, program, step, liveness):
        self.program = program
        self._step, self._liveness = step, liveness

    @property
    def notAlwaysLiveMemory(self):
        return NotAlwaysLiveMemory(self._liveness.bytesAt[self._step],
                                   lambda: [r.variable for r in self._liveness.live(self._step)])

    def notAlwaysLiveMemoryForTile(self, tile):
        return self._liveness.on(self._step, lambda t: t == tile)

    def notAlwaysLiveMemoryForIpu(self, ipu):
        per_ipu = self._liveness.tilesPerIpu
        return self._liveness.on(self._step, lambda t: t // per_ipu == ipu)


class Liveness:
    def __init__(self, variables, tiles_per_ipu, num_steps):
        self.tilesPerIpu = tiles_per_ipu
        self.ranges = []
        for d in variables:
            if d["alwaysLive"]:
                continue
            first, last = d["liveFrom"], d["liveTo"]
            if not 0 <= first <= last < num_steps:
                raise ValueError(f"variable {d['name']!r} is live over steps {first} to {last}, not in the report")
            self.ranges.append(_Range(Variable(d["name"], d["bytes"], False), first, last, d["bytesByTile"], d))
        change = [0] * (num_steps + 1)  # the bytes live at each step, from where ranges start and end
        for r in self.ranges:
            change[r.first] += r.variable.size
            change[r.last + 1] -= r.variable.size
        self.bytesAt, live = [], 0
        for c in change[:num_steps]:
            live += c
            self.bytesAt.append(live)

    def live(self, step):
        return [r for r in self.ranges if r.first <= step <= r.last]

    def on(self, step, keep_tile):
        parts = [(r.variable, sum(n for t, n in r.bytesByTile.items() if keep_tile(t))) for r in self.live(step)]
        variables = [Variable(v.name, n, False, v.debugContexts) for v, n in parts if n]
        return NotAlwaysLiveMemory(sum(v.size for v in variables), lambda: variables)

    def bytesOnTile(self, tile):
        """Bytes of the not-always-live variables on `tile` (the emulator overlaps none of them)."""
        return sum(r.bytesByTile.get(tile, 0) for r in self.ranges)
