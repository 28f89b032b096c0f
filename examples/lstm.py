"""Trains a small LSTM on the embedded device to remember its previous input.

The whole training loop runs in one program: each pd.Repeat iteration runs the LSTM
forward, the mean squared error and its gradient, backward_with_weight_update and an
SGD step on the weights, and streams the loss to the host.
"""
import numpy as np

import popdsl as pd
from popdsl.nn import lstm

STEPS, BATCH, INPUTS, HIDDEN = 8, 4, 3, 6
ITERATIONS, LEARNING_RATE = 100, 10.0


def make_data(rng):
    """Random inputs; the target at step t is half the input at step t - 1 (zero at t = 0)."""
    x = rng.uniform(-1, 1, (STEPS, BATCH, INPUTS)).astype(np.float32)
    target = np.zeros((STEPS, BATCH, HIDDEN), np.float32)
    target[1:, :, :INPUTS] = 0.5 * x[:-1]
    return x, target


def main():
    device = pd.ipu_model(tiles=4)
    graph = pd.Graph(device)
    params = lstm.LstmParams(pd.float32, BATCH, STEPS, (INPUTS, HIDDEN))
    x = lstm.create_input(graph, params)
    state = lstm.create_initial_state(graph, params)
    weights = lstm.create_weights(graph, params)
    target = graph.variable(pd.float32, (STEPS, BATCH, HIDDEN), name="target")
    losses = graph.device_to_host(pd.float32, (1,), name="loss")

    count = STEPS * BATCH * HIDDEN
    with pd.Sequence("train") as train:
        lstm.zero_initial_state(state)
        with pd.Repeat(ITERATIONS):
            out, _, inter = lstm.forward(params, state, x, weights)
            error = out - target
            losses.write(pd.reduce_sum(pd.square(error).reshape(-1), axis=0).reshape(1) * (1.0 / count))
            out_grad = error * (2.0 / count)
            _, _, grads = lstm.backward_with_weight_update(params, state, inter, weights, x, out, out_grad)
            for weight, grad in zip(weights, grads):
                pd.map_(lambda w, g: w - LEARNING_RATE * g, weight, grad)

    rng = np.random.default_rng(0)
    inputs, targets = make_data(rng)
    with pd.Session(graph, train, device=device) as session:
        session.write(x, inputs)
        session.write(target, targets)
        for weight in weights:
            session.write(weight, rng.uniform(-0.3, 0.3, weight.shape))
        loss = session.run()[losses].reshape(-1)

    for i in range(0, ITERATIONS, 10):
        print(f"iteration {i:2d}: loss {loss[i]:.5f}")
    print(f"iteration {ITERATIONS - 1:2d}: loss {loss[-1]:.5f}")
    assert loss[-1] < 0.6 * loss[0], "the loss should fall"
    print("Program complete")


if __name__ == "__main__":
    main()
