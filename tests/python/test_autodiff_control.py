"""pd.grad through pd.Repeat (per-iteration stashes, a reversed Repeat), pd.If/pd.Else and
pd.Switch, nested in each other, against central differences, and what it refuses."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close, check_grads
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

rng = np.random.default_rng(3)


def uniform(*shape):
    return rng.uniform(-1.0, 1.0, shape).astype(np.float32)


def counter(g):
    i = g.variable(pd.uint32, (1,), name="i")
    pd.zero(i)
    return i


def recurrence(x, w, h0):
    """h = tanh(h @ w + x[t]) over the rows of x: the state is carried, w is shared."""
    h, i = h0 * 1.0, counter(x.graph)
    with pd.Repeat(x.shape[0]):
        pd.copy(pd.tanh(h @ w + x.at[i].get()), h)
        i += 1
    return h * h


def accumulation(x, w):
    total, i = pd.zero(x.graph.variable(x.dtype, w.shape, name="total")), counter(x.graph)
    with pd.Repeat(x.shape[0]):
        total += pd.exp(x.at[i].get() * w)
    return total


def last_iteration_value(x, w):
    """`out` is made anew by every iteration; only the last one's reaches the result."""
    h = x * 1.0
    with pd.Repeat(3):
        out = pd.sin(h) * w
        pd.copy(out * 2.0, h)
    return out * h


def no_iterations(x, w):
    h = x * 1.0
    with pd.Repeat(0):
        pd.copy(pd.sin(h), h)
    return h * w


def if_else(x, w, flag):
    h = x * 1.0
    with pd.If(flag):
        pd.copy(pd.sin(h) * w, h)  # sin's rule reads h, which the copy then overwrites: stashed
    with pd.Else():
        h *= 2.0
        h += pd.cos(w)
    return h * w


def if_alone(x, w, flag):
    h = pd.exp(x)
    with pd.If(flag):
        h += pd.cos(w)
    return h * h


def repeat_of_a_branch_free_body_after_an_if(x, w, flag):
    h = x * 1.0
    with pd.If(flag):
        pd.copy(h * w, h)
    with pd.Repeat(2):
        pd.copy(pd.tanh(h) * w, h)
    return h


def masked_recurrence(x, w, h0, n):
    """The recurrence for the first n rows of x, halving h after them: pd.Repeat(the most
    rows) with pd.If(t < n), as for sequences of different lengths."""
    h, i = h0 * 1.0, counter(x.graph)
    with pd.Repeat(x.shape[0]):
        with pd.If(i < pd.cast(n, pd.uint32)):
            pd.copy(pd.tanh(h @ w + x.at[i].get()), h)
        with pd.Else():
            h *= 0.5
        i += 1
    return h * h


def _doubled_grad(grads, outputs, x):
    return [grads[0] * 2.0]


@pd.custom_grad(_doubled_grad)
def doubled_by_a_loop(x):
    y = x * 1.0
    with pd.Repeat(1):
        pd.copy(y * 2.0, y)
    return y


def custom_gradient_in_a_repeat(x, w):
    """The builder's own loop is not differentiated: its custom gradient is used."""
    h = x * 1.0
    with pd.Repeat(2):
        pd.copy(doubled_by_a_loop(h) * w, h)
    return h


