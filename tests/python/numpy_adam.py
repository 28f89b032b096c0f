"""PyTorch's Adam and AdamW in float64 numpy: the reference optimiser of the training
examples' tests."""
import numpy as np


class NumpyAdam:
    def __init__(self, params: dict, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False):
        """weight_decay: Adam's L2 term added to the gradient, or with decoupled=True AdamW's
        `w *= 1 - lr * weight_decay` before the update."""
        self.params, self.lr, self.betas, self.eps = params, lr, betas, eps
        self.weight_decay, self.decoupled = weight_decay, decoupled
        self.m = {k: 0.0 for k in params}
        self.v = {k: 0.0 for k in params}
        self.t = 0

    def step(self, grads: dict):
        """Updates self.params (a dict of float64 arrays) from the gradients of the same keys."""
        (b1, b2), self.t, wd = self.betas, self.t + 1, self.weight_decay
        for k, g in grads.items():
            if self.decoupled:
                self.params[k] = self.params[k] * (1 - self.lr * wd)
            else:
                g = g + wd * self.params[k]
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            m_hat, v_hat = self.m[k] / (1 - b1 ** self.t), self.v[k] / (1 - b2 ** self.t)
            self.params[k] = self.params[k] - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
