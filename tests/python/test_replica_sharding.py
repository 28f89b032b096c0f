"""Optimizer state sharded over the replicas (shard_over_replicas=True): the same steps as the
unsharded optimizer on all-reduced gradients, bit for bit, and as float64 numpy optimizers;
about 1/replicas of the state's memory; state_dict in one numpy form for both layouts."""
import types

import numpy as np
import pytest

import popdsl as pd
from popdsl.replica_sharding import (ShardedVariable, from_shards, gather_into, require_every_replica, shard_size,
                                     to_shards)
from popdsl.testing import assert_close

from numpy_adam import NumpyAdam

pytestmark = pytest.mark.needs_emulator("runs replicated graphs, which the SDK's IPU Model does not")

REPLICAS, STEPS, LR, WD, BETAS, EPS, MU = 4, 4, 0.05, 0.1, (0.8, 0.99), 1e-6, 0.9
SHAPES = {"w": (3, 5), "b": (2,)}  # 15 and 2 elements: chunks of 4 and 1, padded, on 4 replicas
rng = np.random.default_rng(7)
INITIAL = {name: rng.standard_normal(shape) for name, shape in SHAPES.items()}
# Each replica's own gradient of each weight at each step: [steps, replicas, *shape].
GRADS = {name: rng.standard_normal((STEPS, REPLICAS, *shape)) for name, shape in SHAPES.items()}

OPTIMIZERS = {
    "adam": lambda sharded: pd.optim.Adam(LR, betas=BETAS, eps=EPS, weight_decay=WD, shard_over_replicas=sharded),
    "adamw": lambda sharded: pd.optim.AdamW(LR, betas=BETAS, eps=EPS, weight_decay=WD, shard_over_replicas=sharded),
    "sgd": lambda sharded: pd.optim.SGD(LR, momentum=MU, nesterov=True, weight_decay=WD, shard_over_replicas=sharded),
}


def numpy_optimizer(kind, w, grads):
    """float64 torch-formula updates of w by each step's (already averaged) gradient."""
    if kind != "sgd":
        adam = NumpyAdam({"w": w}, LR, BETAS, EPS, weight_decay=WD, decoupled=kind == "adamw")
        for g in grads:
            adam.step({"w": g})
        return adam.params["w"]
    for t, g in enumerate(grads, 1):  # Nesterov momentum
        g = g + WD * w
        buffer = g if t == 1 else MU * buffer + g
        w = w - LR * (g + MU * buffer)
    return w


def replicated(replicas=REPLICAS):
    device = pd.ipu_model(tiles=4, ipus=replicas)
    return device, pd.Graph(device, replicas=replicas)


UNSHARDED, STATE, WEIGHTS = "unsharded", "sharded state", "sharded weights"


def training(kind, dtype, layout, replicas=REPLICAS, **step_options):
    """A graph whose step applies each replica's gradient variables to the weights: unsharded,
    all-reduced (mean) first; else reduce-scattered by the sharded optimizer, with whole
    weights or (WEIGHTS) ShardedVariables."""
    device, g = replicated(replicas)
    weights = [ShardedVariable(g, dtype, shape, name) if layout == WEIGHTS else
               g.variable(dtype, shape, name=name, init=INITIAL[name]) for name, shape in SHAPES.items()]
    grads = [g.variable(dtype, shape, name=f"{name}/grad") for name, shape in SHAPES.items()]
    opt = OPTIMIZERS[kind](layout != UNSHARDED)
    with pd.Sequence() as step:
        opt.step(weights, [pd.all_reduce(x, op="mean") for x in grads] if layout == UNSHARDED else grads,
                 **step_options)
    return device, g, step, opt, weights, grads


def begin(session, weights):
    """Gives ShardedVariables (made without init) their initial values."""
    for w in weights:
        if isinstance(w, ShardedVariable):
            w.write(session, INITIAL[w.name])


def run_steps(session, grads, steps, offset=0):
    for k in range(offset, offset + steps):
        for x, name in zip(grads, SHAPES):
            session.write(x, GRADS[name][k])
        session.run()


