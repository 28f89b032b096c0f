"""Convolutions through poplin: pd.nn.conv, and the poplin.ConvParams it builds.

Layouts are poplibs': x [batch][groups * in_channels][field...], weights
[groups][out_channels][in_channels][kernel...], result [batch][groups * out_channels][field...];
1 to 3 (or more) field dimensions. The number of groups is weights' first dimension."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from popdsl._core import poplin
from popdsl.control import record, Block
from popdsl.debug import BuildError
from popdsl.ops import _run_library
from popdsl.tensor import Tensor, expect_tensor
from popdsl.dtypes import DType

# The public names (the API reference's); the module's other functions serve the package.
__all__ = ["conv", "conv_params", "Dims", "Padding"]

# One value for every field dimension or one per dimension; padding may also give a
# (lower, upper) pair per dimension.
Dims = Union[int, Sequence[int]]
Padding = Union[int, Sequence[Union[int, Tuple[int, int]]]]


def per_dimension(value, dims, what):
    """One int per field dimension, from an int or a sequence of `dims` ints."""
    values = [value] * dims if isinstance(value, int) else list(value)
    if len(values) != dims or not all(isinstance(v, int) for v in values):
        raise BuildError(f"{what} must be an int or {dims} ints (one per field dimension), not {value!r}")
    return values


def padding_ends(padding, dims):
    """(lower, upper) lists from an int, one int per dimension (both ends), or one
    (lower, upper) pair per dimension."""
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0], (list, tuple)):
        if len(padding) != dims or any(len(pair) != 2 for pair in padding):
            raise BuildError(f"padding needs one (lower, upper) pair per field dimension ({dims}), not {padding!r}")
        return [int(pair[0]) for pair in padding], [int(pair[1]) for pair in padding]
    both = per_dimension(padding, dims, "padding")
    return both, list(both)


def conv_params(x_shape: Sequence[int], weights_shape: Sequence[int], dtype: DType, stride: Dims = 1,
                padding: Padding = 0, dilation: Dims = 1, input_dilation: Dims = 1) -> poplin.ConvParams:
    """The poplin.ConvParams of conv(x, weights, ...) for operands of these shapes.

    padding: an int, one int per dimension, or one (lower, upper) pair per dimension;
    negative padding truncates the input. dilation spaces the kernel's taps (kernel
    dilation); input_dilation spaces the input's elements."""
    x_shape, weights_shape = list(x_shape), list(weights_shape)
    dims = len(x_shape) - 2
    if dims < 1 or len(weights_shape) != dims + 3:
        raise BuildError(f"conv needs x [batch][channels][field...] and weights [groups][out][in][kernel...] "
                         f"with as many kernel as field dimensions, not x {x_shape} and weights {weights_shape}")
    groups, out_chans, in_chans = weights_shape[:3]
    if x_shape[1] != groups * in_chans:
        raise BuildError(f"conv: x has {x_shape[1]} channels; weights {weights_shape} need "
                         f"{groups} groups x {in_chans} = {groups * in_chans}")
    lower, upper = padding_ends(padding, dims)
    zeros, no_flips = [0] * dims, [False] * dims
    input_transform = poplin.ConvParams.InputTransform(
        [max(-p, 0) for p in lower], [max(-p, 0) for p in upper],
        per_dimension(input_dilation, dims, "input_dilation"),
        [max(p, 0) for p in lower], [max(p, 0) for p in upper], no_flips)
    kernel_transform = poplin.ConvParams.InputTransform(
        zeros, zeros, per_dimension(dilation, dims, "dilation"), zeros, zeros, no_flips)
    output_transform = poplin.ConvParams.OutputTransform(
        zeros, zeros, per_dimension(stride, dims, "stride"), zeros, zeros)
    return poplin.ConvParams(dtype, dtype, x_shape[0], x_shape[2:], weights_shape[3:], in_chans, out_chans,
                             groups, input_transform, kernel_transform, output_transform)


def input_gradient_params(params):
    """The ConvParams of the convolution giving conv's input gradient from its output
    gradient (with the weights transposed and flipped): the output gradient, dilated by
    the stride, padded by the kernel's extent less the forward's lower padding at the
    start and by what makes the result the input's size at the end. Forward input
    dilation and flips have no such convolution here: they are refused."""
    fwd_in = params.inputTransform
    dims = len(params.inputFieldShape)
    if any(d != 1 for d in fwd_in.dilation) or any(fwd_in.flip) or any(params.kernelTransform.flip) \
            or any(params.kernelTransform.truncationLower) or any(params.kernelTransform.truncationUpper):
        raise BuildError(f"pd.grad: the input gradient of a convolution with input dilation, flips or kernel "
                         f"truncation is not supported ({params})")
    stride, dilation = params.outputTransform.stride, params.kernelTransform.dilation
    out_field = params.getOutputFieldShape()
    lower, upper = [], []
    for d in range(dims):
        fwd_lower = fwd_in.paddingLower[d] - fwd_in.truncationLower[d]  # negative: truncation
        lower.append(dilation[d] * (params.kernelShape[d] - 1) - fwd_lower)
        upper.append(params.inputFieldShape[d] - 1 - (out_field[d] - 1) * stride[d] + fwd_lower)
    if any(s != 1 for s in stride) and any(p < 0 for p in lower + upper):
        raise BuildError(f"pd.grad: the input gradient of a strided convolution padded by more than its kernel's "
                         f"extent is not supported ({params})")
    zeros, no_flips = [0] * dims, [False] * dims
    return poplin.ConvParams(
        params.inputType, params.outputType, params.batchSize, out_field, list(params.kernelShape),
        params.outputChannelsPerConvGroup, params.inputChannelsPerConvGroup, params.numConvGroups,
        poplin.ConvParams.InputTransform([max(-p, 0) for p in lower], [max(-p, 0) for p in upper], list(stride),
                                         [max(p, 0) for p in lower], [max(p, 0) for p in upper], no_flips),
        poplin.ConvParams.InputTransform(zeros, zeros, list(dilation), zeros, zeros, no_flips),
        poplin.ConvParams.OutputTransform(dims))


def conv(x: Tensor, weights: Tensor, stride: Dims = 1, padding: Padding = 0, dilation: Dims = 1,
         input_dilation: Dims = 1, bias: Tensor = None, name: Optional[str] = None, prog: Optional[Block] = None,
         options: Optional[dict] = None) -> Tensor:
    """The convolution of x with weights (poplin::convolution), plus bias[channel] when given
    (poplin::addBias). See conv_params for stride, padding and the dilations."""
    graph = expect_tensor(x, "pd.nn.conv: x").graph
    expect_tensor(weights, "pd.nn.conv: weights", graph, "x")
    if bias is not None:
        expect_tensor(bias, "pd.nn.conv: bias", graph, "x")
    params = conv_params(x.shape, weights.shape, x.dtype, stride, padding, dilation, input_dilation)

    def build(seq, dc):
        out = poplin.convolution(graph.raw, x.raw, weights.raw, params, False, seq, dc, options or {})
        if bias is not None:
            poplin.addBias(graph.raw, out, bias.raw, seq, dc)
        return out
    out = graph.track(Tensor(_run_library(build, name, prog, "pd.nn.conv"), graph))
    record("pd.nn.conv", [x, weights] + ([bias] if bias is not None else []), [out], prog, params=params,
           options=options or {})
    return out
