"""The accumulate-semantics audit (docs/accumulate_semantics.rst): every poplibs function
whose documentation says an output is accumulated, updated in place or overwritten,
run with a nonzero initial value in that output and compared with float64 numpy.

One test per row of the docs table; keep the two in step."""
import numpy as np
import pytest

from popdsl import poplar, poplin, popnn, popops, poputil, program
from raw_runner import Runner

rng = np.random.default_rng(44)
Op = popops.Operation


def initial(shape, low=1.0, high=3.0):
    """A nonzero starting value for an accumulated output."""
    return rng.uniform(low, high, size=shape)


def close(got, want, rtol=1e-5):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6)


def probabilities(rows, classes):
    x = rng.uniform(0.05, 1.0, size=(rows, classes))
    return x / x.sum(axis=1, keepdims=True)


def correct_count(p, labels):
    return sum(1 for b, label in enumerate(labels) if p[b].argmax() == label)


# popnn/Loss.hpp -----------------------------------------------------------------------

def test_calc_accuracy_adds_to_num_correct():
    p = probabilities(6, 4)
    labels = [int(p[b].argmax()) if b % 2 else (int(p[b].argmax()) + 1) % 4 for b in range(6)]
    r = Runner()
    correct = r.tensor(np.array([5]), poplar.UNSIGNED_INT, "correct")
    r.prog.add(popnn.calcAccuracy(r.graph, r.tensor(p, poplar.FLOAT, "p"),
                                  r.tensor(labels, poplar.UNSIGNED_INT, "labels"), correct))
    (got,) = r.run(correct)
    assert got[0] == 5 + correct_count(p, labels) == 8


def test_calc_loss_adds_to_num_correct_and_overwrites_loss():
    p = probabilities(4, 3)
    labels = [int(p[b].argmax()) for b in range(4)]
    r = Runner()
    loss = r.tensor(initial(4), poplar.FLOAT, "loss")
    deltas = r.tensor(initial((4, 3)), poplar.FLOAT, "deltas")
    correct = r.tensor(np.array([2]), poplar.UNSIGNED_INT, "correct")
    r.prog.add(popnn.calcLoss(r.graph, r.tensor(p, poplar.FLOAT, "p"), r.tensor(labels, poplar.INT, "labels"),
                              loss, deltas, correct, popnn.LossType.SUM_SQUARED_LOSS))
    got_loss, got_correct = r.run(loss, correct)
    onehot = np.eye(3)[labels]
    close(got_loss, 0.5 * ((p - onehot) ** 2).sum(axis=1))
    assert got_correct[0] == 2 + 4


def test_calc_accuracy_counts_over_a_repeat():
    """A training loop's view: two batches in a Repeat add up, as on hardware."""
    p = probabilities(4, 3)
    labels = [int(p[0].argmax()), 0, int(p[2].argmax()), 1]
    r = Runner()
    correct = r.tensor(np.array([0]), poplar.UNSIGNED_INT, "correct")
    body = popnn.calcAccuracy(r.graph, r.tensor(p, poplar.FLOAT, "p"),
                              r.tensor(labels, poplar.UNSIGNED_INT, "labels"), correct)
    r.prog.add(program.Repeat(3, body))
    (got,) = r.run(correct)
    assert got[0] == 3 * correct_count(p, labels)


# popops/ScaledAdd.hpp -----------------------------------------------------------------

@pytest.mark.parametrize("subtract", [False, True], ids=["scaledAddTo", "scaledSubtractFrom"])
def test_scaled_add_to_accumulates(subtract):
    a0, b = initial((3, 5)), rng.normal(size=(3, 5))
    r = Runner()
    A, B = r.tensor(a0, poplar.FLOAT, "A"), r.tensor(b, poplar.FLOAT, "B")
    fn = popops.scaledSubtractFrom if subtract else popops.scaledAddTo
    fn(r.graph, A, B, 0.5, r.prog)
    (got,) = r.run(A)
    close(got, a0 - 0.5 * b if subtract else a0 + 0.5 * b)


