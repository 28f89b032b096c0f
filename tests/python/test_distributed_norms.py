"""Distributed normalisations on replicated graphs: popnn.bn.distributedBatchNormStatistics
and distributedBatchNormGradients (both forms), poplin.distributedNormStatistics and
distributedNormStatisticsGradients, with a Python reduce callback that all-reduces across
replicas with gcl, against float64 numpy over the whole distributed batch; and the C++
program tests/cpp/distributed_norms.cpp, built against the SDK-shaped prefix with a lambda
callback."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cpp_build import build_program, compiler
from popdsl import gcl, poplar, poplin, popnn, popops, poputil, program

pytestmark = pytest.mark.needs_emulator("runs replicated graphs, which the IPU Model of the SDK does not")

EPS = 1e-3
TILES = 4
rng = np.random.default_rng(23)


class Replicated:
    """A graph of `replicas` replicas, one program, and a reduce callback that records calls."""

    def __init__(self, replicas):
        model = poplar.IPUModel("ipu2")
        model.numIPUs, model.tilesPerIPU = replicas, TILES
        self.replicas, self.device = replicas, model.createDevice()
        self.graph = poplar.Graph(self.device.getTarget(), poplar.replication_factor(replicas))
        popops.addCodelets(self.graph)
        self.prog = program.Sequence()
        self.calls = []  # (group size, input shapes) of each reduce the norms asked for

    def all_reduce(self, graph, inputs, prog, group_size, debug_context, options):
        """The callback poplibs expects: sums over groups of group_size consecutive replicas."""
        self.calls.append((group_size, [t.shape() for t in inputs]))
        group = gcl.CommGroup(gcl.CommGroupType.CONSECUTIVE, group_size)
        return gcl.allReduceCrossReplica(graph, inputs, gcl.CollectiveOperator.ADD, prog, group, debug_context,
                                         options)

    def tensor(self, per_replica, name):
        """A variable holding per_replica[r] on replica r."""
        t = self.graph.addVariable(poplar.FLOAT, list(per_replica.shape[1:]), name)
        poputil.mapTensorLinearly(self.graph, t)
        self.graph.createHostWrite(name, t)
        self._writes = getattr(self, "_writes", []) + [(name, per_replica)]
        return t

    def run(self, *tensors):
        """Every replica's values of `tensors` after one run."""
        for i, t in enumerate(tensors):
            self.graph.createHostRead(f"out{i}", t)
        engine = poplar.Engine(self.graph, self.prog)
        engine.load(self.device)
        for name, values in self._writes:
            engine.writeTensor(name, np.ascontiguousarray(values, np.float32))
        engine.run(0)
        return [engine.readTensor(f"out{i}", np.empty([self.replicas] + t.shape(), np.float32))
                for i, t in enumerate(tensors)]


def per_replica_acts(replicas, shape=(2, 3, 4)):
    """[replicas][B][C][F] activations, each channel at its own offset and scale."""
    scale = (1 + np.arange(shape[1])).reshape(1, 1, -1, 1)
    return (rng.normal(3.0, 1.5, size=(replicas,) + shape) * scale).astype(np.float32).astype(np.float64)


def batch_statistics(x, unbiased=False):
    """Per-channel (mean, invStdDev) of x [N][C][F] in float64."""
    mean = x.mean(axis=(0, 2))
    var = x.var(axis=(0, 2), ddof=1 if unbiased else 0)
    return mean, 1 / np.sqrt(var + EPS)


def whole_batch(per_replica):
    """The replicas' batches as one: [replicas * B][C][F]."""
    return per_replica.reshape((-1,) + per_replica.shape[2:])


def normalise(x, gamma):
    mean, inv = batch_statistics(x)
    return (x - mean[None, :, None]) * inv[None, :, None] * gamma[None, :, None]


def batch_norm_input_gradient(x, gamma, grads):
    """d sum(normalise(x) * grads) / dx by central differences, all in float64."""
    h, out = 1e-6, np.empty_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = ((normalise(up, gamma) - normalise(down, gamma)) * grads).sum() / (2 * h)
    return out


@pytest.mark.parametrize("replicas", [2, 4])
@pytest.mark.parametrize("unbiased", [False, True], ids=["biased", "unbiased"])
@pytest.mark.parametrize("stable", [False, True], ids=["sums", "stable"])
def test_statistics_are_those_of_the_whole_distributed_batch(replicas, unbiased, stable):
    r = Replicated(replicas)
    x = per_replica_acts(replicas)
    acts = r.tensor(x, "acts")
    batch = x.shape[1] * replicas
    bn_mean, bn_inv = popnn.bn.distributedBatchNormStatistics(r.graph, acts, EPS, r.prog, unbiased, r.all_reduce,
                                                              batch, stable)
    lin_mean, lin_inv = poplin.distributedNormStatistics(r.graph, acts, EPS, r.prog, unbiased, r.all_reduce, batch,
                                                         stable)
    got = r.run(bn_mean, bn_inv, lin_mean, lin_inv)
    want_mean, want_inv = batch_statistics(whole_batch(x), unbiased)
    for replica in range(replicas):
        for mean, inv in (got[:2], got[2:]):
            np.testing.assert_allclose(mean[replica], want_mean, rtol=1e-5)
            np.testing.assert_allclose(inv[replica], want_inv, rtol=1e-4)
    # The stable algorithm reduces the mean, then the centred power; the other both at once.
    shares = [[[3]], [[3]]] if stable else [[[3], [3]]]
    assert r.calls == [(replicas, s) for s in shares] * 2


