"""Recording: every op of the Pythonic layer appends a Record to its block's Tape.

The core's lowest layer for ops: control.py gives every block a Tape and `record` appends
to it, and autodiff/ (above the core) reads the records; nothing here knows of gradients.

A tensor is storage, so one Python tensor holds several values over a program: the
tape names values by their *source*, the (record, output index) that produced them,
or the tensor itself for a value that existed before the block's ops (a leaf). An
in-place write makes the written tensor's source the write's record, so later ops
read the new value and earlier records keep the old one.

Views (reshape, slices, transpose, concat, ...) emit no program step. They remember
their base on the tensor (`Tensor.view_of`) and become a view record when an op
consumes them, so a view made before a block opened, or read after its base was
written, follows its base's value at the time it is read. Reads of a view while its
bases keep their values share one record, so pd.grad with respect to a view (a slice
of a weight, create_weights' views of one variable) finds the value the ops read.

Recording costs a small object per op and nothing else: pd.grad does all the work.
"""
import bisect

from popdsl.debug import place_location, source_place
from popdsl.placement import current_ipu


class Record:
    """One op: its kind (the gradient rule's key), input tensors and their sources,
    output tensors, the tensors it overwrote, static attributes, the user's line (its place,
    shown as `location`) and the IPU it was placed on (pd.ipu, or None); `after` is the block's step it came after
    (None at the start), where a loop's gradient stashes the values the op's backward reads."""

    __slots__ = ("kind", "inputs", "sources", "outputs", "written", "attrs", "place", "ipu", "index", "after")

    def __init__(self, kind, inputs, outputs, written, attrs):
        self.kind, self.inputs, self.outputs, self.written = kind, tuple(inputs), tuple(outputs), tuple(written)
        self.attrs = attrs
        self.place = source_place(skip_builders=True)
        self.ipu = current_ipu()

    @property
    def location(self) -> str:
        """'file.py:LINE: statement' of the user's line that built the op."""
        return place_location(self.place)

    @property
    def in_place(self) -> bool:
        return bool(self.written)

    def __repr__(self):
        return f"{self.kind} (built at {self.location})"


WRITE_INTO_VIEW = "a write into a view"


def _bases(view) -> list:
    """Every tensor a view is a view of, directly or through other views, depth first."""
    found, pending = [], list(reversed(view.view_of[1]))
    while pending:  # a list, not recursion: views of views nest as deep as a program makes them
        base = pending.pop()
        found.append(base)
        if base.view_of is not None:
            pending += reversed(base.view_of[1])
    return found


