"""pd.optim against numpy implementations of PyTorch's SGD, Adam and AdamW updates."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

STEPS = 6
rng = np.random.default_rng(3)
W0 = rng.standard_normal((3, 4)).astype(np.float32)
GRADS = rng.standard_normal((STEPS, 3, 4)).astype(np.float32)
LEARNING_RATES = [0.1, 0.1, 0.1, 0.05, 0.05, 0.05]  # changed through opt.lr after three steps


def sgd_reference(lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
    w, buffer = W0.astype(np.float64), None
    for g, lr in zip(GRADS.astype(np.float64), LEARNING_RATES):
        g = g + weight_decay * w
        if momentum:
            buffer = g if buffer is None else momentum * buffer + (1 - dampening) * g
            g = g + momentum * buffer if nesterov else buffer
        w = w - lr * g
        yield w


def adam_reference(lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False):
    w, m, v = W0.astype(np.float64), 0.0, 0.0
    for t, (g, lr) in enumerate(zip(GRADS.astype(np.float64), LEARNING_RATES), 1):
        if decoupled:
            w = w * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * w
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        w = w - lr * (m / (1 - betas[0] ** t)) / (np.sqrt(v / (1 - betas[1] ** t)) + eps)
        yield w


CASES = {
    "sgd": (lambda: pd.optim.SGD(lr=0.1), sgd_reference(0.1)),
    "sgd momentum, dampening, weight decay": (
        lambda: pd.optim.SGD(lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.01),
        sgd_reference(0.1, momentum=0.9, dampening=0.2, weight_decay=0.01)),
    "sgd nesterov": (lambda: pd.optim.SGD(lr=0.1, momentum=0.8, nesterov=True, weight_decay=0.05),
                     sgd_reference(0.1, momentum=0.8, nesterov=True, weight_decay=0.05)),
    "adam": (lambda: pd.optim.Adam(lr=0.1), adam_reference(0.1)),
    "adam with l2": (lambda: pd.optim.Adam(lr=0.1, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
                     adam_reference(0.1, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    "adamw": (lambda: pd.optim.AdamW(lr=0.1, weight_decay=0.1),
              adam_reference(0.1, weight_decay=0.1, decoupled=True)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_steps_match_numpy(case, ipu_device, session_factory):
    make, expected = CASES[case]
    g = pd.Graph(ipu_device)
    w = g.variable(pd.float32, W0.shape, name="w", init=W0)
    grad = g.variable(pd.float32, W0.shape, name="grad")
    opt = make()
    with pd.Sequence() as step:
        opt.step([w], [grad])
    with session_factory(g, step) as s:
        for k, (gk, want) in enumerate(zip(GRADS, expected)):
            if k == 3:
                s.write(opt.lr, [0.05])
            s.write(grad, gk)
            s.run()
            assert_close(s.read(w), want, rtol=1e-5, atol=1e-5, err_msg=f"step {k + 1}")


def test_state_tensors_are_session_weights(ipu_device, session_factory):
    g = pd.Graph(ipu_device)
    w = g.variable(pd.float32, (2,), name="w", init=1.0)
    with pd.Sequence() as step:
        pd.optim.Adam(lr=0.5).step(w, g.constant(np.ones(2, np.float32), name="ones"))
    with session_factory(g, step) as s:
        s.run()
        weights = s.weights_to_host()
    assert {"w", "w/adam/m", "w/adam/v", "optim/adam/lr", "optim/adam/step"} <= set(weights)
    assert_close(weights["w/adam/m"], [0.1, 0.1])
    assert_close(weights["optim/adam/step"], [1.0])


def test_training_a_linear_model_with_grad_and_adam(ipu_device, session_factory):
    x = rng.standard_normal((8, 3)).astype(np.float32)
    target = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    w0 = np.zeros((3, 1), np.float32)
    g = pd.Graph(ipu_device)
    tx, tt = g.constant(x, name="x"), g.constant(target, name="target")
    w = g.variable(pd.float32, (3, 1), name="w", init=w0)
    opt = pd.optim.Adam(lr=0.05)
    with pd.Sequence() as train:
        loss = pd.reduce_sum_squares(tx @ w - tt)
        opt.step([w], pd.grad(loss, [w]))
    reference = w0.astype(np.float64)
    m = v = 0.0
    with session_factory(g, train) as s:
        for t in range(1, 11):
            s.run()
            grad = 2 * x.T.astype(np.float64) @ (x @ reference - target)
            m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad * grad
            reference = reference - 0.05 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
            assert_close(s.read(w), reference, rtol=1e-4, atol=1e-5, err_msg=f"step {t}")


@pytest.mark.parametrize("make, message", [
    (lambda: pd.optim.SGD(lr=-1.0), "lr must be a number in"),
    (lambda: pd.optim.SGD(lr=0.1, nesterov=True), "Nesterov momentum needs momentum > 0"),
    (lambda: pd.optim.Adam(betas=(0.9, 1.0)), "betas must be a number in"),
    (lambda: pd.optim.Adam(betas=0.9), "betas must be a pair"),
])
def test_bad_hyper_parameters_are_refused(make, message):
    with pytest.raises(pd.BuildError, match=message):
        make()


def test_mismatched_gradients_are_refused():
    g = pd.Graph(pd.ipu_model(tiles=4))
    w = g.variable(pd.float32, (2, 2), name="w")
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match="grads\\[0\\] .* must be a float tensor shaped like weights\\[0\\]"):
            pd.optim.SGD(lr=0.1).step([w], [g.variable(pd.float32, (4,), name="g")])
        with pytest.raises(pd.BuildError, match="as many gradients as weights"):
            pd.optim.SGD(lr=0.1).step([w], [])
