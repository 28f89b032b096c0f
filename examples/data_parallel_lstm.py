"""Data-parallel LSTM training: the model of lstm.py on 4 replicas.

Each replica holds a copy of the weights and a quarter of the batch. Every iteration runs
the LSTM forward, the mean squared error, backward_with_weight_update, a mean all-reduce
of the weight gradients over the replicas and the same SGD step on every replica, so the
weights stay equal everywhere and follow the whole batch's gradient descent.
"""
import sys

import numpy as np

import popdsl as pd
from popdsl.nn import lstm

STEPS, BATCH, INPUTS, HIDDEN = 8, 8, 3, 6
LEARNING_RATE = 10.0


def make_data(rng):
    """Random inputs; the target at step t is half the input at step t - 1 (zero at t = 0)."""
    x = rng.uniform(-1, 1, (STEPS, BATCH, INPUTS)).astype(np.float32)
    target = np.zeros((STEPS, BATCH, HIDDEN), np.float32)
    target[1:, :, :INPUTS] = 0.5 * x[:-1]
    return x, target


def train(replicas=4, iterations=40):
    """(the whole batch's loss at each iteration, the final weights of every replica)."""
    local = BATCH // replicas
    device = pd.ipu_model(tiles=4, ipus=replicas)
    graph = pd.Graph(device, replicas=replicas)
    params = lstm.LstmParams(pd.float32, local, STEPS, (INPUTS, HIDDEN))
    x = lstm.create_input(graph, params)
    state = lstm.create_initial_state(graph, params)
    weights = lstm.create_weights(graph, params)
    target = graph.variable(pd.float32, (STEPS, local, HIDDEN), name="target")
    losses = graph.device_to_host(pd.float32, (1,), name="loss")

    count = STEPS * local * HIDDEN
    with pd.Sequence("train") as train_step:
        lstm.zero_initial_state(state)
        with pd.Repeat(iterations):
            out, _, inter = lstm.forward(params, state, x, weights)
            error = out - target
            loss = pd.reduce_sum(pd.square(error).reshape(-1), axis=0).reshape(1) * (1.0 / count)
            losses.write(pd.all_reduce(loss, op="mean"))
            _, _, grads = lstm.backward_with_weight_update(params, state, inter, weights, x, out,
                                                           error * (2.0 / count))
            for weight, grad in zip(weights, grads):
                pd.map_(lambda w, g: w - LEARNING_RATE * g, weight, pd.all_reduce(grad, op="mean"))

    rng = np.random.default_rng(0)
    inputs, targets = make_data(rng)
    # Replica r gets batch entries r * local to (r + 1) * local, along the batch axis (1); under
    # several instances (python -m popdsl run --instances I) each writes its own replicas' part.
    shard = lambda a: pd.distributed.shard(  # noqa: E731
        np.stack([a[:, r * local:(r + 1) * local] for r in range(replicas)]))
    with pd.Session(graph, train_step, device=device) as session:
        session.write(x, shard(inputs) if replicas > 1 else inputs)
        session.write(target, shard(targets) if replicas > 1 else targets)
        for weight in weights:
            session.write(weight, rng.uniform(-0.3, 0.3, weight.shape))
        curve = session.run()[losses].reshape(-1, iterations)[0]  # [local replicas, writes, 1]
        final = [session.read(w) for w in weights]
    return curve, final


if __name__ == "__main__":
    curve, final = train()
    for i in range(0, len(curve), 10):
        pd.distributed.print_once(f"iteration {i:2d}: loss {curve[i]:.5f}")
    assert curve[-1] < 0.8 * curve[0], "the loss should fall"
    if len(sys.argv) > 1:  # a path: every replica's final weights, gathered from every instance
        pd.distributed.save_once(sys.argv[1], **{f"w{k}": pd.distributed.all_gather(w) for k, w in enumerate(final)})
    pd.distributed.print_once("Program complete")
