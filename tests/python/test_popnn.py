"""popnn non-linearities and their input gradients against float64 numpy."""
import math

import numpy as np
import pytest

from popdsl import poplar, popnn, poputil, program
from raw_runner import Runner

NLT = popnn.NonLinearityType
erf = np.vectorize(math.erf)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


FORWARD = {
    NLT.SIGMOID: lambda x: 1 / (1 + np.exp(-x)),
    NLT.HARD_SIGMOID: lambda x: np.clip(0.2 * x + 0.5, 0, 1),
    NLT.RELU: lambda x: np.maximum(x, 0),
    NLT.TANH: np.tanh,
    NLT.GELU: lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    NLT.GELU_ERF: lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2))),
    NLT.SWISH: lambda x: x / (1 + np.exp(-x)),
    NLT.SOFTMAX: softmax,
    NLT.SOFTMAX_STABLE: softmax,
}
TAKES_INPUT = {NLT.GELU, NLT.GELU_ERF, NLT.SWISH}
NUMPY = {poplar.FLOAT: np.float32, poplar.HALF: np.float16}
TOL = {poplar.FLOAT: 1e-5, poplar.HALF: 1e-2}


def finite_difference_gradient(f, x, g, h=1e-6):
    """Input gradient of sum(g * f(x)) by central differences, element by element."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        grad[index] = np.sum(g * (f(x + step) - f(x - step))) / (2 * h)
    return grad


rng = np.random.default_rng(1)


@pytest.mark.parametrize("ptype", [poplar.FLOAT, poplar.HALF])
@pytest.mark.parametrize("kind", list(FORWARD), ids=lambda k: k.name)
def test_forward(kind, ptype):
    x = rng.uniform(-3, 3, size=(3, 5))
    r = Runner()
    t = r.tensor(x, ptype, "x")
    out = popnn.nonLinearity(r.graph, kind, t, r.prog, "nl")
    (got,) = r.run(out)
    want = FORWARD[kind](x.astype(NUMPY[ptype]).astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=TOL[ptype], atol=TOL[ptype])


@pytest.mark.parametrize("kind", list(FORWARD), ids=lambda k: k.name)
def test_input_gradient(kind):
    # Away from the kinks of RELU and HARD_SIGMOID so the finite difference is exact.
    x = rng.uniform(-3, 3, size=(2, 6))
    x[np.abs(x) < 0.1] = 0.5
    x[np.abs(np.abs(x) - 2.5) < 0.1] = 1.0
    g = rng.standard_normal(x.shape)
    f = FORWARD[kind]
    r = Runner()
    act = r.tensor(x if kind in TAKES_INPUT else f(x), poplar.FLOAT, "act")
    grad = r.tensor(g, poplar.FLOAT, "grad")
    out = popnn.nonLinearityInputGradient(r.graph, kind, act, grad, r.prog, "grad")
    (got,) = r.run(out)
    np.testing.assert_allclose(got, finite_difference_gradient(f, x, g), rtol=1e-4, atol=1e-5)


def test_scaled_softmax_reports_its_scaling_and_gradient_matches():
    x = rng.uniform(-2, 2, size=(4, 8))
    g = rng.standard_normal(x.shape)
    r = Runner()
    t = r.tensor(x, poplar.FLOAT, "x")
    out, scaling = popnn.nonLinearityWithScaling(r.graph, NLT.SOFTMAX_SCALED, t, r.prog)
    grad = popnn.nonLinearityInputGradient(r.graph, NLT.SOFTMAX_SCALED, out, r.tensor(g, poplar.FLOAT, "g"), r.prog)
    got, got_grad = r.run(out, grad)
    assert scaling > 1
    np.testing.assert_allclose(got, scaling * softmax(x), rtol=1e-5)
    want_grad = finite_difference_gradient(lambda v: scaling * softmax(v), x, g)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-3)
    _, plain_scaling = popnn.nonLinearityWithScaling(r.graph, NLT.RELU, t, r.prog)
    assert plain_scaling == 1


def test_in_place_program_and_compute_set_forms_through_a_view():
    x = rng.uniform(-2, 2, size=(4, 3))
    r = Runner()
    a = r.tensor(x, poplar.FLOAT, "a")
    b = r.tensor(x, poplar.FLOAT, "b")
    popnn.nonLinearityInPlace(r.graph, NLT.TANH, a.transpose(), r.prog)
    cs = r.graph.addComputeSet("relu")
    popnn.nonLinearityInPlace(r.graph, NLT.RELU, b, cs)
    r.prog.add(program.Execute(cs))
    popnn.softmaxStableInPlace(r.graph, b.transpose(), r.prog)
    got_a, got_b = r.run(a, b)
    np.testing.assert_allclose(got_a, np.tanh(x), rtol=1e-6)
    np.testing.assert_allclose(got_b, softmax(np.maximum(x, 0).T).T, rtol=1e-6)


def test_errors_name_the_problem():
    r = Runner()
    ints = r.graph.addVariable(poplar.INT, [4], "ints")
    floats = r.tensor(np.zeros(4), poplar.FLOAT, "floats")
    with pytest.raises(poputil.poplibs_error, match="needs a FLOAT or HALF tensor.*ints"):
        popnn.nonLinearity(r.graph, NLT.RELU, ints, r.prog)
    cs = r.graph.addComputeSet("cs")
    with pytest.raises(poputil.poplibs_error, match="ComputeSet form .* does not support SOFTMAX"):
        popnn.nonLinearityInPlace(r.graph, NLT.SOFTMAX, floats, cs)
    with pytest.raises(poputil.poplibs_error, match="must match in shape and type"):
        popnn.nonLinearityInputGradient(r.graph, NLT.TANH, floats, r.tensor(np.zeros(3), poplar.FLOAT, "g"), r.prog)


def test_non_linearity_type_takes_only_its_members():
    # NonLinearityType(2**30) used to index the table of names: SIGSEGV.
    assert NLT(2) == NLT.RELU
    with pytest.raises(ValueError, match=r"1073741824 is not a valid NonLinearityType \(members: SIGMOID, "):
        NLT(2**30)
