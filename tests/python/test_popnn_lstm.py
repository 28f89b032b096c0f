"""popnn/Lstm.hpp (tests/cpp/lstm.cpp, built against the prefix) against a float64 numpy
LSTM with the gate formulas popnn documents; its gradients against central differences of
that numpy LSTM."""
import numpy as np
import pytest

from cpp_build import run_labelled_program
from recurrent_reference import numeric_gradients, values

T, B, I, O = 3, 2, 4, 5
FORGET, INPUT, CANDIDATE, OUTPUT = 0, 1, 2, 3
DEFAULT, SHUFFLED = [FORGET, INPUT, CANDIDATE, OUTPUT], [OUTPUT, CANDIDATE, FORGET, INPUT]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return run_labelled_program(tmp_path_factory.mktemp("lstm"), "lstm")[0]


def operands():
    """[h0, c0, x, W, U, b] as the program fills them."""
    return [values((B, O), 0.2, 0.5), values((B, O), 0.8, 0.5), values((T, B, I), 0.1, 1.0),
            values((4, I, O), 0.3, 0.6), values((4, O, O), 0.4, 0.6), values((4, O), 0.5, 0.3)]


def reference_lstm(order, h, c, x, w, u, b):
    """Every step's output [T][B][O] and the final cell state."""
    at = {unit: order.index(unit) for unit in (FORGET, INPUT, CANDIDATE, OUTPUT)}

    def pre(unit, t):
        k = at[unit]
        return x[t] @ w[k] + h @ u[k] + b[k]
    outs = []
    for t in range(T):
        f, i, o = (1 / (1 + np.exp(-pre(unit, t))) for unit in (FORGET, INPUT, OUTPUT))
        g = np.tanh(pre(CANDIDATE, t))
        c = f * c + i * g
        h = o * np.tanh(c)
        outs.append(h)
    return np.array(outs), c


def parse(line):
    shape, numbers = line.split(" | ")
    return [int(d) for d in shape.split()], np.array(numbers.split(), dtype=np.float64)


@pytest.mark.parametrize("label,order,full", [("forward", DEFAULT, True), ("forward last", SHUFFLED, False)])
def test_lstm_forward_output_and_final_cell_state(out, label, order, full):
    assert out[f"{label} units"] == "1 22"  # weights [4][...]; states [batch][output]
    shape, got = parse(out[label])
    outs, c = reference_lstm(order, *operands())
    want = outs if full else outs[-1]
    assert shape == list(want.shape)
    np.testing.assert_allclose(got, np.concatenate([want.ravel(), c.ravel()]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("label,order,full,split", [("grad", DEFAULT, True, False),
                                                    ("grad split", SHUFFLED, False, True)])
def test_lstm_backward_and_weight_update_against_central_differences(out, label, order, full, split):
    # loss = sum(output * outputGrad) + sum(h_T * lastOutputGrad) + sum(c_T * lastCellGrad);
    # lstmBwd with a cell-state gradient alone (split) leaves out the h_T term.
    ops = operands()
    grad_out = values((T, B, O) if full else (B, O), 0.6, 1.0)
    last_h, last_c = values((B, O), 0.9, 1.0), values((B, O), 1.1, 1.0)

    def loss():
        outs, c = reference_lstm(order, *ops)
        total = np.sum((outs if full else outs[-1]) * grad_out) + np.sum(c * last_c)
        return float(total + (0 if split else np.sum(outs[-1] * last_h)))
    _, got = parse(out[label])
    np.testing.assert_allclose(got, numeric_gradients(ops, loss), rtol=1e-4, atol=1e-5)


def test_lstm_refuses_run_time_step_counts_and_unknown_options_and_zeroes_state(out):
    assert out["variable steps"] == ("lstmFwd: run-time step counts (varTimeSteps) are not supported by the "
                                     "emulator")
    assert out["bad option"] == "lstmFwd: unknown option 'fastMath'"
    assert out["zero state"] == "accepted"
