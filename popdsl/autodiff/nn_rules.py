"""Gradient rules of pd.nn's library ops: convolutions (poplin) and pooling (popnn)."""
from popdsl._core import poplin, popnn
from popdsl.autodiff.registry import gradient
from popdsl.nn.conv import input_gradient_params
from popdsl.ops import _run_library
from popdsl.reductions import reduce_sum
from popdsl.tensor import Tensor


def _tensor(raw, like):
    return like.graph.track(Tensor(raw, like.graph))


@gradient("pd.nn.conv")
def _conv(op, grads):
    (g,) = grads
    params, options = op.attrs["params"], op.attrs["options"]
    x_needed, weights_needed, *bias_needed = op.needs
    graph = g.graph.raw
    dx = dw = None
    if x_needed:
        bwd = input_gradient_params(params)
        dx = _tensor(_run_library(lambda seq, dc: poplin.convolution(
            graph, g.raw, op.input(1).raw, bwd, True, seq, dc, {**options, "pass": "TRAINING_BWD"}),
            "pd.grad/conv_input", None), g)
    if weights_needed:
        dw = _tensor(_run_library(lambda seq, dc: poplin.calculateWeightDeltas(
            graph, g.raw, op.input(0).raw, params, seq, dc, {**options, "pass": "TRAINING_WU"}),
            "pd.grad/conv_weights", None), g)
    field_axes = [0] + list(range(2, g.ndim))
    return [dx, dw] + [reduce_sum(g, field_axes) if needed else None for needed in bias_needed]


@gradient("pd.nn.pool")
def _pool(op, grads):
    """Max pooling shares an output's gradient equally among the window's maxima (ties)."""
    (g,) = grads
    x, pooled = op.input(0), op.output()
    return [_tensor(_run_library(lambda seq, dc: popnn.pooling.poolInputGradient(
        g.graph.raw, op.attrs["params"], x.raw, pooled.raw, g.raw, True, seq, dc), "pd.grad/pool_input", None), g)]
