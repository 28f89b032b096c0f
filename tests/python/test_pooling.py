"""popnn pooling (MAX, AVG, SUM) and its input gradients against the float64 numpy
references of conv_reference.py, over 1-3 field dimensions, strides, padding and
truncation (negative padding)."""
import numpy as np
import pytest

from conv_reference import linear_adjoint, pool, pool_max_gradient
import popdsl as pd
from popdsl import poplar, popnn, poputil
from raw_runner import Runner

pooling = popnn.pooling
KINDS = {"max": popnn.PoolingType.MAX, "avg": popnn.PoolingType.AVG, "sum": popnn.PoolingType.SUM}
TOLERANCE = {poplar.FLOAT: 1e-6, poplar.HALF: 2e-3}

CASES = {
    "1d": dict(field=[9], kernel=[3], stride=[2], lower=[0], upper=[0]),
    "2d_padding": dict(field=[6, 5], kernel=[3, 2], stride=[2, 2], lower=[1, 1], upper=[1, 0]),
    "2d_truncation": dict(field=[7, 6], kernel=[2, 3], stride=[1, 2], lower=[-1, 0], upper=[0, -1]),
    "3d": dict(field=[4, 4, 3], kernel=[2, 2, 2], stride=[2, 1, 1], lower=[0, 1, 0], upper=[0, 0, 1]),
}


def params(kind, case, dtype=poplar.FLOAT, channels=3, batch=2):
    return pooling.PoolParams(KINDS[kind], case["field"], case["kernel"], case["stride"], case["lower"],
                              case["upper"], channels, batch, dtype)


def values(shape, seed, dtype=poplar.FLOAT):
    # Distinct values, so each window has one maximum.
    rng = np.random.default_rng(seed)
    return (rng.permutation(int(np.prod(shape))).reshape(shape) / 8.0 - 2.0).astype(dtype.numpy_dtype)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_pool_matches_the_reference(kind, case):
    p = params(kind, case)
    x = values([2, 3] + case["field"], 1)
    r = Runner()
    out = pooling.pool(r.graph, p, r.tensor(x, poplar.FLOAT), r.prog, "pool")
    assert out.shape() == [2, 3] + p.getOutputFieldShape()
    assert pooling.getOutputFieldShape(p) == p.getOutputFieldShape()
    (got,) = r.run(out)
    expected = pool(x, kind, case["kernel"], case["stride"], case["lower"], case["upper"])
    np.testing.assert_allclose(got, expected, rtol=TOLERANCE[poplar.FLOAT], atol=1e-6)


def test_half_pooling_computes_in_float():
    case = CASES["2d_padding"]
    x = values([2, 3] + case["field"], 2, poplar.HALF)
    r = Runner()
    X = r.tensor(x, poplar.HALF)
    outs = [pooling.pool(r.graph, params(kind, case, poplar.HALF), X, r.prog) for kind in KINDS]
    for kind, got in zip(KINDS, r.run(*outs)):
        assert got.dtype == np.float16
        expected = pool(x, kind, case["kernel"], case["stride"], case["lower"], case["upper"])
        np.testing.assert_allclose(got, expected, rtol=TOLERANCE[poplar.HALF], atol=1e-3)


@pytest.mark.parametrize("kind", ["avg", "sum"])
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_avg_and_sum_gradients_are_the_adjoint_of_pooling(kind, case):
    p = params(kind, case, channels=2, batch=1)
    x_shape = [1, 2] + case["field"]
    dy = values([1, 2] + p.getOutputFieldShape(), 3)
    r = Runner()
    DY = r.tensor(dy, poplar.FLOAT)
    without_forward = pooling.poolInputGradient(r.graph, p, 1, DY, r.prog, "grad")
    with_forward = pooling.poolInputGradient(r.graph, p, r.tensor(values(x_shape, 4), poplar.FLOAT, "x"),
                                             r.tensor(np.zeros_like(dy), poplar.FLOAT, "pooled"), DY, False,
                                             r.prog, "grad2")
    got, got_with_forward = r.run(without_forward, with_forward)
    # AVG and SUM pooling are linear, so the gradient is pooling's adjoint.
    expected = linear_adjoint(lambda basis: pool(basis, kind, case["kernel"], case["stride"], case["lower"],
                                                 case["upper"]), x_shape, dy)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got, got_with_forward)


