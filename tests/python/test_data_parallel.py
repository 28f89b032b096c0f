"""examples/data_parallel_mlp.py: 4 replicas with a quarter of the batch each and
mean-all-reduced gradients train like one float64 numpy model on the whole batch."""
import pathlib
import runpy

import numpy as np
import pytest

from mlp_reference import numpy_sgd

EXAMPLE = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "data_parallel_mlp.py"))
STEPS, LR = 12, 0.5

pytestmark = pytest.mark.needs_emulator("runs a replicated graph, which the SDK's IPU Model does not")


@pytest.mark.parametrize("replicas", [1, 4])
def test_replicas_train_like_one_model_on_the_whole_batch(replicas):
    losses, weights = EXAMPLE["train"](replicas=replicas, steps=STEPS, lr=LR)
    x, labels = EXAMPLE["synthetic_data"]()
    expected_losses, expected_weights = numpy_sgd(x, labels, EXAMPLE["initial_weights"](), STEPS, LR)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-4, atol=1e-6)
    assert expected_losses[-1] < 0.9 * expected_losses[0]  # it learns
    for name, expected in expected_weights.items():
        copies = weights[name] if replicas > 1 else weights[name][None]  # s.read gives [replicas, ...]
        for copy in copies:  # every replica holds the same weights
            np.testing.assert_allclose(copy, expected, rtol=1e-4, atol=1e-5)


LSTM = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "data_parallel_lstm.py"))


def test_lstm_replicas_end_with_the_weights_of_one_replica_on_the_whole_batch():
    # examples/data_parallel_lstm.py: 4 replicas of 2 sequences each against 1 replica of 8.
    one_curve, one_weights = LSTM["train"](replicas=1, iterations=12)
    curve, weights = LSTM["train"](replicas=4, iterations=12)
    assert one_curve[-1] < 0.9 * one_curve[0]  # it learns
    np.testing.assert_allclose(curve, one_curve, rtol=1e-4, atol=1e-7)
    for replicated, reference in zip(weights, one_weights):
        assert replicated.shape == (4, *reference.shape)
        for copy in replicated:  # every replica holds the same weights
            np.testing.assert_allclose(copy, reference, rtol=1e-4, atol=1e-6)
