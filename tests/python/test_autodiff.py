"""pd.grad: every op with a gradient rule against finite differences, and its errors."""
import warnings

import numpy as np
import pytest

import popdsl as pd
from popdsl.autodiff import registry
from popdsl.popops import expr as pe
from popdsl.testing import assert_close, check_grads
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

rng = np.random.default_rng(7)


def away_from_zero(*shape):
    """Values in +-[0.3, 1.2]: no kinks (relu, abs) or ties near them."""
    return (rng.uniform(0.3, 1.2, shape) * rng.choice([-1.0, 1.0], shape)).astype(np.float32)


def positive(*shape):
    return rng.uniform(0.5, 2.0, shape).astype(np.float32)


def distinct(*shape):
    """Well-separated values (no ties for max/min)."""
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.25 - 1).astype(np.float32)


def in_place_chain(x, w):
    h = x * 2.0
    h += w
    h *= 0.5
    return h * h


def accumulate(x):
    return x * x + x.sum() + pd.exp(x)  # x reaches the result on three paths


def indexed_get(x, i):
    return x.at[i].get() * 3.0


def indexed_set(x, v, i):
    h = x * 1.0
    h.at[i].set(v * 2.0)
    return h * h


def copied(x):
    buffer = x.graph.variable(pd.float32, (6,), name="buffer")
    pd.copy(x, buffer)
    return buffer * buffer


def written_through_views(x, w):
    h = x * w
    h[0] *= 2.0  # through a slice
    h.T[1:, 1] += w[0, 1:]  # through a slice of a transpose
    buffer = x.graph.variable(pd.float32, (2, 3), name="buffer")
    buffer[:, :2] = h[:, 1:]  # assembled by copies into views
    buffer[:, 2] = h[:, 0] * 3.0
    return buffer * pd.concat([x, w], 1)[:, 1:4]


def written_through_concat(x, w):
    joined = pd.concat([x * 1.0, w * 1.0], 0)
    joined *= 2.0  # writes both parts
    joined[1] += 1.0
    return x * w * 0.0 + joined[0:2] * joined[2:4]


def used_many_times(x):
    return pd.concat([x[i:i + 1] * float(i) for i in range(3)] * 9)  # 27 partial gradients of x


def filled_in_part(x):
    h = x * 1.0
    pd.fill(h[0], 2.0)  # the row's old value reaches nothing
    return h * x


def nonlinearity_in_place(x):
    h = x * 1.5
    pd.nonlinearity_(h, "tanh")
    return h


