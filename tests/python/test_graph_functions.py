"""Graph.function with tensor arguments and results: one Poplar function per decorated
function, arguments copied in and results copied out, against numpy; misuse raises a
BuildError naming the problem."""
import numpy as np
import pytest

import popdsl as pd

A = np.array([[1.0, -2.0, 3.0], [0.5, 0.25, -1.0]], np.float32)
B = np.array([[4.0, 5.0, -6.0], [2.0, -3.0, 1.5]], np.float32)


@pytest.fixture
def graph(device):
    return pd.Graph(device)


def two_calls(graph):
    """A function called on two variables; returns the program and both results."""
    a = graph.variable(pd.float32, (2, 3), name="a", init=A)
    b = graph.variable(pd.float32, (2, 3), name="b", init=B)

    @graph.function
    def affine(x):
        return x * 2.0 + 1.0  # BODY LINE

    with pd.Sequence() as main:
        ya = affine(a)
        yb = affine(b)
    return main, ya, yb


def test_two_calls_with_different_tensors_give_each_its_own_result(graph, device):
    main, ya, yb = two_calls(graph)
    with pd.Session(graph, main, device=device) as s:
        s.run()
        got_a, got_b = s.read(ya), s.read(yb)
    np.testing.assert_array_equal(got_a, A.astype(np.float64) * 2 + 1)
    np.testing.assert_array_equal(got_b, B.astype(np.float64) * 2 + 1)
    assert ya.shape == yb.shape == (2, 3) and ya.raw != yb.raw  # each call's results are its own


@pytest.mark.needs_emulator("profile data (Session.profile)")
def test_two_calls_reuse_one_poplar_function(graph, device):
    main, ya, yb = two_calls(graph)
    with pd.Session(graph, main, device=device) as s:
        s.run()
        body_steps = [step for step in s.profile.steps if "# BODY LINE" in step.name]
    # the body was built once: its steps are one Poplar function's, each run by both calls
    assert body_steps and all(step.executions == 2 for step in body_steps)


def test_several_arguments_a_tuple_of_results_and_arguments_left_alone(graph, device):
    a = graph.variable(pd.float32, (2, 3), name="a", init=A)
    b = graph.variable(pd.float32, (2, 3), name="b", init=B)

    @graph.function(name="sum_and_product")
    def sum_and_product(x, y):
        total = x + y
        x *= y  # writes the parameter, not the caller's tensor
        return total, x

    with pd.Sequence() as main:
        total, product = sum_and_product(a, b)
        again, _ = sum_and_product(b, b)
    with pd.Session(graph, main, device=device) as s:
        s.run()
        got = {name: s.read(t) for name, t in dict(total=total, product=product, again=again, a=a).items()}
    a64, b64 = A.astype(np.float64), B.astype(np.float64)
    np.testing.assert_allclose(got["total"], a64 + b64, rtol=1e-6)
    np.testing.assert_allclose(got["product"], a64 * b64, rtol=1e-6)
    np.testing.assert_allclose(got["again"], 2 * b64, rtol=1e-6)
    np.testing.assert_array_equal(got["a"], A)


def test_a_function_without_arguments_still_reads_and_writes_the_graphs_tensors(graph, device):
    counter = graph.variable(pd.int32, (1,), name="counter", init=0)

    @graph.function
    def bump():
        counter.__iadd__(3)

    with pd.Sequence() as main:
        assert bump() is None
        bump()
    with pd.Session(graph, main, device=device) as s:
        s.run()
        np.testing.assert_array_equal(s.read(counter), [6])


def test_misuse_raises_a_build_error_naming_the_problem(graph):
    a = graph.variable(pd.float32, (2, 3), name="a")
    wide = graph.variable(pd.float32, (3, 3), name="wide")
    whole = graph.variable(pd.int32, (2, 3), name="whole")

    @graph.function
    def negate(x):
        return -x

    @graph.function
    def returns_a_number(x):
        return 1.0

    @graph.function
    def returns_a_list(x):
        return [x * 1]

    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"test_graph_functions\.py:\d+: negate\(a, a\): Graph.function '[^']*"
                                                r"negate': called with 2 tensor argument\(s\), which the function "
                                                r"negate\(x\) does not take"):
            negate(a, a)
        with pytest.raises(pd.BuildError, match=r"argument 0 must be a pd.Tensor, got ndarray"):
            negate(np.ones((2, 3), np.float32))
        negate(a)
        with pytest.raises(pd.BuildError, match=r"argument 0 <pd.Tensor 'wide' shape=\(3, 3\) dtype=float> has shape "
                                                r"\(3, 3\) and dtype float, but the function was built for shape "
                                                r"\(2, 3\) and dtype float on its first call"):
            negate(wide)
        with pytest.raises(pd.BuildError, match=r"has shape \(2, 3\) and dtype int, but the function was built for "
                                                r"shape \(2, 3\) and dtype float"):
            negate(whole)
        with pytest.raises(pd.BuildError, match=r"called with 0 tensor argument\(s\); it was built for 1"):
            negate()
        with pytest.raises(pd.BuildError, match=r"must return None, a pd.Tensor or a tuple of pd.Tensors of its "
                                                r"graph, got float 1.0"):
            returns_a_number(a)
        with pytest.raises(pd.BuildError, match=r"got list \["):
            returns_a_list(a)


def test_an_argument_of_another_graph_is_refused(graph, device):
    other = pd.Graph(device).variable(pd.float32, (2,), name="theirs")

    @graph.function
    def double(x):
        return x * 2

    with pd.Sequence(), pytest.raises(pd.BuildError, match=r"argument 0 .*'theirs'.* belongs to another pd.Graph"):
        double(other)
