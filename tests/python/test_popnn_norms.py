"""popnn's normalisations (Norms.hpp, bn, gn, ln, in) against float64 numpy: statistics,
whitening, normalisation, both gradient forms (against central finite differences),
parameter gradients and updates, strided and contiguous channel groups, and errors."""
import numpy as np
import pytest

from popdsl import poplar, popnn, poputil
from raw_runner import Runner

EPS = 1e-3
rng = np.random.default_rng(16)


class Norm:
    """One normalisation as a Poplar user calls it, and its float64 numpy grouping."""

    def __init__(self, name, functions, groups=None, strided=True):
        self.name, self.groups, self.strided = name, groups, strided
        (self.statistics_fn, self.whiten, self.normalise, self.param_gradients, self.gradients,
         self.param_update) = functions

    def __repr__(self):
        return self.name

    @property
    def options(self):
        return {"groupNormStridedChannelGrouping": str(self.strided).lower()} if self.name.startswith("gn") else {}

    def statistics(self, graph, acts, prog, unbiased, stable=False, partials=poplar.FLOAT):
        f = self.statistics_fn
        if self.name.startswith("gn"):
            return f(graph, acts, EPS, prog, self.groups, unbiased, stable, partials, "stats", self.options)
        return f(graph, acts, EPS, prog, unbiased, stable, partials, "stats", self.options)

    def group_of_channel(self, channels):
        """The statistic group (within a batch element) of each channel; None for bn."""
        groups = {"bn": None, "ln": 1, "in": channels}.get(self.name, self.groups)
        if groups is None:
            return None
        per = channels // groups
        return np.arange(channels) % groups if self.strided and self.name.startswith("gn") \
            else np.arange(channels) // per

    def reference_statistics(self, x, unbiased):
        """(mean, invStdDev) as the SDK lays them out, from float64 numpy."""
        flat = x.reshape(x.shape[0], x.shape[1], -1)
        group = self.group_of_channel(x.shape[1])
        if group is None:
            grouped = [flat[:, c] for c in range(x.shape[1])]
        else:
            grouped = [flat[b, group == g] for b in range(x.shape[0]) for g in range(group.max() + 1)]
        mean = np.array([g.mean() for g in grouped])
        var = np.array([g.var(ddof=1 if unbiased else 0) for g in grouped])
        return mean, 1 / np.sqrt(var + EPS)

    def spread(self, stat, shape):
        """A [statistics] array broadcast against activations of `shape`."""
        group = self.group_of_channel(shape[1])
        fill = (1,) * (len(shape) - 2)
        if group is None:
            return stat.reshape((1, shape[1]) + fill)
        return stat.reshape(shape[0], -1)[:, group].reshape(shape[:2] + fill)

    def reference_normalise(self, x, gamma, beta):
        mean, inv = self.reference_statistics(x, False)
        whitened = (x - self.spread(mean, x.shape)) * self.spread(inv, x.shape)
        fill = (1,) * (x.ndim - 2)
        return whitened * gamma.reshape((1, -1) + fill) + beta.reshape((1, -1) + fill), whitened


BN = (popnn.bn.batchNormStatistics, popnn.bn.batchNormWhiten, popnn.bn.batchNormalise,
      popnn.bn.batchNormParamGradients, popnn.bn.batchNormGradients, popnn.bn.batchNormParamUpdate)
GN = (popnn.gn.groupNormStatistics, popnn.gn.groupNormWhiten, popnn.gn.groupNormalise,
      popnn.gn.groupNormParamGradients, popnn.gn.groupNormGradients, popnn.gn.groupNormParamUpdate)
LN = (popnn.ln.layerNormStatistics, popnn.ln.layerNormWhiten, popnn.ln.layerNormalise,
      popnn.ln.layerNormParamGradients, popnn.ln.layerNormGradients, popnn.ln.layerNormParamUpdate)
IN = (popnn.in_.instanceNormStatistics, popnn.in_.instanceNormWhiten, popnn.in_.instanceNormalise,
      popnn.in_.instanceNormParamGradients, popnn.in_.instanceNormGradients, popnn.in_.instanceNormParamUpdate)
