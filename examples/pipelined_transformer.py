"""The character transformer of transformer.py split over two IPUs and pipelined.

Stage 0 on IPU 0 embeds the characters and runs the first half of the layers; stage 1 on
IPU 1 runs the rest, the final norm, the head and the loss. Each step's batch of windows is
split into micro-batches that pd.pipeline runs through the two stages in a 1F1B schedule
(pd.ipu_copy moves the activations between the IPUs and their gradients back), and Adam
updates every weight on its stage's IPU from the whole batch's gradients, so the losses
are those of transformer.py's one-IPU training (tests/python/test_pipelining.py
checks them). At the end the profile compares the estimated cycles with the IPUs working at
once against the same work run step after step.
"""
import argparse
import pathlib
import runpy

import numpy as np

import popdsl as pd

MODEL = runpy.run_path(str(pathlib.Path(__file__).with_name("transformer.py")))
Config, initial_weights, layer_names = MODEL["Config"], MODEL["initial_weights"], MODEL["layer_names"]
embed, block, head, batches = MODEL["embed"], MODEL["block"], MODEL["head"], MODEL["batches"]


def stage_names(config):
    """The weights' names of stage 0 (embeddings, first half of the layers) and stage 1."""
    split = config.layers // 2
    first = ["token_embedding", "position_embedding"]
    second = ["final_gamma", "final_beta", "head_weight", "head_bias"]
    for i in range(config.layers):
        (first if i < split else second).extend(layer_names(i).values())
    return first, second


def train(steps=20, lr=3e-3, config=Config(), micro_batches=4, schedule="1f1b", recompute=False, seed=0):
    """(the loss of each step, the final weights by name, the session: its profile on the emulator)."""
    dev = pd.ipu_model(tiles=4, ipus=2)
    g = pd.Graph(dev)
    shape = (config.batch, config.length)
    inputs = g.host_to_device(pd.int32, shape, name="inputs")
    targets = g.host_to_device(pd.int32, shape, name="targets")
    losses = g.device_to_host(pd.float32, (1,), name="loss")
    init = initial_weights(config)
    weights = {}
    for ipu, names in enumerate(stage_names(config)):
        with pd.ipu(ipu):
            weights.update({name: g.variable(pd.float32, init[name].shape, name=name, init=init[name])
                            for name in names})
    split = config.layers // 2

    def layers(x, indices):
        for i in indices:
            x = block(x, {short: weights[name] for short, name in layer_names(i).items()}, config.heads)
        return x

    def first_stage(ids):
        return layers(embed(ids, weights), range(split))

    def second_stage(x, next_ids):
        return pd.nn.cross_entropy(head(layers(x, range(split, config.layers)), weights), next_ids)

    first, second = ([weights[n] for n in names] for names in stage_names(config))
    opt = pd.optim.Adam(lr=lr)
    with pd.Sequence("train") as train_program:
        with pd.ipu(0):
            ids = inputs.read()
        with pd.ipu(1):
            next_ids = targets.read()
        loss, grads = pd.pipeline([pd.Stage(first_stage, ipu=0, weights=first, inputs=[ids]),
                                   pd.Stage(second_stage, ipu=1, weights=second, inputs=[next_ids])],
                                  micro_batches, schedule=schedule, recompute=recompute)
        opt.step(first + second, grads)
        losses.write(loss)

    with pd.Session(g, {"train": train_program}, device=dev) as s:
        curve = [s.run("train", feeds={inputs: x[None], targets: y[None]})[losses].item()
                 for x, y in batches(steps, config, seed)]
        final = {name: s.read(w) for name, w in weights.items()}
    return curve, final, s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--micro-batches", type=int, default=4)
    parser.add_argument("--schedule", choices=["1f1b", "gpipe"], default="1f1b")
    parser.add_argument("--recompute", action="store_true", help="run each stage's forward again in its backward")
    args = parser.parse_args()
    curve, _, session = train(args.steps, micro_batches=args.micro_batches, schedule=args.schedule,
                              recompute=args.recompute)
    profile = session.profile
    print(f"{Config()}, {args.micro_batches} micro-batches, {args.schedule}"
          f"{' with recomputation' if args.recompute else ''}")
    print(f"loss {curve[0]:.3f} -> {curve[-1]:.3f} (mean of the last 5: {np.mean(curve[-5:]):.3f})")
    for ipu, used in enumerate(profile.memory.by_ipu()):
        print(f"IPU {ipu}: {used:,} bytes")
    print(f"IPU-Link traffic: {profile.ipu_link_bytes:,} bytes")
    print(f"Cycles (estimated): {profile.elapsed_cycles:,} elapsed with the IPUs in parallel, "
          f"{profile.total_cycles:,} with every step in sequence "
          f"({profile.elapsed_cycles / profile.total_cycles:.0%})")
    print("Program complete")


if __name__ == "__main__":
    main()
