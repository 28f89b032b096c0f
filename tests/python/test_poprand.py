"""poprand/RandomGen.hpp: distributions checked statistically (bounds for the sample size
at about 5 standard errors), determinism, seeds and errors."""
import math
import subprocess

import numpy as np
import pytest

from popdsl import poplar, poprand, poputil
from cpp_build import INTERNAL, build_program
from raw_runner import Runner

N = 20000  # elements per sample: a mean is then known to about 0.7% of the spread


def sample(build, seed_value=(1234, 5678), engine_seed=None, reference_shape=(N,)):
    """Runs build(r, seed, reference) once and returns its output as float64."""
    r = Runner()
    reference = r.tensor(np.zeros(reference_shape), poplar.FLOAT, "ref")
    seed = None if seed_value is None else r.tensor(np.array(seed_value), poplar.UNSIGNED_INT, "seed")
    out = build(r, seed, reference)
    options = {} if engine_seed is None else {"prng.seed": str(engine_seed)}
    outs = r.run(*(out if isinstance(out, tuple) else (out,)), options=options)
    return [o.astype(np.float64) for o in outs] if isinstance(out, tuple) else outs[0].astype(np.float64)


def assert_mean(x, mean, std):
    assert abs(x.mean() - mean) < 5 * std / math.sqrt(x.size), (x.mean(), mean)


def assert_std(x, std):
    # The sample variance of n values has a relative standard error of about sqrt(2 / n)
    # (more for heavy tails); 6% is comfortably past 5 of those for every case here.
    assert abs(x.std() / std - 1) < 0.06, (x.std(), std)


@pytest.mark.parametrize("ptype", [poplar.FLOAT, poplar.HALF])
def test_uniform(ptype):
    x = sample(lambda r, s, ref: poprand.uniform(r.graph, s, 0, ref, ptype, -2.0, 3.0, r.prog))
    assert x.min() >= -2.0 and x.max() <= 3.0
    assert_mean(x, 0.5, 5 / math.sqrt(12))
    assert_std(x, 5 / math.sqrt(12))


def test_uniform_int_is_inclusive_and_flat():
    x = sample(lambda r, s, ref: poprand.uniform(r.graph, s, 0, ref, poplar.INT, -3, 4, r.prog))
    counts = np.bincount((x + 3).astype(int), minlength=8)
    assert x.min() == -3 and x.max() == 4 and len(counts) == 8
    expected, sd = N / 8, math.sqrt(N / 8 * 7 / 8)
    assert np.all(np.abs(counts - expected) < 5 * sd), counts


def test_normal():
    x = sample(lambda r, s, ref: poprand.normal(r.graph, s, 0, ref, poplar.FLOAT, 1.5, 0.5, r.prog))
    assert_mean(x, 1.5, 0.5)
    assert_std(x, 0.5)
    assert np.mean(np.abs(x - 1.5) < 0.5) == pytest.approx(math.erf(1 / math.sqrt(2)), abs=0.02)


def test_truncated_normal_stays_within_alpha_standard_deviations():
    alpha, std = 1.0, 2.0
    x = sample(lambda r, s, ref: poprand.truncatedNormal(r.graph, s, 0, ref, poplar.FLOAT, -1.0, std, alpha, r.prog))
    assert np.all(np.abs(x + 1.0) <= alpha * std)
    phi = math.exp(-alpha**2 / 2) / math.sqrt(2 * math.pi)
    truncated_var = 1 - 2 * alpha * phi / math.erf(alpha / math.sqrt(2))
    assert_mean(x, -1.0, std * math.sqrt(truncated_var))
    assert_std(x, std * math.sqrt(truncated_var))


@pytest.mark.parametrize("ptype", [poplar.FLOAT, poplar.INT])
def test_bernoulli(ptype):
    x = sample(lambda r, s, ref: poprand.bernoulli(r.graph, s, 0, ref, ptype, 0.3, r.prog))
    assert set(np.unique(x)) == {0.0, 1.0}
    assert_mean(x, 0.3, math.sqrt(0.3 * 0.7))


def test_log_uniform():
    x = sample(lambda r, s, ref: poprand.logUniform(r.graph, s, 0, ref, poplar.FLOAT, 2.0, 1000.0, r.prog, 10.0))
    assert x.min() >= 2.0 and x.max() <= 1000.0
    span = math.log(1000.0) - math.log(2.0)
    assert_mean(np.log(x), (math.log(2.0) + math.log(1000.0)) / 2, span / math.sqrt(12))


