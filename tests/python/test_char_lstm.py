"""examples/char_lstm.py trains like the same model written in float64 numpy: the
embedding lookup, the LSTM (test_lstm's float64 reference, forward and backpropagation
through time), the projection, cross entropy and Adam, step by step."""
import pathlib
import runpy

import numpy as np

from numpy_adam import NumpyAdam
from test_lstm import Reference, make_config

EXAMPLE = runpy.run_path(str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "char_lstm.py"))
STEPS, LR = 20, 0.02


def numpy_losses(steps, lr):
    S, B, E, H = (EXAMPLE[k] for k in ("STEPS_PER_WINDOW", "BATCH", "EMBEDDING", "HIDDEN"))
    params = {k: v.astype(np.float64) for k, v in EXAMPLE["initial_weights"]().items()}
    adam = NumpyAdam(params, lr)
    cfg = make_config(S=S, B=B, I=E, H=H)
    losses = []
    for ids, next_ids in EXAMPLE["batches"](steps):
        x = params["embedding"][ids]  # [S, B, E]
        data = dict(x=x, h0=np.zeros((B, H)), c0=np.zeros((B, H)), Win=params["input_weights"],
                    Wout=params["output_weights"], b=params["biases"], dY=np.zeros((S, B, H)),
                    dh_last=np.zeros((B, H)), dc_last=np.zeros((B, H)))
        hidden = Reference(cfg, data).output().reshape(-1, H)
        logits = hidden @ params["projection"] + params["projection_bias"]
        shifted = logits - logits.max(1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        one_hot = np.eye(logits.shape[1])[next_ids.reshape(-1)]
        losses.append(-np.mean(np.sum(log_p * one_hot, 1)))
        d_logits = (np.exp(log_p) - one_hot) / len(logits)
        data["dY"] = (d_logits @ params["projection"].T).reshape(S, B, H)
        lstm = Reference(cfg, data)  # backpropagation through time from dY
        d_embedding = np.zeros_like(params["embedding"])
        np.add.at(d_embedding, ids.reshape(-1), lstm.dx.reshape(-1, E))
        adam.step({"embedding": d_embedding, "input_weights": lstm.dWin, "output_weights": lstm.dWout,
                   "biases": lstm.db, "projection": hidden.T @ d_logits, "projection_bias": d_logits.sum(0)})
    return losses


def test_losses_match_numpy_step_by_step():
    got = EXAMPLE["train"](steps=STEPS, lr=LR)
    expected = numpy_losses(STEPS, LR)
    np.testing.assert_allclose(got, expected, rtol=2e-4, atol=1e-5)
    assert np.mean(expected[-5:]) < 0.9 * np.mean(expected[:5])  # it learns
