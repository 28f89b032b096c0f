"""popnn/Loss.hpp (calcLoss, calcAccuracy, argMax/argMin, topK) against float64 numpy."""
import numpy as np
import pytest

from popdsl import poplar, popnn, poputil
from raw_runner import Runner

L = popnn.LossType
MASKED = 0xFFFFFFFF
rng = np.random.default_rng(7)


def probabilities(rows, classes):
    x = rng.uniform(0.05, 1.0, size=(rows, classes))
    return x / x.sum(axis=1, keepdims=True)


def reference_loss(p, labels, kind, deltas_scale=1.0, output_scale=1.0, eps=1.17549435e-38):
    onehot = np.zeros_like(p)
    for b, label in enumerate(labels):
        if label != MASKED:
            onehot[b, label] = 1.0
    if kind == L.SUM_SQUARED_LOSS:
        return 0.5 * ((p - onehot) ** 2).sum(axis=1), p - onehot
    deltas = deltas_scale / output_scale * (p - onehot * output_scale)
    deltas[np.asarray(labels) == MASKED] = 0.0
    loss = -(onehot * (np.log(p + eps) - np.log(output_scale))).sum(axis=1)
    return loss, deltas


def loss_tensors(r, p, labels, label_type=poplar.UNSIGNED_INT, ptype=poplar.FLOAT):
    outputs = r.tensor(p, ptype, "p")
    expected = r.tensor(np.asarray(labels), label_type, "labels")
    loss = r.tensor(np.zeros(p.shape[0]), ptype, "loss")
    deltas = r.tensor(np.zeros(p.shape), ptype, "deltas")
    return outputs, expected, loss, deltas


@pytest.mark.parametrize("kind", [L.SUM_SQUARED_LOSS, L.CROSS_ENTROPY_LOSS], ids=lambda k: k.name)
def test_calc_loss_and_accuracy(kind):
    p = probabilities(6, 5)
    labels = [0, 4, 2, MASKED, int(p[4].argmax()), int(p[5].argmax())]
    r = Runner()
    outputs, expected, loss, deltas = loss_tensors(r, p, labels, poplar.INT if kind == L.SUM_SQUARED_LOSS else poplar.UNSIGNED_INT)
    correct = r.tensor(np.zeros(1), poplar.UNSIGNED_INT, "correct")
    r.prog.add(popnn.calcLoss(r.graph, outputs, expected, loss, deltas, correct, kind, "loss"))
    got_loss, got_deltas, got_correct = r.run(loss, deltas, correct)
    want_loss, want_deltas = reference_loss(p.astype(np.float32).astype(np.float64), labels, kind)
    if kind == L.SUM_SQUARED_LOSS:  # a masked row has no one-hot entry: deltas are p itself
        want_deltas[3] = p[3]
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_deltas, want_deltas, rtol=1e-5, atol=1e-6)
    want_correct = sum(1 for b, label in enumerate(labels) if label != MASKED and p[b].argmax() == label)
    assert got_correct[0] == want_correct


def test_cross_entropy_scaling():
    p = probabilities(3, 4)
    labels = [1, 3, 0]
    r = Runner()
    outputs, expected, loss, deltas = loss_tensors(r, p * 8.0, labels)
    deltas_scale = r.tensor(np.array(16.0), poplar.FLOAT, "ds")
    output_scale = r.tensor(np.array([8.0]), poplar.FLOAT, "os")
    r.prog.add(popnn.calcLoss(r.graph, outputs, expected, loss, deltas, deltas_scale, output_scale,
                              L.CROSS_ENTROPY_LOSS))
    got_loss, got_deltas = r.run(loss, deltas)
    want_loss, want_deltas = reference_loss(p * 8.0, labels, L.CROSS_ENTROPY_LOSS, 16.0, 8.0)
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5)
    np.testing.assert_allclose(got_deltas, want_deltas, rtol=1e-5, atol=1e-5)


