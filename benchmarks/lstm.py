"""LSTM training and inference on the emulator vs PyTorch's CPU nn.LSTM, and the S=1000 build time.

At S=100, I=H=256 in float, against torch.nn.LSTM at the same sizes and thread count:
forward + backward + weight update (pd.nn.lstm) at B=32 (throughput) and at B=1 (latency,
with preCalcWeights) against torch's forward + backward (budget: within 1.0x); the
inference-only forward (no intermediates, inferenceOnly and preCalcWeights, which is how
torch multiplies the inputs too) at B=32 and B=1 against torch's forward under
torch.inference_mode() (budget: within 0.8x); the training step of the other option at each
size is reported too. Beside each ratio, its floor: the case's operations (popnn's count) at
the machine's float multiply-add peak (benchmarks/fma_peak.py, measured every round) over
torch's time; a budget under its floor is out of reach on that machine whatever the code.
Then building and compiling the training graph at S=1000 (budget: well under a second).
Before timing, every case's results after a run (the output sequence, and in training the input
and weight gradients) are checked against torch's nn.LSTM in float64 on the same inputs and
weights (within 1e-4 of the largest value).
PyTorch is not a project dependency (pip install '.[bench]' takes the pinned CPU wheel):
pass --torch-python /path/to/that/python if it is not importable here.

    python benchmarks/lstm.py [--threads N] [--torch-python PYTHON] [--repeats N] [--rounds N]
"""
import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple, Optional

S, I, H = 100, 256, 256


class Case(NamedTuple):
    """One timed configuration: `training` (fwd + bwd + WU) or inference, at batch size `batch`;
    `repeats` scales the runs per round (quick cases take more to find their best)."""
    label: str
    batch: int
    training: bool
    budget: Optional[float]  # None: reported without a budget
    repeats: int
    options: Optional[dict] = None


PRE_CALC = {"preCalcWeights": "true"}  # the input part of every step in one product before the loop
INFERENCE = {"inferenceOnly": "true", **PRE_CALC}
CASES = [
    Case("training step B=32", 32, True, 1.0, 1),
    Case("training step B=32 preCalcWeights", 32, True, None, 1, PRE_CALC),
    Case("training step B=1", 1, True, None, 4),
    Case("training step B=1 preCalcWeights", 1, True, 1.0, 4, PRE_CALC),
    Case("inference B=32 preCalcWeights", 32, False, 0.8, 4, INFERENCE),
    Case("inference B=1 preCalcWeights", 1, False, 0.8, 8, INFERENCE),
]


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="BLAS threads for the emulator and for torch (default: every core)")
    parser.add_argument("--torch-python", default=sys.executable, help="a Python that can import torch")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per round and side (B=32 training)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds alternating the emulator and torch")
    return parser.parse_args()


# Run as a script, --threads sets the threads before popdsl loads; imported (by a script of
# one's own timing some case), the environment as it is.
if __name__ == "__main__":
    ARGS = parse_arguments()
    os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.threads)  # read when popdsl loads OpenBLAS
    os.environ["POPDSL_NUM_THREADS"] = str(ARGS.threads)  # the emulator's pool, read when it first runs
_THREADS_SET = os.environ.get("POPDSL_NUM_THREADS", "")
THREADS = int(_THREADS_SET) if _THREADS_SET.isdigit() else len(os.sched_getaffinity(0))

import numpy as np  # noqa: E402

import popdsl as pd  # noqa: E402
from popdsl.nn import lstm  # noqa: E402
from fma_peak import fma_peak_gflops  # noqa: E402
from ratios import report  # noqa: E402

