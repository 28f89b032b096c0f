"""@pd.custom_grad: a builder with a hand-written gradient builder is one op for pd.grad.

The builder's own ops (loops included) are still recorded, so writes they make are seen,
but its outputs' values come from one record whose rule calls the gradient builder, as
jax.custom_vjp and torch.autograd.Function do.
"""

from __future__ import annotations

import functools
from typing import Callable, Optional

from popdsl.autodiff.registry import gradient
from popdsl.control import record
from popdsl.debug import BuildError, describe
from popdsl.tensor import Tensor

CUSTOM = "a builder with a custom gradient"


def custom_grad(grad_builder: Callable, reads_outputs: bool = False,
                name: Optional[str] = None) -> Callable[[Callable], Callable]:
    """Decorator: `grad_builder(out_grads, outputs, *args, **kwargs)` gives the gradient of
    the decorated builder. `out_grads` has one output gradient per tensor the builder
    returned (None for one nothing depends on); with `reads_outputs`, `outputs` are those
    tensors (what the backward reuses; pd.grad refuses them if overwritten since), else
    None. The result has one gradient (or None) per tensor argument of the call, in
    order; tensors inside tuple arguments (NamedTuples such as LstmWeights) count one by
    one, and a builder's result may be a tuple with None in it. The decorated builder is
    called as before. `name` is what pd.grad's messages call the builder (its qualified name
    by default; popdsl's builders pass their public name, "pd.nn.vanilla_attention")."""
    def decorate(builder):
        display_name = name or builder.__qualname__

        @functools.wraps(builder)
        def build(*args, **kwargs):
            result = builder(*args, **kwargs)
            outputs = _tensors(result if isinstance(result, tuple) else (result,))
            record(CUSTOM, _tensors(args), outputs, name=display_name, grad_builder=grad_builder, reads_outputs=reads_outputs,
                   args=args, kwargs=kwargs)
            return result
        return build
    return decorate


@gradient(CUSTOM)
def _custom(op, grads):
    args = _with_tensors(op.attrs["args"], iter([op.input(i) for i in range(len(op.inputs))]))  # checked intact
    outputs = tuple(op.output(k) for k in range(len(op.record.outputs))) if op.attrs["reads_outputs"] else None
    result = op.attrs["grad_builder"](grads, outputs, *args, **op.attrs["kwargs"])
    result = list(result) if isinstance(result, (tuple, list)) else [result]
    name = op.attrs["name"]
    if len(result) != len(op.inputs):
        raise BuildError(f"pd.grad: the gradient builder of {name} gave {len(result)} gradients for "
                         f"{len(op.inputs)} tensor arguments")
    for i, (g, t, needed) in enumerate(zip(result, op.inputs, op.needs)):
        if g is None and needed:
            raise BuildError(f"pd.grad: the gradient builder of {name} gave no gradient for argument {i} {t!r}, "
                             "which pd.grad needs")
        if g is not None and (not isinstance(g, Tensor) or g.shape != t.shape or g.dtype != t.dtype):
            given = repr(g) if isinstance(g, Tensor) else describe(g)
            raise BuildError(f"pd.grad: the gradient builder of {name} gave {given} as the gradient of "
                             f"argument {i} {t!r}: it must be a tensor of that shape and dtype")
    return result


def _tensors(values) -> list:
    """The tensors in values, looking into tuples and lists."""
    return [t for v in values for t in ([v] if isinstance(v, Tensor) else
                                        _tensors(v) if isinstance(v, (tuple, list)) else [])]


def _with_tensors(values, tensors):
    """values with each tensor replaced by the next of `tensors` (tuples keep their type)."""
    rebuilt = [next(tensors) if isinstance(v, Tensor) else _with_tensors(v, tensors) if isinstance(v, (tuple, list))
               else v for v in values]
    if isinstance(values, tuple) and hasattr(values, "_fields"):  # a NamedTuple
        return type(values)(*rebuilt)
    return type(values)(rebuilt) if isinstance(values, tuple) else rebuilt
