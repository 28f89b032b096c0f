"""The loop pitfall the layer can see: a name bound inside a loop body is not a
loop-carried variable.

    with pd.Repeat(4):
        acc = acc + 1        # a new tensor, computed from the same `acc` every iteration

computes `acc + 1` into a new tensor once per iteration, always from the value carried in,
so after the loop it holds the outside value plus 1, not plus 4. When a loop's body ends,
a new tensor that nothing in the body reads is remembered when

- its value depends only on values the body does not change (every iteration computes
  the same value), or
- the body rebound a name of the `with` statement's scope to it from a tensor it is
  computed from, a tensor the body does not change (`acc = acc + i` with a changing `i`:
  every iteration starts again from the value before the loop). A new name (`row =
  x.at[i].get()`, the last iteration's row) is what the user meant, and is left alone.

The first time something reads a remembered tensor after the loop (an op, or
Session.read), a LoopCarryWarning names the body's line and the fix.
"""
import warnings
import weakref

from popdsl import debug
from popdsl.tensor import Tensor

# The public name (the API reference's); the checks serve popdsl.control and the session.
__all__ = ["LoopCarryWarning"]

# Op kinds whose result changes per execution even from the same inputs.
_VARYING_KINDS = ("pd.random.",)

# id(tensor) -> the warning to give when the tensor is read after its loop; an entry goes
# when its tensor does (weakref.finalize), so an id is never another tensor's
_suspects = {}


class LoopCarryWarning(UserWarning):
    """A new tensor of a pd.Repeat / pd.While body, never used in the body, is read after the
    loop, and the body computed it from values the loop does not change (`acc = acc + 1`:
    every iteration computed the same value) or rebound a name to it from the tensor it is
    computed from (`acc = acc + i`: every iteration started again from the value before the
    loop); `acc += ...` or `acc.assign(...)` was meant."""


def bound_tensors(frame) -> dict:
    """name -> tensor of the names a frame binds to pd tensors (a loop's scope, at its start and end)."""
    return {name: value for name, value in frame.f_locals.items() if isinstance(value, Tensor)}


def check_loop(kind: str, body, blocks: list, location: str, names_before: dict, names_after: dict):
    """Remembers the new tensors of a finished loop's body that it never reads and either
    computes from values none of the loop's blocks (the body, a While's condition) change,
    or that a name was rebound to from a value it is computed from, which they do not change.
    `location` is the loop's source line; `names_*` the scope's tensors (bound_tensors)
    when the loop started and ended."""
    changed = {i for block in blocks for i in block.tape.changed}
    rebound = {id(t): (name, names_before[name]) for name, t in names_after.items()
               if name in names_before and names_before[name] is not t}  # id(new) -> (name, tensor before)
    tape = body.tape
    invariant = {}  # id(record) -> its outputs are the same every iteration
    read_in_body = set()  # (id(record), k) of every value a record reads
    first_writer = {}  # id(tensor) -> the first record that produced it
    for r in tape.records:
        sources = [s for s in r.sources if isinstance(s, tuple)]
        read_in_body.update((id(rec), k) for rec, k in sources)
        invariant[id(r)] = bool(r.sources) and not r.kind.startswith(_VARYING_KINDS) and all(
            invariant[id(s[0])] if isinstance(s, tuple) else id(s) not in changed for s in r.sources)
        for t in r.outputs:
            first_writer.setdefault(id(t), (r, t))
    for r, t in first_writer.values():
        latest = tape.latest(t)
        if t.view_of is not None or any(w is t for w in r.written) or latest is None:
            continue  # a view, or a tensor that existed before the loop: not a new name
        record, k = latest
        if (id(record), k) in read_in_body:
            continue
        if invariant[id(record)]:
            _remember(t, _message(kind, record.location, location))
        elif id(t) in rebound:
            name, before = rebound[id(t)]
            if not any(id(b) in changed for b in _bases(before)) and _computed_from(record, before):
                _remember(t, _rebound_message(kind, record.location, location, name))


def _remember(t, message: str):
    _suspects[id(t)] = message
    weakref.finalize(t, _suspects.pop, id(t), None)


def _computed_from(record, before) -> bool:
    """Whether the value `record` produced depends on `before`'s value at the body's start:
    through a chain of the body's records, down to `before` itself or a view record of it."""
    seen, todo = set(), [record]
    while todo:
        r = todo.pop()
        if any(o is before for o in r.outputs):  # a view record: `before` is a view
            return True
        for s in r.sources:
            if s is before:
                return True
            if isinstance(s, tuple) and id(s[0]) not in seen:
                seen.add(id(s[0]))
                todo.append(s[0])
    return False


def _rebound_message(kind: str, statement: str, loop: str, name: str) -> str:
    return (f"{statement}: this line in the {kind} body at {loop} rebinds `{name}` to a new tensor computed from "
            f"the tensor `{name}` held before the loop, which the loop does not change, and nothing in the body "
            f"reads the new tensor, so every iteration starts again from the value before the loop (only the last "
            f"iteration's result is left); it is read after the loop. A name bound inside a loop body is not carried "
            f"to the next iteration: to update `{name}` each iteration, write into it in place, e.g. `{name} += ...` "
            f"or `{name}.assign(<the new value>)` instead of `{name} = <the new value>`.")


def _message(kind: str, statement: str, loop: str) -> str:
    return (f"{statement}: this line in the {kind} body at {loop} computes a new tensor from values the loop "
            f"does not change, and nothing in the body reads it, so every iteration computes the same value; it "
            f"is read after the loop. A name bound inside a loop body is not carried to the next iteration: to "
            f"update a tensor each iteration, write into it in place, e.g. `acc += 1` or `acc.assign(acc + 1)` "
            f"instead of `acc = acc + 1`.")


def _bases(t) -> list:
    """t and every tensor it is a view of."""
    found, todo = [], [t]
    while todo:
        found.append(todo.pop())
        if found[-1].view_of is not None:
            todo.extend(found[-1].view_of[1])
    return found


def check_read(tensors):
    """Warns (once per tensor) for each of `tensors` a finished loop computed in vain."""
    if not _suspects:
        return
    for t in tensors:
        for base in _bases(t):
            message = _suspects.pop(id(base), None)
            if message is not None:
                frame = debug._user_frame(skip_builders=True)
                filename, line = (frame.f_code.co_filename, frame.f_lineno) if frame else ("<unknown>", 0)
                warnings.warn_explicit(message, LoopCarryWarning, filename, line)
