"""Learning-rate schedules: in the graph (one run of many steps) and on the host, against the
formulas written out in numpy here."""
import math

import numpy as np
import pytest

import popdsl as pd


def cosine(t, peak, total, warmup, floor):
    if t <= warmup:
        return peak * t / warmup
    progress = min((t - warmup) / (total - warmup), 1.0)
    return floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * progress))


def linear(t, peak, total, warmup, floor):
    if t <= warmup:
        return peak * t / warmup
    return peak + (floor - peak) * min((t - warmup) / (total - warmup), 1.0)


CASES = [
    (pd.optim.WarmupCosine(0.1, total_steps=10, warmup_steps=3, min_lr=0.01),
     [cosine(t, 0.1, 10, 3, 0.01) for t in range(1, 15)]),
    (pd.optim.WarmupLinear(0.2, total_steps=8), [linear(t, 0.2, 8, 0, 0.0) for t in range(1, 15)]),
    (pd.optim.StepDecay(0.5, step_size=4, gamma=0.5, warmup_steps=2),
     [0.5 * t / 2 if t <= 2 else 0.5 * 0.5 ** ((t - 1) // 4) for t in range(1, 15)]),
]


@pytest.mark.parametrize("schedule, rates", CASES, ids=["cosine", "linear", "step"])
def test_a_schedule_sets_each_steps_rate_in_the_graph(device, schedule, rates):
    """14 SGD steps in one run on a weight whose gradient is 1: it falls by the sum of the rates."""
    g = pd.Graph(device)
    w = g.variable(pd.float32, (2,), name="w", init=np.zeros(2))
    opt = pd.optim.SGD(lr=schedule)
    with pd.Sequence() as train:
        with pd.Repeat(len(rates)):
            opt.step([w], pd.grad(w.sum(), [w]))
    with pd.Session(g, train, device=device) as s:
        s.run()
        np.testing.assert_allclose(s.read(w), -np.full(2, sum(rates)), rtol=1e-5)
        np.testing.assert_allclose(s.read(opt.lr), [rates[-1]], rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose([schedule(t) for t in range(1, len(rates) + 1)], rates, rtol=1e-12)


def test_one_step_per_run_follows_the_schedule_too(device):
    schedule = pd.optim.WarmupCosine(1.0, total_steps=6, warmup_steps=2)
    g = pd.Graph(device)
    w = g.variable(pd.float32, (1,), name="w", init=[0.0])
    opt = pd.optim.Adam(lr=schedule)
    with pd.Sequence() as step:
        opt.step([w], pd.grad(w.sum(), [w]))
    with pd.Session(g, step, device=device) as s:
        seen = []
        for _ in range(7):
            s.run()
            seen.append(float(s.read(opt.lr)[0]))
    np.testing.assert_allclose(seen, [cosine(t, 1.0, 6, 2, 0.0) for t in range(1, 8)], rtol=1e-5, atol=1e-7)


def test_bad_schedules_are_refused_by_name():
    with pytest.raises(pd.BuildError, match=r"total_steps \(3\) must exceed warmup_steps \(3\)"):
        pd.optim.WarmupCosine(0.1, total_steps=3, warmup_steps=3)
    with pytest.raises(pd.BuildError, match="peak must be a finite number >= 0"):
        pd.optim.WarmupLinear(-1.0, total_steps=3)
    with pytest.raises(pd.BuildError, match="step_size must be an int >= 1"):
        pd.optim.StepDecay(0.1, step_size=0)
    with pytest.raises(pd.BuildError, match="step must be an int >= 1"):
        pd.optim.StepDecay(0.1, step_size=2)(0)