def rounded(array, dtype):
    """array rounded to a device dtype, back in float64."""
    return np.asarray(array).astype(np.float16 if dtype == pd.float16 else np.float32).astype(np.float64)


def averaged(name, dtype, scale=1.0):
    """Each step's gradient mean over the replicas as the device sees it: the inputs (times
    scale) in the weights' dtype, the mean rounded once to it (a mean of 4 is exact in
    float64), divided by scale."""
    return rounded(rounded(GRADS[name] * scale, dtype).mean(axis=1), dtype) / scale


@pytest.mark.parametrize("layout", [STATE, WEIGHTS])
@pytest.mark.parametrize("kind", list(OPTIMIZERS))
@pytest.mark.parametrize("dtype", [pd.float32, pd.float16], ids=["float32", "float16"])
def test_sharded_steps_equal_unsharded_steps_and_numpy(layout, kind, dtype):
    results = {}
    for each in (UNSHARDED, layout):
        device, g, step, opt, weights, grads = training(kind, dtype, each)
        with pd.Session(g, step, device=device) as s:
            begin(s, weights)
            run_steps(s, grads, STEPS)
            # weights=True: whole arrays, and for whole weights a check that every replica's is equal
            results[each] = opt.state_dict(s, weights=True)
            sharded = weights[0].shard if each == WEIGHTS else opt.state[id(weights[0])]["m" if kind != "sgd" else
                                                                                          "momentum"]
            assert s.read(sharded).shape == ((REPLICAS, 4) if each != UNSHARDED else (REPLICAS, 3, 5))
    assert results[layout].keys() == results[UNSHARDED].keys()
    for name, want in results[UNSHARDED].items():
        np.testing.assert_array_equal(results[layout][name], want, err_msg=name)
    for name in SHAPES:
        want = numpy_optimizer(kind, rounded(INITIAL[name], dtype), averaged(name, dtype))
        master = results[layout][f"{name}/{opt.name}/master" if dtype == pd.float16 else name]
        assert_close(master, want, rtol=2e-5, atol=2e-6, err_msg=f"{kind} {name}")
        assert_close(results[layout][name], want, dtype=dtype, err_msg=f"{kind} {name}")