NORMS = [Norm("bn", BN), Norm("gn-strided", GN, 2, True), Norm("gn-contiguous", GN, 2, False), Norm("ln", LN),
         Norm("in", IN)]
SHAPE = (3, 4, 2, 3)


def activations(shape=SHAPE, offset=2.0):
    return rng.normal(offset, 1.5, size=shape) * (1 + np.arange(shape[1])).reshape((1, -1) + (1,) * (len(shape) - 2))


def f32(x):
    return np.asarray(x, np.float32).astype(np.float64)


@pytest.mark.parametrize("norm", NORMS, ids=repr)
@pytest.mark.parametrize("unbiased", [False, True], ids=["biased", "unbiased"])
@pytest.mark.parametrize("stable", [False, True], ids=["sums", "stable"])
def test_statistics(norm, unbiased, stable):
    x = f32(activations())
    r = Runner()
    acts = r.tensor(x, poplar.FLOAT, "acts")
    mean, inv = norm.statistics(r.graph, acts, r.prog, unbiased, stable)
    got_mean, got_inv = r.run(mean, inv)
    want_mean, want_inv = norm.reference_statistics(x, unbiased)
    assert mean.shape() == list(want_mean.shape) and mean.elementType() == poplar.FLOAT
    np.testing.assert_allclose(got_mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_inv, want_inv, rtol=1e-5)


def test_stable_algorithm_keeps_the_variance_of_a_large_offset():
    # Activations 1e4 +- 1: E[x^2] - E[x]^2 in float loses the variance, the centred sums keep it.
    x = f32(1e4 + rng.normal(0, 1, size=(2, 3, 64)))
    r = Runner()
    acts = r.tensor(x, poplar.FLOAT, "acts")
    stats = [popnn.bn.batchNormStatistics(r.graph, acts, EPS, r.prog, False, stable, poplar.HALF) for stable in (False, True)]
    got = r.run(*[s[1] for s in stats])
    want = NORMS[0].reference_statistics(x, False)[1]
    np.testing.assert_allclose(got[1], want, rtol=1e-4)  # half partials are widened to the float data
    assert not np.allclose(got[0], want, rtol=0.1)  # the float difference of two 1e8s (NaN where negative)