@pytest.mark.parametrize("subtract", [False, True], ids=["scaledAddTo", "scaledSubtractFrom"])
def test_scaled_add_to_with_scale_a(subtract):
    a0, b = initial((2, 7)), rng.normal(size=(2, 7))
    r = Runner()
    A, B = r.tensor(a0, poplar.FLOAT, "A"), r.tensor(b, poplar.FLOAT, "B")
    fn = popops.scaledSubtractFrom if subtract else popops.scaledAddTo
    fn(r.graph, A, 0.25, B, 3.0, r.prog)
    (got,) = r.run(A)
    close(got, 0.25 * a0 - 3.0 * b if subtract else 0.25 * a0 + 3.0 * b)


# popops/Reduce.hpp --------------------------------------------------------------------

def run_reduce_with_output(x, out0, params_for):
    r = Runner()
    out = r.tensor(out0, poplar.FLOAT, "out")
    popops.reduceWithOutput(r.graph, r.tensor(x, poplar.FLOAT, "x"), out, [0], params_for(r), r.prog)
    return r.run(out)[0]


def test_reduce_with_output_without_update_overwrites():
    x, out0 = rng.normal(size=(4, 3)), initial(3)
    close(run_reduce_with_output(x, out0, lambda r: popops.ReduceParams(Op.ADD)), x.sum(axis=0))


def test_reduce_with_output_update_adds():
    x, out0 = rng.normal(size=(4, 3)), initial(3)
    close(run_reduce_with_output(x, out0, lambda r: popops.ReduceParams(Op.ADD, True)), out0 + x.sum(axis=0))


def test_reduce_with_output_update_scales_only_the_reduction():
    x, out0 = rng.normal(size=(4, 3)), initial(3)
    got = run_reduce_with_output(
        x, out0, lambda r: popops.ReduceParams(Op.ADD, True, r.tensor(np.array([0.5]), poplar.FLOAT, "k")))
    close(got, out0 + 0.5 * x.sum(axis=0))


def test_reduce_with_output_square_add_update():
    x, out0 = rng.normal(size=(4, 3)), initial(3)
    got = run_reduce_with_output(x, out0, lambda r: popops.ReduceParams(Op.SQUARE_ADD, True))
    close(got, out0 + (x ** 2).sum(axis=0))


def test_reduce_with_output_log_add_update_is_a_log_add():
    x, out0 = rng.normal(size=(4, 3)), initial(3)
    got = run_reduce_with_output(x, out0, lambda r: popops.ReduceParams(Op.LOG_ADD, True))
    close(got, np.logaddexp(out0, np.logaddexp.reduce(x, axis=0)))


def test_reduce_with_output_update_rejected_for_max():
    r = Runner()
    x, out = r.tensor(rng.normal(size=(4, 3)), poplar.FLOAT, "x"), r.tensor(initial(3), poplar.FLOAT, "out")
    with pytest.raises(poputil.poplibs_error, match="update"):
        popops.reduceWithOutput(r.graph, x, out, [0], popops.ReduceParams(Op.MAX, True), r.prog)


def test_reduce_many_update_adds():
    x, y, out0 = rng.normal(size=(4, 3)), rng.normal(size=(2, 3)), initial((2, 3))
    r = Runner()
    outs = [r.tensor(out0[0], poplar.FLOAT, "o0"), r.tensor(out0[1], poplar.FLOAT, "o1")]
    ops = [popops.SingleReduceOp(r.tensor(x, poplar.FLOAT, "x"), [0], popops.ReduceParams(Op.ADD, True)),
           popops.SingleReduceOp(r.tensor(y, poplar.FLOAT, "y"), [0], popops.ReduceParams(Op.ADD, False))]
    popops.reduceMany(r.graph, ops, outs, r.prog)
    got0, got1 = r.run(*outs)
    close(got0, out0[0] + x.sum(axis=0))
    close(got1, y.sum(axis=0))


# popops/DynamicSlice.hpp --------------------------------------------------------------

def run_multi_update(kind, t0, s, idx):
    r = Runner()
    t = r.tensor(t0, poplar.FLOAT, "t")
    S = r.tensor(s, poplar.FLOAT, "s")
    offsets = r.tensor(np.asarray(idx).reshape(-1, 1), poplar.UNSIGNED_INT, "offsets")
    plan = popops.SlicePlan()
    if kind == "add":
        scale = r.tensor(np.array([0.5]), poplar.FLOAT, "scale")
        popops.multiUpdateAdd(r.graph, t, S, offsets, scale, [0], [1], r.prog, plan, {})
    else:
        fn = {"max": popops.multiUpdateMax, "mul": popops.multiUpdateMul, "set": popops.multiUpdate}[kind]
        fn(r.graph, t, S, offsets, [0], [1], r.prog, plan, {})
    return r.run(t)[0]