def test_log_uniform_int_takes_whole_values_inside_the_range():
    x = sample(lambda r, s, ref: poprand.logUniform(r.graph, s, 0, ref, poplar.INT, 1.5, 40.5, r.prog))
    assert np.all(x == np.round(x)) and x.min() == 2 and x.max() == 40
    assert np.mean(x <= 8) == pytest.approx((math.log(8.5) - math.log(2)) / (math.log(40) - math.log(2)), abs=0.03)


def test_dropout_output_clones_reference_or_input():
    r = Runner()
    x = r.tensor(np.ones(8), poplar.FLOAT, "x")  # spread over the 4 tiles
    ref = r.graph.addVariable(poplar.FLOAT, [8], "ref")
    r.graph.setTileMapping(ref, 2)
    like_ref = poprand.dropout(r.graph, None, 0, x, ref, 0.5, 2.0, True, r.prog)
    like_input = poprand.dropout(r.graph, None, 0, x, ref, 0.5, 2.0, False, r.prog)
    assert r.graph.getTileMapping(like_ref) == r.graph.getTileMapping(ref)
    assert r.graph.getTileMapping(like_input) == r.graph.getTileMapping(x)


def test_dropout_keeps_and_scales():
    values = np.arange(1, N + 1, dtype=np.float64)

    def build(r, s, ref):
        return poprand.dropout(r.graph, s, 0, r.tensor(values, poplar.FLOAT, "x"), ref, 0.75, 4.0, r.prog)
    x = sample(build)
    kept = x != 0
    np.testing.assert_array_equal(x[kept], values[kept] * 4.0)
    assert_mean(kept.astype(float), 0.75, math.sqrt(0.75 * 0.25))


def test_shaped_dropout_drops_whole_columns():
    values = np.ones((400, 50))

    def build(r, s, ref):
        column = r.tensor(np.zeros((1, 50)), poplar.FLOAT, "column")
        return poprand.shapedDropout(r.graph, s, 0, r.tensor(values, poplar.FLOAT, "x"), column, 0.5, 2.0, r.prog)
    x = sample(build)
    assert x.shape == (400, 50)
    assert np.all((x == x[0]).all(axis=0)) and set(np.unique(x)) <= {0.0, 2.0}
    assert 0 < (x[0] != 0).sum() < 50


def uniform_draw(r, s, ref, modifier=0):
    return poprand.uniform(r.graph, s, modifier, ref, poplar.FLOAT, 0.0, 1.0, r.prog)


def test_seeded_values_depend_only_on_seed_modifier_and_position():
    first = sample(uniform_draw)
    np.testing.assert_array_equal(first, sample(uniform_draw, engine_seed=99))
    assert not np.array_equal(first, sample(uniform_draw, seed_value=(1234, 5679)))
    assert not np.array_equal(first, sample(lambda r, s, ref: uniform_draw(r, s, ref, modifier=1)))

    def remapped(r, s, ref):  # the reference on one tile instead of four
        other = r.graph.addVariable(poplar.FLOAT, [N], "other")
        r.graph.setTileMapping(other, 3)
        return uniform_draw(r, s, other)
    np.testing.assert_array_equal(first, sample(remapped))


def test_seeded_call_leaves_the_hardware_seeds_unchanged():
    def build(r, s, ref):
        before = poplar.getHwSeeds(r.graph, r.prog)
        out = uniform_draw(r, s, ref)
        return out, before, poplar.getHwSeeds(r.graph, r.prog)
    _, before, after = sample(build, engine_seed=5)
    np.testing.assert_array_equal(before, after)


def test_hardware_rng_advances_between_calls_and_follows_the_engine_seed():
    def two_draws(r, s, ref):
        return uniform_draw(r, None, ref), uniform_draw(r, None, ref)
    a, b = sample(two_draws, seed_value=None, engine_seed=5)
    assert not np.array_equal(a, b)
    assert_mean(b, 0.5, math.sqrt(1 / 12))
    a2, b2 = sample(two_draws, seed_value=None, engine_seed=5)
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    a3, _ = sample(two_draws, seed_value=None, engine_seed=6)
    assert not np.array_equal(a, a3)


def test_set_seed_decides_the_hardware_stream():
    def seeded_then_draw(master, modifier=0):
        def build(r, s, ref):
            poprand.setSeed(r.graph, r.tensor(np.array(master), poplar.UNSIGNED_INT, "master"), modifier, r.prog)
            return uniform_draw(r, None, ref)
        return build
    first = sample(seeded_then_draw((1, 2)), seed_value=None, engine_seed=5)
    np.testing.assert_array_equal(first, sample(seeded_then_draw((1, 2)), seed_value=None, engine_seed=6))
    assert not np.array_equal(first, sample(seeded_then_draw((1, 3)), seed_value=None))
    assert not np.array_equal(first, sample(seeded_then_draw((1, 2), 7), seed_value=None))


