"""pd.nn flash attention against the float64 numpy references of popdsl.testing.attention.

Half runs really compute in half (storage, matmul partials, element-wise rounding);
their tolerance is relative to the largest reference value: half rounds at 2**-11,
and the scores, exp and the chained matmuls of the backward compound it.
"""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close
from popdsl.testing.attention import causal_attention, causal_attention_grad, causal_mask
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

# Largest error allowed, as a fraction of the largest |reference| of each result.
HALF_TOLERANCE = {"out": 3e-3, "log_sum_exp": 2e-3, "dqkv": 4e-3}  # observed: up to 1.1e-3


def test_the_gradient_reference_matches_finite_differences():
    rng = np.random.default_rng(0)
    qkv, d_out = rng.standard_normal((3, 2, 5, 3)), rng.standard_normal((2, 5, 3))
    loss = lambda x: (causal_attention(x)[0] * d_out).sum()  # noqa: E731
    numeric = np.zeros_like(qkv)
    step = 1e-6
    for index in np.ndindex(qkv.shape):
        bump = np.zeros_like(qkv)
        bump[index] = step
        numeric[index] = (loss(qkv + bump) - loss(qkv - bump)) / (2 * step)
    np.testing.assert_allclose(causal_attention_grad(qkv, d_out), numeric, atol=1e-7)


