"""examples/mlp_autodiff.py trains like the same model written in float64 numpy."""
import pathlib
import runpy

import numpy as np

from mlp_reference import loss_and_gradients
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
        loss, grads = loss_and_gradients(x, one_hot, params)
        losses.append(loss)
        adam.step(grads)
    return losses


def test_losses_match_numpy_step_by_step():
    got = EXAMPLE["train"](steps=STEPS, lr=0.05)
    expected = numpy_losses(STEPS, lr=0.05)
    np.testing.assert_allclose(got, expected, rtol=2e-4, atol=1e-5)
    assert expected[-1] < 0.8 * expected[0]  # it learns
