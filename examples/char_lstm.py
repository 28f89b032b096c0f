"""A character-level language model trained with pd.grad and pd.optim.Adam on a short text.

embedding (pd.gather) -> pd.nn.lstm -> linear -> cross entropy: each run of the training
program reads a batch of windows of the text from the host, predicts each next character,
appends the gradient with pd.grad (through the LSTM's own backward builder) and updates
every weight in place.
"""
import numpy as np

import popdsl as pd

TEXT = ("the quick brown fox jumps over the lazy dog. a lazy dog sleeps in the sun while "
        "the quick fox runs round and round the old brown barn. ")
STEPS_PER_WINDOW, BATCH, EMBEDDING, HIDDEN = 8, 4, 8, 16


def vocabulary():
    return sorted(set(TEXT))


def batches(count, seed=0):
    """`count` batches of (inputs, targets), each [STEPS_PER_WINDOW, BATCH] character ids:
    windows starting at random places, the targets one character further on."""
    ids = np.array([vocabulary().index(c) for c in TEXT], np.int32)
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, ids.size - STEPS_PER_WINDOW - 1, (count, BATCH))
    offsets = np.arange(STEPS_PER_WINDOW)[:, None]
    return [(ids[s + offsets], ids[s + offsets + 1]) for s in starts]


def initial_weights(seed=1):
    rng = np.random.default_rng(seed)
    vocab = len(vocabulary())

    def uniform(scale, *shape):
        return rng.uniform(-scale, scale, shape).astype(np.float32)
    return {"embedding": uniform(1.0, vocab, EMBEDDING),
            "input_weights": uniform(HIDDEN ** -0.5, 4, EMBEDDING, HIDDEN),
            "output_weights": uniform(HIDDEN ** -0.5, 4, HIDDEN, HIDDEN),
            "biases": np.zeros((4, HIDDEN), np.float32),
            "projection": uniform(HIDDEN ** -0.5, HIDDEN, vocab),
            "projection_bias": np.zeros(vocab, np.float32)}


def train(steps=30, lr=0.02):
    """The loss of each step."""
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    inputs = g.host_to_device(pd.int32, (STEPS_PER_WINDOW, BATCH), name="inputs")
    targets = g.host_to_device(pd.int32, (STEPS_PER_WINDOW, BATCH), name="targets")
    losses = g.device_to_host(pd.float32, (1,), name="loss")
    weights = {name: g.variable(pd.float32, value.shape, name=name, init=value)
               for name, value in initial_weights().items()}
    params = pd.nn.lstm.LstmParams(pd.float32, BATCH, STEPS_PER_WINDOW, (EMBEDDING, HIDDEN))
    lstm_weights = pd.nn.lstm.LstmWeights(weights["input_weights"], weights["output_weights"], weights["biases"])
    zeros = np.zeros((BATCH, HIDDEN), np.float32)
    state = pd.nn.lstm.LstmState(g.constant(zeros, name="h0"), g.constant(zeros, name="c0"))
    opt = pd.optim.Adam(lr=lr)

    with pd.Sequence("train") as train_step:
        x = pd.gather(weights["embedding"], inputs.read())  # [steps, batch, embedding]
        hidden, _, _ = pd.nn.lstm.forward(params, state, x, lstm_weights)
        logits = hidden.reshape(-1, HIDDEN) @ weights["projection"] + weights["projection_bias"]
        loss = pd.nn.cross_entropy(logits, targets.read().reshape(-1))
        trained = list(weights.values())
        opt.step(trained, pd.grad(loss, trained))
        losses.write(loss)

    with pd.Session(g, {"train": train_step}, device=dev) as s:  # one run per batch, each feeding one
        return [s.run("train", feeds={inputs: ids[None], targets: next_ids[None]})[losses].item()
                for ids, next_ids in batches(steps)]


if __name__ == "__main__":
    curve = train()
    for step, value in enumerate(curve, 1):
        print(f"step {step:2d}: loss {value:.4f} {'#' * round(10 * value)}")
    print(f"loss {curve[0]:.3f} -> {curve[-1]:.3f}")
    print("Program complete")