# --- helpers ----------------------------------------------------------------------------------------
def chunk_major(log_sum_exp, num_chunks_q):
    """[G, L] -> the builder's layout [num_chunks_q, G, L / num_chunks_q]."""
    groups, length = log_sum_exp.shape
    return log_sum_exp.reshape(groups, num_chunks_q, length // num_chunks_q).transpose(1, 0, 2)


def random_inputs(shape, dtype, seed):
    """qkv [3, G, L, D] and d_out [G, L, D], scaled so the scores stay O(1), in the device dtype."""
    rng = np.random.default_rng(seed)
    qkv = rng.uniform(-1, 1, (3, *shape)) * np.array([1 / np.sqrt(shape[-1]), 1, 1])[:, None, None, None]
    return qkv.astype(dtype), rng.uniform(-1, 1, shape).astype(dtype)


def check(name, actual, expected, dtype):
    if dtype == np.float16:
        error = np.abs(actual.astype(np.float64) - expected).max()
        assert error <= HALF_TOLERANCE[name] * np.abs(expected).max(), f"{name}: max error {error}"
    else:
        assert_close(actual, expected, rtol=1e-4, atol=1e-5, err_msg=name)


# --- flash attention -----------------------------------------------------------------------------
CASES = [  # G, L, D, num_chunks_q, num_chunks_kv
    (1, 1, 1, 1, 1),     # one query, one key
    (1, 8, 4, 1, 1),     # one block
    (2, 6, 3, 6, 1),     # query chunks of 1, one key/value chunk
    (2, 6, 3, 1, 6),     # key/value chunks of 1 (the original's generator never stops here)
    (1, 6, 2, 6, 6),     # chunks of 1 on both sides: nothing is partly masked
    (2, 16, 8, 4, 4),    # square blocks
    (3, 12, 5, 3, 4),    # [4, 3] blocks
    (2, 12, 4, 4, 3),    # [3, 4] blocks
    (1, 12, 3, 2, 3),    # [6, 4] blocks: lcm 12
    (2, 10, 3, 2, 5),    # [5, 2] blocks
    (1, 15, 2, 5, 3),    # [3, 5] blocks
    (2, 24, 4, 6, 4),    # [4, 6] blocks, two periods of masks
    (1, 60, 3, 12, 10),  # [5, 6] blocks, two periods of masks
]
HALF_CASES = [(2, 12, 4, 3, 4), (1, 16, 8, 4, 2), (2, 6, 3, 1, 6), (1, 10, 4, 5, 2)]


def run_flash(device, session_factory, shape, num_chunks, dtype, runs=1, seed=0):
    """Builds forward-with-stash and grad once; returns the inputs and each run's results."""
    g = pd.Graph(device)
    qkv = g.variable(dtype, (3, *shape), name="qkv")
    d_out = g.variable(dtype, shape, name="d_out")
    with pd.Sequence() as forward:
        out, log_sum_exp = pd.nn.flash_attention_qkv_packed_with_stash(qkv, *num_chunks)
    with pd.Sequence() as backward:
        dqkv = pd.nn.flash_attention_qkv_packed_grad(d_out, qkv, *num_chunks)
    qkv_values, d_out_values = random_inputs(shape, dtype, seed)
    results = []
    with session_factory(g, {"forward": forward, "backward": backward}) as s:
        s.write(qkv, qkv_values)
        s.write(d_out, d_out_values)
        for _ in range(runs):
            s.run("forward")
            s.run("backward")
            results.append({"out": s.read(out), "log_sum_exp": s.read(log_sum_exp), "dqkv": s.read(dqkv)})
    return qkv_values, d_out_values, results


def check_against_reference(qkv, d_out, result, num_chunks_q, dtype):
    out, log_sum_exp, _ = causal_attention(qkv)
    check("out", result["out"], out, dtype)
    check("log_sum_exp", result["log_sum_exp"], chunk_major(log_sum_exp, num_chunks_q), dtype)
    check("dqkv", result["dqkv"], causal_attention_grad(qkv, d_out), dtype)


@pytest.mark.parametrize("G, L, D, nq, nkv", CASES)
def test_flash_attention_float(ipu_device, session_factory, G, L, D, nq, nkv):
    qkv, d_out, [result] = run_flash(ipu_device, session_factory, (G, L, D), (nq, nkv), np.float32)
    assert result["log_sum_exp"].shape == (nq, G, L // nq)
    check_against_reference(qkv, d_out, result, nq, np.float32)


@pytest.mark.parametrize("G, L, D, nq, nkv", HALF_CASES)
def test_flash_attention_half(ipu_device, session_factory, G, L, D, nq, nkv):
    qkv, d_out, [result] = run_flash(ipu_device, session_factory, (G, L, D), (nq, nkv), np.float16)
    assert result["out"].dtype == result["dqkv"].dtype == np.float16
    check_against_reference(qkv, d_out, result, nq, np.float16)


@pytest.mark.parametrize("num_chunks", [(3, 4), (4, 4)])
def test_running_an_engine_twice_gives_identical_results(ipu_device, session_factory, num_chunks):
    """The mask blocks, counters and block buffers are remade on every run, so nothing carries
    over (the diagonal bands of square chunks leave the buffers' masked corners as they were)."""
    qkv, d_out, (first, second) = run_flash(ipu_device, session_factory, (2, 12, 3), num_chunks, np.float32, runs=2)
    for name in first:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)
    check_against_reference(qkv, d_out, second, num_chunks[0], np.float32)


@pytest.mark.parametrize("G, L, D, nq, nkv", [(2, 12, 4, 4, 3), (1, 16, 8, 2, 4)])
def test_the_grad_uses_a_given_stash_instead_of_recomputing(ipu_device, session_factory, G, L, D, nq, nkv):
    """The backward runs without the forward, on a stash written from the host: the float64
    reference's out, and its log-sum-exp plus log 2, which halves every probability and so
    (dV = P^T dO, dS = P * (dO V^T - rowsum(out * dO))) the whole gradient. Recomputing the
    forward would give the full gradient instead."""
    g = pd.Graph(ipu_device)
    qkv = g.variable(pd.float32, (3, G, L, D), name="qkv")
    d_out = g.variable(pd.float32, (G, L, D), name="d_out")
    with pd.Sequence() as forward:
        out, log_sum_exp = pd.nn.flash_attention_qkv_packed_with_stash(qkv, nq, nkv)
    with pd.Sequence() as backward:
        dqkv = pd.nn.flash_attention_qkv_packed_grad(d_out, qkv, nq, nkv, out=out, log_sum_exp=log_sum_exp)
    qkv_values, d_out_values = random_inputs((G, L, D), np.float32, seed=3)
    reference_out, reference_log_sum_exp, _ = causal_attention(qkv_values)
    with session_factory(g, {"forward": forward, "backward": backward}) as s:
        s.write(qkv, qkv_values)
        s.write(d_out, d_out_values)
        s.write(out, reference_out)
        s.write(log_sum_exp, chunk_major(reference_log_sum_exp + np.log(2), nq))
        s.run("backward")
        check("dqkv", s.read(dqkv), causal_attention_grad(qkv_values, d_out_values) / 2, np.float32)


@pytest.mark.parametrize("nq, nkv", [(4, 3), (3, 4), (2, 6), (6, 4), (12, 1), (1, 12), (4, 4), (2, 2)])
def test_masks_applied_block_by_block_in_both_visiting_orders(ipu_device, session_factory, nq, nkv):
    """With q = 0 every score is its mask, so P shows the mask each block received: the
    forward's out = P V and the backward's dV = P^T dO, with V = dO = I, are P itself.
    The forward meets blocks row by row, the backward column by column. Square chunks
    multiply their diagonal blocks in bands of rows (of 1 row for [3, 3] blocks, of 1 and
    2 rows for [6, 6]): no band misses a visible key."""
    length = 12
    g = pd.Graph(ipu_device)
    qkv = g.variable(pd.float32, (3, 1, length, length), name="qkv")
    identity = g.variable(pd.float32, (1, length, length), name="identity")
    with pd.Sequence() as main:
        out = pd.nn.flash_attention_qkv_packed(qkv, nq, nkv)
        dqkv = pd.nn.flash_attention_qkv_packed_grad(identity, qkv, nq, nkv)
    eye = np.eye(length)[None]
    with session_factory(g, main) as s:
        s.write(qkv, np.stack([np.zeros_like(eye), np.ones_like(eye), eye]))
        s.write(identity, eye)
        s.run()
        rows_seen, columns_seen = s.read(out)[0], s.read(dqkv)[2, 0].T
    visible = causal_mask(length) == 0
    expected = visible / visible.sum(1, keepdims=True)  # softmax of the full triangular mask
    cq, ckv = length // nq, length // nkv
    for order, seen in (("row-major (forward)", rows_seen), ("column-major (backward)", columns_seen)):
        for i in range(nq):
            for j in range(nkv):
                block = np.s_[i * cq:(i + 1) * cq, j * ckv:(j + 1) * ckv]
                assert_close(seen[block], expected[block], err_msg=f"{order}: block ({i}, {j})")


# --- vanilla attention, SDPA, heuristics ---------------------------------------------------------------
@pytest.mark.parametrize("dtype, shape", [(np.float32, (2, 7, 3)), (np.float32, (1, 1, 2)), (np.float16, (2, 8, 4))])
def test_vanilla_attention_and_grad(ipu_device, session_factory, dtype, shape):
    g = pd.Graph(ipu_device)
    qkv = g.variable(dtype, (3, *shape), name="qkv")
    d_out = g.variable(dtype, shape, name="d_out")
    with pd.Sequence() as main:
        out = pd.nn.vanilla_attention(qkv)
        dqkv = pd.nn.vanilla_attention_grad(d_out, qkv)
    qkv_values, d_out_values = random_inputs(shape, dtype, seed=1)
    with session_factory(g, main) as s:
        s.write(qkv, qkv_values)
        s.write(d_out, d_out_values)
        s.run()
        check("out", s.read(out), causal_attention(qkv_values)[0], dtype)
        check("dqkv", s.read(dqkv), causal_attention_grad(qkv_values, d_out_values), dtype)


@pytest.mark.parametrize("scale, num_chunks", [(None, None), (0.3, (2, 4))])
def test_scaled_dot_product_attention(ipu_device, session_factory, scale, num_chunks):
    g = pd.Graph(ipu_device)
    q, k, v = (g.variable(pd.float32, (2, 16, 4), name=n) for n in "qkv")
    with pd.Sequence() as main:
        out = pd.nn.scaled_dot_product_attention(q, k, v, scale=scale, num_chunks=num_chunks)
    values = np.random.default_rng(2).standard_normal((3, 2, 16, 4))
    with session_factory(g, main) as s:
        for t, x in zip((q, k, v), values):
            s.write(t, x)
        s.run()
        got = s.read(out)
    scaled = values * np.array([0.5 if scale is None else scale, 1, 1])[:, None, None, None]
    assert_close(got, causal_attention(scaled)[0], rtol=1e-4, atol=1e-5)


def test_chunk_count_heuristic():
    worked = {(64, 64): (1, 1), (128, 64): (2, 1), (256, 64): (2, 2), (512, 64): (4, 2), (1024, 64): (4, 4),
              (2048, 64): (8, 4), (16384, 128): (16, 8), (65536, 64): (32, 32)}
    for (length, head_dim), chunks in worked.items():
        assert pd.nn.chunk_counts(length, head_dim) == chunks
    assert pd.nn.chunk_counts(1000, 16) == (8, 4)   # suggested (8, 4): both divide 1000
    assert pd.nn.chunk_counts(1001, 16) == (7, 1)   # suggested (8, 4): lowered to divisors of 1001
    assert pd.nn.chunk_counts(5, 64) == (1, 1)      # L < D


# --- errors, all raised before anything is built ------------------------------------------------------
def test_input_errors_name_the_problem_and_build_nothing(ipu_device):
    g = pd.Graph(ipu_device)
    qkv = g.variable(pd.float32, (3, 2, 12, 4), name="qkv")
    grad = g.variable(pd.float32, (2, 12, 4), name="grad")
    bad = {
        "rank": g.variable(pd.float32, (3, 12, 4), name="rank3"),
        "lead": g.variable(pd.float32, (2, 2, 12, 4), name="lead2"),
        "int": g.variable(pd.int32, (3, 2, 12, 4), name="ints"),
        "grad": g.variable(pd.float32, (2, 12, 3), name="grad_d3"),
        "half grad": g.variable(pd.float16, (2, 12, 4), name="half_grad"),
    }
    built = len(g.variables)
    line = r"test_attention.py:\d+: .*"
    with pd.Sequence() as main:
        with pytest.raises(ValueError, match=line + r"qkv must be a pd.Tensor, got ndarray"):
            pd.nn.flash_attention_qkv_packed(np.zeros((3, 1, 4, 4)), 1, 1)
        with pytest.raises(ValueError, match=r"\[3, G, L, D\].*'rank3'.*shape \(3, 12, 4\)"):
            pd.nn.flash_attention_qkv_packed(bad["rank"], 1, 1)
        with pytest.raises(ValueError, match=r"leading dimension 3.*shape \(2, 2, 12, 4\)"):
            pd.nn.vanilla_attention(bad["lead"])
        with pytest.raises(ValueError, match=r"float or half qkv, not int.*'ints'"):
            pd.nn.flash_attention_qkv_packed(bad["int"], 1, 1)
        with pytest.raises(ValueError, match=line + r"num_chunks_q=5 must be a positive int dividing .* L=12"):
            pd.nn.flash_attention_qkv_packed(qkv, 5, 1)
        with pytest.raises(ValueError, match=r"num_chunks_kv=0 must be a positive int"):
            pd.nn.flash_attention_qkv_packed_with_stash(qkv, 2, 0)
        with pytest.raises(ValueError, match=r"num_chunks_kv=2.0 must be a positive int"):
            pd.nn.flash_attention_qkv_packed_grad(grad, qkv, 2, 2.0)
        with pytest.raises(ValueError, match=r"grad must be a float tensor of shape \(2, 12, 4\).*'grad_d3'"):
            pd.nn.flash_attention_qkv_packed_grad(bad["grad"], qkv, 2, 2)
        with pytest.raises(ValueError, match=r"grad must be a float tensor .*'half_grad'"):
            pd.nn.vanilla_attention_grad(bad["half grad"], qkv)
        with pytest.raises(ValueError, match=r"out= and log_sum_exp= go together"):
            pd.nn.flash_attention_qkv_packed_grad(grad, qkv, 2, 2, out=grad)
        with pytest.raises(ValueError, match=r"log_sum_exp= must be a float tensor of shape \(2, 2, 6\).*'grad_d3'"):
            pd.nn.flash_attention_qkv_packed_grad(grad, qkv, 2, 2, out=grad, log_sum_exp=bad["grad"])
        with pytest.raises(ValueError, match=r"out= must be a float tensor of shape \(2, 12, 4\).*'half_grad'"):
            pd.nn.flash_attention_qkv_packed_grad(grad, qkv, 2, 2, out=bad["half grad"], log_sum_exp=grad)
        with pytest.raises(ValueError, match=r"q must be a pd.Tensor \[G, Lq, D\] and k, v \[G, Lk, D\]"):
            pd.nn.scaled_dot_product_attention(grad, grad, bad["grad"])
        with pytest.raises(ValueError, match="mask must be a bool pd.Tensor or numpy array, got ndarray"):
            pd.nn.scaled_dot_product_attention(grad, grad, grad, mask=np.ones((12, 12)))
        with pytest.raises(ValueError, match=r"mask \(3, 12\) does not broadcast to the scores \(2, 12, 12\)"):
            pd.nn.scaled_dot_product_attention(grad, grad, grad, mask=np.ones((3, 12), bool))
        with pytest.raises(ValueError, match="causal needs as many queries as keys"):
            pd.nn.scaled_dot_product_attention(grad[:, :6], grad, grad)
    assert len(g.variables) == built and not main.steps


def test_builder_ops_are_named_after_the_builder_lines(ipu_device):
    g = pd.Graph(ipu_device)
    qkv = g.variable(pd.float32, (3, 1, 4, 2), name="qkv")
    with pd.Sequence():
        out = pd.nn.vanilla_attention(qkv)
    assert out.name.startswith("vanilla_attention/popdsl/nn/attention.py:")  # the package's own path


def _sdpa_reference(q, k, v, scale, keep):
    """softmax(scale q k^T, masked where not keep) v in float64, and its gradient for sum(out * w)."""
    scores = np.where(keep, scale * q @ k.transpose(0, 2, 1), -10000.0)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return p @ v, p


@pytest.mark.parametrize("causal, masked", [(False, False), (False, True), (True, True)])
def test_sdpa_without_flash_matches_numpy_forward_and_backward(ipu_device, causal, masked):
    rng = np.random.default_rng(11)
    q, k = rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5 if causal else 7, 4))
    v = rng.standard_normal(k.shape)
    w = rng.standard_normal((2, 5, 4))
    lk = k.shape[1]
    keep = np.ones((2, 5, lk), bool)
    if masked:  # a key-padding mask: batch 1 sees only its first 3 keys
        keep[1, :, 3:] = False
    if causal:
        keep &= np.tril(np.ones((5, lk), bool))
    g = pd.Graph(ipu_device)
    qt, kt, vt = (g.variable(pd.float32, a.shape, name=n, init=a) for a, n in ((q, "q"), (k, "k"), (v, "v")))
    wt = g.variable(pd.float32, w.shape, name="w", init=w)
    # A key-padding mask broadcasts over the queries; with causal=True the whole mask is given too.
    mask = None if not masked else keep if causal else keep[:, :1, :]
    with pd.Sequence() as main:
        out = pd.nn.scaled_dot_product_attention(qt, kt, vt, causal=causal, mask=mask)
        dq, dk, dv = pd.grad((out * wt).sum(), [qt, kt, vt])
    with pd.Session(g, main, device=ipu_device) as s:
        s.run()
        expected, p = _sdpa_reference(q, k, v, 0.5, keep)
        np.testing.assert_allclose(s.read(out), expected, rtol=1e-4, atol=1e-5)
        # Backward by hand: dV = P^T W, dP = W V^T, dS = P * (dP - rowsum(dP * P)), scaled.
        dp = w @ v.transpose(0, 2, 1)
        ds = p * (dp - (dp * p).sum(-1, keepdims=True)) * 0.5
        np.testing.assert_allclose(s.read(dv), p.transpose(0, 2, 1) @ w, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(s.read(dq), ds @ k, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(s.read(dk), ds.transpose(0, 2, 1) @ q, rtol=1e-4, atol=1e-5)
