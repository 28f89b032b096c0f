"""Pipelined execution over IPUs (popdsl.autodiff.pipelining): the schedules, a pipelined
training step against the unpipelined model and a float64 numpy reference, and the
emulator's elapsed cycles with the IPUs in parallel (src/poplar/IpuTimeline.hpp)."""
import pathlib
import re
import runpy

import numpy as np
import pytest

import popdsl as pd

from mlp_reference import loss_and_gradients

TILES = 4
needs_profiles = pytest.mark.needs_emulator("profile data")


# --- schedules ---------------------------------------------------------------------------

def test_gpipe_fills_runs_and_flushes():
    # Two stages, three micro-batches: forwards fill the pipe, then the backwards flush it.
    assert pd.pipeline_schedule(2, 3, "gpipe") == [
        [("F", 0, 0)],
        [("F", 0, 1), ("F", 1, 0)],
        [("F", 0, 2), ("F", 1, 1)],
        [("F", 1, 2)],
        [("B", 1, 0)],
        [("B", 0, 0), ("B", 1, 1)],
        [("B", 0, 1), ("B", 1, 2)],
        [("B", 0, 2)],
    ]


def test_one_forward_one_backward_alternates_after_the_warmup():
    assert pd.pipeline_schedule(2, 3, "1f1b") == [
        [("F", 0, 0)],
        [("F", 0, 1), ("F", 1, 0)],
        [("B", 1, 0)],
        [("B", 0, 0), ("F", 1, 1)],
        [("F", 0, 2), ("B", 1, 1)],
        [("B", 0, 1), ("F", 1, 2)],
        [("B", 1, 2)],
        [("B", 0, 2)],
    ]


@pytest.mark.parametrize("schedule", ["gpipe", "1f1b"])
@pytest.mark.parametrize("stages,micro_batches", [(1, 3), (3, 2), (3, 7), (4, 9)])
def test_schedules_respect_dependencies(schedule, stages, micro_batches):
    cycles = pd.pipeline_schedule(stages, micro_batches, schedule)
    when = {event: t for t, cycle in enumerate(cycles) for event in cycle}
    events = [e for cycle in cycles for e in cycle]
    assert len(events) == len(when) == 2 * stages * micro_batches  # each once
    for t, cycle in enumerate(cycles):
        assert len({s for _, s, _ in cycle}) == len(cycle)  # one event per stage per cycle
    waiting = [0] * stages  # micro-batches forwarded but not yet backwarded, per stage
    most = [0] * stages
    for kind, s, m in events:
        if kind == "F" and s > 0:
            assert when["F", s - 1, m] < when["F", s, m]
        if kind == "B":
            assert when["F", s, m] < when["B", s, m]
            if s < stages - 1:
                assert when["B", s + 1, m] < when["B", s, m]
        waiting[s] += 1 if kind == "F" else -1
        most[s] = max(most[s], waiting[s])
    if schedule == "1f1b":  # the stash of stage s holds at most stages - s micro-batches
        assert most == [min(stages - s, micro_batches) for s in range(stages)]
    else:
        assert most == [micro_batches] * stages


# --- a pipelined training step -----------------------------------------------------------

ROWS, FEATURES, HIDDEN, CLASSES = 24, 5, 8, 3


