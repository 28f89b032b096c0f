"""popnn/Recurrent.hpp (tests/cpp/recurrent.cpp) against a float64 numpy vanilla RNN,
y_s = nonLinearity(x_s Wff + y_{s-1} Wfb + b), its gradients against central differences."""
import numpy as np
import pytest

from cpp_build import run_labelled_program
from recurrent_reference import numeric_gradients, values

S, B, I, O = 3, 2, 4, 5


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    lines = run_labelled_program(tmp_path_factory.mktemp("recurrent"), "recurrent")[0]
    return {k: (v if k == "shapes" else np.array(v.split(), dtype=np.float64)) for k, v in lines.items()}


def operands(zero_state=False):
    """[x, y0, Wff, Wfb, b] as the program fills them."""
    y0 = np.zeros((B, O)) if zero_state else values((B, O), 0.2, 0.5)
    return [values((S, B, I), 0.1, 1.0), y0, values((I, O), 0.3, 0.6), values((O, O), 0.4, 0.6),
            values((O,), 0.5, 0.3)]


def reference(x, y, wff, wfb, b, act=np.tanh):
    outs = []
    for s in range(S):
        y = act(x[s] @ wff + y @ wfb + b)
        outs.append(y)
    return np.array(outs)


def test_sequence_forward_and_backward_with_weight_deltas(out):
    assert out["shapes"] == "32 4x5 5x5"  # input [S][B][I], state [B][O], Wff [I][O], Wfb [O][O]
    ops = operands()
    grad = values((S, B, O), 0.6, 1.0)
    states = reference(*ops)
    got = out["sequence"]
    np.testing.assert_allclose(got[:states.size], states.ravel(), rtol=1e-5, atol=1e-6)
    x, y0, wff, wfb, b = ops
    # d sum(states * grad) / d(x, Wff, Wfb, b): the input gradients and the three deltas.
    diffs = numeric_gradients([x, wff, wfb, b], lambda: float(np.sum(reference(x, y0, wff, wfb, b) * grad)))
    np.testing.assert_allclose(got[states.size:], diffs, rtol=1e-4, atol=1e-5)


def test_step_forms_from_a_zeroed_state(out):
    sigmoid = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
    x, y0, wff, wfb, b = operands(zero_state=True)
    outs = reference(x, y0, wff, wfb, b, sigmoid)
    grad = values((B, O), 0.7, 1.0)
    # The last step back from a zero state: state = sigmoid'(y) grad, input gradient state Wff^T.
    y = outs[-1]
    state = y * (1 - y) * grad
    deltas = [values((I, O), 0.8, 1.0) + x[-1].T @ state, values((O, O), 0.9, 1.0) + outs[-2].T @ state,
              values((O,), 1.0, 1.0) + state.sum(axis=0)]
    want = np.concatenate([outs.ravel(), outs.ravel(), (state @ wff.T).ravel(), state.ravel(), state.ravel()]
                          + [d.ravel() for d in deltas])
    np.testing.assert_allclose(out["steps"], want, rtol=1e-5, atol=1e-6)