def test_groups_of_replicas_normalise_their_own_batch():
    # 4 replicas, a norm batch of two replicas' batches: replicas {0, 1} and {2, 3}.
    r = Replicated(4)
    x = per_replica_acts(4)
    mean, inv = popnn.bn.distributedBatchNormStatistics(r.graph, r.tensor(x, "acts"), EPS, r.prog, False,
                                                        r.all_reduce, 2 * x.shape[1])
    got_mean, got_inv = r.run(mean, inv)
    assert [size for size, _ in r.calls] == [2]
    for members in ([0, 1], [2, 3]):
        want_mean, want_inv = batch_statistics(whole_batch(x[members]))
        for replica in members:
            np.testing.assert_allclose(got_mean[replica], want_mean, rtol=1e-5)
            np.testing.assert_allclose(got_inv[replica], want_inv, rtol=1e-4)


def test_a_batch_on_one_replica_or_no_callback_gives_each_replicas_own_statistics():
    r = Replicated(2)
    x = per_replica_acts(2)
    acts = r.tensor(x, "acts")
    own = popnn.bn.distributedBatchNormStatistics(r.graph, acts, EPS, r.prog, False, r.all_reduce, x.shape[1])
    no_callback = poplin.distributedNormStatistics(r.graph, acts, EPS, r.prog, False, None, 2 * x.shape[1])
    got = r.run(*own, *no_callback)
    assert r.calls == []
    for replica in range(2):
        want_mean, want_inv = batch_statistics(x[replica])
        for mean, inv in (got[:2], got[2:]):
            np.testing.assert_allclose(mean[replica], want_mean, rtol=1e-5)
            np.testing.assert_allclose(inv[replica], want_inv, rtol=1e-4)


@pytest.mark.parametrize("replicas", [2, 3])
def test_gradients_both_forms_are_those_of_the_whole_batch(replicas):
    r = Replicated(replicas)
    x = per_replica_acts(replicas, (2, 3, 2))
    grads = rng.normal(size=x.shape).astype(np.float32).astype(np.float64)
    gamma = np.array([0.5, -1.5, 2.0], np.float32).astype(np.float64)
    acts, grads_in = r.tensor(x, "acts"), r.tensor(grads, "grads")
    g = r.tensor(np.broadcast_to(gamma, (replicas, 3)), "gamma")
    batch = x.shape[1] * replicas
    mean, inv = popnn.bn.distributedBatchNormStatistics(r.graph, acts, EPS, r.prog, False, r.all_reduce, batch)
    whitened = popnn.bn.batchNormWhiten(r.graph, acts, mean, inv, r.prog)
    from_acts = popnn.bn.distributedBatchNormGradients(r.graph, acts, grads_in, mean, inv, g, r.prog, r.all_reduce,
                                                       batch)
    from_whitened = popnn.bn.distributedBatchNormGradients(r.graph, whitened, grads_in, inv, g, r.prog,
                                                           r.all_reduce, batch)
    # poplin's form takes the gradient at the whitened activations (gamma applied).
    at_whitened = poplin.normGradients(r.graph, grads_in, g, r.prog)
    through_statistics = poplin.distributedNormStatisticsGradients(r.graph, whitened, at_whitened, inv, r.prog,
                                                                   r.all_reduce, batch)
    got = r.run(from_acts, from_whitened, through_statistics)
    want = batch_norm_input_gradient(whole_batch(x), gamma, whole_batch(grads)).reshape(x.shape)
    for g_replicas in got:
        np.testing.assert_allclose(g_replicas, want, rtol=1e-3, atol=1e-4)
    assert all(size == replicas and shapes == [[3], [3]] for size, shapes in r.calls[1:])