def test_half_activations_accumulate_in_float():
    x = activations((4, 2, 16))
    r = Runner()
    acts = r.tensor(x, poplar.HALF, "acts")
    mean, inv = popnn.gn.groupNormStatistics(r.graph, acts, EPS, r.prog, 2, False)
    assert mean.elementType() == poplar.HALF and inv.elementType() == poplar.HALF
    got_mean, got_inv = r.run(mean, inv)
    want_mean, want_inv = NORMS[1].reference_statistics(x.astype(np.float16).astype(np.float64), False)
    np.testing.assert_allclose(got_mean, want_mean, rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(got_inv, want_inv, rtol=2e-3)


@pytest.mark.parametrize("norm", NORMS, ids=repr)
def test_whiten_and_normalise(norm):
    x, gamma, beta = f32(activations()), f32(rng.normal(size=SHAPE[1])), f32(rng.normal(size=SHAPE[1]))
    r = Runner()
    acts, g, b = r.tensor(x, poplar.FLOAT, "acts"), r.tensor(gamma, poplar.FLOAT, "gamma"), r.tensor(beta, poplar.FLOAT, "beta")
    mean, inv = norm.statistics(r.graph, acts, r.prog, False)
    whitened_alone = norm.whiten(r.graph, acts, mean, inv, r.prog, "whiten", norm.options)
    normalised, whitened = norm.normalise(r.graph, acts, g, b, mean, inv, r.prog, "norm", norm.options)
    got_alone, got_norm, got_white = r.run(whitened_alone, normalised, whitened)
    want_norm, want_white = norm.reference_normalise(x, gamma, beta)
    np.testing.assert_allclose(got_white, want_white, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_alone, want_white, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_norm, want_norm, rtol=1e-5, atol=1e-5)


def test_batch_norm_inference_form():
    x, mult, add = f32(activations()), f32(rng.normal(size=SHAPE[1])), f32(rng.normal(size=SHAPE[1]))
    r = Runner()
    acts = r.tensor(x, poplar.FLOAT, "acts")
    out = popnn.bn.batchNormalise(r.graph, acts, r.tensor(mult, poplar.FLOAT, "m"), r.tensor(add, poplar.FLOAT, "a"),
                                  r.prog, "inference")
    got, = r.run(out)
    np.testing.assert_allclose(got, x * mult.reshape(1, -1, 1, 1) + add.reshape(1, -1, 1, 1), rtol=1e-5, atol=1e-5)


def finite_difference_gradient(norm, x, gamma, beta, grads_in, h=1e-5):
    """d sum(grads_in * normalise(x)) / dx, central differences in float64."""
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = ((norm.reference_normalise(up, gamma, beta)[0] - norm.reference_normalise(down, gamma, beta)[0])
                  * grads_in).sum() / (2 * h)
    return out


@pytest.mark.parametrize("norm", NORMS, ids=repr)
def test_gradients_both_forms_match_finite_differences(norm):
    shape = (2, 4, 3)
    x, gamma, beta = f32(activations(shape)), f32(rng.normal(size=4)), f32(rng.normal(size=4))
    grads = f32(rng.normal(size=shape))
    r = Runner()
    acts, g, d = r.tensor(x, poplar.FLOAT, "acts"), r.tensor(gamma, poplar.FLOAT, "gamma"), r.tensor(grads, poplar.FLOAT, "grads")
    mean, inv = norm.statistics(r.graph, acts, r.prog, False)
    whitened = norm.whiten(r.graph, acts, mean, inv, r.prog, "whiten", norm.options)
    from_acts = norm.gradients(r.graph, acts, d, mean, inv, g, r.prog, poplar.FLOAT, "dx", norm.options)
    from_whitened = norm.gradients(r.graph, whitened, d, inv, g, r.prog, poplar.FLOAT, "dxw", norm.options)
    got_acts, got_whitened = r.run(from_acts, from_whitened)
    want = finite_difference_gradient(norm, x, gamma, beta, grads)
    np.testing.assert_allclose(got_acts, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_whitened, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("norm", NORMS, ids=repr)
def test_param_gradients_both_forms(norm):
    x, grads = f32(activations()), f32(rng.normal(size=SHAPE))
    r = Runner()
    acts, d = r.tensor(x, poplar.FLOAT, "acts"), r.tensor(grads, poplar.FLOAT, "grads")
    mean, inv = norm.statistics(r.graph, acts, r.prog, False)
    whitened = norm.whiten(r.graph, acts, mean, inv, r.prog, "whiten", norm.options)
    gamma_delta, beta_delta = norm.param_gradients(r.graph, acts, d, mean, inv, r.prog, poplar.FLOAT, "dp",
                                                        norm.options)
    gamma_w, beta_w = norm.param_gradients(r.graph, whitened, d, r.prog, poplar.FLOAT, "dpw", norm.options)
    got = r.run(gamma_delta, beta_delta, gamma_w, beta_w)
    white = norm.reference_normalise(x, np.ones(4), np.zeros(4))[1]
    want_gamma, want_beta = (grads * white).sum(axis=(0, 2, 3)), grads.sum(axis=(0, 2, 3))
    for got_gamma, got_beta in (got[:2], got[2:]):
        np.testing.assert_allclose(got_gamma, want_gamma, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got_beta, want_beta, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("norm", NORMS, ids=repr)
@pytest.mark.parametrize("tensor_scale", [False, True], ids=["float", "tensor"])
def test_param_update(norm, tensor_scale):
    gamma, beta, dg, db = (f32(rng.normal(size=4)) for _ in range(4))
    r = Runner()
    g, b = r.tensor(gamma, poplar.FLOAT, "gamma"), r.tensor(beta, poplar.FLOAT, "beta")
    scale = r.tensor(np.array(-0.25), poplar.FLOAT, "scale") if tensor_scale else -0.25
    norm.param_update(r.graph, r.tensor(dg, poplar.FLOAT, "dg"), r.tensor(db, poplar.FLOAT, "db"), scale, g, b,
                           r.prog, "update", norm.options)
    got_gamma, got_beta = r.run(g, b)
    np.testing.assert_allclose(got_gamma, gamma - 0.25 * dg, rtol=1e-6)
    np.testing.assert_allclose(got_beta, beta - 0.25 * db, rtol=1e-6)


def test_strided_and_contiguous_channel_groups():
    # 4 channels in 2 groups: strided groups {0, 2} and {1, 3}, contiguous {0, 1} and {2, 3}.
    x = np.array([[[0.0, 2.0], [10.0, 12.0], [4.0, 6.0], [20.0, 22.0]]])
    r = Runner()
    acts = r.tensor(x, poplar.FLOAT, "acts")
    means = [popnn.gn.groupNormStatistics(r.graph, acts, EPS, r.prog, 2, False, False, poplar.FLOAT, "s",
                                          {"groupNormStridedChannelGrouping": strided})[0]
             for strided in ("true", "false")]
    default = popnn.gn.groupNormStatistics(r.graph, acts, EPS, r.prog, 2, False)[0]
    strided, contiguous, by_default = r.run(*means, default)
    np.testing.assert_allclose(strided, [3.0, 16.0])
    np.testing.assert_allclose(contiguous, [6.0, 13.0])
    np.testing.assert_allclose(by_default, strided)


def test_create_norm_params_and_flops():
    r = Runner()
    acts = r.tensor(np.zeros((2, 5, 3)), poplar.HALF, "acts")
    gamma, beta = popnn.createNormParams(r.graph, acts, "norm")
    for t in (gamma, beta, popnn.createNormGamma(r.graph, acts), popnn.createNormBeta(r.graph, acts)):
        assert t.shape() == [5] and t.elementType() == poplar.HALF
        assert r.graph.getTileMapping(t)  # mapped, so an engine can be made
    # poplibs's counts: stats 2N + 5S, whiten 2N, scale and shift 2N; backward 8N + 2S;
    # update 3N + 4P; instance norm's statistics are per channel.
    assert popnn.getNormFwdFlops(5, 30) == 6 * 30 + 5 * 5
    assert popnn.getNormFwdFlops(5, 30, False) == 2 * 30
    assert popnn.getNormBwdFlops(5, 30) == 8 * 30 + 2 * 5
    assert popnn.getNormWuFlops(5, 30) == 3 * 30 + 4 * 5
    assert popnn.in_.getFwdFlops(5, 6, True) == popnn.getNormFwdFlops(5, 30)
    assert popnn.in_.getBwdFlops(5, 6) == popnn.getNormBwdFlops(5, 30)
    assert popnn.in_.getWuFlops(5, 6) == popnn.getNormWuFlops(5, 30)


@pytest.mark.needs_emulator("estimated cycles in the profile")
def test_the_program_is_compute_sets_with_estimated_cycles():
    from popdsl.profile import Profile
    r = Runner()
    acts = r.tensor(activations(), poplar.FLOAT, "acts")
    mean, inv = popnn.ln.layerNormStatistics(r.graph, acts, EPS, r.prog, False, False, poplar.FLOAT, "stats")
    gamma, beta = popnn.createNormParams(r.graph, acts)
    popnn.ln.layerNormalise(r.graph, acts, gamma, beta, mean, inv, r.prog, "norm")
    engine = poplar.Engine(r.graph, r.prog)
    engine.load(r.device)
    engine.run(0)
    steps = [s for s in Profile.from_engine(engine).steps if s.kind == "Execute"]
    # The sums (one reduceMany), mean, variance, invStdDev and cast, whiten, scale and shift.
    assert len(steps) >= 6, [(s.kind, s.name) for s in steps]
    assert all(s.executions == 1 and s.compute_cycles > 0 for s in steps), steps
    assert any("stats" in s.name for s in steps) and any("norm" in s.name for s in steps), [s.name for s in steps]


def test_errors_name_the_problem():
    r = Runner()
    acts = r.tensor(np.zeros((2, 6, 3)), poplar.FLOAT, "acts")
    with pytest.raises(poputil.poplibs_error, match="groupNormStatistics: the 6 channels do not split into 4 groups"):
        popnn.gn.groupNormStatistics(r.graph, acts, EPS, r.prog, 4, False)
    with pytest.raises(poputil.poplibs_error, match="do not split into 0 groups"):
        popnn.gn.groupNormStatistics(r.graph, acts, EPS, r.prog, 0, False)
    flat = r.tensor(np.zeros(6), poplar.FLOAT, "flat")
    with pytest.raises(poputil.poplibs_error, match=r"batchNormStatistics: acts 'flat' \[6\] float must have rank 2"):
        popnn.bn.batchNormStatistics(r.graph, flat, EPS, r.prog, False)
    with pytest.raises(poputil.poplibs_error, match="instanceNormStatistics|groupNormStatistics: acts 'flat'"):
        popnn.in_.instanceNormStatistics(r.graph, flat, EPS, r.prog, False, False)
    ints = r.tensor(np.zeros((2, 6)), poplar.INT, "ints")
    with pytest.raises(poputil.poplibs_error, match="acts 'ints' .* must be FLOAT or HALF"):
        popnn.ln.layerNormStatistics(r.graph, ints, EPS, r.prog, False)
    mean, inv = popnn.bn.batchNormStatistics(r.graph, acts, EPS, r.prog, False)
    with pytest.raises(poputil.poplibs_error, match=r"batchNormWhiten: mean .* must be a FLOAT or HALF tensor of shape \[6\]"):
        popnn.bn.batchNormWhiten(r.graph, acts, mean.slice(0, 3), inv, r.prog)
    with pytest.raises(poputil.poplibs_error, match=r"groupNormWhiten: mean .* must be \[B \* numGroups\]"):
        popnn.gn.groupNormWhiten(r.graph, acts, mean.slice(0, 3), inv.slice(0, 3), r.prog)
    gamma = r.tensor(np.ones(5), poplar.FLOAT, "gamma")
    with pytest.raises(poputil.poplibs_error, match=r"batchNormalise: gamma 'gamma' \[5\] float must be .* shape \[6\]"):
        popnn.bn.batchNormalise(r.graph, acts, gamma, gamma, mean, inv, r.prog)
    grads = r.tensor(np.ones((2, 6)), poplar.FLOAT, "grads")
    with pytest.raises(poputil.poplibs_error, match=r"batchNormGradients: gradsIn 'grads' .* shape \[2,6,3\]"):
        popnn.bn.batchNormGradients(r.graph, acts, grads, mean, inv, r.tensor(np.ones(6), poplar.FLOAT), r.prog)
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'groupNormStrided'"):
        popnn.gn.groupNormStatistics(r.graph, acts, EPS, r.prog, 2, False, options={"groupNormStrided": "true"})
    with pytest.raises(poplar.invalid_option, match="Invalid value 'yes'"):
        popnn.ln.layerNormStatistics(r.graph, acts, EPS, r.prog, False,
                                     options={"groupNormStridedChannelGrouping": "yes"})
    with pytest.raises(poplar.invalid_option, match="Unrecognised option"):
        popnn.bn.batchNormStatistics(r.graph, acts, EPS, r.prog, False, options={"groupNormStridedChannelGrouping": "true"})
    single = r.tensor(np.zeros((1, 2)), poplar.FLOAT, "single")
    with pytest.raises(poputil.poplibs_error, match="an unbiased variance needs 2 or more elements per statistic"):
        popnn.in_.instanceNormStatistics(r.graph, single, EPS, r.prog, True, False)
    with pytest.raises(poputil.poplibs_error, match=r"batchNormParamUpdate: gammaDelta .* shape \[6\]"):
        popnn.bn.batchNormParamUpdate(r.graph, gamma, gamma, 1.0, mean, inv, r.prog)