def problem(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((ROWS, FEATURES)).astype(np.float32)
    labels = rng.integers(0, CLASSES, ROWS).astype(np.int32)
    params = {"w1": (rng.standard_normal((FEATURES, HIDDEN)) / 2).astype(np.float32),
              "b1": rng.standard_normal(HIDDEN).astype(np.float32) / 4,
              "w2": (rng.standard_normal((HIDDEN, CLASSES)) / 2).astype(np.float32),
              "b2": rng.standard_normal(CLASSES).astype(np.float32) / 4}
    return x, labels, params


def mlp_step(micro_batches=None, schedule="1f1b", recompute=False, lr=0.1):
    """(loss, gradients, weights after one SGD step, profile or None) of the two-layer MLP with its
    layers on IPUs 0 and 1: pipelined over micro_batches, or the whole batch at once (None)."""
    x, labels, params = problem()
    dev = pd.ipu_model(tiles=TILES, ipus=2)
    g = pd.Graph(dev)
    with pd.ipu(0):
        xv = g.variable(pd.float32, x.shape, name="x", init=x)
        w1 = g.variable(pd.float32, (FEATURES, HIDDEN), name="w1", init=params["w1"])
        b1 = g.variable(pd.float32, (HIDDEN,), name="b1", init=params["b1"])
    with pd.ipu(1):
        yv = g.variable(pd.int32, labels.shape, name="labels", init=labels)
        w2 = g.variable(pd.float32, (HIDDEN, CLASSES), name="w2", init=params["w2"])
        b2 = g.variable(pd.float32, (CLASSES,), name="b2", init=params["b2"])
    weights = [w1, b1, w2, b2]

    def hidden(xs):
        return pd.relu(xs @ w1 + b1)

    def classifier(h, ys):
        return pd.nn.cross_entropy(h @ w2 + b2, ys)

    with pd.Sequence() as step:
        if micro_batches is None:
            with pd.ipu(0):
                h = hidden(xv)
            h = pd.ipu_copy(h, 1)
            with pd.ipu(1):
                loss = classifier(h, yv)
            grads = pd.grad(loss, weights)
        else:
            loss, grads = pd.pipeline([pd.Stage(hidden, ipu=0, weights=[w1, b1], inputs=[xv]),
                                       pd.Stage(classifier, ipu=1, weights=[w2, b2], inputs=[yv])],
                                      micro_batches, schedule=schedule, recompute=recompute)
        pd.optim.SGD(lr=lr).step(weights, grads)
    with pd.Session(g, step, device=dev) as s:
        s.run()
        names = ["w1", "b1", "w2", "b2"]
        # The profile only on the emulator: the sdk backend reports through libpva.
        got = (s.read(loss), {n: s.read(t) for n, t in zip(names, grads)},
               {n: s.read(w) for n, w in zip(names, weights)}, s.profile if pd.backend() == "emulator" else None)
    return got


@pytest.fixture(scope="module")
def unpipelined():
    return mlp_step(None)


@pytest.mark.parametrize("schedule,recompute,micro_batches", [
    ("gpipe", False, 4), ("1f1b", False, 4), ("1f1b", True, 6), ("gpipe", True, 3)])
def test_a_pipelined_step_is_the_unpipelined_one(unpipelined, schedule, recompute, micro_batches):
    loss, grads, weights, _ = mlp_step(micro_batches, schedule, recompute)
    ref_loss, ref_grads, ref_weights, _ = unpipelined
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-6)
    for name in grads:
        np.testing.assert_allclose(grads[name], ref_grads[name], rtol=1e-5, atol=1e-7, err_msg=name)
        np.testing.assert_allclose(weights[name], ref_weights[name], rtol=1e-6, atol=1e-7, err_msg=name)
    # And the float64 reference (tests/python/mlp_reference.py), written out in numpy.
    x, labels, params = problem()
    loss64, grads64 = loss_and_gradients(x.astype(np.float64), np.eye(CLASSES)[labels],
                                         {k: v.astype(np.float64) for k, v in params.items()})
    np.testing.assert_allclose(loss, loss64, rtol=1e-5)
    for name in grads:
        np.testing.assert_allclose(grads[name], grads64[name], rtol=1e-4, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(weights[name], params[name] - 0.1 * grads64[name], rtol=1e-5, atol=1e-6)


@needs_profiles
@pytest.mark.parametrize("recompute", [False, True])
def test_recomputation_runs_a_stage_forward_again_in_its_backward(recompute):
    *_, profile = mlp_step(2, "1f1b", recompute)
    relus = [re.search(r"pipeline/stage0/(\w+)/", st.name).group(1) for st in profile.steps
             if st.name.endswith("/pd.map RELU(_1)")]
    again = ["backward0", "backward1"] if recompute else []
    assert sorted(relus) == again + ["forward0", "forward1"]


def three_stage_reference(x, labels, w):
    """float64 loss and gradients of tanh(x @ w0) -> tanh(. @ w1) (two outputs: it and its
    square) -> cross-entropy((a + b) @ w2)."""
    h0 = np.tanh(x @ w[0])
    h1 = np.tanh(h0 @ w[1])
    z = h1 + h1 * h1
    logits = z @ w[2]
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    loss = -np.mean(np.log(p[np.arange(len(x)), labels]))
    d_logits = (p - np.eye(p.shape[1])[labels]) / len(x)
    d_z = d_logits @ w[2].T
    d_h1 = d_z * (1 + 2 * h1)
    d_pre1 = d_h1 * (1 - h1 ** 2)
    d_h0 = d_pre1 @ w[1].T
    d_pre0 = d_h0 * (1 - h0 ** 2)
    return loss, [x.T @ d_pre0, h0.T @ d_pre1, z.T @ d_logits]


@pytest.mark.parametrize("recompute", [False, True])
def test_three_stages_with_more_micro_batches_than_stages(recompute):
    # 1F1B over 3 IPUs and 5 micro-batches: stage 0 holds up to 3 micro-batches' activations
    # at a time; a middle stage returns two outputs, and labels travel with the activations.
    rng = np.random.default_rng(3)
    rows, micro_batches = 20, 5
    x = rng.standard_normal((rows, 4)).astype(np.float32)
    labels = rng.integers(0, 3, rows).astype(np.int32)
    init = [(rng.standard_normal(s) / 2).astype(np.float32) for s in [(4, 6), (6, 6), (6, 3)]]
    dev = pd.ipu_model(tiles=TILES, ipus=3)
    g = pd.Graph(dev)
    ws = []
    for k, w in enumerate(init):
        with pd.ipu(k):
            ws.append(g.variable(pd.float32, w.shape, name=f"w{k}", init=w))
    with pd.ipu(0):
        xv = g.variable(pd.float32, x.shape, name="x", init=x)
        yv = g.variable(pd.int32, labels.shape, name="labels", init=labels)
    stages = [pd.Stage(lambda xs, ys: (pd.tanh(xs @ ws[0]), ys), ipu=0, weights=[ws[0]], inputs=[xv, yv]),
              pd.Stage(lambda h, ys: (pd.tanh(h @ ws[1]), pd.square(pd.tanh(h @ ws[1])), ys), ipu=1,
                       weights=[ws[1]]),
              pd.Stage(lambda a, b, ys: pd.nn.cross_entropy((a + b) @ ws[2], ys), ipu=2, weights=[ws[2]])]
    with pd.Sequence() as step:
        loss, grads = pd.pipeline(stages, micro_batches, recompute=recompute)
    with pd.Session(g, step, device=dev) as s:
        s.run()
        ref_loss, ref_grads = three_stage_reference(x.astype(np.float64), labels, [w.astype(np.float64) for w in init])
        np.testing.assert_allclose(s.read(loss), ref_loss, rtol=1e-5)
        for k, (got, want) in enumerate(zip(grads, ref_grads)):
            np.testing.assert_allclose(s.read(got), want, rtol=1e-4, atol=1e-6, err_msg=f"w{k}")


# --- elapsed cycles: the IPUs run in parallel --------------------------------------------

@needs_profiles
def test_elapsed_cycles_follow_the_per_ipu_timeline():
    # exp on IPU 0, exp on IPU 1, then a copy from IPU 0 to IPU 1: the two exps overlap, the
    # copy waits for both. Elapsed = max(first, second) + copy; the total adds all three.
    dev = pd.ipu_model(tiles=TILES, ipus=2)
    g = pd.Graph(dev)
    with pd.ipu(0):
        a = g.variable(pd.float32, (4000,), name="a")
    with pd.ipu(1):
        b = g.variable(pd.float32, (400,), name="b")
    with pd.Sequence() as main:
        with pd.ipu(0):
            pd.exp(a)
        with pd.ipu(1):
            pd.exp(b)
        pd.ipu_copy(a, 1)
    with pd.Session(g, main, device=dev) as s:
        s.run()
        s.run()
        profile = s.profile
    first, second, copy = [st.cycles_per_execution for st in profile.steps if st.executions]
    assert first > second > 0 and copy > 0
    assert profile.total_cycles == 2 * (first + second + copy)
    assert profile.elapsed_cycles == 2 * (first + copy)  # each run starts with the IPUs together
    assert "Elapsed cycles (estimated)" in profile.summary()


def exp_on_ipu0_then(work_on_ipu1):
    """(the total cycles of each step that ran, in order; the profile) of a long exp on IPU 0
    followed by work_on_ipu1(graph, stream) built on IPU 1, which reads the stream or not."""
    dev = pd.ipu_model(tiles=TILES, ipus=2)
    g = pd.Graph(dev)
    with pd.ipu(0):
        a = g.variable(pd.float32, (40000,), name="a")
    inp = g.host_to_device(pd.float32, (4,), name="inp")
    with pd.Sequence() as main:
        with pd.ipu(0):
            pd.exp(a)
        with pd.ipu(1):
            work_on_ipu1(g, inp)
    with pd.Session(g, main, device=dev) as s:
        reads = sum(st.kind.startswith("StreamCopy") for st in s.profile.steps)
        s.run(feeds={inp: np.zeros((reads, 4), np.float32)})
        profile = s.profile
    return [st.total_cycles for st in profile.steps if st.executions], profile


@needs_profiles
def test_host_transfers_bring_every_ipu_together_loops_and_branches_run_where_they_work():
    def stream_then_loop(g, inp):
        b = inp.read()
        with pd.Repeat(3):
            b += 1.0

    # The stream copy is a host transfer: IPU 1 waits for IPU 0's exp, so nothing overlaps.
    (exp, *rest), profile = exp_on_ipu0_then(stream_then_loop)
    assert exp > sum(rest) > 0
    assert profile.elapsed_cycles == profile.total_cycles == exp + sum(rest)

    def loop(g, inp):
        b = g.variable(pd.float32, (4,), name="b")
        with pd.Repeat(3):
            b += 1.0

    # A loop runs on each IPU by itself: its adds on IPU 1 overlap the exp on IPU 0, and
    # only the loop's own branch cycles add to the exp's.
    (exp, repeat, adds), profile = exp_on_ipu0_then(loop)
    assert profile.total_cycles == exp + repeat + adds
    assert profile.elapsed_cycles == exp + repeat

    def branch(g, inp):
        b = g.variable(pd.float32, (4,), name="b")
        flag = g.variable(pd.int32, (1,), name="flag", init=[1])
        with pd.If(flag):
            b += 1.0

    # An If whose predicate and body are on IPU 1 runs there only: it overlaps the exp.
    (exp, decide, add), profile = exp_on_ipu0_then(branch)
    assert exp > decide + add
    assert profile.total_cycles == exp + decide + add
    assert profile.elapsed_cycles == exp


@needs_profiles
def test_one_ipu_elapsed_is_the_total():
    dev = pd.ipu_model(tiles=TILES)
    g = pd.Graph(dev)
    a = g.variable(pd.float32, (100,), name="a")
    with pd.Sequence() as main:
        pd.exp(a)
        with pd.Repeat(3):
            a += 1
    with pd.Session(g, main, device=dev) as s:
        s.run()
        profile = s.profile
    assert profile.elapsed_cycles == profile.total_cycles > 0
    assert "Elapsed" not in profile.summary()


def regression_profile(micro_batches, schedule):
    """The profile of a pipelined step of tanh(x @ w1) on IPU 0 and a squared error of its
    projection on IPU 1: two stages of about the same work."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((64, 8)), rng.standard_normal((64, 1))
    dev = pd.ipu_model(tiles=TILES, ipus=2)
    g = pd.Graph(dev)
    with pd.ipu(0):
        xs = g.variable(pd.float32, x.shape, name="x", init=x)
        w1 = g.variable(pd.float32, (8, 16), name="w1", init=rng.standard_normal((8, 16)) / 3)
    with pd.ipu(1):
        ys = g.variable(pd.float32, y.shape, name="y", init=y)
        w2 = g.variable(pd.float32, (16, 1), name="w2", init=rng.standard_normal((16, 1)) / 4)
    stages = [pd.Stage(lambda a: pd.tanh(a @ w1), ipu=0, weights=[w1], inputs=[xs]),
              pd.Stage(lambda h, t: pd.square(h @ w2 - t).mean(), ipu=1, weights=[w2], inputs=[ys])]
    with pd.Sequence() as step:
        pd.pipeline(stages, micro_batches, schedule=schedule)
    with pd.Session(g, step, device=dev) as s:
        s.run()
        return s.profile


@needs_profiles
def test_a_pipelined_step_overlaps_its_stages(capsys):
    # GPipe, 2 stages and 8 micro-batches: 9 pipeline cycles per pass where the stages run in
    # sequence take 16, so the elapsed cycles are clearly below the summed work.
    profile = regression_profile(8, "gpipe")
    print(f"pipelined step: {profile.elapsed_cycles:,} elapsed cycles, "
          f"{profile.total_cycles:,} cycles with the stages x micro-batches in sequence")
    assert profile.elapsed_cycles < 0.7 * profile.total_cycles
    assert "elapsed cycles" in capsys.readouterr().out
    # One micro-batch has nothing to overlap but the two stages' gradient sums.
    single = regression_profile(1, "gpipe")
    assert single.elapsed_cycles > 0.9 * single.total_cycles


# --- bad input ---------------------------------------------------------------------------

def two_ipu_graph():
    g = pd.Graph(pd.ipu_model(tiles=TILES, ipus=2))
    with pd.ipu(0):
        x = g.variable(pd.float32, (6, 2), name="x")
        w = g.variable(pd.float32, (2, 2), name="w")
    return g, x, w


@pytest.mark.parametrize("make,message", [
    (lambda x, w: ([pd.Stage(lambda a: a @ w, 0, [w], [x]), pd.Stage(lambda h: h.sum(), 2)], 2),
     r"stage 1 .* is on IPU 2, but the graph has 2 IPU\(s\) per replica"),
    (lambda x, w: ([pd.Stage(lambda a: a @ w, 0, [w], [x]), pd.Stage(lambda h: h.sum(), 1)], 4),
     r"micro_batches=4 does not divide the batch of 6 rows"),
    (lambda x, w: ([pd.Stage(lambda a: a @ w, 0, [w], [x]), pd.Stage(lambda h: h, 1)], 2),
     r"the last stage .* must return its micro-batch's loss, one float element"),
    (lambda x, w: ([pd.Stage(lambda a: a @ w, 0, [w], [x]), pd.Stage(lambda h: h.sum(), 0)], 2),
     r"stages 0 and 1 are both on IPU 0"),
    (lambda x, w: ([pd.Stage(lambda a: a @ w, 0, [w]), pd.Stage(lambda h: h.sum(), 1)], 2),
     r"the first stage needs inputs="),
    (lambda x, w: ([pd.Stage(lambda a: 3, 0, [w], [x])], 2), r"must return a pd.Tensor or a tuple of them"),
    (lambda x, w: ([], 2), r"stages must be a non-empty list of pd.Stage"),
    (lambda x, w: ([pd.Stage(lambda a: (a @ w).sum(), 0, [w], [x])], 0), r"micro_batches must be an int"),
])
def test_bad_pipelines_are_refused(make, message):
    g, x, w = two_ipu_graph()
    stages, micro_batches = make(x, w)
    with pd.Sequence(), pytest.raises(pd.BuildError, match=message):
        pd.pipeline(stages, micro_batches)


def test_bad_stages_and_schedules_are_refused():
    g, x, w = two_ipu_graph()
    labels = g.variable(pd.int32, (6,), name="labels")
    with pytest.raises(pd.BuildError, match=r"pd.Stage: weights\[0\] .* is not a float tensor"):
        pd.Stage(lambda a: a, 0, [labels])
    with pytest.raises(pd.BuildError, match="pd.Stage: weights must be a list of pd.Tensors"):
        pd.Stage(lambda a: a, 0, [np.ones(2)])
    with pytest.raises(pd.BuildError, match="pd.Stage: fn must be"):
        pd.Stage("not a function", 0)
    with pytest.raises(pd.BuildError, match="schedule must be one of 'gpipe', '1f1b'"):
        pd.pipeline_schedule(2, 2, "interleaved")
    other = g.variable(pd.float32, (4, 2), name="other")
    with pd.Sequence(), pytest.raises(pd.BuildError, match=r"has 4 rows, but the first input has 6"):
        pd.pipeline([pd.Stage(lambda a, b: (a @ w).sum(), 0, [w], [x, other])], 2)
    with pd.Sequence(), pytest.raises(pd.BuildError, match="recompute must be True or False"):
        pd.pipeline([pd.Stage(lambda a: (a @ w).sum(), 0, [w], [x])], 2, recompute="yes")


@pytest.mark.slow
@needs_profiles  # the example prints its profile's cycles
def test_the_pipelined_transformer_trains_like_the_one_ipu_transformer():
    # examples/pipelined_transformer.py against examples/transformer.py: the same losses and
    # weights after three Adam steps, its two stages' work overlapping.
    examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
    pipelined = runpy.run_path(str(examples / "pipelined_transformer.py"))
    one_ipu = runpy.run_path(str(examples / "transformer.py"))
    curve, weights, session = pipelined["train"](steps=3)
    ref_curve, ref_weights, _ = one_ipu["train"](steps=3)
    np.testing.assert_allclose(curve, ref_curve, rtol=1e-5)
    for name, value in ref_weights.items():  # Adam's steps (3e-3) magnify rounding in tiny gradients
        np.testing.assert_allclose(weights[name], value, rtol=1e-4, atol=1e-5, err_msg=name)
    profile = session.profile
    assert profile.elapsed_cycles < 0.8 * profile.total_cycles