def test_poplin_norm_steps_match_numpy():
    """The local poplin forms: statistics, whiten, normalise, parameter gradients, and the
    statistics gradient composed with normGradients equals batch norm's."""
    r = Replicated(1)
    x = per_replica_acts(1, (3, 2, 5))
    grads = rng.normal(size=x.shape).astype(np.float32).astype(np.float64)
    acts, grads_in = r.tensor(x, "acts"), r.tensor(grads, "grads")
    gamma, beta = poplin.createNormParams(r.graph, acts)
    half_gamma = poplin.createNormGamma(r.graph, acts, poplar.HALF)
    assert [gamma.shape(), beta.shape(), half_gamma.elementType()] == [[2], [2], poplar.HALF]
    assert poplin.createNormBeta(r.graph, acts, poplar.HALF).elementType() == poplar.HALF
    assert poplin.createNormGamma(r.graph, acts).elementType() == poplar.FLOAT
    assert poplin.createNormBeta(r.graph, acts).shape() == [2]
    gamma_values, beta_values = np.array([[2.0, -0.5]]), np.array([[0.25, 1.0]])
    gamma_t, beta_t = r.tensor(gamma_values, "gammaValues"), r.tensor(beta_values, "betaValues")
    mean, inv = poplin.normStatistics(r.graph, acts, EPS, r.prog, False)
    whitened = poplin.normWhiten(r.graph, acts, mean, inv, r.prog)
    normalised = poplin.normalise(r.graph, whitened, gamma_t, beta_t, r.prog)
    gamma_delta, beta_delta = poplin.normParamGradients(r.graph, whitened, grads_in, r.prog)
    dx = poplin.normStatisticsGradients(r.graph, whitened, poplin.normGradients(r.graph, grads_in, gamma_t, r.prog),
                                        inv, r.prog)
    got = [v[0] for v in r.run(mean, inv, whitened, normalised, gamma_delta, beta_delta, dx)]
    want_mean, want_inv = batch_statistics(x[0])
    want_white = (x[0] - want_mean[None, :, None]) * want_inv[None, :, None]
    np.testing.assert_allclose(got[0], want_mean, rtol=1e-5)
    np.testing.assert_allclose(got[1], want_inv, rtol=1e-4)
    np.testing.assert_allclose(got[2], want_white, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[3], want_white * gamma_values[0][None, :, None] + beta_values[0][None, :, None],
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[4], (grads[0] * want_white).sum(axis=(0, 2)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[5], grads[0].sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[6], batch_norm_input_gradient(x[0], gamma_values[0], grads[0]), rtol=1e-3,
                               atol=1e-4)


def test_misuse_names_the_problem():
    r = Replicated(4)
    x = per_replica_acts(4)
    acts = r.tensor(x, "acts")
    stats = popnn.bn.distributedBatchNormStatistics
    with pytest.raises(poputil.poplibs_error, match=r"distributedBatchNormStatistics: the norm batch size 3 must be "
                                                    r"a multiple of the batch of acts 'acts' \[2,3,4\] float"):
        stats(r.graph, acts, EPS, r.prog, False, r.all_reduce, 3)
    with pytest.raises(poputil.poplibs_error, match=r"a norm batch of 6 spans 3 replicas, which do not divide the "
                                                    r"graph's 4 replica\(s\)"):
        stats(r.graph, acts, EPS, r.prog, False, r.all_reduce, 6)
    with pytest.raises(TypeError, match=r"distributedBatchNormStatistics: reduceCallback must be a callable or None, "
                                        r"got 3"):
        stats(r.graph, acts, EPS, r.prog, False, 3, 8)
    with pytest.raises(TypeError, match="the reduce callback must return a list of Tensors, got 'no'"):
        stats(r.graph, acts, EPS, r.prog, False, lambda *args: "no", 8)
    with pytest.raises(poputil.poplibs_error, match=r"distributedNormStatistics: the reduce callback returned 0 "
                                                    r"tensor\(s\) for the 2 it was given"):
        poplin.distributedNormStatistics(r.graph, acts, EPS, r.prog, False, lambda *args: [], 8)
    with pytest.raises(poputil.poplibs_error, match=r"returned 'acts' \[2,3,4\] float for input 0 .*: each sum has "
                                                    "its input's shape"):
        stats(r.graph, acts, EPS, r.prog, False, lambda g, inputs, *rest: [acts] * len(inputs), 8)
    with pytest.raises(ZeroDivisionError):
        stats(r.graph, acts, EPS, r.prog, False, lambda *args: 1 / 0, 8)


def test_a_cpp_program_with_a_lambda_callback_against_the_prefix(tmp_path):
    compiler()
    source = (Path(__file__).resolve().parent.parent / "cpp" / "distributed_norms.cpp").read_text()
    exe = build_program(tmp_path, source, std="c++14", strict=True)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    printed = dict(line.split(": ", 1) for line in result.stdout.splitlines())
    channels = np.array([[1.0, 2.0, 3.0, 4.0], [10.0, 10.0, 10.0, 30.0]])  # the program's batch of 4
    mean, inv = channels.mean(axis=1), 1 / np.sqrt(channels.var(axis=1) + EPS)
    assert printed["reduce calls"] == "1"
    np.testing.assert_allclose([float(v) for v in printed["mean"].split()], np.tile(mean, 2), rtol=1e-5)
    np.testing.assert_allclose([float(v) for v in printed["invStdDev"].split()], np.tile(inv, 2), rtol=1e-4)