@pytest.mark.parametrize("kind", ["add", "max", "mul", "set"])
def test_multi_update_variants(kind):
    t0, s, idx = initial((5, 3)), rng.uniform(0.0, 4.0, size=(3, 1, 3)), [4, 1, 4]
    want = t0.copy()
    for n, i in enumerate(idx):
        want[i] = {"add": lambda: want[i] + 0.5 * s[n, 0], "max": lambda: np.maximum(want[i], s[n, 0]),
                   "mul": lambda: want[i] * s[n, 0], "set": lambda: s[n, 0]}[kind]()
    close(run_multi_update(kind, t0, s, idx), want)


def test_grouped_multi_update_add():
    t0, s = initial((2, 4, 3)), rng.normal(size=(2, 2, 1, 3))
    idx = np.array([[[3], [3]], [[0], [2]]])
    r = Runner()
    t = r.tensor(t0, poplar.FLOAT, "t")
    scale = r.tensor(np.array([2.0]), poplar.FLOAT, "scale")
    popops.groupedMultiUpdateAdd(r.graph, t, r.tensor(s, poplar.FLOAT, "s"),
                                 r.tensor(idx, poplar.UNSIGNED_INT, "offsets"), scale, [0], [1], r.prog,
                                 popops.embedding.plan(r.graph, poplar.FLOAT, 2, 4, 3, [2], {}), {})
    want = t0.copy()
    for g in range(2):
        for n in range(2):
            want[g, idx[g, n, 0]] += 2.0 * s[g, n, 0]
    close(r.run(t)[0], want)


def test_dynamic_update_writes_only_the_slice():
    t0, s = initial((4, 3)), rng.normal(size=(1, 3))
    r = Runner()
    t = r.tensor(t0, poplar.FLOAT, "t")
    popops.dynamicUpdate(r.graph, t, r.tensor(s, poplar.FLOAT, "s"),
                         r.tensor(np.array([2]), poplar.UNSIGNED_INT, "offset"), [0], [1], r.prog)
    want = t0.copy()
    want[2] = s[0]
    close(r.run(t)[0], want)


# popops/GatherStatistics.hpp ----------------------------------------------------------

@pytest.mark.parametrize("update", [True, False])
def test_histogram_update_adds_counts(update):
    x, levels = rng.normal(size=40), np.array([-1.0, 0.0, 1.0])
    out0 = np.array([7, 1, 2, 3])
    r = Runner()
    out = r.tensor(out0, poplar.UNSIGNED_INT, "hist")
    popops.histogram(r.graph, r.tensor(x, poplar.FLOAT, "x"), out, update,
                     r.tensor(levels, poplar.FLOAT, "levels"), False, r.prog)
    counts = np.histogram(x, bins=[-np.inf, *levels, np.inf])[0]
    np.testing.assert_array_equal(r.run(out)[0], out0 * update + counts)


# popops/Sort.hpp, UpdateScalarInRows.hpp, SequenceSlice.hpp ---------------------------

def test_sort_in_place():
    x = rng.normal(size=(3, 6))
    r = Runner()
    t = r.tensor(x, poplar.FLOAT, "t")
    popops.sortInPlace(r.graph, t, 1, r.prog)
    close(r.run(t)[0], np.sort(x.astype(np.float32), axis=1))


def test_sort_key_value_in_place():
    k, v = rng.permutation(8).astype(np.float64), initial(8)
    r = Runner()
    K, V = r.tensor(k, poplar.FLOAT, "k"), r.tensor(v, poplar.FLOAT, "v")
    popops.sortKeyValueInPlace(r.graph, K, V, 0, r.prog)
    got_k, got_v = r.run(K, V)
    order = np.argsort(k)
    close(got_k, k[order])
    close(got_v, v[order])


def test_update_scalar_in_rows_subtracts_one():
    x, idx = initial((3, 4)), [2, 0xFFFFFFFF, 0]
    r = Runner()
    t = r.tensor(x, poplar.FLOAT, "t")
    popops.updateScalarInRows(r.graph, t, r.tensor(idx, poplar.UNSIGNED_INT, "idx"), r.prog)
    want = x.copy()
    want[0, 2] -= 1.0
    want[2, 0] -= 1.0
    close(r.run(t)[0], want)


