"""A model split over two IPUs and pipelined: the MLP of mlp_autodiff.py with its hidden
layer on IPU 0 and its classifier on IPU 1, each step's batch in micro-batches.

pd.Stage places each stage's ops on its IPU; pd.pipeline runs the micro-batches through the
stages in a 1F1B schedule, moving the hidden activations from IPU 0 to IPU 1 over the
IPU-Links with pd.ipu_copy and their gradients back, and returns the whole batch's loss and
gradients. The profile shows each IPU's memory, the IPU-Link traffic, and the overlap: the
elapsed cycles with the IPUs running at once against the cycles of the same work run one
step after another.
"""
import pathlib
import runpy

import numpy as np

import popdsl as pd

# The model, data and initial weights of mlp_autodiff.py.
MLP = runpy.run_path(str(pathlib.Path(__file__).with_name("mlp_autodiff.py")))
POINTS, FEATURES = MLP["POINTS"], MLP["FEATURES"]
synthetic_data, initial_weights = MLP["synthetic_data"], MLP["initial_weights"]
TILES_PER_IPU = 4


def train(steps=20, lr=0.5, micro_batches=4, schedule="1f1b"):
    """(the loss at each step, the final weights by name, the session: its profile on the emulator)."""
    dev = pd.ipu_model(tiles=TILES_PER_IPU, ipus=2)
    g = pd.Graph(dev)
    init = initial_weights()
    inp = g.host_to_device(pd.float32, (POINTS, FEATURES), name="x")
    lab = g.host_to_device(pd.int32, (POINTS,), name="labels")
    losses = g.device_to_host(pd.float32, (1,), name="loss")
    with pd.ipu(0):
        w1 = g.variable(pd.float32, init["w1"].shape, name="w1", init=init["w1"])
        b1 = g.variable(pd.float32, init["b1"].shape, name="b1", init=init["b1"])
    with pd.ipu(1):
        w2 = g.variable(pd.float32, init["w2"].shape, name="w2", init=init["w2"])
        b2 = g.variable(pd.float32, init["b2"].shape, name="b2", init=init["b2"])
    weights = [w1, b1, w2, b2]
    opt = pd.optim.SGD(lr=lr)

    def hidden_layer(x):
        return pd.relu(x @ w1 + b1)

    def classifier(hidden, labels):
        return pd.nn.cross_entropy(hidden @ w2 + b2, labels)

    with pd.Sequence("train") as train_step:
        with pd.ipu(0):
            x = inp.read()
        with pd.ipu(1):
            labels = lab.read()
        loss, grads = pd.pipeline([pd.Stage(hidden_layer, ipu=0, weights=[w1, b1], inputs=[x]),
                                   pd.Stage(classifier, ipu=1, weights=[w2, b2], inputs=[labels])],
                                  micro_batches, schedule=schedule)
        opt.step(weights, grads)
        losses.write(loss)

    x, labels = synthetic_data()
    curve = []
    with pd.Session(g, {"train": train_step}, device=dev) as s:
        for _ in range(steps):
            out = s.run("train", feeds={inp: x[None], lab: labels[None]})
            curve.append(float(out[losses].reshape(-1)[0]))
        final = {w.name.rsplit("/", 1)[-1]: s.read(w) for w in weights}
    return curve, final, s


if __name__ == "__main__":
    curve, _, session = train()
    profile = session.profile
    for step, value in enumerate(curve, 1):
        print(f"step {step:2d}: loss {value:.4f}")
    for ipu, used in enumerate(profile.memory.by_ipu()):
        print(f"IPU {ipu}: {used:,} bytes")
    print(f"IPU-Link traffic: {profile.ipu_link_bytes:,} bytes")
    print(f"Cycles (estimated): {profile.elapsed_cycles:,} elapsed with the IPUs in parallel, "
          f"{profile.total_cycles:,} with every step in sequence")
    print("Program complete")
