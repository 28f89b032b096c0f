"""popnn/Rnn.hpp's RnnParams and tensor helpers, through tests/cpp/rnn_utilities.cpp
built against the prefix; expected values worked out by hand in the comments."""
import numpy as np
import pytest

from cpp_build import run_labelled_program


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return run_labelled_program(tmp_path_factory.mktemp("rnn"), "rnn_utilities")[0]


def test_params_spread_a_step_over_the_tiles(out):
    # Input 24 features: grains of gcd(16, 24) = 8, 2 batches x 3 = 6 grains. Output 8: 2 grains.
    # 4 tiles: 2 input grains a tile (3 tiles, 2*8*4 = 64 bytes), 1 output grain (32 bytes);
    # a shard needs 3 tiles, so one shard.
    assert out["tiles 4"] == "shards 1, bytes 64 32"
    # 16 tiles: 1 grain a tile (32 bytes each), 6 tiles a shard: 2 shards of 2 and 1 steps.
    assert out["tiles 16"] == "shards 2, bytes 32 32"


def test_tensor_shapes_and_layout(out):
    # state [multiple][batch][output or input size], then [steps][batch][size] tensors;
    # the second output holds two outputs along time; the recurrent one has size 5.
    assert out["shapes"] == "2x2x8 1x2x24 3x2x24 3x2x8 6x2x8 3x2x5"
    # 144 elements in grains of 8 over 4 tiles: 18 grains, 5 a tile.
    assert out["input tile 0"] == "[0, 40)"


def test_variable_time_steps(out):
    # fixed; per batch ([2]); one for all ([1]); timeSteps mirrors maxTimeSteps.
    assert out["variable"] == "00 11 10 5"
    assert out["bad sizes"] == "RnnParams: layerSizes must hold {input size, output size}, not 3 sizes"


def test_shift_rnn_tensor_delays_by_one_step(out):
    # Step 0 is tSingle (-1, -2), step n is tBase's step n - 1.
    assert out["shift"] == "3x1x2, -1 -2 1 2 3 4"
    # Two outputs along time: a step is 2 rows.
    assert out["shift 2"] == "6x1x2, -1 -2 -3 -4 1 2 3 4 5 6 7 8"


# tests/cpp/rnn_loops.cpp: popnn::rnn::Rnn over T=5 steps, batch 2, size 3, with the cell
# h_t = tanh(w x_t + u h_{t-1}); the same in float64 numpy here.
T, B, S, W, U = 5, 2, 3, 0.7, -0.4
X = np.sin(np.arange(T)[:, None, None] + 2 * np.arange(B)[None, :, None] + 3 * np.arange(S)[None, None, :])
H0 = 0.1 * (np.arange(B)[:, None] + np.arange(S)[None, :])


def reference(order, limits=None):
    """The state after each step (indexed by time) and the final state."""
    h, states = H0.copy(), np.zeros((T, B, S))
    for t in order:
        new = np.tanh(W * X[t] + U * h)
        if limits is not None:
            new = np.where((t < np.asarray(limits))[:, None], new, h)
        h = states[t] = new
    return states, h


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    out = run_labelled_program(tmp_path_factory.mktemp("rnn_loops"), "rnn_loops")[0]
    return {k: (np.array(v.split(), dtype=float) if k not in ("gather calls", "bad option", "short input") else v)
            for k, v in out.items()}


@pytest.mark.parametrize("label,order", [("forward", range(T)), ("reverse", range(T - 1, -1, -1))])
def test_rnn_runs_the_cell_over_every_step_in_order(loops, label, order):
    states, final = reference(order)
    # outputs, the state sequence and interimOut each hold every step's value at its time index.
    np.testing.assert_allclose(loops[f"{label} out"], states.ravel(), atol=1e-6)
    np.testing.assert_allclose(loops[f"{label} states"], states.ravel(), atol=1e-6)
    np.testing.assert_allclose(loops[f"{label} wx"], (W * X).ravel(), atol=1e-6)
    np.testing.assert_allclose(loops[f"{label} final"], final.ravel(), atol=1e-6)


def test_rnn_with_variable_time_steps_masks_each_batch_element_past_its_count(loops):
    states, final = reference(range(T), limits=[2, 4])
    np.testing.assert_allclose(loops["variable final"], final.ravel(), atol=1e-6)
    np.testing.assert_allclose(loops["variable states"], states.ravel(), atol=1e-6)


def test_rnn_gather_form_runs_down_and_gathers_every_interval(loops):
    states, final = reference(range(T - 1, -1, -1))
    y = 1.0 + np.arange(T)[:, None, None]
    # Two intervals of 2 steps (the first call creates the accumulator), then the 1 left.
    assert loops["gather calls"] == "2i,1"
    np.testing.assert_allclose(loops["gather accumulated"], (states * y).sum(axis=0).ravel(), rtol=1e-6)
    np.testing.assert_allclose(loops["gather final"], final.ravel(), atol=1e-6)


def test_rnn_refuses_unknown_options_and_short_sequences(loops):
    assert loops["bad option"] == "popnn::rnn::Rnn: unknown option 'unrolled'"
    assert loops["short input"] == ("popnn::rnn::Rnn: input 0 must have maxTimeSteps (5) steps in its outermost "
                                    "dimension")