# Times each case of argv[1] (a JSON list of [batch, training, repeats]) and prints their best times.
TORCH_TIMER = """
import json, sys, time, torch
cases, S, I, H, threads = json.loads(sys.argv[1]), *(int(a) for a in sys.argv[2:])
torch.set_num_threads(threads)
torch.manual_seed(0)
layer = torch.nn.LSTM(I, H)

def best_times(B, training, repeats):
    x = torch.randn(S, B, I, requires_grad=training)
    h0 = torch.zeros(1, B, H, requires_grad=training)
    c0 = torch.zeros(1, B, H, requires_grad=training)
    grad = torch.randn(S, B, H)
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeats + 1):  # the first run warms up
        layer.zero_grad()
        start, start_cpu = time.perf_counter(), time.process_time()
        if training:
            out, _ = layer(x, (h0, c0))
            out.backward(grad)
        else:
            with torch.inference_mode():
                layer(x, (h0, c0))
        best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu

times = [best_times(*case) for case in cases]
print(json.dumps({"seconds": [wall for wall, _ in times], "cpu_seconds": [cpu for _, cpu in times],
                  "version": torch.__version__}))
"""


# Computes nn.LSTM in float64 on the inputs and weights of an .npz (argv[1]: for each case
# "<case>/x", "/w_in", "/w_out", "/b" in popnn's cell order, and "/out_grad" for training)
# and writes the output sequence, and for training the input and weight gradients, in
# popnn's layout to the .npz argv[2]: the reference the emulator's results are checked against.
TORCH_REFERENCE = """
import sys, numpy as np, torch
data = np.load(sys.argv[1])
order = [1, 0, 2, 3]  # torch's gates (input, forget, cell, output) among popnn's (forget, input, candidate, output)
results = {}
for case in sorted({key.split("/")[0] for key in data.files}):
    x, w_in, w_out, b = (data[f"{case}/{name}"] for name in ("x", "w_in", "w_out", "b"))
    layer = torch.nn.LSTM(x.shape[2], w_out.shape[2]).double()
    with torch.no_grad():
        layer.weight_ih_l0.copy_(torch.from_numpy(np.concatenate([w_in[g].T for g in order])))
        layer.weight_hh_l0.copy_(torch.from_numpy(np.concatenate([w_out[g].T for g in order])))
        layer.bias_ih_l0.copy_(torch.from_numpy(np.concatenate([b[g] for g in order])))
        layer.bias_hh_l0.zero_()
    inputs = torch.from_numpy(x).requires_grad_()
    out, _ = layer(inputs)
    results[f"{case}/out"] = out.detach().numpy()
    if f"{case}/out_grad" in data.files:
        out.backward(torch.from_numpy(data[f"{case}/out_grad"]))
        def gates(grad):  # torch's [4H, n] -> popnn's [4, n, H]
            blocks = grad.numpy().reshape(4, b.shape[1], -1)
            return np.stack([blocks[order.index(g)].T for g in range(4)])
        results[f"{case}/input_grad"] = inputs.grad.numpy()
        results[f"{case}/w_in_grad"] = gates(layer.weight_ih_l0.grad)
        results[f"{case}/w_out_grad"] = gates(layer.weight_hh_l0.grad)
        results[f"{case}/b_grad"] = gates(layer.bias_ih_l0.grad[:, None])[:, 0]
np.savez(sys.argv[2], **results)
"""


def lstm_graph(time_steps, batch, training, options=None):
    """One layer: fwd + backward_with_weight_update, or the forward alone without intermediates;
    returns (device, graph, program, tensors): the inputs, and the results checked against torch."""
    device = pd.ipu_model()
    graph = pd.Graph(device)
    params = lstm.LstmParams(pd.float32, batch, time_steps, (I, H))
    x = lstm.create_input(graph, params)
    state = lstm.create_initial_state(graph, params)
    weights = lstm.create_weights(graph, params)
    tensors = dict(x=x, state=state, weights=weights)
    with pd.Sequence("step") as step:
        tensors["out"], _, inter = lstm.forward(params, state, x, weights, save_intermediates=training,
                                                options=options)
        if training:
            tensors["out_grad"] = graph.variable(pd.float32, (time_steps, batch, H), name="outGrad")
            _, tensors["input_grad"], tensors["weight_grads"] = lstm.backward_with_weight_update(
                params, state, inter, weights, x, tensors["out"], tensors["out_grad"], options=options)
    return device, graph, step, tensors