CASES = {
    "recurrence": (recurrence, [uniform(3, 1, 2), uniform(2, 2), uniform(1, 2)]),
    "accumulation": (accumulation, [uniform(4, 3), uniform(3)]),
    "accumulation over 64 iterations": (accumulation, [uniform(64, 3), uniform(3)]),
    "a value of the last iteration": (last_iteration_value, [uniform(3), uniform(3)]),
    "no iterations": (no_iterations, [uniform(3), uniform(3)]),
    "if taken": (if_else, [uniform(3), uniform(3), np.array([1], np.int32)]),
    "else taken": (if_else, [uniform(3), uniform(3), np.array([0], np.int32)]),
    "if alone, taken": (if_alone, [uniform(3), uniform(3), np.array([1], np.int32)]),
    "if alone, not taken": (if_alone, [uniform(3), uniform(3), np.array([0], np.int32)]),
    "an if in a repeat, some iterations taken": (masked_recurrence, [uniform(4, 1, 2), uniform(2, 2), uniform(1, 2),
                                                                    np.array([2], np.int32)]),
    "an if in a repeat, every iteration taken": (masked_recurrence, [uniform(3, 1, 2), uniform(2, 2), uniform(1, 2),
                                                                     np.array([3], np.int32)]),
    "a custom gradient in a repeat": (custom_gradient_in_a_repeat, [uniform(3), uniform(3)]),
    "an if, then a repeat": (repeat_of_a_branch_free_body_after_an_if, [uniform(3), uniform(3),
                                                                       np.array([1], np.int32)]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_gradient_matches_finite_differences(case):
    fn, inputs = CASES[case]
    check_grads(fn, inputs)


def nested_recurrence(x, w, h0):
    """h = tanh(h * w + x[i, j]) for the rows j of each block i, then h = sin(h) + w after
    each block: a pd.Repeat in a pd.Repeat, the inner counter zeroed in the outer body."""
    h, i = h0 * 1.0, counter(x.graph)
    with pd.Repeat(x.shape[0]):
        j = counter(x.graph)
        with pd.Repeat(x.shape[1]):
            pd.copy(pd.tanh(h * w + x.at[i, j].get()), h)
            j += 1
        pd.copy(pd.sin(h) + w, h)
        i += 1
    return h * h


def repeat_in_an_if(x, w, flag):
    h = x * 1.0
    with pd.If(flag):
        with pd.Repeat(3):
            pd.copy(pd.sin(h) * w, h)
    with pd.Else():
        with pd.Repeat(2):
            h *= 2.0
    return h * w


def if_in_an_if(x, w, flags):
    h = pd.exp(x)
    with pd.If(flags[0]):
        pd.copy(pd.sin(h) * w, h)
        with pd.If(flags[1]):
            pd.copy(pd.tanh(h) + w, h)
        with pd.Else():
            h *= 2.0
    return h * h


def if_in_an_if_in_a_repeat(x, w, h0, n):
    """Rows before n update h; of those, the even ones (a second predicate) by tanh, the
    others by sin."""
    h, i = h0 * 1.0, counter(x.graph)
    with pd.Repeat(x.shape[0]):
        with pd.If(i < pd.cast(n, pd.uint32)):
            with pd.If(pd.logical_not(pd.cast(i % 2, pd.bool_))):
                pd.copy(pd.tanh(h @ w + x.at[i].get()), h)
            with pd.Else():
                pd.copy(pd.sin(h) * x.at[i].get(), h)
        i += 1
    return h * h


def repeat_in_an_if_in_a_repeat(x, w, n):
    h, i = x * 1.0, counter(x.graph)
    with pd.Repeat(3):
        with pd.If(i < pd.cast(n, pd.uint32)):
            with pd.Repeat(2):
                pd.copy(pd.tanh(h * w), h)
        i += 1
    return h


def switch(x, w, index):
    h = x * 1.0
    with pd.Switch(index) as sw:
        with sw.case(0):
            pd.copy(pd.sin(h) * w, h)
        with sw.case(1):
            h += w * w  # writes h only
        with sw.default():
            pd.copy(pd.cos(w) * h, h)
    return h * h


def switch_without_default(x, w, index):
    h, other = x * 1.0, w * 1.0
    with pd.Switch(index) as sw:
        with sw.case(0):
            pd.copy(pd.sin(h) * w, other)  # other's old value passes through the case 1 and no case
        with sw.case(1):
            pd.copy(pd.exp(w), h)
    return h * other


def switch_on_the_iteration(x, w):
    """A pd.Switch in a pd.Repeat on the loop counter: each iteration takes another case."""
    h, i = x * 1.0, counter(x.graph)
    with pd.Repeat(4):
        with pd.Switch(i) as sw:
            with sw.case(0):
                pd.copy(pd.sin(h) * w, h)
            with sw.case(2):
                pd.copy(pd.tanh(h + w), h)
            with sw.default():
                pd.copy(h * w, h)
        i += 1
    return h


NESTED = {
    "a repeat in a repeat": (nested_recurrence, [uniform(2, 3, 2), uniform(2), uniform(2)]),
    "repeats in an if, taken": (repeat_in_an_if, [uniform(3), uniform(3), np.array([1], np.int32)]),
    "repeats in an if, not taken": (repeat_in_an_if, [uniform(3), uniform(3), np.array([0], np.int32)]),
    **{f"an if in an if, flags {f}": (if_in_an_if, [uniform(3), uniform(3), np.array(f, np.int32)])
       for f in ([1, 1], [1, 0], [0, 1])},
    "an if in an if in a repeat": (if_in_an_if_in_a_repeat, [uniform(5, 1, 2), uniform(2, 2), uniform(1, 2),
                                                             np.array([4], np.int32)]),
    "a repeat in an if in a repeat": (repeat_in_an_if_in_a_repeat, [uniform(3), uniform(3),
                                                                    np.array([2], np.int32)]),
    **{f"a switch, index {k}": (switch, [uniform(3), uniform(3), np.array([k], np.int32)]) for k in (0, 1, 7)},
    **{f"a switch without default, index {k}": (switch_without_default,
                                                [uniform(3), uniform(3), np.array([k], np.int32)]) for k in (0, 1, 2)},
    "a switch on a repeat's counter": (switch_on_the_iteration, [uniform(3), uniform(3)]),
}


@pytest.mark.parametrize("case", list(NESTED))
def test_gradient_through_nested_control_flow_matches_finite_differences(case):
    fn, inputs = NESTED[case]
    check_grads(fn, inputs)


def test_a_recurrence_matches_numpy_backpropagation_through_time(ipu_device, session_factory):
    x, w, h0 = uniform(5, 2, 3), uniform(3, 3), uniform(2, 3)
    g = pd.Graph(ipu_device)
    tx, tw, th = (g.variable(pd.float32, a.shape, name=n, init=a) for a, n in [(x, "x"), (w, "w"), (h0, "h0")])
    with pd.Sequence() as main:
        dx, dw, dh0 = pd.grad(recurrence(tx, tw, th).sum(), [tx, tw, th])
    hs = [h0.astype(np.float64)]
    for t in range(5):
        hs.append(np.tanh(hs[-1] @ w + x[t]))
    dh, dws, dxs = 2 * hs[-1], np.zeros((3, 3)), np.zeros(x.shape)
    for t in reversed(range(5)):
        dz = dh * (1 - hs[t + 1] ** 2)
        dws += hs[t].T @ dz
        dxs[t] = dz
        dh = dz @ w.T
    with session_factory(g, main) as s:
        s.run()
        assert_close(s.read(dx), dxs)
        assert_close(s.read(dw), dws)
        assert_close(s.read(dh0), dh)


@pytest.mark.parametrize("forward, x_shape, w_shape", [
    (recurrence, lambda n: (n, 1, 2), (2, 2)),
    (nested_recurrence, lambda n: (n, n, 2), (2,)),
], ids=["a repeat", "a repeat in a repeat"])
def test_the_backward_of_a_repeat_does_not_grow_with_its_count(forward, x_shape, w_shape):
    sizes = []
    for count in (2, 50):
        g = pd.Graph(pd.ipu_model(tiles=4))
        x, w, h0 = (g.variable(pd.float32, s, name=n) for s, n in [(x_shape(count), "x"), (w_shape, "w"),
                                                                     (w_shape[-1:], "h0")])
        with pd.Sequence() as main:
            pd.grad(forward(x, w, h0).sum(), [w])
        sizes.append((len(main.tape.records), len(main.steps)))
    assert sizes[0] == sizes[1]


def nested_recurrence_dw(x, w, h0):
    """d sum(nested_recurrence(x, w, h0)) / dw in float64 numpy, by backpropagation."""
    x, w, h = x.astype(np.float64), w.astype(np.float64), h0.astype(np.float64)
    steps = []  # (function, h before, h after)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            steps.append(("tanh", h, np.tanh(h * w + x[i, j])))
            h = steps[-1][2]
        steps.append(("sin", h, np.sin(h) + w))
        h = steps[-1][2]
    dh, dw = 2 * h, np.zeros_like(w)
    for function, before, after in reversed(steps):
        if function == "sin":
            dw, dh = dw + dh, dh * np.cos(before)
        else:
            dz = dh * (1 - after ** 2)
            dw, dh = dw + dz * before, dz * w
    return dw


def test_two_gradients_through_one_nested_loop_share_its_stashes(ipu_device, session_factory):
    """Each pd.grad call gets a backward of its own, over the stashes the first one added."""
    x, w, h0 = uniform(2, 3, 2), uniform(2), uniform(2)
    g = pd.Graph(ipu_device)
    tx, tw, th = (g.variable(pd.float32, a.shape, name=n, init=a) for a, n in [(x, "x"), (w, "w"), (h0, "h0")])
    with pd.Sequence() as main:
        y = nested_recurrence(tx, tw, th)
        dw = pd.grad(y.sum(), tw)
        dw3 = pd.grad((y * 3.0).sum(), tw)
    with session_factory(g, main) as s:
        s.run()
        assert_close(s.read(dw), nested_recurrence_dw(x, w, h0))
        assert_close(s.read(dw3), 3 * nested_recurrence_dw(x, w, h0))


def while_in_a_repeat(g, x):
    h = x * 1.0
    with pd.Repeat(2):
        with pd.While(lambda: g.variable(pd.bool_, (1,), name="more")):
            pd.copy(pd.sin(h), h)
    return h.sum()


def function_call(g, x):
    h = x * 1.0
    g.function(lambda: pd.copy(pd.sin(h), h))()
    return h.sum()


def predicate_overwritten(g, x):
    h, flag = x * 1.0, g.variable(pd.int32, (1,), name="flag")
    with pd.If(flag):
        h *= 2.0
        pd.zero(flag)
    return h.sum()


def switch_index_overwritten(g, x):
    h, index = x * 1.0, g.variable(pd.int32, (1,), name="index")
    with pd.Switch(index) as sw:
        with sw.case(0):
            h *= 2.0
            index += 1
    return h.sum()


def in_place_on_what_its_rule_reads(g, x):
    h = x * 1.0
    with pd.Repeat(2):
        pd.nonlinearity_(h, "tanh")  # tanh's gradient reads its output, written over its input: fine
        h *= h  # reads h, and overwrites it
    return h.sum()


@pytest.mark.parametrize("forward, message", [
    (while_in_a_repeat, r"no gradient for pd\.While \(built at test_autodiff_control\.py:\d+: "
                        r"with pd\.While.*\) on the path .*: its trip count is only known when it runs"),
    (function_call, r"pd\.Function .*shared by every call"),
    (predicate_overwritten, r"its predicate <pd\.Tensor 'flag'.* is overwritten by pd\.If"),
    (switch_index_overwritten, r"pd\.Switch \(built at .*\): its index <pd\.Tensor 'index'.* is overwritten by "
                               r"pd\.Switch"),
    (in_place_on_what_its_rule_reads, "it overwrites that tensor itself"),
])
def test_control_flow_pd_grad_cannot_differentiate_is_refused(forward, message):
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (3,), name="x")
    with pd.Sequence():
        y = forward(g, x)
        with pytest.raises(pd.BuildError, match=message):
            pd.grad(y, x)


def test_a_predicate_its_then_branch_overwrites_is_refused_for_the_else_in_a_repeat():
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (3,), name="x")
    flag = g.variable(pd.int32, (1,), name="flag")
    with pd.Sequence():
        h = x * 1.0
        with pd.Repeat(2):
            with pd.If(flag):
                pd.zero(flag)
            with pd.Else():
                pd.copy(pd.sin(h), h)
        with pytest.raises(pd.BuildError, match=r"its predicate <pd\.Tensor 'flag'.* is overwritten by pd\.If"):
            pd.grad(h.sum(), x)
