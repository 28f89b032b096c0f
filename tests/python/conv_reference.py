"""Float64 numpy references for convolutions and pooling, written from the definitions
(array transforms and sums over kernel offsets), independent of the emulator's index maps."""
import itertools

import numpy as np


def transform_input(a, first_axis, truncation_lower, truncation_upper, dilation, padding_lower,
                    padding_upper, flip):
    """ConvParams' input/kernel transform of the spatial axes from `first_axis` on: truncate,
    dilate (zeros between elements), pad with zeros, flip."""
    for d in range(a.ndim - first_axis):
        axis = first_axis + d
        a = np.take(a, range(truncation_lower[d], a.shape[axis] - truncation_upper[d]), axis=axis)
        if dilation[d] > 1 and a.shape[axis]:
            shape = list(a.shape)
            shape[axis] = (a.shape[axis] - 1) * dilation[d] + 1
            dilated = np.zeros(shape)
            index = [slice(None)] * a.ndim
            index[axis] = slice(None, None, dilation[d])
            dilated[tuple(index)] = a
            a = dilated
        widths = [(0, 0)] * a.ndim
        widths[axis] = (padding_lower[d], padding_upper[d])
        a = np.pad(a, widths)
        if flip[d]:
            a = np.flip(a, axis)
    return a


def transform_output(a, truncation_lower, truncation_upper, stride, padding_lower, padding_upper):
    for d in range(a.ndim - 2):
        axis = 2 + d
        a = np.take(a, range(truncation_lower[d], a.shape[axis] - truncation_upper[d]), axis=axis)
        index = [slice(None)] * a.ndim
        index[axis] = slice(None, None, stride[d])
        a = a[tuple(index)]
        widths = [(0, 0)] * a.ndim
        widths[axis] = (padding_lower[d], padding_upper[d])
        a = np.pad(a, widths)
    return a


def _input_transform(t):
    return (t.truncationLower, t.truncationUpper, t.dilation, t.paddingLower, t.paddingUpper, t.flip)


def conv(x, w, params):
    """The convolution of x [N][G*Ci][field...] with w [G][Co][Ci][kernel...] under a
    poplin.ConvParams: a sum over kernel offsets of each offset's window times its weights."""
    x = transform_input(np.asarray(x, np.float64), 2, *_input_transform(params.inputTransform))
    w = transform_input(np.asarray(w, np.float64), 3, *_input_transform(params.kernelTransform))
    groups, out_chans, in_chans = w.shape[:3]
    field, kernel = x.shape[2:], w.shape[3:]
    out_field = [f - k + 1 for f, k in zip(field, kernel)]
    x = x.reshape(x.shape[0], groups, in_chans, *field)
    out = np.zeros((x.shape[0], groups, out_chans, *out_field))
    for offset in itertools.product(*(range(k) for k in kernel)):
        window = x[(Ellipsis,) + tuple(slice(o, o + n) for o, n in zip(offset, out_field))]
        out += np.einsum("ngi...,goi->ngo...", window, w[(Ellipsis,) + offset])
    out = out.reshape(out.shape[0], groups * out_chans, *out_field)
    o = params.outputTransform
    return transform_output(out, o.truncationLower, o.truncationUpper, o.stride, o.paddingLower, o.paddingUpper)


def linear_adjoint(function, argument_shape, output_gradient):
    """The gradient of sum(output_gradient * function(a)) with respect to a, for a linear
    function: its value at each basis vector."""
    gradient = np.zeros(argument_shape)
    for index in np.ndindex(*argument_shape):
        basis = np.zeros(argument_shape)
        basis[index] = 1.0
        gradient[index] = np.sum(output_gradient * function(basis))
    return gradient


def pool(x, kind, kernel, stride, padding_lower, padding_upper):
    """Pooling of x [N][C][field...]: padding (negative: truncation) never takes part."""
    x = np.asarray(x, np.float64)
    for d, (lower, upper) in enumerate(zip(padding_lower, padding_upper)):
        axis = 2 + d
        x = np.take(x, range(max(-lower, 0), x.shape[axis] - max(-upper, 0)), axis=axis)
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lower, 0), max(upper, 0))
        x = np.pad(x, widths, constant_values=np.nan)
    out_field = [(f - k) // s + 1 for f, k, s in zip(x.shape[2:], kernel, stride)]
    out = np.zeros(x.shape[:2] + tuple(out_field))
    for position in np.ndindex(*out_field):
        window = x[(Ellipsis,) + tuple(slice(p * s, p * s + k) for p, s, k in zip(position, stride, kernel))]
        window = window.reshape(window.shape[:2] + (-1,))
        count = np.sum(~np.isnan(window), axis=-1)
        if kind == "max":
            value = np.nanmax(window, axis=-1)
        else:
            value = np.nansum(window, axis=-1)
            if kind == "avg":
                value = value / count
        out[(Ellipsis,) + position] = value
    return out


def pool_max_gradient(x, pooled_gradient, kernel, stride, padding_lower, padding_upper, scaled):
    """MAX pooling's input gradient: each window's gradient goes to its elements equal to
    the maximum (an equal share each when scaled)."""
    x = np.asarray(x, np.float64)
    gradient = np.zeros_like(x)
    begin = [-lower for lower in padding_lower]  # window 0 starts here in x's coordinates
    for position in np.ndindex(*pooled_gradient.shape[2:]):
        window = []
        for d, p in enumerate(position):
            start = begin[d] + p * stride[d]
            stop = min(start + kernel[d], x.shape[2 + d] - max(-padding_upper[d], 0))
            window.append(slice(max(start, max(-padding_lower[d], 0)), stop))
        values = x[(Ellipsis,) + tuple(window)]
        flat = values.reshape(values.shape[:2] + (-1,))
        is_max = values == flat.max(axis=-1).reshape(values.shape[:2] + (1,) * (values.ndim - 2))
        share = pooled_gradient[(Ellipsis,) + position].reshape(values.shape[:2] + (1,) * (values.ndim - 2))
        if scaled:
            share = share / is_max.reshape(flat.shape).sum(axis=-1).reshape(share.shape)
        gradient[(Ellipsis,) + tuple(window)] += is_max * share
    return gradient
