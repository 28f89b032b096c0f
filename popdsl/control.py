"""Control flow as `with` blocks.

Ops go into the innermost open block. A block is a list of steps that becomes a
poplar Sequence when built; control-flow steps build their bodies the same way,
so `If` can still take an `Else` after its block has closed.

A step is a poplar program, something with build() (a compute set, a cycle counter),
or a block or control-flow step: parts() (the blocks it holds) and assemble(programs)
(its program from theirs). Blocks nest as deep as Poplar's programs (10000 levels),
past Python's recursion limit, so build_program keeps its own stack.
"""

from __future__ import annotations

import sys
from typing import Any, Iterable, List, Optional

from popdsl import loop_pitfall
from popdsl._core import poplar
from popdsl._core import program as _program
from popdsl.build_context import context
from popdsl.debug import BuildError, debug_name, describe, expect_callable, expect_int, plain_name
from popdsl.dtypes import is_integral_or_bool
from popdsl.recording import Record, Tape
from popdsl.tensor import Tensor

# The public names (the API reference's); the module's other functions serve the package.
__all__ = ["Block", "Sequence", "Repeat", "If", "Else", "While", "Switch"]



class Block:
    """Steps that will run in order; `build()` makes the poplar Sequence."""

    def __init__(self, name: Optional[str] = None) -> None:
        self.name = name
        self.steps = []
        self.tape = Tape(self.steps)  # the ops as pd.grad sees them

    def add(self, step: Any) -> None:
        """Append a poplar program or a deferred step (anything with build())."""
        self.steps.append(step)

    def parts(self) -> list:
        """The steps whose programs make this block's (build_program builds them first)."""
        return self.steps

    def assemble(self, programs: List[_program.Program]) -> _program.Sequence:
        """This block's poplar program from its parts' programs: a Sequence of them."""
        return _program.Sequence(programs, self.name)

    def build(self) -> _program.Sequence:
        """The poplar Sequence of the steps added so far."""
        return build_program(self)

    def __enter__(self):
        context.blocks.append(self)
        return self

    def __exit__(self, *exc):
        context.blocks.pop()
        return False


def build_program(step: Any) -> _program.Program:
    """The poplar program of `step`, its parts built before it, depth first without recursion."""
    built = []  # the programs of the parts finished so far, in order
    todo = [(step, None)]  # (step, its parts once they are on the way)
    while todo:
        step, parts = todo.pop()
        if parts is None and hasattr(step, "parts"):
            parts = list(step.parts())
            todo.append((step, parts))
            todo.extend((part, None) for part in reversed(parts))
            continue
        if parts is None:
            built.append(step.build() if hasattr(step, "build") else step)
            continue
        first = len(built) - len(parts)
        programs = built[first:]
        del built[first:]
        built.append(step.assemble(programs))
    return built[0]


def current_block(prog=None) -> Block:
    """The block an op goes into: `prog` if given, else the innermost open block."""
    if prog is not None:
        if not isinstance(prog, Block):
            raise BuildError(f"prog= must be a pd.Sequence (or another popdsl block), not {type(prog).__name__}")
        return prog
    if not context.blocks:
        raise BuildError("no program is open to add this op to; build ops inside a block:\n"
                         "    with pd.Sequence('main') as main:\n        ...\n"
                         "or pass prog=<a pd.Sequence> explicitly")
    return context.blocks[-1]


def emit(raw_sequence: _program.Sequence, prog: Optional[Block] = None) -> None:
    """Append a poplar program to the current block."""
    current_block(prog).add(raw_sequence)


def record(kind: str, inputs: Iterable[Tensor], outputs: Iterable[Tensor], prog: Optional[Block] = None,
           written: Iterable[Tensor] = (), **attrs) -> Record:
    """Records an op just emitted into the current block for pd.grad: `kind` names its
    gradient rule; `written` lists the tensors it overwrote (in-place ops)."""
    op = Record(kind, inputs, outputs, written, attrs)
    current_block(prog).tape.add(op)
    loop_pitfall.check_read(op.inputs)
    return op


def record_control(kind: str, bodies: List[Block], block: Block, **attrs) -> Record:
    """Records a control-flow step of the given body blocks in `block` as one op that
    reads what its bodies read from outside and overwrites all they produced or wrote
    (views left out: a write through a view is a write of its bases, which are there)."""
    inputs = {i: t for body in bodies for i, t in body.tape.reads.items()}
    outputs = list({i: t for body in bodies for i, t in body.tape.changed.items() if t.view_of is None}.values())
    return record(kind, inputs.values(), outputs, block, written=outputs, bodies=bodies, **attrs)


class Sequence(Block):
    """A program: `with pd.Sequence("main") as main:` collects the ops built inside."""

    def __init__(self, name=None):
        super().__init__(plain_name(name))


def check_control(tensor: Tensor, what: str) -> poplar.Tensor:
    """Predicates and switch indices hold one integer or boolean element."""
    if not isinstance(tensor, Tensor):
        raise BuildError(f"the {what} must be a pd.Tensor, got {describe(tensor)}")
    if tensor.size != 1 or not is_integral_or_bool(tensor.dtype):
        raise BuildError(f"the {what} must have exactly one integer or bool element, but {tensor!r} "
                         f"has shape {tensor.shape} and dtype {tensor.dtype}")
    return tensor.raw.reshape([])


