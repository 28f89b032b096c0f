"""pd.mean and pd.nn's losses: values against numpy, gradients against finite differences."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close, check_grads
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

rng = np.random.default_rng(11)
LOGITS = rng.standard_normal((5, 4)).astype(np.float32)
LABELS = np.array([2, -100, 0, 3, 1], np.int32)  # row 1 is ignored


def numpy_log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def run(ipu_device, session_factory, fn, *arrays):
    g = pd.Graph(ipu_device)
    tensors = [g.constant(a, name=f"in{i}") for i, a in enumerate(arrays)]
    with pd.Sequence() as main:
        out = fn(*tensors)
    with session_factory(g, main) as s:
        s.run()
        return s.read(out)


def test_values_match_numpy(ipu_device, session_factory):
    x = LOGITS.astype(np.float64)
    assert_close(run(ipu_device, session_factory, pd.nn.log_softmax, LOGITS), numpy_log_softmax(x))
    kept = LABELS != -100
    expected = -numpy_log_softmax(x)[kept, LABELS[kept]].mean()
    assert_close(run(ipu_device, session_factory, pd.nn.cross_entropy, LOGITS, LABELS), expected)
    target = rng.standard_normal((5, 4)).astype(np.float32)
    assert_close(run(ipu_device, session_factory, pd.nn.mse, LOGITS, target), np.mean((x - target) ** 2))
    assert_close(run(ipu_device, session_factory, lambda t: pd.mean(t, 1), LOGITS), x.mean(1))
    assert_close(run(ipu_device, session_factory, lambda t: t.mean(), LOGITS), x.mean())
    assert_close(run(ipu_device, session_factory, lambda t: pd.var(t, 0), LOGITS), x.var(0))
    assert_close(run(ipu_device, session_factory, lambda t: t.var(), LOGITS), x.var())
    assert_close(run(ipu_device, session_factory, lambda y: pd.nn.one_hot(y, 4, np.float16), LABELS),
                 [[0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]])


def test_cross_entropy_takes_any_leading_shape_with_the_classes_last(ipu_device, session_factory):
    """[B, T, C] logits and [B, T] labels (a sequence model's): the mean over every kept position."""
    logits = rng.standard_normal((2, 3, 4)).astype(np.float32)
    labels = np.array([[1, 3, -100], [0, 0, 2]], np.int32)
    kept = labels != -100
    expected = -numpy_log_softmax(logits.astype(np.float64))[kept, labels[kept]].mean()
    assert_close(run(ipu_device, session_factory, pd.nn.cross_entropy, logits, labels), expected)


def test_cross_entropy_of_an_all_ignored_batch_is_zero(ipu_device, session_factory):
    ignored = np.full(5, 7, np.int32)
    loss = run(ipu_device, session_factory, lambda x, y: pd.nn.cross_entropy(x, y, ignore_index=7), LOGITS, ignored)
    assert_close(loss, 0.0)


@pytest.mark.parametrize("bad_label", [4, -1, 2 ** 31 - 1])
def test_a_label_outside_the_classes_makes_the_loss_nan(ipu_device, session_factory, bad_label):
    """torch raises for such a label; the device cannot, so the loss shows it."""
    labels = LABELS.copy()
    labels[3] = bad_label
    assert np.isnan(run(ipu_device, session_factory, pd.nn.cross_entropy, LOGITS, labels)).all()


LOSSES = {
    "log_softmax": (pd.nn.log_softmax, [LOGITS]),
    "cross_entropy": (pd.nn.cross_entropy, [LOGITS, LABELS]),
    "mse": (pd.nn.mse, [LOGITS, rng.standard_normal((5, 4)).astype(np.float32)]),
    "mean": (lambda t: pd.mean(t, 0), [LOGITS]),
    "var": (lambda t: pd.var(t, 1), [LOGITS]),
}


@pytest.mark.parametrize("case", list(LOSSES))
def test_gradients_match_finite_differences(case):
    fn, inputs = LOSSES[case]
    check_grads(fn, inputs)


def test_cross_entropy_gradient_is_softmax_minus_one_hot(ipu_device, session_factory):
    g = pd.Graph(ipu_device)
    logits, labels = g.constant(LOGITS, name="logits"), g.constant(LABELS, name="labels")
    with pd.Sequence() as main:
        (d_logits,) = pd.grad(pd.nn.cross_entropy(logits, labels), [logits])
    kept = LABELS != -100
    expected = np.exp(numpy_log_softmax(LOGITS.astype(np.float64)))
    expected[kept, LABELS[kept]] -= 1
    expected[~kept] = 0  # ignored rows get no gradient
    with session_factory(g, main) as s:
        s.run()
        assert_close(s.read(d_logits), expected / kept.sum())


@pytest.mark.parametrize("call, message", [
    (lambda x, i: pd.nn.cross_entropy(x, x), "labels \\[...\\] integers"),
    (lambda x, i: pd.nn.cross_entropy(x[0], i), "logits must be \\[..., C\\]"),
    (lambda x, i: pd.nn.cross_entropy(x.reshape(5, 2, 2), i), "of the same leading shape"),
    (lambda x, i: pd.nn.log_softmax(i), "x must be a float pd.Tensor"),
    (lambda x, i: pd.nn.mse(x, x[0]), "target must be a tensor shaped like prediction"),
    (lambda x, i: pd.nn.one_hot(x, 3), "labels must be an integer pd.Tensor"),
    (lambda x, i: pd.nn.one_hot(i, 0), "classes must be an int in \\[1, "),
])
def test_bad_arguments_are_refused(call, message):
    g = pd.Graph(pd.ipu_model(tiles=4))
    x, i = g.variable(pd.float32, (5, 4), name="x"), g.variable(pd.int32, (5,), name="i")
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=message):
            call(x, i)