def test_half_cross_entropy_uses_half_epsilon():
    p = np.array([[0.0, 1.0], [0.5, 0.5]])
    r = Runner()
    outputs, expected, loss, deltas = loss_tensors(r, p, [0, 1], ptype=poplar.HALF)
    r.prog.add(popnn.calcLoss(r.graph, outputs, expected, loss, deltas, L.CROSS_ENTROPY_LOSS))
    (got_loss,) = r.run(loss)
    np.testing.assert_allclose(got_loss, [-np.log(5.9605e-8), -np.log(0.5)], rtol=2e-3)


def test_calc_loss_errors():
    r = Runner()
    p = probabilities(2, 3)
    outputs, expected, loss, deltas = loss_tensors(r, p, [0, 1])
    one = r.tensor(np.array(1.0), poplar.FLOAT, "one")
    with pytest.raises(poputil.poplibs_error, match="Loss scaling not implemented"):
        popnn.calcLoss(r.graph, outputs, expected, loss, deltas, one, one, L.SUM_SQUARED_LOSS)
    with pytest.raises(poputil.poplibs_error, match=r"calcLoss: Rank mismatch: modelOutputs 'p' \[3\] float must have rank 2"):
        popnn.calcLoss(r.graph, outputs[0], expected, loss, deltas, L.SUM_SQUARED_LOSS)
    with pytest.raises(poputil.poplibs_error, match=r"calcLoss: Dimension mismatch: dimension 1 of deltas"):
        popnn.calcLoss(r.graph, outputs, expected, loss, deltas.slice(0, 2, 1), L.SUM_SQUARED_LOSS)
    float_labels = r.tensor(np.zeros(2), poplar.FLOAT, "fl")
    with pytest.raises(poputil.poplibs_error, match="must hold integer labels"):
        popnn.calcLoss(r.graph, outputs, float_labels, loss, deltas, L.CROSS_ENTROPY_LOSS)
    with pytest.raises(poputil.poplibs_error, match="numCorrect .* must have exactly one element"):
        popnn.calcAccuracy(r.graph, outputs, expected, loss)


@pytest.mark.parametrize("ptype", [poplar.FLOAT, poplar.HALF, poplar.INT, poplar.UNSIGNED_INT])
def test_arg_max_min(ptype):
    x = rng.integers(0, 6, size=(5, 7)).astype(np.float64)  # small integers: ties on purpose
    r = Runner()
    t = r.tensor(x, ptype, "x")
    arg_max = popnn.argMax(r.graph, t, r.prog)
    arg_min = popnn.argMin(r.graph, t, r.prog)
    max_values, max_indices = popnn.maxAndArgMax(r.graph, t, r.prog)
    min_values, min_indices = popnn.minAndArgMin(r.graph, t, r.prog)
    outs = r.run(arg_max, arg_min, max_values, max_indices, min_values, min_indices)
    assert arg_max.elementType() == poplar.UNSIGNED_INT and max_values.elementType() == ptype
    for got, want in zip(outs, [x.argmax(1), x.argmin(1), x.max(1), x.argmax(1), x.min(1), x.argmin(1)]):
        np.testing.assert_array_equal(got, want)


