"""examples/mlp_autodiff.py trains like the same model written in float64 numpy."""
import pathlib
import runpy

import numpy as np

from numpy_adam import NumpyAdam

EXAMPLE = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "mlp_autodiff.py"))
STEPS = 20


def numpy_losses(steps, lr):
    """The example's model, loss and Adam (PyTorch's formulas) in float64 numpy."""
    x, labels = (a.astype(np.float64) if a.dtype.kind == "f" else a for a in EXAMPLE["synthetic_data"]())
    params = {k: v.astype(np.float64) for k, v in EXAMPLE["initial_weights"]().items()}
    adam = NumpyAdam(params, lr)
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
        adam.step({"w1": x.T @ d_pre, "b1": d_pre.sum(0), "w2": h.T @ d_logits, "b2": d_logits.sum(0)})
    return losses


def test_losses_match_numpy_step_by_step():
    got = EXAMPLE["train"](steps=STEPS, lr=0.05)
    expected = numpy_losses(STEPS, lr=0.05)
    np.testing.assert_allclose(got, expected, rtol=2e-4, atol=1e-5)
    assert expected[-1] < 0.8 * expected[0]  # it learns
