"""The ops models need beyond the element-wise ones: selection (argmax, topk, gather),
normalisation, numpy-style matmul, and the gradients of those and of reduce_prod, conv
and pool; values against numpy, gradients against central differences."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close, check_grads
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

rng = np.random.default_rng(11)


def uniform(*shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def distinct(*shape):
    """Well-separated values (no ties for argmax and topk)."""
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.25 - 2).astype(np.float32)


def run_forward(build, arrays, ipu_device, session_factory):
    """Runs build(*tensors) on tensors holding `arrays`; returns its outputs' values."""
    g = pd.Graph(ipu_device)
    tensors = [g.variable(a.dtype, a.shape, name=f"in{i}", init=a) for i, a in enumerate(arrays)]
    with pd.Sequence() as main:
        outs = build(*tensors)
        outs = [pd.cast(t, t.dtype) for t in (outs if isinstance(outs, tuple) else (outs,))]
    with session_factory(g, main) as s:
        s.run()
        return [s.read(t) for t in outs]


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmax_and_argmin_along_any_axis_match_numpy(axis, ipu_device, session_factory):
    x = distinct(3, 4, 5)
    high, low = run_forward(lambda t: (pd.argmax(t, axis), pd.argmin(t, axis)), [x], ipu_device, session_factory)
    np.testing.assert_array_equal(high, np.argmax(x, axis))
    np.testing.assert_array_equal(low, np.argmin(x, axis))
    assert high.dtype == np.uint32


@pytest.mark.parametrize("axis, sort", [(-1, True), (0, True), (1, False)])
def test_topk_matches_numpy(axis, sort, ipu_device, session_factory):
    x = distinct(4, 6, 3)
    k = 2
    values, indices = run_forward(lambda t: pd.topk(t, k, axis, sort), [x], ipu_device, session_factory)
    order = np.argsort(-x, axis=axis, kind="stable")
    expected = np.take(order, np.arange(k), axis=axis)
    if not sort:
        expected = np.sort(expected, axis=axis)  # in the order they stand in x
    np.testing.assert_array_equal(indices, expected)
    np.testing.assert_array_equal(values, np.take_along_axis(x, expected, axis))


@pytest.mark.parametrize("axis, index_shape", [(0, (2, 3)), (1, (4,)), (2, (1, 2))])
def test_gather_is_numpy_take(axis, index_shape, ipu_device, session_factory):
    x = uniform(5, 4, 3)
    idx = rng.integers(0, x.shape[axis], index_shape).astype(np.int32)
    idx.flat[0] = 99  # out of range: zeros
    (got,) = run_forward(lambda t, i: pd.gather(t, i, axis), [x, idx], ipu_device, session_factory)
    n = x.shape[axis]
    with_zeros = np.concatenate([x, np.zeros_like(np.take(x, [0], axis))], axis)  # index n: a zero slice
    expected = np.take(with_zeros, np.where(idx < n, idx, n), axis=axis)
    np.testing.assert_array_equal(got, expected)


def test_layer_and_group_norm_match_numpy(ipu_device, session_factory):
    x, gamma, beta = uniform(2, 4, 3), uniform(3), uniform(3)
    cg, cb = uniform(4), uniform(4)
    layer, group = run_forward(lambda t, w, b, gw, gb: (pd.nn.layer_norm(t, w, b), pd.nn.group_norm(t, 2, gw, gb)),
                               [x, gamma, beta, cg, cb], ipu_device, session_factory)
    x64 = x.astype(np.float64)
    normed = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
    assert_close(layer, normed * gamma + beta)
    grouped = x64.reshape(2, 2, -1)
    normed = ((grouped - grouped.mean(-1, keepdims=True)) / np.sqrt(grouped.var(-1, keepdims=True) + 1e-5))
    assert_close(group, normed.reshape(x.shape) * cg[:, None] + cb[:, None])


MATMULS = {
    "matrix @ vector": ((3, 4), (4,)),
    "vector @ matrix": ((4,), (4, 2)),
    "vector @ vector": ((4,), (4,)),
    "batch @ matrix": ((2, 3, 4), (4, 2)),
    "broadcast batches": ((2, 1, 3, 4), (3, 4, 2)),
    "vector @ batch": ((4,), (2, 4, 3)),
}


@pytest.mark.parametrize("case", list(MATMULS))
def test_matmul_broadcasts_like_numpy(case, ipu_device, session_factory):
    a, b = (uniform(*shape) for shape in MATMULS[case])
    (got,) = run_forward(lambda x, y: x @ y, [a, b], ipu_device, session_factory)
    assert_close(got, a.astype(np.float64) @ b.astype(np.float64))


def max_pool(x):
    return pd.nn.pool(x, "max", kernel=2, stride=1)