def test_sharded_state_and_weights_take_a_replicas_share_of_the_memory():
    """The profile's bytes per replica of a float16 (64, 64) weight (4096 elements, no
    padding) and of its Adam state: a quarter on 4 replicas, sharded."""
    device_bytes = {}
    for layout in (UNSHARDED, STATE, WEIGHTS):
        device, g = replicated()
        w = ShardedVariable(g, pd.float16, (64, 64), "big") if layout == WEIGHTS else \
            g.variable(pd.float16, (64, 64), name="big", init=np.zeros((64, 64)))
        grad = g.variable(pd.float16, (64, 64), name="big/grad")
        opt = pd.optim.Adam(shard_over_replicas=layout != UNSHARDED)
        with pd.Sequence() as step:
            opt.step([w], [grad] if layout != UNSHARDED else [pd.all_reduce(grad, op="mean")])
        with pd.Session(g, step, device=device) as s:
            s.run()
            by_name = s.profile.memory.by_variable()
        device_bytes[layout] = {name: by_name[f"big/adam/{name}"] for name in ("m", "v", "master")}
        device_bytes[layout]["weight"] = by_name["big/shard" if layout == WEIGHTS else "big"]
    float32_bytes, float16_bytes = 64 * 64 * 4, 64 * 64 * 2
    assert device_bytes[UNSHARDED] == {"m": float32_bytes, "v": float32_bytes, "master": float32_bytes,
                                       "weight": float16_bytes}
    assert device_bytes[STATE] == {"m": float32_bytes // 4, "v": float32_bytes // 4, "master": float32_bytes // 4,
                                   "weight": float16_bytes}
    assert device_bytes[WEIGHTS] == {"m": float32_bytes // 4, "v": float32_bytes // 4,
                                     "master": float32_bytes // 4, "weight": float16_bytes // 4}


def test_a_sharded_weight_is_gathered_where_used_and_trains_like_numpy():
    """A (6, 5) ShardedVariable (30 elements: chunks of 8 on 4 replicas) gathered into a
    linear model, each replica on its own rows: Adam on the mean gradient, as float64 numpy;
    the weight's bytes per replica are a chunk's."""
    rows, steps = 8, 3
    x, y = rng.standard_normal((REPLICAS, rows, 6)), rng.standard_normal((REPLICAS, rows, 5))
    w0 = rng.standard_normal((6, 5))
    device, g = replicated()
    xv, yv = g.variable(pd.float32, (rows, 6), name="x"), g.variable(pd.float32, (rows, 5), name="y")
    w = ShardedVariable(g, pd.float32, (6, 5), "w")
    opt = pd.optim.Adam(LR, shard_over_replicas=True)
    with pd.Sequence() as step:
        whole = w.gather()
        opt.step([w], pd.grad(pd.square(xv @ whole - yv).mean(), [whole]))
    with pd.Session(g, step, device=device) as s:
        s.write(xv, x)
        s.write(yv, y)
        w.write(s, w0)
        for _ in range(steps):
            s.run()
        got = w.read(s)
        memory = s.profile.memory.by_variable()
    assert memory["w/shard"] == 8 * 4 and "w" not in memory
    adam = NumpyAdam({"w": w0}, LR)
    for _ in range(steps):
        w64 = adam.params["w"]
        adam.step({"w": np.mean([2 * xr.T @ (xr @ w64 - yr) / yr.size for xr, yr in zip(x, y)], axis=0)})
    assert_close(got, adam.params["w"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layout", [STATE, WEIGHTS])
def test_clipping_and_a_dynamic_loss_scale_shard_like_the_unsharded_step(layout):
    """max_grad_norm clips by the norm of every replica's chunks together, and an inf in one
    replica's gradient skips the step on every replica: equal to the unsharded run."""
    scale_value = 2.0 ** 4
    results = {}
    for sharded, each in ((False, UNSHARDED), (True, layout)):
        scale = pd.optim.LossScale(scale_value, growth_interval=2)
        device, g, step, opt, weights, grads = training("adam", pd.float16, each, loss_scale=scale,
                                                        max_grad_norm=0.5)
        with pd.Session(g, step, device=device) as s:
            begin(s, weights)
            for k in range(STEPS):
                for x, name in zip(grads, SHAPES):
                    local = GRADS[name][k] * scale_value
                    if k == 1 and name == "b":
                        local = local.copy()
                        local[3, 0] = np.inf  # only replica 3's bias gradient overflows
                    s.write(x, local)
                s.run()
            results[sharded] = opt.state_dict(s, weights=True), s.read(scale.tensor)
    for name, want in results[False][0].items():
        np.testing.assert_array_equal(results[True][0][name], want, err_msg=name)
    np.testing.assert_array_equal(results[True][1], results[False][1])
    assert results[True][0]["optim/adam/step"].tolist() == [STEPS - 1]  # the overflowing step was skipped
    # The scale: halved by the overflow, doubled after two clean steps.
    np.testing.assert_array_equal(results[True][1], np.full((REPLICAS, 1), scale_value))

    # float64: the clipped, unscaled mean gradients of the steps taken.
    taken = [k for k in range(STEPS) if k != 1]
    means = {name: averaged(name, pd.float16, scale_value)[taken] for name in SHAPES}
    norms = np.sqrt(sum(np.square(means[name]).reshape(len(taken), -1).sum(1) for name in SHAPES))
    clip = np.minimum(0.5 / (norms + 1e-6), 1.0)
    for name in SHAPES:
        clipped = means[name] * clip.reshape(-1, *[1] * len(SHAPES[name]))
        want = numpy_optimizer("adam", rounded(INITIAL[name], pd.float16), clipped)
        assert_close(results[True][0][f"{name}/adam/master"], want, rtol=1e-3, atol=1e-3, err_msg=name)


def test_accumulated_gradients_step_sharded_like_unsharded():
    """Each replica accumulates its own micro-batch gradients; the sharded step reduce-
    scatters their mean: equal to all-reducing the mean and stepping unsharded, and to
    float64 SGD on the mean over replicas and micro-batches."""
    micro = rng.standard_normal((3, REPLICAS, 7))  # [micro-batch, replica, 7 elements]
    results = {}
    for sharded in (False, True):
        device, g = replicated()
        w = g.variable(pd.float32, (7,), name="w", init=np.ones(7))
        grad = g.host_to_device(pd.float32, (7,), name="grad")
        accumulator, opt = pd.optim.GradientAccumulator([w]), pd.optim.SGD(LR, shard_over_replicas=sharded)
        with pd.Sequence() as step:
            with pd.Repeat(len(micro)):
                accumulator.add([grad.read()])
            mean = accumulator.mean()
            opt.step([w], mean if sharded else [pd.all_reduce(mean[0], op="mean")])
            accumulator.zero()
        with pd.Session(g, step, device=device) as s:
            s.run(feeds={grad: micro.transpose(1, 0, 2).astype(np.float32)})  # [replica, read, 7]
            results[sharded] = s.read(w)
    np.testing.assert_array_equal(results[True], results[False])
    want = 1 - LR * micro.astype(np.float32).astype(np.float64).mean(axis=(0, 1))
    assert_close(results[True], np.broadcast_to(want, (REPLICAS, 7)), rtol=1e-6)


@pytest.mark.parametrize("first, second", [(UNSHARDED, STATE), (STATE, UNSHARDED), (WEIGHTS, UNSHARDED),
                                           (UNSHARDED, WEIGHTS)])
def test_weights_and_state_as_numpy_move_between_sharded_and_unsharded_sessions(first, second, tmp_path):
    """Two steps, then weights and state to an .npz; a fresh session of the same model in the
    other layout loads them and takes two more: equal to four steps without the checkpoint."""
    device, g, step, opt, weights, grads = training("adam", pd.float16, first)
    with pd.Session(g, step, device=device) as s:
        begin(s, weights)
        run_steps(s, grads, 2)
        checkpoint = opt.state_dict(s, weights=True)
        np.savez(tmp_path / "checkpoint.npz", **checkpoint)
    assert set(checkpoint) == {"optim/adam/step", "optim/adam/lr", "w", "b"} | {
        f"{name}/adam/{part}" for name in SHAPES for part in ("m", "v", "master")}
    assert checkpoint["w/adam/m"].shape == SHAPES["w"] and checkpoint["w"].shape == SHAPES["w"]

    device, g, step, opt, weights, grads = training("adam", pd.float16, second)
    with pd.Session(g, step, device=device) as s, np.load(tmp_path / "checkpoint.npz") as saved:
        opt.load_state_dict(s, dict(saved))
        run_steps(s, grads, 2, offset=2)
        resumed = opt.state_dict(s, weights=True)
    device, g, step, opt, weights, grads = training("adam", pd.float16, second)
    with pd.Session(g, step, device=device) as s:
        begin(s, weights)
        run_steps(s, grads, 4)
        straight = opt.state_dict(s, weights=True)
    for name, want in straight.items():
        np.testing.assert_array_equal(resumed[name], want, err_msg=name)


def test_a_replicated_checkpoint_loads_into_a_session_of_one_replica():
    device, g, step, opt, weights, grads = training("sgd", pd.float32, STATE)
    with pd.Session(g, step, device=device) as s:
        run_steps(s, grads, 1)
        checkpoint = opt.state_dict(s, weights=True)
    device = pd.ipu_model(tiles=4)
    g = pd.Graph(device)
    weights = [g.variable(pd.float32, shape, name=name) for name, shape in SHAPES.items()]
    single = OPTIMIZERS["sgd"](False)
    with pd.Sequence() as step:
        single.step(weights, [w * 0.0 for w in weights])
    with pd.Session(g, step, device=device) as s:
        single.load_state_dict(s, checkpoint)
        np.testing.assert_array_equal(s.read(weights[0]), checkpoint["w"])
        s.run()  # a zero gradient: momentum and weight decay move w
        buffer = MU * checkpoint["w/sgd/momentum"] + WD * checkpoint["w"]
        want = checkpoint["w"] - LR * (WD * checkpoint["w"] + MU * buffer)
        assert_close(s.read(weights[0]), want, rtol=1e-6, atol=1e-7)


def test_host_shards_follow_reduce_scatters_padded_layout():
    np.testing.assert_array_equal(to_shards(np.arange(5), 2), [[0, 1, 2], [3, 4, 0]])
    np.testing.assert_array_equal(to_shards(np.arange(2.0), 4), [[0.0], [1.0], [0.0], [0.0]])
    assert shard_size(15, 4) == 4 and shard_size(16, 4) == 4 and shard_size(1, 4) == 1
    array = np.arange(15.0).reshape(3, 5)
    np.testing.assert_array_equal(from_shards(to_shards(array, 4), (3, 5)), array)
    with pytest.raises(pd.BuildError, match=r"\(2, 3\) is not \[replicas, shard size\] of a tensor of shape \(3, 5\)"):
        from_shards(np.zeros((2, 3)), (3, 5))
    instance = types.SimpleNamespace(replicas=4, replica_range=range(2, 4))  # the second of two instances
    with pytest.raises(pd.BuildError, match="state_dict: sharded values need every replica's chunk, but this session "
                                            "holds replicas 2 to 3 of 4"):
        require_every_replica(instance, "state_dict")
    require_every_replica(types.SimpleNamespace(replicas=4, replica_range=range(4)), "state_dict")


def test_misuse_is_refused_with_the_reason():
    device = pd.ipu_model(tiles=4)
    g = pd.Graph(device)
    w = g.variable(pd.float32, (3,), name="w", init=np.zeros(3))
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match="shard_over_replicas needs a replicated graph"):
            pd.optim.Adam(shard_over_replicas=True).step([w], [w * 1.0])
    with pytest.raises(pd.BuildError, match="shard_over_replicas must be True or False, got"):
        pd.optim.SGD(0.1, shard_over_replicas="yes")
    with pytest.raises(pd.BuildError, match="ShardedVariable 'v': needs a replicated pd.Graph"):
        ShardedVariable(g, pd.float32, (3,), "v")

    device, g = replicated()
    with pytest.raises(pd.BuildError, match="ShardedVariable 'v': dtype must be a float type, got"):
        ShardedVariable(g, pd.int32, (3,), "v")
    v = ShardedVariable(g, pd.float32, (3,), "v")
    with pd.Sequence() as step:
        with pytest.raises(pd.BuildError, match="lives sharded over the replicas; step it with an optimizer made "
                                                "with shard_over_replicas=True"):
            pd.optim.SGD(0.1).step([v], [v.gather()])
        with pytest.raises(pd.BuildError, match=r"grads\[0\] .* must be a float tensor shaped like weights\[0\]"):
            pd.optim.SGD(0.1, shard_over_replicas=True).step([v], [v.shard])
        pd.optim.SGD(0.1, shard_over_replicas=True).step([v], [v.gather()])
    with pd.Session(g, step, device=device) as s:
        with pytest.raises(pd.BuildError, match=r"values must have shape \(3,\), got \(4,\)"):
            v.write(s, np.zeros(4))

    device, g, step, opt, weights, grads = training("adam", pd.float32, STATE)
    with pytest.raises(pd.BuildError, match=r"the shard of a tensor of shape \(3, 5\) must have shape \(4,\), got"):
        with pd.Sequence():
            gather_into(weights[0].flatten()[:3], weights[0])
    with pd.Session(g, step, device=device) as s:
        state = opt.state_dict(s)
        with pytest.raises(pd.BuildError, match=r"'w/adam/m' must have the \(3, 5\) elements of its weight"):
            opt.load_state_dict(s, {**state, "w/adam/m": np.zeros(4)})
        with pytest.raises(pd.BuildError, match=r"needs the state \[.*\] and may have the weights \['b', 'w'\], got"):
            opt.load_state_dict(s, {**state, "x": np.zeros(1)})

    device, g, step, opt, weights, grads = training("sgd", pd.float32, UNSHARDED)
    with pd.Session(g, step, device=device) as s:
        s.write(weights[1], np.arange(REPLICAS * 2.0).reshape(REPLICAS, 2))  # replicas drift apart
        with pytest.raises(pd.BuildError, match="the replicas hold different values of .*'b'"):
            opt.state_dict(s, weights=True)