def build_and_compile(time_steps, batch, training, options=None):
    start = time.perf_counter()
    device, graph, step, tensors = lstm_graph(time_steps, batch, training, options)
    built = time.perf_counter()
    session = pd.Session(graph, step, device=device)
    return session, tensors, built - start, time.perf_counter() - built


def loaded_session(stack, case):
    """The case's program at S=100, compiled, attached (until `stack` closes) and loaded
    with random data; returns it and its tensors."""
    session, t, _, _ = build_and_compile(S, case.batch, case.training, case.options)
    rng = np.random.default_rng(0)
    stack.enter_context(session)
    session.write(t["x"], rng.standard_normal((S, case.batch, I)))
    for w in t["weights"]:
        session.write(w, rng.uniform(-0.06, 0.06, w.shape))
    session.write(t["state"].output, 0)
    session.write(t["state"].cell_state, 0)
    if case.training:
        session.write(t["out_grad"], rng.standard_normal((S, case.batch, H)))
    session.run()  # warms up
    return session, t


def check_against_torch(python, loaded):
    """Compares each case's results after a run (`loaded`: its session and tensors) with
    torch's nn.LSTM in float64 on the same inputs and weights; exits naming any that is off."""
    inputs, results = {}, {}
    for k, (case, (session, t)) in enumerate(zip(CASES, loaded)):
        weights = t["weights"]
        inputs.update({f"{k}/x": session.read(t["x"]), f"{k}/w_in": session.read(weights.input_weights),
                       f"{k}/w_out": session.read(weights.output_weights), f"{k}/b": session.read(weights.biases)})
        results[f"{k}/out"] = session.read(t["out"])
        if case.training:
            grads = t["weight_grads"]
            inputs[f"{k}/out_grad"] = session.read(t["out_grad"])
            results.update({f"{k}/input_grad": session.read(t["input_grad"]),
                            f"{k}/w_in_grad": session.read(grads.input_weights),
                            f"{k}/w_out_grad": session.read(grads.output_weights),
                            f"{k}/b_grad": session.read(grads.biases)})
    with tempfile.TemporaryDirectory() as directory:
        given, computed = Path(directory) / "inputs.npz", Path(directory) / "reference.npz"
        np.savez(given, **{key: value.astype(np.float64) for key, value in inputs.items()})
        run = subprocess.run([python, "-c", TORCH_REFERENCE, str(given), str(computed)], capture_output=True,
                             text=True)
        if run.returncode != 0:
            sys.exit(f"PyTorch did not compute the reference with {python}:\n{run.stderr[-2000:]}")
        worst = 0.0
        with np.load(computed) as reference:
            for key, value in results.items():
                expected = reference[key]
                error = float(np.abs(value - expected).max() / np.abs(expected).max())
                if not error < 1e-4:  # NaN too
                    case, name = CASES[int(key.split("/")[0])].label, key.split("/")[1]
                    sys.exit(f"LSTM {case}: {name} is off torch's float64 by {error:.1e} of its largest value")
                worst = max(worst, error)
    print(f"checked against torch's nn.LSTM in float64 on the same data: every case's output sequence (and "
          f"training's input and weight gradients) within {worst:.1e} of its largest value")


