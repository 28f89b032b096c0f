"""pd.gelu, pd.softmax, pd.nn.linear, pd.nn.embedding and pd.nn.init against float64 numpy
(forward and pd.grad), and their refusals."""
import math

import numpy as np
import pytest

import popdsl as pd

ERF = np.vectorize(math.erf)


def run(device, build, inputs):
    """Builds `build(*variables)` -> tensors in a graph of float32 variables for `inputs`, runs it
    and returns the tensors' values."""
    g = pd.Graph(device)
    variables = [g.variable(pd.int32 if v.dtype.kind == "i" else pd.float32, v.shape, name=f"in{i}", init=v)
                 for i, v in enumerate(inputs)]
    with pd.Sequence() as main:
        outputs = build(*variables)
    with pd.Session(g, main, device=device) as s:
        s.run()
        return [s.read(t) for t in outputs]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_and_its_gradient_match_the_formulas(device, approximate):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((5, 7)) * 2, rng.standard_normal((5, 7))
    y, dx = run(device, lambda x, w: [(y := pd.gelu(x, approximate=approximate)), pd.grad((y * w).sum(), [x])[0]],
                [x.astype(np.float32), w.astype(np.float32)])
    if approximate == "none":
        phi = np.exp(-x ** 2 / 2) / math.sqrt(2 * math.pi)
        cdf = 0.5 * (1 + ERF(x / math.sqrt(2)))
        expected, derivative = x * cdf, cdf + x * phi
    else:
        c = math.sqrt(2 / math.pi)
        t = np.tanh(c * (x + 0.044715 * x ** 3))
        expected = 0.5 * x * (1 + t)
        derivative = 0.5 * (1 + t) + 0.5 * x * (1 - t ** 2) * c * (1 + 3 * 0.044715 * x ** 2)
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dx, w * derivative, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_over_any_axis_and_its_gradient(device, axis):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((3, 4, 5)) * 3, rng.standard_normal((3, 4, 5))
    y, dx = run(device, lambda x, w: [(y := pd.softmax(x, axis=axis)), pd.grad((y * w).sum(), [x])[0]],
                [x.astype(np.float32), w.astype(np.float32)])
    e = np.exp(x - x.max(axis, keepdims=True))
    s = e / e.sum(axis, keepdims=True)
    np.testing.assert_allclose(y, s, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dx, s * (w - (w * s).sum(axis, keepdims=True)), rtol=1e-4, atol=1e-5)


def test_linear_has_torchs_weight_layout_and_gradients(device):
    rng = np.random.default_rng(3)
    x, weight, bias = rng.standard_normal((2, 3, 6)), rng.standard_normal((4, 6)), rng.standard_normal(4)
    y, dw, db = run(device, lambda x, w, b: [(y := pd.nn.linear(x, w, b)), *pd.grad(y.sum(), [w, b])],
                    [a.astype(np.float32) for a in (x, weight, bias)])
    np.testing.assert_allclose(y, x @ weight.T + bias, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dw, np.broadcast_to(x.sum((0, 1)), (4, 6)), rtol=1e-5)  # d sum(y) / d w[o, i]
    np.testing.assert_allclose(db, np.full(4, 6.0), rtol=1e-6)
    [no_bias] = run(device, lambda x, w: [pd.nn.linear(x, w)], [x.astype(np.float32), weight.astype(np.float32)])
    np.testing.assert_allclose(no_bias, x @ weight.T, rtol=1e-5, atol=1e-5)


def test_embedding_looks_up_rows_and_adds_gradients_into_them(device):
    rng = np.random.default_rng(4)
    table, ids = rng.standard_normal((6, 3)), np.array([[1, 4, 1], [0, 5, 1]], np.int32)
    rows, d_table = run(device, lambda ids, t: [(r := pd.nn.embedding(ids, t)), pd.grad((r * r).sum(), [t])[0]],
                        [ids, table.astype(np.float32)])
    np.testing.assert_allclose(rows, table[ids], rtol=1e-6)
    expected = np.zeros_like(table)
    np.add.at(expected, ids.ravel(), 2 * table[ids].reshape(-1, 3))
    np.testing.assert_allclose(d_table, expected, rtol=1e-5, atol=1e-6)


def test_initialisers_follow_torchs_formulas():
    shape = (200, 300)  # [out, in]: fan_in 300, fan_out 200
    bound = math.sqrt(6 / 500)
    w = pd.nn.init.xavier_uniform(shape, seed=0)
    assert w.dtype == np.float32 and w.shape == shape and np.abs(w).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    np.testing.assert_array_equal(w, pd.nn.init.xavier_uniform(shape, seed=0))  # the seed decides
    assert abs(pd.nn.init.xavier_normal(shape, gain=2.0, seed=1).std() - 2 * math.sqrt(2 / 500)) < 0.002
    relu = pd.nn.init.kaiming_normal((64, 32, 3, 3), nonlinearity="relu", seed=2)  # fan_in 32 * 9
    assert abs(relu.std() - math.sqrt(2 / 288)) < 0.002
    fan_out = pd.nn.init.kaiming_uniform(shape, mode="fan_out", nonlinearity="relu", seed=3)
    assert np.abs(fan_out).max() <= math.sqrt(2) * math.sqrt(3 / 200)
    assert pd.nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert pd.nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert pd.nn.init.normal((3,), 1.0, 0.0, seed=4).tolist() == [1.0, 1.0, 1.0]


def test_refusals_name_the_argument(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (2, 3), name="x")
    k = g.variable(pd.int32, (2,), name="k")
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match="approximate must be 'none' or 'tanh'"):
            pd.gelu(x, approximate="erf")
        with pytest.raises(pd.BuildError, match="pd.gelu: x must be a float tensor"):
            pd.gelu(k)
        with pytest.raises(pd.BuildError, match=r"pd.softmax: axis must be an int in \[-2, 1\]"):
            pd.softmax(x, axis=2)
        with pytest.raises(pd.BuildError, match=r"weight must be \[out, in\] with in = x.shape\[-1\]"):
            pd.nn.linear(x, g.variable(pd.float32, (4, 2), name="w"))
        with pytest.raises(pd.BuildError, match=r"bias must be \[out\] = \[4\]"):
            pd.nn.linear(x, g.variable(pd.float32, (4, 3), name="w3"), g.variable(pd.float32, (3,), name="b"))
        with pytest.raises(pd.BuildError, match="table must be a"):
            pd.nn.embedding(k, x.flatten())
    with pytest.raises(pd.BuildError, match="at least 2 dimensions"):
        pd.nn.init.xavier_uniform((5,))
    with pytest.raises(pd.BuildError, match="mode must be 'fan_in' or 'fan_out'"):
        pd.nn.init.kaiming_uniform((5, 5), mode="fan")
    with pytest.raises(pd.BuildError, match="unknown nonlinearity"):
        pd.nn.init.calculate_gain("swish")