def rows_with_ties_and_nans(length):
    """Rows of small integers (ties) in float, with NaNs: sprinkled, leading, the only value of
    a row, beside -inf, and a row whose extreme is last."""
    x = rng.integers(0, 5, size=(6, length)).astype(np.float64)
    x[0, rng.choice(length, length // 3, replace=False)] = np.nan
    x[1, :3] = np.nan
    x[2] = np.nan
    x[3] = -np.inf
    x[3, ::7] = np.nan
    x[4, -1], x[4, 0] = 9, -9
    return x


# Long rows (the kernel scans them in four chains, then finds the extreme's first place): the
# first place of the extreme, NaN never chosen but in a row of nothing else (then the last).
@pytest.mark.parametrize("length", [7, 301])
def test_arg_max_min_of_rows_with_ties_and_nans(length):
    x = rows_with_ties_and_nans(length)
    r = Runner()
    t = r.tensor(x, poplar.FLOAT, "x")
    max_values, max_indices = popnn.maxAndArgMax(r.graph, t, r.prog)
    min_values, min_indices = popnn.minAndArgMin(r.graph, t, r.prog)
    outs = r.run(max_indices, max_values, min_indices, min_values)
    def first_place(row, extreme):  # (np.nanargmax can pick a NaN beside -inf)
        numbers = ~np.isnan(row)
        return np.flatnonzero(numbers & (row == extreme(row[numbers])))[0] if numbers.any() else length - 1

    for (indices, values), extreme in zip([outs[:2], outs[2:]], [np.max, np.min]):
        want = np.array([first_place(row, extreme) for row in x])
        np.testing.assert_array_equal(indices, want)
        np.testing.assert_array_equal(values, x[np.arange(len(x)), want])


# Few of many (k * 8 < the row: one pass against the last of the best so far) and the rest:
# descending, NaN after every number, ties to the lower column.
@pytest.mark.parametrize("k, length", [(5, 301), (3, 8)])
@pytest.mark.parametrize("sort", [True, False])
def test_top_k_of_rows_with_ties_and_nans(k, length, sort):
    x = rows_with_ties_and_nans(length)
    r = Runner()
    values, indices = popnn.topK(r.graph, r.tensor(x, poplar.FLOAT, "x"), k, sort, r.prog)
    got_values, got_indices = r.run(values, indices)
    want = np.lexsort((-np.nan_to_num(x, nan=0), np.isnan(x)))[:, :k]  # numbers first, then by value; stable
    if not sort:
        want = np.sort(want, axis=1)
    np.testing.assert_array_equal(got_indices[:, 0], want)
    np.testing.assert_array_equal(got_values[:, 0], np.take_along_axis(x, want, 1))


def test_arg_max_errors():
    r = Runner()
    with pytest.raises(poputil.poplibs_error, match=r"argMax: Rank mismatch: input 'x' \[4\]"):
        popnn.argMax(r.graph, r.tensor(np.zeros(4), poplar.FLOAT, "x"), r.prog)
    with pytest.raises(poputil.poplibs_error, match="argMin: input 'b' .* must be FLOAT, HALF, INT or UNSIGNED_INT"):
        popnn.argMin(r.graph, r.tensor(np.zeros((2, 2)), poplar.BOOL, "b"), r.prog)


@pytest.mark.parametrize("sort", [True, False])
def test_top_k(sort):
    x = rng.permutation(24).reshape(3, 8).astype(np.float64)
    r = Runner()
    values, indices = popnn.topK(r.graph, r.tensor(x, poplar.FLOAT, "x"), 3, sort, r.prog)
    got_values, got_indices = r.run(values, indices)
    assert got_values.shape == (3, 1, 3) and got_indices.shape == (3, 1, 3)
    want = np.argsort(-x, axis=1, kind="stable")[:, :3]
    if not sort:
        want = np.sort(want, axis=1)
    np.testing.assert_array_equal(got_indices[:, 0], want)
    np.testing.assert_array_equal(got_values[:, 0], np.take_along_axis(x, want, 1))


def test_top_k_errors():
    r = Runner()
    x = r.tensor(np.zeros((2, 3)), poplar.FLOAT, "x")
    with pytest.raises(poputil.poplibs_error, match=r"topK: K \(4\) must not exceed dimension 1 of input 'x'"):
        popnn.topK(r.graph, x, 4, True, r.prog)


def test_serialized_executables_compute_the_same_losses():
    """Kernels are rebuilt from their parameters when an Executable is deserialized."""
    p = probabilities(4, 3)
    r = Runner()
    outputs, expected, loss, deltas = loss_tensors(r, p, [0, 2, 1, MASKED])
    correct = r.tensor(np.zeros(1), poplar.UNSIGNED_INT, "correct")
    r.prog.add(popnn.calcLoss(r.graph, outputs, expected, loss, deltas, correct, L.CROSS_ENTROPY_LOSS))
    values, indices = popnn.topK(r.graph, outputs, 2, True, r.prog)
    results = [loss, deltas, correct, values, indices, popnn.argMin(r.graph, outputs, r.prog)]
    original, reloaded = r.run_compiled_and_reloaded(*results)
    for a, b in zip(original, reloaded):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(original[5], p.argmin(1))
