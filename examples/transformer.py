"""A small decoder-only character transformer trained with pd.grad and pd.optim.Adam.

token + position embeddings (pd.nn.embedding) -> `layers` pre-norm blocks (layer norm,
causal flash attention by pd.nn.scaled_dot_product_attention, layer norm, GELU MLP, each
with a residual) -> layer norm -> linear -> cross entropy against the next character.
Each run of the training program reads a batch of windows of TEXT from the host and
updates every weight in place; at the end the model continues a prompt, greedily.

`--half` keeps the weights, activations and gradients in float16: the logits are cast to
float32 for the loss, the loss is scaled by a dynamic pd.optim.LossScale before pd.grad,
and Adam updates float32 master copies of the weights (docs/training_at_scale.rst).

The pieces are importable (runpy.run_path, as examples/pipeline_two_ipus.py does with
mlp_autodiff.py): `block(x, params)` is one layer, `forward` the whole model, `train_step`
one step's graph, `initial_weights` and `batches` its numpy data, `train` the loop.
"""
import argparse
import math
from typing import NamedTuple

import numpy as np

import popdsl as pd

TEXT = ("the quick brown fox jumps over the lazy dog. the lazy dog sleeps in the warm sun "
        "while the quick fox runs round the old barn. a small bird sings on the barn roof, "
        "and the fox stops to hear it. the dog wakes, the bird flies off, and the fox runs on "
        "into the long grass by the river. the sun goes down over the hills and the barn "
        "grows dark. the dog sleeps again, the fox sleeps in the grass, and the bird sleeps "
        "in the tree by the river until the sun comes up over the hills once more. ")


class Config(NamedTuple):
    """The model's sizes and the batch: `batch` windows of `length` characters per step."""

    dim: int = 32
    heads: int = 2
    layers: int = 2
    length: int = 32
    batch: int = 8
    mlp_ratio: int = 4


def vocabulary():
    return sorted(set(TEXT))


def encode(text):
    return np.array([vocabulary().index(c) for c in text], np.int32)


def batches(count, config=Config(), seed=0):
    """`count` batches of (inputs, targets), each [batch, length] character ids: windows
    starting at random places, the targets one character further on."""
    ids = encode(TEXT)
    starts = np.random.default_rng(seed).integers(0, ids.size - config.length - 1, (count, config.batch))
    offsets = np.arange(config.length)
    return [(ids[s[:, None] + offsets], ids[s[:, None] + offsets + 1]) for s in starts]


def layer_names(i):
    """The weights of layer i by their short names (what `block` reads) -> their full names."""
    return {short: f"layer{i}.{short}" for short in (
        "norm1_gamma", "norm1_beta", "qkv_weight", "qkv_bias", "out_weight", "out_bias",
        "norm2_gamma", "norm2_beta", "mlp_in_weight", "mlp_in_bias", "mlp_out_weight", "mlp_out_bias")}


def initial_weights(config=Config(), seed=1):
    """float32 numpy weights by name; linear weights are [out, in] (torch's layout), drawn like
    GPT-2's: normal with std 0.02, the projections into the residual scaled by 1/sqrt(2 layers)."""
    rng = np.random.default_rng(seed)
    vocab, d, hidden = len(vocabulary()), config.dim, config.mlp_ratio * config.dim
    residual_std = 0.02 / math.sqrt(2 * config.layers)

    def normal(std, *shape):
        return (std * rng.standard_normal(shape)).astype(np.float32)

    def ones(n):
        return np.ones(n, np.float32)

    def zeros(n):
        return np.zeros(n, np.float32)

    weights = {"token_embedding": normal(0.02, vocab, d), "position_embedding": normal(0.02, config.length, d)}
    for i in range(config.layers):
        layer = {"norm1_gamma": ones(d), "norm1_beta": zeros(d),
                 "qkv_weight": normal(0.02, 3 * d, d), "qkv_bias": zeros(3 * d),
                 "out_weight": normal(residual_std, d, d), "out_bias": zeros(d),
                 "norm2_gamma": ones(d), "norm2_beta": zeros(d),
                 "mlp_in_weight": normal(0.02, hidden, d), "mlp_in_bias": zeros(hidden),
                 "mlp_out_weight": normal(residual_std, d, hidden), "mlp_out_bias": zeros(d)}
        weights.update({name: layer[short] for short, name in layer_names(i).items()})
    weights.update({"final_gamma": ones(d), "final_beta": zeros(d),
                    "head_weight": normal(0.02, vocab, d), "head_bias": zeros(vocab)})
    return weights


