"""pd.fori_loop: JAX's explicit-carry loop over pd.Repeat, against float64 numpy loops, with
pd.grad through it against a numpy backward pass, and what it refuses."""
import numpy as np
import pytest

import popdsl as pd

rng = np.random.default_rng(45)


def uniform(*shape):
    return rng.uniform(-1.0, 1.0, shape).astype(np.float32)


def run(g, main, *tensors):
    with pd.Session(g, main) as s:  # on a simulator device of the graph's target
        s.run()
        return [s.read(t) for t in tensors]


def graph():
    return pd.Graph(pd.ipu_model(tiles=4))


def test_a_tuple_carry_runs_like_a_python_loop():
    x = uniform(5, 3)
    g = graph()
    xs = g.constant(x, name="xs")
    zeros, ones = g.constant(np.zeros(3, np.float32)), g.constant(np.ones(3, np.float32))

    def body(i, carry):
        total, scale = carry
        return total + xs.at[i].get() * scale, scale * 2.0

    with pd.Sequence() as main:
        total, scale = pd.fori_loop(5, body, (zeros, ones))
    got_total, got_scale, got_zeros = run(g, main, total, scale, zeros)
    expected_total, expected_scale = np.zeros(3), np.ones(3)
    for i in range(5):
        expected_total, expected_scale = expected_total + x[i].astype(np.float64) * expected_scale, expected_scale * 2
    np.testing.assert_allclose(got_total, expected_total, rtol=1e-6)
    np.testing.assert_array_equal(got_scale, expected_scale)
    np.testing.assert_array_equal(got_zeros, np.zeros(3))  # the initial carry keeps its values


def test_the_index_counts_from_zero_and_a_list_carry_stays_a_list():
    g = graph()
    start = g.constant(np.zeros(1, np.int32))
    with pd.Sequence() as main:
        result = pd.fori_loop(4, lambda i, c: [c[0] + i.reshape(1) * i.reshape(1)], [start])
    assert isinstance(result, list)
    (got,) = run(g, main, result[0])
    np.testing.assert_array_equal(got, [sum(i * i for i in range(4))])


def test_a_body_may_return_the_carry_swapped_reversed_or_unchanged():
    a0, b0, c0 = uniform(4), uniform(4), uniform(4)
    g = graph()
    a, b, c = (g.constant(v) for v in (a0, b0, c0))
    with pd.Sequence() as main:
        out = pd.fori_loop(3, lambda i, carry: (carry[1], carry[0][::-1], carry[2]), (a, b, c))
    got = run(g, main, *out)
    ea, eb, ec = a0.copy(), b0.copy(), c0.copy()
    for _ in range(3):
        ea, eb = eb, ea[::-1]
    for have, want in zip(got, (ea, eb, ec)):
        np.testing.assert_array_equal(have, want)


def test_no_iterations_return_the_initial_carry():
    g = graph()
    h0 = uniform(2, 2)
    h = g.constant(h0)
    with pd.Sequence() as main:
        out = pd.fori_loop(0, lambda i, c: c * 3.0, h)
    (got,) = run(g, main, out)
    np.testing.assert_array_equal(got, h0)


def test_pd_grad_differentiates_through_the_loop():
    """h = tanh(h * w + x[i]) for each row of x; loss = sum(h); d loss / d w and d loss / d h0
    against a numpy float64 backward pass of the same recurrence."""
    n = 4
    x, w0, h0 = uniform(n, 3), uniform(3), uniform(3)
    g = graph()
    xs = g.constant(x, name="xs")
    w, h_init = g.variable(pd.float32, (3,), name="w", init=w0), g.variable(pd.float32, (3,), name="h0", init=h0)
    with pd.Sequence() as main:
        h = pd.fori_loop(n, lambda i, h: pd.tanh(h * w + xs.at[i].get()), h_init)
        loss = pd.reduce_sum(h)
        dw, dh0 = pd.grad(loss, [w, h_init])
    got_h, got_dw, got_dh0 = run(g, main, h, dw, dh0)

    x, w0, h0 = x.astype(np.float64), w0.astype(np.float64), h0.astype(np.float64)
    hs = [h0]
    for i in range(n):
        hs.append(np.tanh(hs[-1] * w0 + x[i]))
    grad_h, grad_w = np.ones(3), np.zeros(3)
    for i in reversed(range(n)):
        pre = grad_h * (1 - hs[i + 1] ** 2)
        grad_w += pre * hs[i]
        grad_h = pre * w0
    np.testing.assert_allclose(got_h, hs[-1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_dw, grad_w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_dh0, grad_h, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("n, body, carry, message", [
    (-1, lambda i, c: c, "t", r"pd.fori_loop: n must be an int in \[0,"),
    (2, "not a function", "t", r"pd.fori_loop: body must be a function"),
    (2, lambda i, c: c, "numbers", r"pd.fori_loop: carry must be a pd.Tensor or a non-empty tuple or list"),
    (2, lambda i, c: c, "empty", r"pd.fori_loop: carry must be a pd.Tensor or a non-empty tuple or list"),
    (2, lambda i, c: (c, c), "t", r"the body returned 2 tensor\(s\); the carry has 1"),
    (2, lambda i, c: c.reshape(4), "t", r"result\[0\] .* must have the carry's shape \(2, 2\) and dtype float"),
    (2, lambda i, c: c.astype(pd.int32), "t", r"result\[0\] .* must have the carry's shape \(2, 2\) and dtype float"),
    (2, lambda i, c: 1.0, "t", r"the body's result must be a pd.Tensor or a non-empty tuple or list"),
])
def test_misuse_raises_a_build_error_naming_the_problem(n, body, carry, message):
    g = graph()
    t = g.constant(np.ones((2, 2), np.float32))
    carry = {"t": t, "numbers": [1.0, 2.0], "empty": ()}[carry]
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=message):
            pd.fori_loop(n, body, carry)


def test_a_carry_of_another_graph_is_refused():
    g, other = graph(), graph()
    a, b = g.constant(np.ones(2, np.float32)), other.constant(np.ones(2, np.float32))
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"carry\[1\] .* belongs to another pd.Graph than carry\[0\]"):
            pd.fori_loop(2, lambda i, c: c, (a, b))