@pytest.mark.parametrize("zero_unused", [False, True])
def test_sequence_slice_keeps_or_zeroes_unreferenced_rows(zero_unused):
    src, dst0 = rng.normal(size=(5, 2)), initial((6, 2))
    n, in_off, out_off = [2, 1], [0, 4], [1, 5]
    r = Runner()
    out = r.tensor(dst0, poplar.FLOAT, "out")
    u = poplar.UNSIGNED_INT
    popops.sequenceSlice(r.graph, r.tensor(src, poplar.FLOAT, "in"), out, r.tensor(n, u, "n"),
                         r.tensor(in_off, u, "inOff"), r.tensor(out_off, u, "outOff"), zero_unused, r.prog)
    want = np.zeros_like(dst0) if zero_unused else dst0.copy()
    for count, i, o in zip(n, in_off, out_off):
        want[o:o + count] = src[i:i + count]
    close(r.run(out)[0], want)


# popops/ElementWise.hpp, Cast.hpp ----------------------------------------------------

def test_map_with_output_overwrites():
    a, b, out0 = rng.normal(size=6), rng.normal(size=6), initial(6)
    r = Runner()
    out = r.tensor(out0, poplar.FLOAT, "out")
    popops.mapWithOutput(r.graph, popops.expr.BinaryOpType.ADD, r.tensor(a, poplar.FLOAT, "a"),
                         r.tensor(b, poplar.FLOAT, "b"), out, r.prog)
    close(r.run(out)[0], a + b)


def test_add_in_place_updates_the_first_operand():
    a0, b = initial(6), rng.normal(size=6)
    r = Runner()
    A = r.tensor(a0, poplar.FLOAT, "A")
    popops.addInPlace(r.graph, A, r.tensor(b, poplar.FLOAT, "b"), r.prog)
    close(r.run(A)[0], a0 + b)


def test_cast_with_output_overwrites():
    x, out0 = rng.normal(size=5), initial(5)
    r = Runner()
    out = r.tensor(out0, poplar.HALF, "out")
    popops.castWithOutput(r.graph, r.tensor(x, poplar.FLOAT, "x"), out, r.prog)
    close(r.run(out)[0], x.astype(np.float16), rtol=1e-3)


# poplin/MatMul.hpp --------------------------------------------------------------------

def test_mat_mul_acc_adds_k_times_the_product():
    a, b, c0 = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), initial((3, 2))
    r = Runner()
    C = r.tensor(c0, poplar.FLOAT, "C")
    poplin.matMulAcc(r.graph, C, -0.5, r.tensor(a, poplar.FLOAT, "A"), r.tensor(b, poplar.FLOAT, "B"), r.prog)
    close(r.run(C)[0], c0 - 0.5 * a @ b)


def test_mat_mul_grouped_acc_adds_k_times_the_product():
    a, b, c0 = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 2)), initial((2, 3, 2))
    r = Runner()
    C = r.tensor(c0, poplar.FLOAT, "C")
    k = r.tensor(np.array([2.0]), poplar.FLOAT, "k")
    poplin.matMulGroupedAcc(r.graph, C, k, r.tensor(a, poplar.FLOAT, "A"), r.tensor(b, poplar.FLOAT, "B"),
                            r.prog)
    close(r.run(C)[0], c0 + 2.0 * a @ b)


def test_mat_mul_with_output_overwrites():
    a, b, c0 = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), initial((3, 2))
    r = Runner()
    C = r.tensor(c0, poplar.FLOAT, "C")
    poplin.matMulWithOutput(r.graph, r.tensor(a, poplar.FLOAT, "A"), r.tensor(b, poplar.FLOAT, "B"), C, r.prog)
    close(r.run(C)[0], a @ b)


# poplin/Convolution.hpp ---------------------------------------------------------------

