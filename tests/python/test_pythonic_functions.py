"""Every element-wise function and reduction popdsl exports, against float64 numpy."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

ANY = np.array([-2.75, -1.5, -0.25, 0.0, 0.5, 1.25, 2.5, 3.0], np.float32)
POSITIVE = np.array([0.125, 0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 9.0], np.float32)
FLAGS = np.array([True, True, False, False, True, False, True, False])
OTHER_FLAGS = np.array([True, False, True, False, False, False, True, True])

# name -> (function, float64 reference, inputs)
UNARY = {
    "abs": (pd.abs, np.abs, ANY),
    "ceil": (pd.ceil, np.ceil, ANY),
    "floor": (pd.floor, np.floor, ANY),
    "cos": (pd.cos, np.cos, ANY),
    "sin": (pd.sin, np.sin, ANY),
    "exp": (pd.exp, np.exp, ANY),
    "log": (pd.log, np.log, POSITIVE),
    "neg": (pd.neg, np.negative, ANY),
    "relu": (pd.relu, lambda a: np.maximum(a, 0), ANY),
    "rsqrt": (pd.rsqrt, lambda a: 1 / np.sqrt(a), POSITIVE),
    "sigmoid": (pd.sigmoid, lambda a: 1 / (1 + np.exp(-a)), ANY),
    "sqrt": (pd.sqrt, np.sqrt, POSITIVE),
    "square": (pd.square, np.square, ANY),
    "tanh": (pd.tanh, np.tanh, ANY),
    "logical_not": (pd.logical_not, np.logical_not, FLAGS),
    "abs of int32": (pd.abs, np.abs, np.array([-7, -1, 0, 5], np.int32)),
    "neg of int32": (pd.neg, np.negative, np.array([-7, -1, 0, 5], np.int32)),
    "square of int32": (pd.square, np.square, np.array([-7, -1, 0, 5], np.int32)),
}

BINARY = {
    "max": (pd.max, np.maximum, ANY, ANY[::-1].copy()),
    "min": (pd.min, np.minimum, ANY, ANY[::-1].copy()),
    "pow": (pd.pow, np.power, POSITIVE, ANY),
    "logical_and": (pd.logical_and, np.logical_and, FLAGS, OTHER_FLAGS),
    "logical_or": (pd.logical_or, np.logical_or, FLAGS, OTHER_FLAGS),
    "min of int32": (pd.min, np.minimum, np.array([3, -4, 0], np.int32), np.array([-1, 2, 0], np.int32)),
}


def run_on_device(ipu_device, session_factory, build, *inputs):
    """Makes a variable per input, runs build(*variables) and returns its result's values."""
    g = pd.Graph(ipu_device)
    variables = [g.variable(pd.as_type(a.dtype), a.shape, name=f"in{i}") for i, a in enumerate(inputs)]
    with pd.Sequence() as main:
        result = build(*variables)
    with session_factory(g, main) as s:
        for v, a in zip(variables, inputs):
            s.write(v, a)
        s.run()
        return s.read(result), result


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions(ipu_device, session_factory, name):
    fn, ref, x = UNARY[name]
    got, result = run_on_device(ipu_device, session_factory, fn, x)
    assert result.dtype == pd.as_type(x.dtype) and got.dtype == x.dtype
    assert_close(got, ref(x.astype(np.float64)), err_msg=name)


@pytest.mark.parametrize("name", BINARY)
def test_binary_functions(ipu_device, session_factory, name):
    fn, ref, a, b = BINARY[name]
    got, _ = run_on_device(ipu_device, session_factory, fn, a, b)
    assert got.dtype == a.dtype
    assert_close(got, ref(a.astype(np.float64), b.astype(np.float64)), err_msg=name)


def test_min_and_max_of_a_tensor_and_a_scalar(ipu_device, session_factory):
    got, _ = run_on_device(ipu_device, session_factory, lambda x: pd.min(x, 0.5) + pd.max(x, -1.0), ANY)
    assert_close(got, np.minimum(ANY, 0.5) + np.maximum(ANY, -1.0))


def test_where_picks_elementwise(ipu_device, session_factory):
    got, _ = run_on_device(ipu_device, session_factory, pd.where, FLAGS, ANY, POSITIVE)
    assert_close(got, np.where(FLAGS, ANY, POSITIVE))


@pytest.mark.parametrize("fn, ref", [(pd.min, np.minimum), (pd.max, np.maximum)], ids=["min", "max"])
def test_nan_propagates_through_min_and_max(ipu_device, session_factory, fn, ref):
    a = np.array([np.nan, 1.0, 2.0], np.float32)
    b = np.array([0.0, np.nan, 1.0], np.float32)
    got, _ = run_on_device(ipu_device, session_factory, fn, a, b)
    assert_close(got, ref(a, b))


# name -> (reduction, float64 reference over axis 1 of a [3, 8] input, inputs)
REDUCTIONS = {
    "reduce_sum": (pd.reduce_sum, lambda a: a.sum(1), ANY),
    "reduce_max": (pd.reduce_max, lambda a: a.max(1), ANY),
    "reduce_min": (pd.reduce_min, lambda a: a.min(1), ANY),
    "reduce_prod": (pd.reduce_prod, lambda a: a.prod(1), ANY),
    "reduce_sum_squares": (pd.reduce_sum_squares, lambda a: (a * a).sum(1), ANY),
    "reduce_logsumexp": (pd.reduce_logsumexp, lambda a: np.log(np.exp(a).sum(1)), ANY),
    "reduce_all": (pd.reduce_all, lambda a: a.all(1), FLAGS),
    "reduce_any": (pd.reduce_any, lambda a: a.any(1), FLAGS),
}


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_over_one_axis(ipu_device, session_factory, name):
    fn, ref, row = REDUCTIONS[name]
    x = np.stack([row, row[::-1], np.roll(row, 3)])
    got, result = run_on_device(ipu_device, session_factory, lambda t: fn(t, 1), x)
    assert result.shape == (3,)
    assert_close(got, ref(x.astype(np.float64)), err_msg=name)
