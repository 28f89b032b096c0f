"""popnn/Gru.hpp (tests/cpp/gru_forward.cpp, built against the prefix) against a float64
numpy GRU with the gate formulas and the resetAfter form popnn documents; its gradients
against central differences of that numpy GRU."""
import numpy as np
import pytest

from cpp_build import run_labelled_program
from recurrent_reference import numeric_gradients, values

T, B, I, O = 3, 2, 4, 5
RESET, UPDATE, CANDIDATE = 0, 1, 2


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return run_labelled_program(tmp_path_factory.mktemp("gru"), "gru_forward")[0]


def operands(reset_after):
    """[h0, x, W, U, b] as the program fills them."""
    return [values((B, O), 0.2, 0.5), values((T, B, I), 0.1, 1.0), values((3, I, O), 0.3, 0.6),
            values((3, O, O), 0.4, 0.6), values((3, 2, O) if reset_after else (3, O), 0.5, 0.3)]


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def reference_gru(order, reset_after, h, x, w, u, b, attention=None):
    """Every step's output [T][B][O]; AUGRU's with attention [B][T]."""
    at = {unit: order.index(unit) for unit in (RESET, UPDATE, CANDIDATE)}
    if reset_after:  # [unit][0] is the input-side bias, [unit][1] the recurrent one
        bias_in, bias_rec = b[:, 0], b[:, 1]
    else:
        bias_in, bias_rec = b, np.zeros_like(b)
    outs = []
    for t in range(T):
        def gate(unit):
            k = at[unit]
            return sigmoid(x[t] @ w[k] + h @ u[k] + bias_in[k] + bias_rec[k])
        r, z = gate(RESET), gate(UPDATE)
        if attention is not None:
            z = (1.0 - attention[:, t][:, None]) * z
        k = at[CANDIDATE]
        if reset_after:
            c = np.tanh(x[t] @ w[k] + bias_in[k] + r * (h @ u[k] + bias_rec[k]))
        else:
            c = np.tanh(x[t] @ w[k] + (r * h) @ u[k] + bias_in[k])
        h = z * h + (1.0 - z) * c
        outs.append(h)
    return np.array(outs)


def central_differences(order, reset_after, full_sequence, step=1e-6):
    """d(sum(output * outputGrad))/d(each operand), in the program's print order."""
    ops = operands(reset_after)
    grad_out = values((T, B, O) if full_sequence else (B, O), 0.6, 1.0)

    def loss():
        outs = reference_gru(order, reset_after, *ops)
        return float(np.sum((outs if full_sequence else outs[-1]) * grad_out))
    return numeric_gradients(ops, loss, step)


def parse(line):
    shape, numbers = line.split(" | ")
    return np.array(numbers.split(), dtype=np.float64).reshape([int(d) for d in shape.split()])


def test_gru_forward_full_sequence(out):
    assert out["default weights"] == "1 2"  # [3][in][out]; biases [3][out]
    got = parse(out["default"])
    assert got.shape == (T, B, O)
    want = reference_gru([RESET, UPDATE, CANDIDATE], False, *operands(False))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_gru_forward_reset_after_cell_order_and_last_output(out):
    assert out["reset after weights"] == "1 3"  # [3][in][out]; biases [3][2][out]
    got = parse(out["reset after"])
    assert got.shape == (B, O)
    want = reference_gru([CANDIDATE, RESET, UPDATE], True, *operands(True))[-1]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("label,order,reset_after,full_sequence", [
    ("grad default", [RESET, UPDATE, CANDIDATE], False, True),
    ("grad reset after", [UPDATE, CANDIDATE, RESET], True, False),
    ("grad split", [CANDIDATE, UPDATE, RESET], False, False),  # gruBwd then gruWU
    ("grad split reset after", [RESET, UPDATE, CANDIDATE], True, True),
])
def test_gru_backward_and_weight_update(out, label, order, reset_after, full_sequence):
    got = parse(out[label])
    want = central_differences(order, reset_after, full_sequence)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("label", ["augru", "augru split"])
def test_augru_forward_backward_and_attention_gradient(out, label):
    # AUGRU (update gate scaled by 1 - a_t): the output against the numpy AUGRU, and every
    # gradient, the attention's last, against central differences of it.
    assert out[f"{label} attention"] == f"{B}x{T}"
    att = values((B, T), 0.7, 0.45)
    ops = operands(False) + [att]
    order = [RESET, UPDATE, CANDIDATE]
    grad_out = values((T, B, O), 0.6, 1.0)

    def loss():
        return float(np.sum(reference_gru(order, False, *ops[:5], attention=ops[5]) * grad_out))
    grads = numeric_gradients(ops, loss)
    got = parse(out[label])
    forward = reference_gru(order, False, *operands(False), attention=att).ravel()
    np.testing.assert_allclose(got[:forward.size], forward, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[forward.size:], grads, rtol=1e-4, atol=1e-5)
