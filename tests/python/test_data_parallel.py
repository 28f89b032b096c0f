"""examples/data_parallel_mlp.py: 4 replicas with a quarter of the batch each and
mean-all-reduced gradients train like one float64 numpy model on the whole batch."""
import pathlib
import runpy

import numpy as np
import pytest

from mlp_reference import loss_and_gradients

EXAMPLE = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "data_parallel_mlp.py"))
STEPS, LR = 12, 0.5

pytestmark = pytest.mark.needs_emulator("runs a replicated graph, which the SDK's IPU Model does not")


def numpy_sgd(steps, lr):
    """(losses, final weights): the example's model on the whole batch, float64 numpy SGD."""
    x, labels = EXAMPLE["synthetic_data"]()
    x = x.astype(np.float64)
    params = {k: v.astype(np.float64) for k, v in EXAMPLE["initial_weights"]().items()}
    one_hot = np.eye(params["b2"].size)[labels]
    losses = []
    for _ in range(steps):
        loss, grads = loss_and_gradients(x, one_hot, params)
        losses.append(loss)
        params = {k: params[k] - lr * grads[k] for k in params}
    return losses, params


@pytest.mark.parametrize("replicas", [1, 4])
def test_replicas_train_like_one_model_on_the_whole_batch(replicas):
    losses, weights = EXAMPLE["train"](replicas=replicas, steps=STEPS, lr=LR)
    expected_losses, expected_weights = numpy_sgd(STEPS, LR)
    np.testing.assert_allclose(losses, expected_losses, rtol=1e-4, atol=1e-6)
    assert expected_losses[-1] < 0.9 * expected_losses[0]  # it learns
    for name, expected in expected_weights.items():
        copies = weights[name] if replicas > 1 else weights[name][None]  # s.read gives [replicas, ...]
        for copy in copies:  # every replica holds the same weights
            np.testing.assert_allclose(copy, expected, rtol=1e-4, atol=1e-5)