def test_convolution_weight_update_adds_scale_times_the_gradient():
    x, dy = rng.normal(size=(2, 3, 5)), rng.normal(size=(2, 4, 3))
    w0 = initial((1, 4, 3, 3))
    r = Runner()
    params = poplin.ConvParams(poplar.FLOAT, 2, [5], [3], 3, 4, 1)
    W = r.tensor(w0, poplar.FLOAT, "W")
    poplin.convolutionWeightUpdate(r.graph, r.tensor(dy, poplar.FLOAT, "dy"), W, r.tensor(x, poplar.FLOAT, "x"),
                                   params, -0.5, r.prog)
    # dW[o][i][k] = sum over batch and output position p of dy[b][o][p] * x[b][i][p + k]
    grad = np.zeros((4, 3, 3))
    for k in range(3):
        grad[:, :, k] = np.einsum("bop,bip->oi", dy, x[:, :, k:k + 3])
    close(r.run(W)[0], w0 - 0.5 * grad[None], rtol=1e-4)


def test_convolution_bias_update_adds_scale_times_the_sum():
    dy, b0 = rng.normal(size=(2, 4, 3)), initial(4)
    r = Runner()
    biases = r.tensor(b0, poplar.FLOAT, "b")
    poplin.convolutionBiasUpdate(r.graph, r.tensor(dy, poplar.FLOAT, "dy"), biases, 0.25, {}, r.prog)
    close(r.run(biases)[0], b0 + 0.25 * dy.sum(axis=(0, 2)))


def test_add_bias_adds_in_place():
    acts0, bias = initial((2, 4, 3)), rng.normal(size=4)
    r = Runner()
    acts = r.tensor(acts0, poplar.FLOAT, "acts")
    poplin.addBias(r.graph, acts, r.tensor(bias, poplar.FLOAT, "bias"), r.prog)
    close(r.run(acts)[0], acts0 + bias[None, :, None])


# popnn norms: *ParamUpdate ------------------------------------------------------------

@pytest.mark.parametrize("module,fn", [("bn", "batchNormParamUpdate"), ("gn", "groupNormParamUpdate"),
                                       ("ln", "layerNormParamUpdate"), ("in_", "instanceNormParamUpdate")])
def test_norm_param_update_adds_scale_times_the_deltas(module, fn):
    g0, b0, dg, db = initial(4), initial(4), rng.normal(size=4), rng.normal(size=4)
    r = Runner()
    gamma, beta = r.tensor(g0, poplar.FLOAT, "gamma"), r.tensor(b0, poplar.FLOAT, "beta")
    getattr(getattr(popnn, module), fn)(r.graph, r.tensor(dg, poplar.FLOAT, "dg"), r.tensor(db, poplar.FLOAT, "db"),
                                        -0.1, gamma, beta, r.prog)
    got_g, got_b = r.run(gamma, beta)
    close(got_g, g0 - 0.1 * dg)
    close(got_b, b0 - 0.1 * db)


# popnn/NonLinearity.hpp ---------------------------------------------------------------

def test_non_linearity_in_place():
    x = rng.normal(size=(3, 4))
    r = Runner()
    t = r.tensor(x, poplar.FLOAT, "t")
    popnn.nonLinearityInPlace(r.graph, popnn.NonLinearityType.RELU, t, r.prog)
    close(r.run(t)[0], np.maximum(x, 0.0))


def test_log_softmax_in_place():
    x = rng.normal(size=(3, 5))
    r = Runner()
    t = r.tensor(x, poplar.FLOAT, "t")
    popnn.logSoftmaxInPlace(r.graph, t, r.prog)
    close(r.run(t)[0], x - np.logaddexp.reduce(x, axis=1, keepdims=True))


# popops/Encoding.hpp, DynamicSlice.hpp: outputs written whole -------------------------

def test_encode_one_hot_overwrites():
    idx, out0 = [2, 0, 3], initial((3, 4))
    r = Runner()
    out = r.tensor(out0, poplar.FLOAT, "encoded")
    popops.encodeOneHot(r.graph, r.tensor(idx, poplar.UNSIGNED_INT, "idx"), out, r.prog)
    close(r.run(out)[0], np.eye(4)[idx])


def test_dynamic_slice_with_output_overwrites():
    x, out0 = rng.normal(size=(4, 3)), initial((2, 3))
    r = Runner()
    out = r.tensor(out0, poplar.FLOAT, "out")
    popops.dynamicSliceWithOutput(r.graph, out, r.tensor(x, poplar.FLOAT, "t"),
                                  r.tensor(np.array([1]), poplar.UNSIGNED_INT, "offset"), [0], [2], r.prog)
    close(r.run(out)[0], x[1:3])