def time_emulator(session, repeats):
    """The best wall time and the best CPU time (of the whole process) of a run."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        session.run()
        best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu


def time_torch(python, repeats):
    cases = json.dumps([[case.batch, case.training, case.repeats * repeats] for case in CASES])
    result = subprocess.run([python, "-c", TORCH_TIMER, cases, *map(str, (S, I, H, THREADS))],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"PyTorch did not run with {python}:\n{result.stderr[-2000:]}\n"
                 "install the CPU wheel and pass --torch-python")
    return json.loads(result.stdout.strip().splitlines()[-1])


def flops(case):
    """The case's floating-point operations as popnn counts them (its products' multiply-adds,
    2 each, and a few per element)."""
    params = lstm.LstmParams(pd.float32, case.batch, S, (I, H))
    total = lstm.fwd_flops(params)
    if case.training:
        total += lstm.bwd_flops(params) + lstm.wu_flops(params)
    return total


def main(args):
    # Rounds alternate the emulator and torch, so a neighbour's load that comes and goes
    # hits both; each ratio takes each side's best over all rounds. On one thread the CPU
    # times are compared too: they barely move with the machine's load.
    stack = contextlib.ExitStack()
    loaded = [loaded_session(stack, case) for case in CASES]
    check_against_torch(args.torch_python, loaded)
    sessions = [session for session, _ in loaded]
    best = {side: [[float("inf")] * len(CASES) for _ in range(2)] for side in ("emulator", "torch")}
    peaks = []  # GFLOP/s, a measurement a round (None without a C compiler)
    print(f"LSTM S={S} I={I} H={H} float, {THREADS} thread(s), {args.rounds} rounds; times in ms, "
          f"emulator / torch")
    for round_ in range(args.rounds):
        walls, cpus = zip(*(time_emulator(session, case.repeats * args.repeats)
                            for case, session in zip(CASES, sessions)))
        timed = time_torch(args.torch_python, args.repeats)
        peaks.append(fma_peak_gflops(THREADS))
        for side, measured in (("emulator", (walls, cpus)), ("torch", (timed["seconds"], timed["cpu_seconds"]))):
            best[side] = [[min(a, b) for a, b in zip(old, new)] for old, new in zip(best[side], measured)]
        print(f"  round {round_ + 1}: " + ", ".join(
            f"{case.label} {mine * 1e3:.1f}/{theirs * 1e3:.1f}"
            for case, mine, theirs in zip(CASES, walls, timed["seconds"])), flush=True)
    stack.close()
    (emulator, emulator_cpu), (torch, torch_cpu) = best["emulator"], best["torch"]
    # The floor: the case's operations at the machine's multiply-add peak, over torch's time.
    peak = max((p for p in peaks if p is not None), default=None)
    floors = [None if peak is None else flops(case) / (peak * 1e9) / theirs for case, theirs in zip(CASES, torch)]
    print(f"torch {timed['version']}; multiply-add peak "
          f"{'unmeasured (no C compiler)' if peak is None else f'{peak:.0f} GFLOP/s'}; "
          f"best times (CPU time in brackets), GFLOP/s by popnn's count:")
    for case, mine, theirs, mine_cpu, theirs_cpu in zip(CASES, emulator, torch, emulator_cpu, torch_cpu):
        print(f"  {case.label:34} emulator {mine * 1e3:7.2f} ms ({mine_cpu * 1e3:7.2f}, {flops(case) / mine / 1e9:5.1f}), "
              f"torch {theirs * 1e3:7.2f} ms ({theirs_cpu * 1e3:7.2f}, {flops(case) / theirs / 1e9:5.1f})")
    for case, mine, theirs, floor in zip(CASES, emulator, torch, floors):
        report(f"LSTM {case.label} / torch", mine / theirs, case.budget,
               ("torch fwd+bwd" if case.training else "torch forward in inference_mode") +
               ("" if floor is None else f"; at the multiply-add peak: {floor:.2f}x"), floor=floor)
    if THREADS == 1:  # with more, the CPU time also counts threads waiting for work
        for case, mine, theirs in zip(CASES, emulator_cpu, torch_cpu):
            report(f"LSTM {case.label} / torch, 1-thread CPU time", mine / theirs, None)

    _, _, build, compile_ = build_and_compile(1000, 32, True)
    print(f"training graph at S=1000: build {build * 1e3:.0f} ms + compile {compile_ * 1e3:.0f} ms "
          f"= {(build + compile_) * 1e3:.0f} ms  (budget: well under 1 s)")


if __name__ == "__main__":
    main(ARGS)