def attention(x, params, heads):
    """Causal multi-head self-attention of x [B, L, D]: one packed qkv projection, the heads
    as flash attention's groups (G = B * heads), the heads joined and projected."""
    batch, length, dim = x.shape
    head_dim = dim // heads
    qkv = pd.nn.linear(x, params["qkv_weight"], params["qkv_bias"])  # [B, L, 3D]: q, k, v, each head by head
    qkv = qkv.reshape(batch, length, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
    q, k, v = (qkv[i].reshape(batch * heads, length, head_dim) for i in range(3))
    out = pd.nn.scaled_dot_product_attention(q, k, v)  # causal: flash attention, 1/sqrt(head_dim)
    out = out.reshape(batch, heads, length, head_dim).transpose(0, 2, 1, 3).reshape(batch, length, dim)
    return pd.nn.linear(out, params["out_weight"], params["out_bias"])


def block(x, params, heads=Config().heads):
    """One pre-norm transformer layer of x [B, L, D]: x + attention(norm(x)), then + mlp(norm(x));
    params holds the layer's weights by their short names (layer_names)."""
    x = x + attention(pd.nn.layer_norm(x, params["norm1_gamma"], params["norm1_beta"]), params, heads)
    h = pd.nn.layer_norm(x, params["norm2_gamma"], params["norm2_beta"])
    h = pd.gelu(pd.nn.linear(h, params["mlp_in_weight"], params["mlp_in_bias"]))
    return x + pd.nn.linear(h, params["mlp_out_weight"], params["mlp_out_bias"])


def embed(ids, weights):
    """ids [B, L] -> token embedding + position embedding [B, L, D]."""
    return pd.nn.embedding(ids, weights["token_embedding"]) + weights["position_embedding"]


def head(x, weights):
    """The final norm and the projection onto the vocabulary: logits [B, L, V]."""
    x = pd.nn.layer_norm(x, weights["final_gamma"], weights["final_beta"])
    return pd.nn.linear(x, weights["head_weight"], weights["head_bias"])


def forward(ids, weights, config=Config()):
    """logits [B, L, V] of ids [B, L] with the weights (pd tensors by name, as initial_weights)."""
    x = embed(ids, weights)
    for i in range(config.layers):
        x = block(x, {short: weights[name] for short, name in layer_names(i).items()}, config.heads)
    return head(x, weights)


def loss_of(ids, targets, weights, config=Config()):
    """The mean cross entropy of the next characters, in float32 whatever the weights' dtype."""
    logits = forward(ids, weights, config)
    return pd.nn.cross_entropy(logits if logits.dtype == pd.float32 else logits.astype(pd.float32), targets)


def train_step(ids, targets, weights, opt, config=Config(), loss_scale=None):
    """Appends one step to the open block: the loss of ids [B, L] predicting targets [B, L], its
    gradient and opt's update of every weight (with loss_scale, a pd.optim.LossScale, the
    gradient of the scaled loss); returns the loss."""
    loss = loss_of(ids, targets, weights, config)
    trained = list(weights.values())
    grads = pd.grad(loss if loss_scale is None else loss_scale.scale(loss), trained)
    opt.step(trained, grads, loss_scale=loss_scale)
    return loss


def train(steps=500, lr=3e-3, config=Config(), half=False, seed=0, sample=0, prompt="the "):
    """(the loss of each step, the final weights by name as float32 numpy arrays, `prompt`
    followed by the `sample` characters the model continues it with). With half, the weights are float16, trained on float32
    master copies with dynamic loss scaling."""
    dtype = pd.float16 if half else pd.float32
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    shape = (config.batch, config.length)
    inputs = g.host_to_device(pd.int32, shape, name="inputs")
    targets = g.host_to_device(pd.int32, shape, name="targets")
    losses = g.device_to_host(pd.float32, (1,), name="loss")
    weights = {name: g.variable(dtype, value.shape, name=name, init=value)
               for name, value in initial_weights(config).items()}
    opt = pd.optim.Adam(lr=lr)
    scale = pd.optim.LossScale(2.0 ** 12) if half else None

    with pd.Sequence("train") as train_program:
        losses.write(train_step(inputs.read(), targets.read(), weights, opt, config, scale))
    programs = {"train": train_program}
    if sample:  # one window [1, L] in, the logits of each of its positions out
        context = g.host_to_device(pd.int32, (1, config.length), name="context")
        predictions = g.device_to_host(pd.float32, (1, config.length, len(vocabulary())), name="logits")
        with pd.Sequence("predict") as predict:
            predictions.write(forward(context.read(), weights, config).astype(pd.float32))
        programs["predict"] = predict

    with pd.Session(g, programs, device=dev) as s:
        curve = [s.run("train", feeds={inputs: ids[None], targets: next_ids[None]})[losses].item()
                 for ids, next_ids in batches(steps, config, seed)]
        final = {name: s.read(opt.master(w)).astype(np.float32) for name, w in weights.items()}
        text = list(encode(prompt))
        for _ in range(sample):  # greedy: the likeliest next character of the last `length`
            window = np.array(text[-config.length:], np.int32)
            padded = np.zeros((1, 1, config.length), np.int32)
            padded[0, 0, :window.size] = window  # positions after the window's end do not affect it
            logits = s.run("predict", feeds={context: padded})[predictions]
            text.append(int(np.argmax(logits.reshape(config.length, -1)[window.size - 1])))
    return curve, final, "".join(vocabulary()[i] for i in text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", action="store_true", help="float16 weights and activations")
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--every", type=int, default=50, help="print the loss every this many steps")
    args = parser.parse_args()
    curve, _, text = train(args.steps, half=args.half, sample=60)
    print(f"{len(TEXT)} characters of text, {len(vocabulary())} distinct; {Config()}, "
          f"{'float16' if args.half else 'float32'}")
    for step in range(args.every, len(curve) + 1, args.every):
        window = curve[step - args.every:step]
        print(f"step {step:4d}: loss {window[-1]:.4f} (mean of the last {args.every}: {np.mean(window):.4f})")
    print(f"loss {curve[0]:.3f} -> {curve[-1]:.3f}")
    print(f"sample: {text!r}")
    print("Program complete")


if __name__ == "__main__":
    main()