@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_max_gradient_goes_to_the_maxima(case, scaled):
    p = params("max", case)
    x = values([2, 3] + case["field"], 5)
    x[0, 0].flat[0] = x[0, 0].flat[1] = x.max() + 1  # one window with two maxima
    r = Runner()
    X = r.tensor(x, poplar.FLOAT)
    pooled = pooling.pool(r.graph, p, X, r.prog, "pool")
    dy = values([2, 3] + p.getOutputFieldShape(), 6)
    grad = pooling.poolInputGradient(r.graph, p, X, pooled, r.tensor(dy, poplar.FLOAT, "dy"), scaled, r.prog)
    (got,) = r.run(grad)
    expected = pool_max_gradient(x, dy, case["kernel"], case["stride"], case["lower"], case["upper"], scaled)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_pool_params_flops_and_names():
    p = params("avg", CASES["2d_padding"])
    assert p.getNumFieldDims() == 2 and p.getOutputFieldShape() == [3, 3]
    assert pooling.asString(popnn.PoolingType.MAX) == "max" and pooling.asString(popnn.PoolingType.SUM) == "sum"
    assert "kernelShape {3,2}" in str(p) and "type avg" in str(p)
    # Windows of the padded 8x6 input: each counts its input elements, not the padding.
    window_elements = pool(np.ones([2, 3, 6, 5]), "sum", [3, 2], [2, 2], [1, 1], [1, 0]).sum()
    assert pooling.getFwdFlops(p) == pooling.getBwdFlops(p) == window_elements
    graph = Runner().graph
    target = graph.getTarget()
    perfect = window_elements / (target.getVectorWidth(poplar.FLOAT) * target.getNumTiles())
    assert pooling.getFwdPerfectCycleCount(graph, p) == pytest.approx(perfect)
    assert pooling.getBwdPerfectCycleCount(graph, p) == pytest.approx(perfect)


def test_pooling_survives_executable_serialization():
    case = CASES["2d_padding"]
    p = params("max", case)
    r = Runner()
    X = r.tensor(values([2, 3] + case["field"], 7), poplar.FLOAT)
    pooled = pooling.pool(r.graph, p, X, r.prog)
    grad = pooling.poolInputGradient(r.graph, p, X, pooled, pooled, True, r.prog)
    compiled, reloaded = r.run_compiled_and_reloaded(pooled, grad)
    for a, b in zip(compiled, reloaded):
        np.testing.assert_array_equal(a, b)


def test_bad_pooling_params_raise_named_poplibs_errors():
    case = CASES["1d"]
    x = np.zeros((2, 3, 9))

    def expect(match, p, shape=(2, 3, 9)):
        r = Runner()
        with pytest.raises(poputil.poplibs_error, match=match):
            pooling.pool(r.graph, p, r.tensor(np.zeros(shape), poplar.FLOAT), r.prog)

    expect(r"PoolParams.stride has 2 entries; inputFieldShape has 1 dimensions",
           pooling.PoolParams(KINDS["max"], [9], [3], [1, 1], [0], [0], 3, 2, poplar.FLOAT))
    expect(r"popnn::pooling::pool: outputTransform.stride\[0\] is 0",
           pooling.PoolParams(KINDS["max"], [9], [3], [0], [0], [0], 3, 2, poplar.FLOAT))
    expect(r"transformed kernel \(size 10\) is larger than the transformed input \(size 9\)",
           pooling.PoolParams(KINDS["max"], [9], [10], [1], [0], [0], 3, 2, poplar.FLOAT))
    expect(r"in must have shape \[2,3,9\] and type float", params("max", case), shape=(2, 4, 9))
    expect(r"PoolParams.dType must be FLOAT or HALF",
           pooling.PoolParams(KINDS["sum"], [9], [3], [1], [0], [0], 3, 2, poplar.INT))
    r = Runner()
    with pytest.raises(poputil.poplibs_error, match="MAX pooling's gradient needs the forward input"):
        pooling.poolInputGradient(r.graph, params("max", case), 1, r.tensor(np.zeros((2, 3, 3)), poplar.FLOAT),
                                  r.prog)
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'speed'"):
        pooling.pool(r.graph, params("sum", case), r.tensor(x, poplar.FLOAT, "x"), r.prog, "p", {"speed": "max"})


def test_pd_nn_pool_defaults_the_stride_to_the_kernel_and_takes_padding_pairs():
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    x_values = values([2, 3, 7, 6], 8)
    x = g.variable(pd.float32, x_values.shape, name="x")
    with pd.Sequence() as main:
        averaged = pd.nn.pool(x, "avg", kernel=(3, 2), padding=[(1, 1), (0, -1)])
        summed = pd.nn.pool(x, "sum", kernel=2, stride=1)
    p = pd.nn.pool_params("avg", x.shape, pd.float32, (3, 2), padding=[(1, 1), (0, -1)])
    assert p.stride == [3, 2] and p.inputTruncationOrPaddingUpper == [1, -1]
    with pd.Session(g, main, device=dev) as s:
        s.write(x, x_values)
        s.run()
        got_avg, got_sum = s.read(averaged), s.read(summed)
    np.testing.assert_allclose(got_avg, pool(x_values, "avg", [3, 2], [3, 2], [1, 0], [1, -1]), rtol=1e-6)
    np.testing.assert_allclose(got_sum, pool(x_values, "sum", [2, 2], [1, 1], [0, 0], [0, 0]), rtol=1e-6)
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"test_pooling.py:\d+: .*pool kind must be one of"):
            pd.nn.pool(x, "median", kernel=2)
        with pytest.raises(pd.BuildError, match=r"kernel must be an int or 2 ints"):
            pd.nn.pool(x, "max", kernel=(2, 2, 2))
