"""popnn/Gru.hpp's forward pass (tests/cpp/gru_forward.cpp, built against the prefix)
against a float64 numpy GRU with the gate formulas and the resetAfter form popnn documents."""
import numpy as np
import pytest

from cpp_build import run_labelled_program

T, B, I, O = 3, 2, 4, 5
RESET, UPDATE, CANDIDATE = 0, 1, 2


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return run_labelled_program(tmp_path_factory.mktemp("gru"), "gru_forward")[0]


def values(shape, seed, scale):
    """The program's value(i, seed, scale), rounded to float32 as it is, in float64."""
    i = np.arange(int(np.prod(shape)))
    return (scale * np.sin(0.37 * i + seed)).astype(np.float32).astype(np.float64).reshape(shape)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def reference_gru(order, reset_after):
    x, h = values((T, B, I), 0.1, 1.0), values((B, O), 0.2, 0.5)
    w, u = values((3, I, O), 0.3, 0.6), values((3, O, O), 0.4, 0.6)
    b = values((3, 2, O) if reset_after else (3, O), 0.5, 0.3)
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
        k = at[CANDIDATE]
        if reset_after:
            c = np.tanh(x[t] @ w[k] + bias_in[k] + r * (h @ u[k] + bias_rec[k]))
        else:
            c = np.tanh(x[t] @ w[k] + (r * h) @ u[k] + bias_in[k])
        h = z * h + (1.0 - z) * c
        outs.append(h)
    return np.array(outs)


def parse(line):
    shape, numbers = line.split(" | ")
    return np.array(numbers.split(), dtype=np.float64).reshape([int(d) for d in shape.split()])


def test_gru_forward_full_sequence(out):
    assert out["default weights"] == "1 2"  # [3][in][out]; biases [3][out]
    got = parse(out["default"])
    assert got.shape == (T, B, O)
    np.testing.assert_allclose(got, reference_gru([RESET, UPDATE, CANDIDATE], False), rtol=1e-5, atol=1e-6)


def test_gru_forward_reset_after_cell_order_and_last_output(out):
    assert out["reset after weights"] == "1 3"  # [3][in][out]; biases [3][2][out]
    got = parse(out["reset after"])
    assert got.shape == (B, O)
    want = reference_gru([CANDIDATE, RESET, UPDATE], True)[-1]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_intermediates_for_training_are_refused(out):
    assert out["intermediates"].startswith("gruFwd: the intermediates of a backward pass are not supported")