class Tape:
    """The records of one block, in program order, and the latest source of each tensor."""

    def __init__(self, steps=None):
        self.steps = [] if steps is None else steps  # the block's steps, for Record.after
        self.records = []
        self._writes_by_variable = {}  # variable id -> the records that write it, in order
        self._variables = {}  # id(tensor) -> (the variable ids under it, the tensor)
        self._latest = {}  # id(tensor) -> (record, output index); records keep the tensors alive
        self._views = {}  # id(view) -> (its view record's source, its bases' sources then, the view)
        self.reads = {}  # id -> tensor: tensors read whose value comes from outside the block
        self.changed = {}  # id -> tensor: tensors the block's ops produced or wrote

    def source(self, t):
        """The source of t's current value: (record, k), or t itself for a leaf."""
        return self.sources([t])[0]

    def sources(self, tensors) -> list:
        """The sources of the tensors' current values, found in one walk (the views among
        them share their bases' sources)."""
        # Bases are resolved before their views, in the order a recursion would take, on a
        # list: views of views nest as deep as a program makes them.
        resolved, pending = {}, list(reversed(tensors))
        while pending:
            u = pending[-1]
            if id(u) in resolved:
                pending.pop()
                continue
            found = self._latest.get(id(u))
            if found is None and u.view_of is not None:  # one view record while its bases keep their values
                kind, bases, attrs = u.view_of
                waiting = [b for b in bases if id(b) not in resolved]
                if waiting:
                    pending += reversed(waiting)
                    continue
                found = self._view_source(u, tuple(resolved[id(b)] for b in bases))
            elif found is None:
                self.reads.setdefault(id(u), u)
                found = u
            resolved[id(u)] = found
            pending.pop()
        return [resolved[id(t)] for t in tensors]

    def _view_source(self, view, bases_now):
        """The source of a view whose bases' sources are bases_now: the view record made when
        they last had these values, or a new one."""
        cached = self._views.get(id(view))
        if cached is not None and all(a is b for a, b in zip(cached[1], bases_now)):
            return cached[0]
        kind, bases, attrs = view.view_of
        (src,) = self.add(Record(kind, bases, (view,), (), attrs), sources=bases_now, of_a_view=True)
        self._views[id(view)] = (src, bases_now, view)
        return src

    def add(self, record: Record, sources=None, of_a_view=False) -> list:
        """Appends record (its inputs' sources looked up unless given); returns the sources
        of its outputs. The record `of_a_view` reads a view of its inputs: the view's value
        stays that of its bases."""
        record.sources = tuple(self.sources(record.inputs)) if sources is None else sources
        written_bases = [b for t in record.outputs if t.view_of is not None and record.written for b in _bases(t)]
        old_bases = {id(b): src for b, src in zip(written_bases, self.sources(written_bases))}  # before the write
        record.index = len(self.records)
        record.after = self.steps[-1] if self.steps else None
        self.records.append(record)
        for variable in {v for t in record.written for v in self._variables_of(t)}:
            self._writes_by_variable.setdefault(variable, []).append(record)
        produced = [(record, k) for k in range(len(record.outputs))]
        for t, src in zip(record.outputs, produced):
            if of_a_view:
                continue  # reading a view changes nothing
            self.changed.setdefault(id(t), t)
            if t.view_of is not None and record.written:
                self._write_into_bases(t, src, old_bases, record)  # the view is read through its bases
            else:
                self._latest[id(t)] = src
        return produced

    def _write_into_bases(self, view, written, old_bases, write):
        """After a write into a view, each of its bases holds a new value: the old one with
        the view's region replaced (a record of kind WRITE_INTO_VIEW; the write itself is
        what overwrote their storage). A base that is a view has its own bases merged before
        the next base: each view's merges are a generator, resumed from a list of them."""
        open_views = [self._merges(view, written, old_bases, write)]
        while open_views:
            deeper = next(open_views[-1], None)
            if deeper is None:
                open_views.pop()
            else:
                open_views.append(self._merges(*deeper, old_bases, write))

    def _merges(self, view, written, old_bases, write):
        """Adds the merge record of each base of `view` in turn; yields (base, its merged
        source) for a base that is itself a view, whose bases take the write next."""
        kind, bases, attrs = view.view_of
        begin = 0
        for base in bases:
            end = begin + (base.shape[attrs["axis"]] if kind == "pd.concat" else 0)
            merge = Record(WRITE_INTO_VIEW, (base, view), (base,), (),
                           dict(view_kind=kind, view_attrs=attrs, part=(begin, end), write=write))
            (merged,) = self.add(merge, sources=(old_bases[id(base)], written))
            if base.view_of is not None:
                yield base, merged
            begin = end

    def latest(self, t):
        """The source of t's value after the block's ops: (record, k), or None when they
        did not produce or write t."""
        return self._latest.get(id(t))

    def writer(self, t, first: int, end: int):
        """The first record of records[first:end] that writes storage of t, or None. Only the
        writes of t's variables are looked at, so finding one costs the writes to those
        variables, not every write of the block (pd.grad asks once per input of each op)."""
        found = None
        for variable in self._variables_of(t):
            writes = self._writes_by_variable.get(variable, ())
            for r in writes[bisect.bisect_left(writes, first, key=_index):]:
                if r.index >= end or (found is not None and r.index >= found.index):
                    break
                if any(w.raw.intersectsWith(t.raw) for w in r.written):
                    found = r
                    break
        return found

    def _variables_of(self, t) -> tuple:
        """The ids of the variables t's elements lie in (the tensor is kept, so its id stays its own)."""
        known = self._variables.get(id(t))
        if known is None:
            known = self._variables[id(t)] = (tuple({region.var.id for region in t.raw.getVarRegions()}), t)
        return known[0]


def _index(record) -> int:
    return record.index