CASES = {
    "add (broadcast)": (lambda a, b: a + b, [away_from_zero(2, 3), away_from_zero(3)]),
    "sub (broadcast)": (lambda a, b: a - b, [away_from_zero(2, 3), away_from_zero(2, 1)]),
    "mul": (lambda a, b: a * b, [away_from_zero(2, 3), away_from_zero(2, 3)]),
    "div": (lambda a, b: a / b, [away_from_zero(2, 3), positive(2, 3)]),
    "scalar operators": (lambda a: (3.0 - a) * 2.0 / 4.0 + 1.0, [away_from_zero(4)]),
    "pow (tensor exponent)": (lambda a, b: a ** b, [positive(2, 3), away_from_zero(2, 3)]),
    "square via **": (lambda a: a ** 2.0, [away_from_zero(5)]),
    "neg": (lambda a: -a, [away_from_zero(4)]),
    "exp": (pd.exp, [away_from_zero(4)]),
    "log": (pd.log, [positive(4)]),
    "tanh": (pd.tanh, [away_from_zero(4)]),
    "sigmoid": (pd.sigmoid, [away_from_zero(4)]),
    "sqrt": (pd.sqrt, [positive(4)]),
    "rsqrt": (pd.rsqrt, [positive(4)]),
    "abs": (pd.abs, [away_from_zero(4)]),
    "square": (pd.square, [away_from_zero(4)]),
    "relu": (pd.relu, [away_from_zero(6)]),
    "sin": (pd.sin, [away_from_zero(4)]),
    "cos": (pd.cos, [away_from_zero(4)]),
    "max": (pd.max, [distinct(2, 3), distinct(2, 3)[::-1].copy()]),
    "min": (pd.min, [distinct(2, 3), distinct(2, 3)[::-1].copy()]),
    "where": (lambda a, b: pd.where(a > 0.0, a * b, b), [away_from_zero(2, 3), away_from_zero(2, 3)]),
    "cast of an integer factor": (lambda a, i: a * pd.cast(i, pd.float32), [away_from_zero(4),
                                                                             np.array([1, -2, 3, 0], np.int32)]),
    "astype": (lambda a: a.astype(pd.float32) * a, [away_from_zero(4)]),
    "pd.map lambda": (lambda a, b: pd.map(lambda x, y: pd.exp(x - y) * pd.tanh(x) + x / (1.0 + y * y), a, b),
                      [away_from_zero(2, 3), away_from_zero(3)]),
    "pd.map clamp and cast": (lambda a: pd.map(lambda x: pe.Clamp(x, -0.5, 0.5) * pe.Cast(x, pd.float32), a),
                              [away_from_zero(6)]),
    "in-place operators": (in_place_chain, [away_from_zero(2, 3), away_from_zero(3)]),
    "several uses": (accumulate, [away_from_zero(2, 2)]),
    "matmul": (lambda a, b: a @ b, [away_from_zero(2, 3), away_from_zero(3, 4)]),
    "grouped matmul": (lambda a, b: pd.matmul(a, b), [away_from_zero(2, 2, 3), away_from_zero(2, 3, 2)]),
    "matmul_acc": (lambda c, a, b: pd.matmul_acc(c * 1.0, a, b, scale=0.5),
                   [away_from_zero(2, 2), away_from_zero(2, 3), away_from_zero(3, 2)]),
    "reduce_sum": (lambda a: pd.reduce_sum(a, 1), [away_from_zero(2, 3)]),
    "reduce_sum all": (lambda a: a.sum(), [away_from_zero(2, 3)]),
    "reduce_max": (lambda a: a.max(0), [distinct(3, 2)]),
    "reduce_min": (lambda a: a.min(1), [distinct(3, 2)]),
    "reduce_sum_squares": (lambda a: pd.reduce_sum_squares(a, 0), [away_from_zero(3, 2)]),
    "reduce_logsumexp": (lambda a: pd.reduce_logsumexp(a, 1), [away_from_zero(2, 3)]),
    "reshape and flatten": (lambda a: a.reshape(3, 2).flatten() * a.reshape(-1), [away_from_zero(2, 3)]),
    "transpose and mT": (lambda a: a.T @ a.transpose(1, 0).mT, [away_from_zero(2, 3)]),
    "slices": (lambda a: a[1:, ::-2] * a[0, 1:], [away_from_zero(3, 3)]),
    "expand and squeeze": (lambda a: a.expand(0).squeeze() * a.expand(-1).squeeze(1), [away_from_zero(3)]),
    "broadcast": (lambda a: a.broadcast((2, 3)) * 2.0, [away_from_zero(3)]),
    "concat": (lambda a, b: pd.concat([a, b, a], axis=1) * 2.0, [away_from_zero(2, 1), away_from_zero(2, 2)]),
    "at get": (indexed_get, [away_from_zero(3, 2), np.array([1], np.uint32)]),
    "at set": (indexed_set, [away_from_zero(3, 2), away_from_zero(2), np.array([2], np.int32)]),
    "copy": (copied, [away_from_zero(2, 3)]),
    "fill": (filled_in_part, [away_from_zero(2, 3)]),
    "sigmoid (popnn)": (lambda a: pd.nonlinearity(a, "sigmoid"), [away_from_zero(4)]),
    "tanh (popnn)": (lambda a: pd.nonlinearity(a, "tanh"), [away_from_zero(4)]),
    "relu (popnn)": (lambda a: pd.nonlinearity(a, "relu"), [away_from_zero(4)]),
    "gelu (popnn)": (lambda a: pd.nonlinearity(a, "gelu"), [away_from_zero(4)]),
    "softmax (popnn)": (lambda a: pd.nonlinearity(a, "softmax"), [away_from_zero(2, 4)]),
    "softmax_stable (popnn)": (lambda a: pd.nonlinearity(a, "softmax_stable"), [away_from_zero(2, 4)]),
    "nonlinearity in place": (nonlinearity_in_place, [away_from_zero(4)]),
    "more uses than a map has placeholders": (used_many_times, [away_from_zero(3)]),
    "writes through views": (written_through_views, [away_from_zero(2, 3), away_from_zero(2, 3)]),
    "writes through a concat": (written_through_concat, [away_from_zero(2, 3), away_from_zero(2, 3)]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case):
    fn, inputs = CASES[case]
    check_grads(fn, inputs)


def test_check_grads_fails_on_a_wrong_gradient(monkeypatch):
    right = registry.RULES["pd.reduce_sum"]
    monkeypatch.setitem(registry.RULES, "pd.reduce_sum", lambda op, grads: [right(op, grads)[0] * 1.05])
    with pytest.raises(AssertionError, match="input 0: pd.grad against central differences"):
        check_grads(lambda a: a.sum(0), [away_from_zero(2, 3)])


def test_check_grads_compares_with_torch_autograd():
    torch = pytest.importorskip("torch")
    a, b, labels = away_from_zero(4, 3), away_from_zero(3, 5), np.array([1, 0, 4, 2], np.int32)

    def loss(x, w, y):
        return pd.nn.cross_entropy(pd.tanh(x @ w), y)
    check_grads(loss, [a, b, labels], torch_fn=lambda x, w, y: torch.nn.functional.cross_entropy(torch.tanh(x @ w), y))
    with pytest.raises(AssertionError, match="pd.grad against torch.s autograd"):
        check_grads(loss, [a, b, labels],
                    torch_fn=lambda x, w, y: torch.nn.functional.cross_entropy(torch.tanh(x @ (w * 1.1)), y))


def test_gradients_against_numpy_mlp_layer(ipu_device, session_factory):
    x, w, b = away_from_zero(4, 3), away_from_zero(3, 2), away_from_zero(2)
    g = pd.Graph(ipu_device)
    tx, tw, tb = (g.variable(pd.float32, a.shape, name=n, init=a) for a, n in [(x, "x"), (w, "w"), (b, "b")])
    with pd.Sequence() as main:
        loss = pd.reduce_sum_squares(pd.tanh(tx @ tw + tb))
        dw, db = pd.grad(loss, [tw, tb])
    with session_factory(g, main) as s:
        s.run()
        h = np.tanh(x.astype(np.float64) @ w + b)
        dz = 2 * h * (1 - h * h)
        assert_close(s.read(dw), x.T.astype(np.float64) @ dz)
        assert_close(s.read(db), dz.sum(0))


def test_gradients_with_respect_to_views_made_before_the_block(ipu_device, session_factory):
    # Two weights as views of one variable (as pd.nn.lstm.create_weights makes them), each
    # read twice: the gradient of each view is its own, and re-reading it adds to it.
    x, stacked = away_from_zero(4, 3), away_from_zero(5, 2)
    g = pd.Graph(ipu_device)
    tx = g.variable(pd.float32, x.shape, name="x", init=x)
    tstacked = g.variable(pd.float32, stacked.shape, name="stacked", init=stacked)
    w, v = tstacked[:3], tstacked[3:].transpose()  # [3, 2] and [2, 2]
    with pd.Sequence() as main:
        h = pd.tanh(tx @ w)
        loss = pd.reduce_sum_squares(h @ v) + (w * w).sum()
        dw, dv, dstacked = pd.grad(loss, [w, v, tstacked])
    with session_factory(g, main) as s:
        s.run()
        x64, w64, v64 = x.astype(np.float64), stacked[:3].astype(np.float64), stacked[3:].T.astype(np.float64)
        h64 = np.tanh(x64 @ w64)
        dy = 2 * (h64 @ v64)
        expected_dw = x64.T @ (dy @ v64.T * (1 - h64 * h64)) + 2 * w64
        expected_dv = h64.T @ dy
        assert_close(s.read(dw), expected_dw)
        assert_close(s.read(dv), expected_dv)
        assert_close(s.read(dstacked), np.concatenate([expected_dw, expected_dv.T]))


def test_a_gradient_with_respect_to_a_value_on_the_way_to_another_is_kept(ipu_device, session_factory):
    x = away_from_zero(3, 2)
    g = pd.Graph(ipu_device)
    tx = g.variable(pd.float32, x.shape, name="x", init=x)
    with pd.Sequence() as main:
        h = pd.tanh(tx)
        loss = pd.reduce_sum_squares(h * 3.0)
        dh, dx = pd.grad(loss, [h, tx])  # h lies between loss and x
    with session_factory(g, main) as s:
        s.run()
        h64 = np.tanh(x.astype(np.float64))
        assert_close(s.read(dh), 18 * h64)
        assert_close(s.read(dx), 18 * h64 * (1 - h64 * h64))


def test_a_map_gradient_is_one_fused_map_per_input():
    g = pd.Graph(pd.ipu_model(tiles=4))
    a, b = g.variable(pd.float32, (3,), name="a"), g.variable(pd.float32, (3,), name="b")
    with pd.Sequence() as main:
        y = pd.map(lambda x, z: pd.exp(x) * pd.sin(z) + x * z, a, b)
        before = len(main.tape.records)
        pd.grad(y, [a, b], grad_y=g.variable(pd.float32, (3,), name="dy"))
    backward = [r.kind for r in main.tape.records[before:]]
    assert backward == ["pd.map", "pd.map"]


def test_gradient_descent_inside_a_repeat_body(ipu_device, session_factory):
    """pd.grad of the body's own ops: w -= 0.1 * d/dw sum((w * x - t)**2), three times."""
    x, t, w0 = away_from_zero(4), away_from_zero(4), away_from_zero(4)
    g = pd.Graph(ipu_device)
    tx, tt = g.constant(x, name="x"), g.constant(t, name="t")
    w = g.variable(pd.float32, (4,), name="w", init=w0)
    with pd.Sequence() as main:
        with pd.Repeat(3):
            loss = pd.reduce_sum_squares(w * tx - tt)
            (dw,) = pd.grad(loss, [w])
            w -= dw * 0.1
    expected = w0.astype(np.float64)
    for _ in range(3):
        expected = expected - 0.1 * 2 * (expected * x - t) * x
    with session_factory(g, main) as s:
        s.run()
        assert_close(s.read(w), expected)


def test_gradient_inside_an_if_body(ipu_device, session_factory):
    g = pd.Graph(ipu_device)
    x = g.variable(pd.float32, (3,), name="x", init=[1.0, -2.0, 0.5])
    flag = g.variable(pd.bool_, (1,), name="flag", init=True)
    dx = g.variable(pd.float32, (3,), name="dx", init=0.0)
    with pd.Sequence() as main:
        with pd.If(flag):
            pd.copy(pd.grad((pd.sin(x) * x).sum(), x), dx)
    with session_factory(g, main) as s:
        s.run()
        x0 = np.array([1.0, -2.0, 0.5])
        assert_close(s.read(dx), np.cos(x0) * x0 + np.sin(x0))


def test_unreachable_tensor_gets_zeros_and_a_warning(ipu_device, session_factory):
    g = pd.Graph(ipu_device)
    a, b = g.variable(pd.float32, (2,), name="a", init=1.0), g.variable(pd.float32, (2,), name="b", init=1.0)
    with pd.Sequence() as main:
        loss = (a * a).sum()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            da, db = pd.grad(loss, [a, b])
    assert any("does not depend on <pd.Tensor 'b'" in str(w.message) for w in caught)
    with session_factory(g, main) as s:
        s.run()
        assert_close(s.read(da), [2.0, 2.0])
        assert_close(s.read(db), [0.0, 0.0])


def graph_with(shape=(3,)):
    g = pd.Graph(pd.ipu_model(tiles=4))
    return g, g.variable(pd.float32, shape, name="x"), g.variable(pd.float32, shape, name="w")


def without_a_rule(g, x, w):
    return pd.nonlinearity_grad(x, w, "tanh").sum()


def overwrites_a_saved_input(g, x, w):
    h = x * 1.0
    y = (h * w).sum()  # d/dw needs h
    h += 1.0
    return y


def overwrites_its_own_input(g, x, w):
    h = x * 1.0
    h *= w  # d/dw needs h's old value, which this op overwrites
    return h.sum()


def writes_through_an_alias(g, x, w):
    h = x * w
    alias = pd.Tensor(h.raw, g)  # the same storage, from the raw bindings: no view of h
    alias *= 2.0
    return h.sum()


def while_loops(g, x, w):
    h = x * w
    with pd.While(lambda: pd.logical_not(g.variable(pd.bool_, (1,), name="done"))):
        h *= 2.0
    return h.sum()


@pytest.mark.parametrize("forward, message", [
    (without_a_rule, r"no gradient for pd\.nonlinearity_grad \(built at test_autodiff\.py:\d+: return "
                     r"pd\.nonlinearity_grad.*: it is a gradient itself, and pd\.grad gives no second derivatives"),
    (overwrites_a_saved_input, r"pd\.map \(built at .*y = \(h \* w\)\.sum\(\).*\) needs its input 0 "
                               r"<pd\.Tensor .*pd\.map \(built at .*h \+= 1\.0\) overwrites it"),
    (overwrites_its_own_input, "it overwrites that tensor itself"),
    (writes_through_an_alias, "wrote through another tensor aliasing it that is not a view of it"),
    (while_loops, r"no gradient for pd\.While \(built at test_autodiff\.py:\d+: with pd\.While"
                  r".*\) on the path .*: its trip count is only known when it runs"),
])
def test_gradients_pd_grad_cannot_give_are_refused(forward, message):
    g, x, w = graph_with()
    with pd.Sequence():
        y = forward(g, x, w)
        with pytest.raises(pd.BuildError, match=message):
            pd.grad(y, [w])


def test_in_place_ops_whose_inputs_survive_are_differentiated(ipu_device, session_factory):
    g = pd.Graph(ipu_device)
    x = g.variable(pd.float32, (3,), name="x", init=[1.0, 2.0, 3.0])
    with pd.Sequence() as main:
        y = pd.exp(x)
        y *= 2.0  # exp's rule needs x, not y: fine
        (dx,) = pd.grad(y.sum(), [x])
    with session_factory(g, main) as s:
        s.run()
        assert_close(s.read(dx), 2 * np.exp([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("call, message", [
    (lambda y, w, g: pd.grad(y, [g.variable(pd.int32, (3,), name="i")]), "not a float tensor; integer"),
    (lambda y, w, g: pd.grad(y * w, [w]), "has 3 elements; differentiate a one-element tensor"),
    (lambda y, w, g: pd.grad(y, [w], grad_y=w), "must have y's shape"),
    (lambda y, w, g: pd.grad(y, []), "wrt must be a pd.Tensor or a non-empty list"),
    (lambda y, w, g: pd.grad(y, [np.zeros(3)]), "wrt\\[0\\] must be a pd.Tensor"),
    (lambda y, w, g: pd.grad(g.variable(pd.float32, (1,), name="elsewhere"), [w]),
     "was not computed by the ops of this block"),
])
def test_bad_arguments_are_refused(call, message):
    g, x, w = graph_with()
    with pd.Sequence():
        y = (x * w).sum()
        with pytest.raises(pd.BuildError, match=message):
            call(y, w, g)