class _Nested:
    """A `with` block whose body becomes a step of the enclosing block on exit."""

    kind = None  # the op kind pd.grad sees
    loop = False  # whether the body runs repeatedly (the loop pitfall's check)

    def __init__(self):
        self.parent = current_block()
        self.body = Block()

    def __enter__(self):
        if self.loop:  # the tensors the `with` statement's scope names, to see which names the body rebinds
            self.names_before = loop_pitfall.bound_tensors(sys._getframe(1))
        context.blocks.append(self.body)
        return self

    def __exit__(self, exc_type, *exc):
        context.blocks.pop()
        names_before = self.__dict__.pop("names_before", None)  # the step keeps no tensors alive
        if exc_type is None:
            self.parent.add(self)
            self.record = record_control(self.kind, self.bodies(), self.parent, step=self)
            if self.loop:
                loop_pitfall.check_loop(self.kind, self.body, self.bodies(), self.record.location, names_before,
                                        loop_pitfall.bound_tensors(sys._getframe(1)))
        return False

    def bodies(self) -> list:
        """The blocks whose ops pd.grad's record of this step reads and writes through."""
        return [self.body]


class Repeat(_Nested):
    """`with pd.Repeat(n):` runs the block n times (program::Repeat)."""

    kind = "pd.Repeat"
    loop = True

    def __init__(self, count: int, name=None):
        count = expect_int(count, "pd.Repeat: count")
        super().__init__()
        self.count, self.name = count, debug_name(name)

    def parts(self) -> list:
        """The body, the one part of a Repeat."""
        return [self.body]

    def assemble(self, programs: List[_program.Program]) -> _program.Program:
        """program.Repeat of the built body."""
        return _program.Repeat(self.count, programs[0], self.name)


class If(_Nested):
    """`with pd.If(pred):` runs the block when the one-element `pred` is non-zero."""

    kind = "pd.If"

    def __init__(self, predicate, name=None):
        super().__init__()
        self.predicate = check_control(predicate, "If predicate")
        self.predicate_tensor = predicate  # what pd.grad's backward If tests again
        self.name = debug_name(name)
        self.else_body = None
        self.else_record = None

    def parts(self) -> list:
        """The then-body and, when a pd.Else followed, the else-body."""
        return [self.body] + ([self.else_body] if self.else_body else [])

    def assemble(self, programs: List[_program.Program]) -> _program.Program:
        """program.If of the built bodies (an empty Sequence without an else-body)."""
        then_body, *else_body = programs
        return _program.If(self.predicate, then_body, else_body[0] if else_body else _program.Sequence(), self.name)


class Else:
    """`with pd.Else():` right after a `with pd.If(...)` block: runs when the predicate is zero."""

    def __init__(self):
        self.block = current_block()
        last = self.block.steps[-1] if self.block.steps else None
        if not isinstance(last, If) or last.else_body is not None:
            raise BuildError("pd.Else() must directly follow a `with pd.If(...):` block that has no Else yet")
        self.if_step = last

    def __enter__(self):
        self.if_step.else_body = Block()
        context.blocks.append(self.if_step.else_body)
        return self

    def __exit__(self, exc_type, *exc):
        context.blocks.pop()
        if exc_type is None:
            self.if_step.else_record = record_control("pd.If", [self.if_step.else_body], self.block,
                                                      step=self.if_step, negated=True)
        return False


class While(_Nested):
    """`with pd.While(cond_fn):` runs cond_fn's ops, then the block while its result is non-zero."""

    kind = "pd.While"
    loop = True

    def __init__(self, cond_fn, name=None):
        expect_callable(cond_fn, "pd.While: cond_fn")
        super().__init__()
        self.name = debug_name(name)
        self.condition = Block()
        with self.condition:
            self.predicate = check_control(cond_fn(), "While condition")

    def parts(self) -> list:
        """The condition block and the body."""
        return [self.condition, self.body]

    def assemble(self, programs: List[_program.Program]) -> _program.Program:
        """program.RepeatWhileTrue of the built condition and body."""
        condition, body = programs
        return _program.RepeatWhileTrue(condition, self.predicate, body, self.name)

    bodies = parts


class Switch:
    """`with pd.Switch(index) as sw:` then `with sw.case(k):` blocks and optionally `with sw.default():`."""

    def __init__(self, index, name=None):
        self.parent = current_block()
        self.control = check_control(index, "Switch index")
        self.index_tensor = index  # what pd.grad's backward Switch tests again
        self.name = debug_name(name)
        self.cases = {}
        self.default_body = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            self.parent.add(self)
            record_control("pd.Switch", list(self.cases.values()) + [b for b in [self.default_body] if b],
                           self.parent, step=self)
        return False

    def case(self, value: int) -> Block:
        """The block run when the control value equals `value`: `with sw.case(1): ...`."""
        value = expect_int(value, "Switch.case: value", -2 ** 31, 2 ** 31 - 1)  # program::Switch's int32 cases
        if value in self.cases:
            raise BuildError(f"Switch case {value} is defined twice")
        self.cases[value] = Block()
        return self.cases[value]

    def default(self) -> Block:
        """The block run when no case matches: `with sw.default(): ...`."""
        if self.default_body is not None:
            raise BuildError("Switch default is defined twice")
        self.default_body = Block()
        return self.default_body

    def parts(self) -> list:
        """The default block (empty unless given), then the cases in the order they were added."""
        return [self.default_body or Block()] + list(self.cases.values())

    def assemble(self, programs: List[_program.Program]) -> _program.Program:
        """program.Switch of the built default and cases."""
        default, *cases = programs
        return _program.Switch(self.control, list(zip(self.cases, cases)), default, self.name)
