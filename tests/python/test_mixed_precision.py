"""Mixed precision training: float32 state and master copies for float16 weights, static and
dynamic loss scaling (steps with inf gradients skipped, the scale backed off and grown), and
clip_grad_norm, each against float64 numpy."""
import numpy as np
import pytest

import popdsl as pd


def adam_steps(w, grads, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """torch.optim.Adam in float64 over a list of gradients."""
    m = v = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        w = w - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
    return w


def test_a_float16_weight_takes_a_finite_adam_step(device):
    # Adam in float16 arithmetic: eps rounds to 0 and (1 - b2) g^2 underflows, giving -inf.
    g = pd.Graph(device)
    w = g.variable(pd.float16, (3,), name="w", init=np.ones(3))
    opt = pd.optim.Adam()
    with pd.Sequence() as main:
        opt.step([w], pd.grad((w * 1e-4).sum(), [w]))
    with pd.Session(g, main, device=device) as s:
        s.run()
        grad = np.float64(np.float16(1e-4))
        expected = adam_steps(np.ones(3), [np.full(3, grad)])
        np.testing.assert_array_equal(s.read(w), expected.astype(np.float16))
        np.testing.assert_allclose(s.read(opt.master(w)), expected, rtol=1e-7)
        assert opt.master(w).dtype == pd.float32 and opt.state[id(w)]["m"].dtype == pd.float32


def regression(device, dtype, steps, loss_scale=None, optimizer=None):
    """(weights after `steps` runs of one Adam step on a float `dtype` least-squares model, the
    optimizer, the session's reads of `extra` tensors per run)."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((16, 4)), rng.standard_normal((16, 2))
    g = pd.Graph(device)
    xv = g.variable(dtype, x.shape, name="x", init=x)
    yv = g.variable(dtype, y.shape, name="y", init=y)
    w = g.variable(dtype, (4, 2), name="w", init=np.full((4, 2), 0.1))
    opt = optimizer or pd.optim.Adam(lr=1e-2)
    with pd.Sequence() as main:
        loss = pd.square(xv @ w - yv).mean()
        objective = loss if loss_scale is None else loss_scale.scale(loss)
        opt.step([w], pd.grad(objective, [w]), loss_scale=loss_scale)
    with pd.Session(g, main, device=device) as s:
        history = []
        for _ in range(steps):
            s.run()
            history.append((s.read(w).astype(np.float64),
                            None if loss_scale is None else float(s.read(loss_scale.tensor)[0])))
    return x, y, history


def reference_regression(x, y, steps, lr=1e-2):
    w, grads = np.full((4, 2), 0.1), []
    m = v = np.zeros_like(w)
    for t in range(1, steps + 1):
        grad = 2 * x.T @ (x @ w - y) / y.size
        m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad * grad
        w = w - lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w


def test_float16_training_with_a_static_loss_scale_follows_the_float32_curve(device):
    scale = pd.optim.LossScale(1024.0, dynamic=False)
    x, y, history = regression(device, pd.float16, 20, loss_scale=scale)
    expected = reference_regression(x, y, 20)
    np.testing.assert_allclose(history[-1][0], expected, atol=5e-3)  # float16 forward and gradients
    assert all(s == 1024.0 for _, s in history)
    _, _, history32 = regression(device, pd.float32, 20)
    np.testing.assert_allclose(history32[-1][0], expected, rtol=1e-4, atol=1e-5)


def test_a_dynamic_scale_skips_overflowing_steps_then_trains(device):
    # 2**24 times gradients of about 1 overflows float16 (max 65504): each run skips the step
    # and halves the scale until the scaled gradients fit.
    scale = pd.optim.LossScale(2.0 ** 24, growth_interval=1000)
    x, y, history = regression(device, pd.float16, 14, loss_scale=scale)
    scales = [s for _, s in history]
    skipped = sum(1 for before, after in zip([2.0 ** 24] + scales, scales) if after < before)
    assert scales[:skipped] == [2.0 ** (23 - k) for k in range(skipped)] and 3 <= skipped <= 12, scales
    assert all(s == scales[skipped - 1] for s in scales[skipped:])
    initial = np.full((4, 2), 0.1)
    for weights, _ in history[:skipped]:
        np.testing.assert_array_equal(weights, initial.astype(np.float16).astype(np.float64))
    # The steps that ran are Adam's first steps (the skipped ones did not count).
    np.testing.assert_allclose(history[-1][0], reference_regression(x, y, 14 - skipped), atol=5e-3)


def test_a_dynamic_scale_grows_after_growth_interval_finite_steps(device):
    scale = pd.optim.LossScale(8.0, growth_interval=3, growth_factor=4.0)
    _, _, history = regression(device, pd.float32, 7, loss_scale=scale, optimizer=pd.optim.SGD(lr=0.01))
    assert [s for _, s in history] == [8.0, 8.0, 32.0, 32.0, 32.0, 128.0, 128.0]


def test_clip_grad_norm_matches_torchs_formula(device):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal(5)
    norm = np.sqrt((a ** 2).sum() + (b ** 2).sum())
    for max_norm in (0.5 * norm, 2 * norm):
        g = pd.Graph(device)
        av = g.variable(pd.float32, a.shape, name="a", init=a)
        bv = g.variable(pd.float16, b.shape, name="b", init=b)
        with pd.Sequence() as main:
            total = pd.optim.clip_grad_norm([av, bv], max_norm)
        with pd.Session(g, main, device=device) as s:
            s.run()
            coefficient = min(max_norm / (norm + 1e-6), 1.0)
            np.testing.assert_allclose(s.read(total), [norm], rtol=1e-3)  # b is float16
            np.testing.assert_allclose(s.read(av), a * coefficient, rtol=1e-5)
            np.testing.assert_allclose(s.read(bv), (b.astype(np.float16) * coefficient).astype(np.float16),
                                       rtol=2e-3)


def test_clip_grad_norm_of_scaled_gradients_compares_unscaled(device):
    g = pd.Graph(device)
    w = g.variable(pd.float32, (4,), name="w", init=np.array([3.0, 0.0, 4.0, 0.0]))
    scale = pd.optim.LossScale(16.0, dynamic=False)
    with pd.Sequence() as main:
        grads = pd.grad(scale.scale((w * w).sum() * 0.5), [w])  # gradient w, scaled: 16 w
        norm = pd.optim.clip_grad_norm(grads, 1.0, loss_scale=scale)
        clipped = grads[0] * 1.0
    with pd.Session(g, main, device=device) as s:
        s.run()
        np.testing.assert_allclose(s.read(norm), [5.0], rtol=1e-6)
        np.testing.assert_allclose(s.read(clipped), 16 * np.array([3.0, 0.0, 4.0, 0.0]) / (5.0 + 1e-6), rtol=1e-5)


def test_refusals_name_the_argument(device):
    g = pd.Graph(device)
    w = g.variable(pd.float32, (2,), name="w")
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match="loss_scale must be a pd.optim.LossScale"):
            pd.optim.SGD(0.1).step([w], [w * 1.0], loss_scale=2.0)
        with pytest.raises(pd.BuildError, match="max_norm must be a number > 0"):
            pd.optim.clip_grad_norm([w], 0)
    with pytest.raises(pd.BuildError, match="init_scale must be a finite number"):
        pd.optim.LossScale(-1.0)
    with pytest.raises(pd.BuildError, match="growth_interval must be an int >= 1"):
        pd.optim.LossScale(growth_interval=0)
    with pytest.raises(pd.BuildError, match="backoff_factor"):
        pd.optim.LossScale(backoff_factor=2.0)


@pytest.mark.parametrize("dtype", [pd.float32, pd.float16])
def test_accumulated_micro_batches_step_like_the_whole_batch(device, dtype):
    """4 micro-batches of 8 rows streamed in one run, their mean gradient, one SGD step with
    momentum; 3 runs (device iterations from the host) equal 3 large-batch steps in float64."""
    rng = np.random.default_rng(7)
    micro, rows, features = 4, 8, 5
    x, y = rng.standard_normal((3, micro, rows, features)), rng.standard_normal((3, micro, rows, 1))
    g = pd.Graph(device)
    w = g.variable(dtype, (features, 1), name="w", init=np.zeros((features, 1)))
    xs = g.host_to_device(dtype, (rows, features), name="xs")
    ys = g.host_to_device(dtype, (rows, 1), name="ys")
    opt = pd.optim.SGD(lr=0.1, momentum=0.9)
    accumulator = pd.optim.GradientAccumulator([w])
    with pd.Sequence() as step:
        with pd.Repeat(micro):
            loss = pd.square(xs.read() @ w - ys.read()).mean()
            accumulator.add(pd.grad(loss, [w]))
        opt.step([w], accumulator.mean())
        accumulator.zero()
    with pd.Session(g, step, device=device) as s:
        for run in range(3):
            s.run(feeds={xs: x[run], ys: y[run]})
        result = s.read(opt.master(w))
    expected, buffer = np.zeros((features, 1)), None
    for run in range(3):
        bx, by = x[run].reshape(-1, features), y[run].reshape(-1, 1)
        if dtype == pd.float16:
            bx, by = bx.astype(np.float16).astype(np.float64), by.astype(np.float16).astype(np.float64)
        grad = 2 * bx.T @ (bx @ expected - by) / len(by)
        buffer = grad if buffer is None else 0.9 * buffer + grad
        expected = expected - 0.1 * buffer
    np.testing.assert_allclose(result, expected, rtol=1e-5 if dtype == pd.float32 else 2e-2, atol=1e-6 if
                               dtype == pd.float32 else 5e-3)


def test_optimizer_state_saved_as_numpy_resumes_training_exactly(device, tmp_path):
    """3 Adam steps, the weights and optimizer state to an .npz, a fresh session of the same
    graph loads them and takes 2 more: equal to 5 steps in one session, and to float64 Adam."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((8, 3)), rng.standard_normal((8, 1))
    g = pd.Graph(device)
    xv, yv = g.variable(pd.float32, x.shape, name="x", init=x), g.variable(pd.float32, y.shape, name="y", init=y)
    w = g.variable(pd.float16, (3, 1), name="w", init=np.full((3, 1), 0.5))
    opt = pd.optim.Adam(lr=0.01)
    with pd.Sequence() as step:
        opt.step([w], pd.grad(pd.square(xv @ pd.cast(w, pd.float32) - yv).mean(), [w]))
    with pd.Session(g, step, device=device) as s:
        for _ in range(3):
            s.run()
        np.savez(tmp_path / "checkpoint.npz", w=s.read(w), **opt.state_dict(s))
        for _ in range(2):
            s.run()
        straight = s.read(opt.master(w))
    assert set(opt.state_dict(s)) == {"optim/adam/step", "optim/adam/lr", "w/adam/master", "w/adam/m", "w/adam/v"}
    with pd.Session(g, step, device=device) as s, np.load(tmp_path / "checkpoint.npz") as saved:
        s.write(w, saved["w"])
        opt.load_state_dict(s, {name: saved[name] for name in saved.files if name != "w"})
        for _ in range(2):
            s.run()
        np.testing.assert_array_equal(s.read(opt.master(w)), straight)
        with pytest.raises(pd.BuildError, match="needs the state"):
            opt.load_state_dict(s, {"optim/adam/step": np.ones(1)})
    w64, grads = np.full((3, 1), 0.5), []
    m = v = np.zeros_like(w64)
    for t in range(1, 6):
        grad = 2 * x.T @ (x @ w64.astype(np.float16).astype(np.float64) - y) / len(y)
        m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad * grad
        w64 = w64 - 0.01 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    np.testing.assert_allclose(straight, w64, atol=2e-3)
