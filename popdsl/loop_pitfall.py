"""The loop pitfall the layer can see: a name bound inside a loop body is not a
loop-carried variable.

    with pd.Repeat(4):
        acc = acc + 1        # a new tensor, computed from the same `acc` every iteration

computes `acc + 1` into a new tensor once per iteration, always from the value carried in,
so after the loop it holds the outside value plus 1, not plus 4. When a loop's body ends,
each new tensor whose value depends only on values the body does not change, and that
nothing in the body reads, is remembered; the first time something reads it after the
loop (an op, or Session.read), a LoopCarryWarning names the body's line and the fix.
"""
import warnings
import weakref

from popdsl import debug

# The public name (the API reference's); the checks serve popdsl.control and the session.
__all__ = ["LoopCarryWarning"]

# Op kinds whose result changes per execution even from the same inputs.
_VARYING_KINDS = ("pd.random.",)

# id(tensor) -> the warning to give when the tensor is read after its loop; an entry goes
# when its tensor does (weakref.finalize), so an id is never another tensor's
_suspects = {}


class LoopCarryWarning(UserWarning):
    """A tensor computed inside a pd.Repeat / pd.While body from values the loop does not
    change, never used in the body, is read after the loop: every iteration computed the
    same value (`acc = acc + 1` where `acc += 1` was meant)."""


def check_loop(kind: str, body, blocks: list, location: str):
    """Remembers the new tensors of a finished loop's body that it computes from values none
    of the loop's blocks (the body, a While's condition) change, and never reads.
    `location` is the loop's source line."""
    changed = {i for block in blocks for i in block.tape.changed}
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
        if invariant[id(record)] and (id(record), k) not in read_in_body:
            _suspects[id(t)] = _message(kind, record.location, location)
            weakref.finalize(t, _suspects.pop, id(t), None)


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
