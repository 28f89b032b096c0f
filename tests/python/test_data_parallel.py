"""examples/data_parallel_mlp.py: 4 replicas with a quarter of the batch each and
mean-all-reduced gradients train like one float64 numpy model on the whole batch."""
import pathlib
import runpy

import numpy as np
import pytest

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
        pre = x @ params["w1"] + params["b1"]
        h = np.maximum(pre, 0)
        logits = h @ params["w2"] + params["b2"]
        shifted = logits - logits.max(1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        losses.append(-np.mean(np.sum(log_p * one_hot, 1)))
        d_logits = (np.exp(log_p) - one_hot) / len(x)
        d_pre = (d_logits @ params["w2"].T) * (pre > 0)
        grads = {"w1": x.T @ d_pre, "b1": d_pre.sum(0), "w2": h.T @ d_logits, "b2": d_logits.sum(0)}
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
