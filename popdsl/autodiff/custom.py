"""@pd.custom_grad: a builder with a hand-written gradient builder is one op for pd.grad.

The builder's own ops (loops included) are still recorded, so writes they make are seen,
but its outputs' values come from one record whose rule calls the gradient builder, as
jax.custom_vjp and torch.autograd.Function do.
"""
import functools

from popdsl.autodiff.registry import gradient
from popdsl.control import record
from popdsl.debug import BuildError, describe
from popdsl.tensor import Tensor

CUSTOM = "a builder with a custom gradient"


def custom_grad(grad_builder, reads_outputs=False):
    """Decorator: `grad_builder(out_grads, outputs, *args, **kwargs)` gives the gradient of
    the decorated builder. `out_grads` has one output gradient per tensor the builder
    returned (None for one nothing depends on); with `reads_outputs`, `outputs` are those
    tensors (what the backward reuses; pd.grad refuses them if overwritten since), else
    None. The result has one gradient (or None) per tensor argument of the call, in
    order. The decorated builder is called as before."""
    def decorate(builder):
        name = f"pd.nn.{builder.__name__}" if builder.__module__.startswith("popdsl.nn") else builder.__qualname__

        @functools.wraps(builder)
        def build(*args, **kwargs):
            result = builder(*args, **kwargs)
            outputs = result if isinstance(result, tuple) else (result,)
            tensors = [a for a in args if isinstance(a, Tensor)]
            record(CUSTOM, tensors, outputs, name=name, grad_builder=grad_builder, reads_outputs=reads_outputs,
                   args=args, kwargs=kwargs)
            return result
        return build
    return decorate


@gradient(CUSTOM)
def _custom(op, grads):
    tensors = iter(range(len(op.inputs)))
    args = [op.input(next(tensors)) if isinstance(a, Tensor) else a for a in op.attrs["args"]]  # checked intact
    outputs = tuple(op.output(k) for k in range(len(op.record.outputs))) if op.attrs["reads_outputs"] else None
    result = op.attrs["grad_builder"](grads, outputs, *args, **op.attrs["kwargs"])
    result = list(result) if isinstance(result, (tuple, list)) else [result]
    name = op.attrs["name"]
    if len(result) != len(op.inputs):
        raise BuildError(f"pd.grad: the gradient builder of {name} gave {len(result)} gradients for "
                         f"{len(op.inputs)} tensor arguments")
    for i, (g, t) in enumerate(zip(result, op.inputs)):
        if g is not None and (not isinstance(g, Tensor) or g.shape != t.shape or g.dtype != t.dtype):
            given = repr(g) if isinstance(g, Tensor) else describe(g)
            raise BuildError(f"pd.grad: the gradient builder of {name} gave {given} as the gradient of "
                             f"argument {i} {t!r}: it must be a tensor of that shape and dtype")
    return result
