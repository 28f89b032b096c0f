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



@pytest.mark.parametrize("length", [5, 8, 21, 64])  # around the emulator's 8 accumulators per row
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp"])
def test_row_reductions_of_any_length_with_nan_and_infinities(ipu_device, session_factory, name, length):
    """Rows of one number each, then with a NaN, an infinity of each sign, and both, anywhere
    in the row (the first element, the tail): max and min propagate NaN and keep infinities."""
    fn, ref, _ = REDUCTIONS[name]
    rng = np.random.default_rng(length)
    rows = rng.uniform(-1, 1, (6, length)).astype(np.float32)
    rows[1, length // 2] = np.nan
    rows[2, -1] = np.inf
    rows[3, 0] = -np.inf
    rows[4, [0, -1]] = [np.inf, -np.inf]
    rows[5, -1] = np.nan
    with np.errstate(invalid="ignore", over="ignore"):
        expected = ref(rows.astype(np.float64))
    got, _ = run_on_device(ipu_device, session_factory, lambda t: fn(t, 1), rows)
    assert_close(got, expected, err_msg=name)

def sigmoid(a):
    return 1 / (1 + np.exp(-a))


# kind -> (float64 forward, its gradient from the forward's output)
NONLINEARITIES = {
    "sigmoid": (sigmoid, lambda y: y * (1 - y)),
    "tanh": (np.tanh, lambda y: 1 - y * y),
    "relu": (lambda a: np.maximum(a, 0), lambda y: (y > 0).astype(np.float64)),
}


@pytest.mark.parametrize("kind", NONLINEARITIES)
def test_nonlinearity_and_its_gradient(ipu_device, session_factory, kind):
    forward, gradient = NONLINEARITIES[kind]
    upstream = np.linspace(-1, 2, ANY.size).astype(np.float32)

    def build(x, g):
        y = pd.nonlinearity(x, kind)
        return pd.concat([y, pd.nonlinearity_grad(y, g, kind)]) * 1.0  # one tensor of both
    got, _ = run_on_device(ipu_device, session_factory, build, ANY, upstream)
    y = forward(ANY.astype(np.float64))
    assert_close(got, np.concatenate([y, gradient(y) * upstream]), rtol=1e-5, atol=1e-6)


def test_nonlinearity_in_place_and_softmax(ipu_device, session_factory):
    x = np.array([[0.0, np.log(3.0)], [5.0, 5.0]], np.float32)

    def build(t):
        pd.nonlinearity_(t, "softmax")
        return t * 1.0
    got, _ = run_on_device(ipu_device, session_factory, build, x)
    assert_close(got, [[0.25, 0.75], [0.5, 0.5]])


def test_print_tensor_prints_the_values_when_the_program_runs(ipu_device, session_factory, capsys):
    g = pd.Graph(ipu_device)
    x = g.variable(pd.int32, (3,), name="x")
    with pd.Sequence() as main:
        pd.print_tensor(x, "before")
        x += 1
        pd.print_tensor(x)
    with session_factory(g, main) as s:
        s.write(x, [1, 2, 3])
        assert capsys.readouterr().out == ""  # printed by the run, not while building
        s.run()
    assert capsys.readouterr().out == "before: [1 2 3]\nx: [2 3 4]\n"


def test_map_fuses_and_map_in_place_writes_its_target(ipu_device, session_factory):
    def build(x, y):
        z = pd.map(lambda a, b: a * b + 1.0, x, y)
        pd.map_(lambda a, b: a - pd.exp(b * 0.5), x, z)
        return pd.concat([x, z]) * 1.0
    got, _ = run_on_device(ipu_device, session_factory, build, ANY, POSITIVE)
    x, y = ANY.astype(np.float64), POSITIVE.astype(np.float64)
    z = x * y + 1
    assert_close(got, np.concatenate([x - np.exp(z * 0.5), z]))


@pytest.mark.parametrize("version, tiles, bytes_per_tile", [("ipu1", None, 256 * 1024), ("ipu2", 8, 624 * 1024),
                                                             ("ipu21", 2, 624 * 1024)])
def test_ipu_model_has_the_targets_figures(version, tiles, bytes_per_tile):
    target = pd.ipu_model(version, tiles=tiles).getTarget()
    assert target.getNumTiles() == (tiles or 1216)  # ipu1: 1216 tiles
    assert target.getTargetArchString() == version and target.getBytesPerTile() == bytes_per_tile
