"""What the GRU and LSTM tests share: the C++ programs' operand values and central
differences of a float64 numpy loss."""
import numpy as np


def values(shape, seed, scale):
    """The programs' value(i, seed, scale), rounded to float32 as they are, in float64."""
    i = np.arange(int(np.prod(shape)))
    return (scale * np.sin(0.37 * i + seed)).astype(np.float32).astype(np.float64).reshape(shape)


def numeric_gradients(ops, loss, step=1e-6):
    """d loss() / d(each element of each operand, changed in place), concatenated."""
    grads = []
    for a in ops:
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            keep = a[i]
            a[i] = keep + step
            up = loss()
            a[i] = keep - step
            g[i] = (up - loss()) / (2 * step)
            a[i] = keep
        grads.append(g.ravel())
    return np.concatenate(grads)
