"""Data-parallel training: the MLP of mlp_autodiff.py on 4 replicas.

Each replica holds a copy of the weights and reads its own quarter of the batch (the
feed's leading axis is the replica); pd.grad gives each replica the gradient of its
quarter, pd.all_reduce(op="mean") averages the gradients across the replicas, and every
replica applies the same SGD step, so the weights stay equal on all of them and follow
the full batch's gradient descent.
"""
import pathlib
import runpy

import sys

import numpy as np

import popdsl as pd

# The model, data and initial weights of mlp_autodiff.py.
MLP = runpy.run_path(str(pathlib.Path(__file__).with_name("mlp_autodiff.py")))
POINTS, FEATURES = MLP["POINTS"], MLP["FEATURES"]
synthetic_data, initial_weights = MLP["synthetic_data"], MLP["initial_weights"]


def train(replicas=4, steps=20, lr=0.5):
    """(the full batch's loss at each step, the final weights of every replica by name)."""
    local = POINTS // replicas
    dev = pd.ipu_model(tiles=4, ipus=replicas)
    g = pd.Graph(dev, replicas=replicas)
    inp = g.host_to_device(pd.float32, (local, FEATURES), name="x")
    lab = g.host_to_device(pd.int32, (local,), name="labels")
    losses = g.device_to_host(pd.float32, (1,), name="loss")
    weights = [g.variable(pd.float32, value.shape, name=name, init=value)
               for name, value in initial_weights().items()]
    w1, b1, w2, b2 = weights
    opt = pd.optim.SGD(lr=lr)

    with pd.Sequence("train") as train_step:
        x, labels = inp.read(), lab.read()
        logits = pd.relu(x @ w1 + b1) @ w2 + b2
        loss = pd.nn.cross_entropy(logits, labels)
        grads = [pd.all_reduce(grad, op="mean") for grad in pd.grad(loss, weights)]
        opt.step(weights, grads)
        losses.write(pd.all_reduce(loss, op="mean"))

    x, labels = synthetic_data()
    # Replica r gets points r, r + replicas, ...: every replica sees every class.
    # Under several instances (python -m popdsl run --instances I) each feeds its own replicas.
    x_parts = pd.distributed.shard(np.stack([x[r::replicas] for r in range(replicas)]))
    label_parts = pd.distributed.shard(np.stack([labels[r::replicas] for r in range(replicas)]))
    curve = []
    with pd.Session(g, {"train": train_step}, device=dev) as s:
        for _ in range(steps):
            out = s.run("train", feeds={inp: x_parts, lab: label_parts})
            curve.append(float(out[losses].reshape(len(x_parts), -1)[0, 0]))
        final = {w.name.rsplit("/", 1)[-1]: s.read(w) for w in weights}
    return curve, final


if __name__ == "__main__":
    curve, final = train()
    for step, value in enumerate(curve, 1):
        pd.distributed.print_once(f"step {step:2d}: loss {value:.4f}")
    if len(sys.argv) > 1:  # a path: every replica's final weights, gathered from every instance
        pd.distributed.save_once(sys.argv[1], **{name: pd.distributed.all_gather(w) for name, w in final.items()})
    pd.distributed.print_once("Program complete")