def test_errors():
    r = Runner()
    ref = r.tensor(np.zeros(4), poplar.FLOAT, "ref")
    bad_seed = r.tensor(np.zeros(3), poplar.UNSIGNED_INT, "s3")
    with pytest.raises(poputil.poplibs_error, match="uniform: seed 's3' .* must be a rank-1 UNSIGNED_INT tensor of 2"):
        poprand.uniform(r.graph, bad_seed, 0, ref, poplar.FLOAT, 0, 1, r.prog)
    with pytest.raises(poputil.poplibs_error, match="normal: output type int is not supported \\(FLOAT or HALF\\)"):
        poprand.normal(r.graph, None, 0, ref, poplar.INT, 0, 1, r.prog)
    with pytest.raises(poputil.poplibs_error, match=r"logUniform: the range \[0.5.* must have 1 <= minVal < maxVal"):
        poprand.logUniform(r.graph, None, 0, ref, poplar.FLOAT, 0.5, 4, r.prog)
    with pytest.raises(poputil.poplibs_error, match=r"logUniform: maxVal \(70000.*\) is past the largest HALF value"):
        poprand.logUniform(r.graph, None, 0, ref, poplar.HALF, 2, 70000, r.prog)
    with pytest.raises(poputil.poplibs_error, match="uniform: for INT output, minVal .* must be integers"):
        poprand.uniform(r.graph, None, 0, ref, poplar.INT, 0.5, 4, r.prog)
    with pytest.raises(poputil.poplibs_error, match=r"dropout: keepProbability \(1.5.*\) must be in \[0, 1\]"):
        poprand.dropout(r.graph, None, 0, ref, ref, 1.5, 1.0, r.prog)
    with pytest.raises(poputil.poplibs_error, match="dropout: input 'ref' .* and reference 'r2' .* must have the same shape"):
        poprand.dropout(r.graph, None, 0, ref, r.tensor(np.zeros(5), poplar.FLOAT, "r2"), 0.5, 1.0, r.prog)
    with pytest.raises(poputil.poplibs_error, match="shapedDropout: reference 'r3' .* must broadcast to input 'ref'"):
        poprand.shapedDropout(r.graph, None, 0, ref, r.tensor(np.zeros(3), poplar.FLOAT, "r3"), 0.5, 1.0, r.prog)
    with pytest.raises(poputil.poplibs_error, match="setSeed: masterSeed 's3'"):
        poprand.setSeed(r.graph, bad_seed, 0, r.prog)


def test_philox_matches_the_published_known_answers(tmp_path):
    """Philox4x32-10 against the known-answer vectors of Salmon et al.'s Random123."""
    exe = build_program(tmp_path, r'''
#include "poprand/Philox.hpp"
#include <cstdio>
int main() {
  using poprand::detail::philox4x32;
  for (auto b : {philox4x32(0, 0, {0, 0, 0, 0}),
                 philox4x32(0xffffffff, 0xffffffff, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}),
                 philox4x32(0xa4093822, 0x299f31d0, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344})})
    std::printf("%08x %08x %08x %08x\n", b[0], b[1], b[2], b[3]);
}''', include=INTERNAL, link_emulator=False)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")
    assert out[:3] == ["6627e8d5 e169c58d bc57ac4c 9b00dbd8", "408f276d 41c83b0e a20bc7c6 6d5451fd",
                       "d16cfe09 94fdcceb 5001e420 24126ea1"]


def test_serialized_executables_draw_the_same_values():
    """Kernels are rebuilt from their parameters when an Executable is deserialized."""
    r = Runner()
    seed = r.tensor(np.array([7, 8]), poplar.UNSIGNED_INT, "seed")
    ref = r.tensor(np.zeros(64), poplar.FLOAT, "ref")
    draws = [poprand.truncatedNormal(r.graph, seed, 3, ref, poplar.FLOAT, 0.0, 1.0, 1.5, r.prog),
             poprand.uniform(r.graph, None, 0, ref, poplar.INT, -5, 5, r.prog),
             poprand.shapedDropout(r.graph, seed, 1, ref.reshape([8, 8]), ref.reshape([8, 8])[0].reshape([1, 8]),
                                   0.5, 2.0, r.prog)]
    compiled, reloaded = r.run_compiled_and_reloaded(*draws)
    for a, b in zip(compiled, reloaded):
        np.testing.assert_array_equal(a, b)
