"""The two-layer MLP of examples/mlp_autodiff.py in float64 numpy: the reference its
training tests compare against."""
import numpy as np


def loss_and_gradients(x, one_hot, params):
    """The mean cross-entropy of relu(x @ w1 + b1) @ w2 + b2 and its gradients by name."""
    pre = x @ params["w1"] + params["b1"]
    h = np.maximum(pre, 0)
    logits = h @ params["w2"] + params["b2"]
    shifted = logits - logits.max(1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    loss = -np.mean(np.sum(log_p * one_hot, 1))
    d_logits = (np.exp(log_p) - one_hot) / len(x)
    d_pre = (d_logits @ params["w2"].T) * (pre > 0)
    return loss, {"w1": x.T @ d_pre, "b1": d_pre.sum(0), "w2": h.T @ d_logits, "b2": d_logits.sum(0)}


def numpy_sgd(x, labels, params, steps, lr):
    """(losses, final weights): `steps` of SGD on the whole batch, in float64."""
    x = x.astype(np.float64)
    params = {k: v.astype(np.float64) for k, v in params.items()}
    one_hot = np.eye(params["b2"].size)[labels]
    losses = []
    for _ in range(steps):
        loss, grads = loss_and_gradients(x, one_hot, params)
        losses.append(loss)
        params = {k: params[k] - lr * grads[k] for k in params}
    return losses, params
