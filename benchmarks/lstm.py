"""LSTM training step on the emulator vs PyTorch's CPU nn.LSTM, and the S=1000 build time.

Times forward + backward + weight update (pd.nn.lstm) at S=100, B=32, I=H=256 in float
against torch.nn.LSTM forward + backward at the same sizes and thread count (budget:
within 1.0x), then building and compiling the training graph at S=1000 (budget: well
under a second). PyTorch is not a project dependency: install the CPU wheel anywhere
and pass --torch-python /path/to/that/python if it is not importable here.

    python benchmarks/lstm.py [--threads N] [--torch-python PYTHON] [--repeats N] [--rounds N]
"""
import argparse
import contextlib
import json
import os
import subprocess
import sys
import time

S, B, I, H = 100, 32, 256, 256


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="BLAS threads for the emulator and for torch (default: every core)")
    parser.add_argument("--torch-python", default=sys.executable, help="a Python that can import torch")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per round and side")
    parser.add_argument("--rounds", type=int, default=3, help="rounds alternating the emulator and torch")
    return parser.parse_args()


ARGS = parse_arguments()
THREADS = ARGS.threads
os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)  # read when popdsl loads OpenBLAS
os.environ["POPDSL_NUM_THREADS"] = str(THREADS)  # the emulator's pool, read when it first runs

import numpy as np  # noqa: E402

import popdsl as pd  # noqa: E402
from popdsl.nn import lstm  # noqa: E402
from ratios import report  # noqa: E402

TORCH_TIMER = """
import json, sys, time, torch
S, B, I, H, threads, repeats = (int(a) for a in sys.argv[1:])
torch.set_num_threads(threads)
torch.manual_seed(0)
layer = torch.nn.LSTM(I, H)
x = torch.randn(S, B, I, requires_grad=True)
h0 = torch.zeros(1, B, H, requires_grad=True)
c0 = torch.zeros(1, B, H, requires_grad=True)
grad = torch.randn(S, B, H)
best = float("inf")
for _ in range(repeats + 1):  # the first run warms up
    layer.zero_grad()
    start = time.perf_counter()
    out, _ = layer(x, (h0, c0))
    out.backward(grad)
    best = min(best, time.perf_counter() - start)
print(json.dumps({"seconds": best, "version": torch.__version__}))
"""


def training_graph(time_steps, options=None):
    """fwd + backward_with_weight_update for one layer; returns (graph, program, tensors)."""
    device = pd.ipu_model()
    graph = pd.Graph(device)
    params = lstm.LstmParams(pd.float32, B, time_steps, (I, H))
    x = lstm.create_input(graph, params)
    state = lstm.create_initial_state(graph, params)
    weights = lstm.create_weights(graph, params)
    out_grad = graph.variable(pd.float32, (time_steps, B, H), name="outGrad")
    with pd.Sequence("train") as train:
        out, _, inter = lstm.forward(params, state, x, weights, options=options)
        grads = lstm.backward_with_weight_update(params, state, inter, weights, x, out, out_grad, options=options)
    return device, graph, train, dict(x=x, state=state, weights=weights, out_grad=out_grad, grads=grads)


def build_and_compile(time_steps, options=None):
    start = time.perf_counter()
    device, graph, train, tensors = training_graph(time_steps, options)
    built = time.perf_counter()
    session = pd.Session(graph, train, device=device)
    return session, tensors, built - start, time.perf_counter() - built


def loaded_session(stack, options=None):
    """The training step at S=100, compiled, attached (until `stack` closes) and loaded
    with random data."""
    session, t, _, _ = build_and_compile(S, options)
    rng = np.random.default_rng(0)
    stack.enter_context(session)
    session.write(t["x"], rng.standard_normal((S, B, I)))
    for w in t["weights"]:
        session.write(w, rng.uniform(-0.06, 0.06, w.shape))
    session.write(t["state"].output, 0)
    session.write(t["state"].cell_state, 0)
    session.write(t["out_grad"], rng.standard_normal((S, B, H)))
    session.run()  # warms up
    return session


def time_emulator(session, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        session.run()
        best = min(best, time.perf_counter() - start)
    return best


def time_torch(python, repeats):
    result = subprocess.run([python, "-c", TORCH_TIMER, *map(str, (S, B, I, H, THREADS, repeats))],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"PyTorch did not run with {python}:\n{result.stderr[-2000:]}\n"
                 "install the CPU wheel and pass --torch-python")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(args):
    # Rounds alternate the emulator and torch, so a neighbour's load that comes and goes
    # hits both; the ratio takes each side's best over all rounds. (OpenBLAS's idle threads
    # have gone to sleep by the time the torch process has imported torch.)
    stack = contextlib.ExitStack()
    sessions = {"default": loaded_session(stack),
                "preCalcWeights": loaded_session(stack, {"preCalcWeights": "true"})}
    best = {"default": float("inf"), "preCalcWeights": float("inf"), "torch": float("inf")}
    print(f"LSTM S={S} B={B} I={I} H={H} float, {THREADS} thread(s), {args.rounds} rounds, best of {args.repeats} each")
    for round_ in range(args.rounds):
        times = {name: time_emulator(session, args.repeats) for name, session in sessions.items()}
        torch = time_torch(args.torch_python, args.repeats)
        times["torch"] = torch["seconds"]
        best = {name: min(best[name], seconds) for name, seconds in times.items()}
        print(f"  round {round_ + 1}: emulator {times['default'] * 1e3:6.1f} ms, preCalcWeights "
              f"{times['preCalcWeights'] * 1e3:6.1f} ms, torch {times['torch'] * 1e3:6.1f} ms: "
              f"{times['default'] / times['torch']:.2f}x")
    stack.close()
    params = lstm.LstmParams(pd.float32, B, S, (I, H))
    flops = lstm.fwd_flops(params) + lstm.bwd_flops(params) + lstm.wu_flops(params)
    print(f"  emulator fwd+bwd+wu:          {best['default'] * 1e3:8.1f} ms  "
          f"({flops / best['default'] / 1e9:.1f} GFLOP/s by popnn's count)")
    print(f"  torch {torch['version']} nn.LSTM fwd+bwd: {best['torch'] * 1e3:8.1f} ms")
    print(f"  emulator, preCalcWeights:     {best['preCalcWeights'] * 1e3:8.1f} ms")
    report(f"LSTM training step S={S} B={B} / torch", best["default"] / best["torch"], 1.0,
           f"with preCalcWeights {best['preCalcWeights'] / best['torch']:.2f}x")

    _, _, build, compile_ = build_and_compile(1000)
    print(f"training graph at S=1000: build {build * 1e3:.0f} ms + compile {compile_ * 1e3:.0f} ms "
          f"= {(build + compile_) * 1e3:.0f} ms  (budget: well under 1 s)")


if __name__ == "__main__":
    main(ARGS)
