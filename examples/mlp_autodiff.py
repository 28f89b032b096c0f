"""A two-layer MLP classifier trained with pd.grad and pd.optim.Adam on a synthetic set.

The training program reads a batch from the host, computes the cross-entropy loss,
appends its gradient with pd.grad and updates the weights in place; each run is one step.
"""
import numpy as np

import popdsl as pd

POINTS, FEATURES, HIDDEN, CLASSES = 48, 2, 16, 3


def synthetic_data(seed=0):
    """Three interleaved spiral arms in the plane, one class each."""
    rng = np.random.default_rng(seed)
    labels = np.arange(POINTS) % CLASSES
    radius = np.linspace(0.2, 1.0, POINTS)
    angle = labels * 2 * np.pi / CLASSES + radius * 3 + rng.normal(0, 0.1, POINTS)
    x = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return x.astype(np.float32), labels.astype(np.int32)


def initial_weights(seed=1):
    rng = np.random.default_rng(seed)
    return {"w1": (rng.standard_normal((FEATURES, HIDDEN)) / np.sqrt(FEATURES)).astype(np.float32),
            "b1": np.zeros(HIDDEN, np.float32),
            "w2": (rng.standard_normal((HIDDEN, CLASSES)) / np.sqrt(HIDDEN)).astype(np.float32),
            "b2": np.zeros(CLASSES, np.float32)}


def train(steps=30, lr=0.05):
    """The loss of each step."""
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    inp = g.host_to_device(pd.float32, (POINTS, FEATURES), name="x")
    lab = g.host_to_device(pd.int32, (POINTS,), name="labels")
    losses = g.device_to_host(pd.float32, (1,), name="loss")
    w1, b1, w2, b2 = (g.variable(pd.float32, value.shape, name=name, init=value)
                      for name, value in initial_weights().items())
    opt = pd.optim.Adam(lr=lr)

    with pd.Sequence("train") as train_step:
        x, labels = inp.read(), lab.read()
        logits = pd.relu(x @ w1 + b1) @ w2 + b2
        loss = pd.nn.cross_entropy(logits, labels)
        grads = pd.grad(loss, [w1, b1, w2, b2])
        opt.step([w1, b1, w2, b2], grads)
        losses.write(loss)

    x, labels = synthetic_data()
    curve = []
    with pd.Session(g, {"train": train_step}, device=dev) as s:
        for _ in range(steps):
            out = s.run("train", feeds={inp: x[None], lab: labels[None]})
            curve.append(float(out[losses].reshape(-1)[0]))
    return curve


if __name__ == "__main__":
    for step, value in enumerate(train(), 1):
        print(f"step {step:2d}: loss {value:.4f}")
    print("Program complete")