GRADIENTS = {
    "gather (repeated indices)": (lambda t, i: pd.gather(t, i) * 2.0,
                                  [uniform(4, 3), np.array([[1, 3], [1, 0]], np.int32)]),
    "gather along axis 1": (lambda t, i: pd.gather(t, i, axis=1), [uniform(2, 5), np.array([4, 0, 4], np.uint32)]),
    "topk values": (lambda t: pd.topk(t, 2)[0], [distinct(3, 4)]),
    "topk along axis 0": (lambda t: pd.topk(t, 2, axis=0, sort=False)[0], [distinct(4, 3)]),
    "layer_norm": (lambda x, w, b: pd.nn.layer_norm(x, w, b), [uniform(3, 4), uniform(4), uniform(4)]),
    "layer_norm over two axes": (lambda x: pd.nn.layer_norm(x, axes=2), [uniform(2, 2, 3)]),
    "group_norm": (lambda x, w, b: pd.nn.group_norm(x, 2, w, b), [uniform(2, 4, 3), uniform(4), uniform(4)]),
    "matrix @ vector": (lambda a, v: a @ v, [uniform(3, 4), uniform(4)]),
    "vector @ matrix": (lambda v, a: v @ a, [uniform(3), uniform(3, 2)]),
    "broadcast batches": (lambda a, b: a @ b, [uniform(2, 1, 2, 3), uniform(3, 3, 2)]),
    "reduce_prod": (lambda x: pd.reduce_prod(x, 1), [uniform(3, 4, low=0.5, high=1.5)]),
    "reduce_prod with zeros": (lambda x: x.prod(1),
                               [np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5], [1.0, -2.0, 0.5]], np.float32)]),
    "max pool": (max_pool, [distinct(1, 2, 3, 3)]),
    "avg pool, padded": (lambda x: pd.nn.pool(x, "avg", kernel=2, stride=2, padding=1), [uniform(2, 1, 3, 3)]),
    "conv": (lambda x, w, b: pd.nn.conv(x, w, bias=b), [uniform(2, 2, 4, 4), uniform(1, 3, 2, 3, 3), uniform(3)]),
    "conv, strided and padded": (lambda x, w: pd.nn.conv(x, w, stride=2, padding=1),
                                 [uniform(1, 2, 5, 4), uniform(1, 2, 2, 2, 3)]),
    "conv, grouped and dilated": (lambda x, w: pd.nn.conv(x, w, dilation=2, padding=[(1, 0)]),
                                  [uniform(1, 4, 6), uniform(2, 1, 2, 2)]),
}


@pytest.mark.parametrize("case", list(GRADIENTS))
def test_gradient_matches_finite_differences(case):
    fn, inputs = GRADIENTS[case]
    check_grads(fn, inputs)


def test_a_gather_gradient_adds_the_rows_of_repeated_indices(ipu_device, session_factory):
    """d/dtable of sum(c * table[ids]) is the scatter-add of c's rows at ids."""
    table, ids, c = uniform(5, 2), np.array([3, 1, 3, 3], np.uint32), uniform(4, 2)
    g = pd.Graph(ipu_device)
    t = g.variable(pd.float32, table.shape, name="table", init=table)
    i = g.variable(pd.uint32, ids.shape, name="ids", init=ids)
    weights = g.constant(c, name="c")
    with pd.Sequence() as main:
        dt = pd.grad((pd.gather(t, i) * weights).sum(), t)
    with session_factory(g, main) as s:
        s.run()
        expected = np.zeros((5, 2))
        np.add.at(expected, ids, c.astype(np.float64))
        assert_close(s.read(dt), expected)


@pytest.fixture
def operands():
    """A float tensor t [2, 3] and an integer one i [2]."""
    g = pd.Graph(pd.ipu_model(tiles=4))
    return g.variable(pd.float32, (2, 3), name="t"), g.variable(pd.int32, (2,), name="i")


@pytest.mark.parametrize("call, message", [
    (lambda t, i: pd.gather(t, t), "indices must be an integer tensor"),
    (lambda t, i: pd.gather(t, i, axis=2), "axis"),
    (lambda t, i: pd.topk(t, 5), "k"),
    (lambda t, i: pd.argmax(t, axis=3), "axis"),
    (lambda t, i: t @ t.graph.variable(pd.float32, (2, 2), name="b"), "matmul shapes do not agree"),
    (lambda t, i: t.reshape(2, 1, 3) @ t.graph.variable(pd.float32, (3, 3, 2), name="b"), "must broadcast"),
    (lambda t, i: pd.matmul(t, t.graph.variable(pd.float32, (3,), name="v"),
                            out=t.graph.variable(pd.float32, (2,), name="o")), "out= needs"),
    (lambda t, i: pd.nn.group_norm(t, 2), "3 channels do not split into 2 groups"),
    (lambda t, i: pd.nn.layer_norm(t, t.graph.variable(pd.float32, (2,), name="w")), "gamma must be"),
    (lambda t, i: pd.nn.layer_norm(i), "x must be a float"),
])
def test_bad_arguments_name_the_problem(call, message, operands):
    with pd.Sequence(), pytest.raises(pd.BuildError, match=message):
        call(*operands)


def test_a_convolution_gradient_pd_grad_cannot_build_is_refused():
    g = pd.Graph(pd.ipu_model(tiles=4))
    x, w = g.variable(pd.float32, (1, 1, 4), name="x"), g.variable(pd.float32, (1, 1, 1, 2), name="w")
    with pd.Sequence():
        y = pd.nn.conv(x, w, input_dilation=2).sum()
        with pytest.raises(pd.BuildError, match="input gradient of a convolution with input dilation"):
            pd.grad(y, x)
