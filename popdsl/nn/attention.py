"""Causal attention as graph builders: flash attention (FlashAttention-2 style) and vanilla.

Both compute softmax(Q K^T + M) V for a packed qkv [3, G, L, D] (G = batch * heads),
where M adds MASK_VALUE to every score of a key after its query. There is no
1/sqrt(D) scaling inside; scaled_dot_product_attention scales q first.

Flash attention never holds an L x L matrix. q, k and v are copied into sliceable
tensors of chunks [n, G, L/n, D] that nested Repeat loops index with the counters i
(query chunk) and j (key/value chunk). Blocks wholly above the diagonal are skipped;
blocks crossing it get their mask from causal_mask_blocks, made before the loops, and
on the diagonal of square chunks their products skip most of the masked keys (bands).
The forward keeps a running max and sum per query (online softmax) and stores
log-sum-exp; the backward recomputes them and visits the blocks column by column.
"""

from __future__ import annotations

import math
import numbers
from typing import Optional, Tuple, Union

import numpy as np

import popdsl as pd
from popdsl.debug import BuildError, describe, expect_int
from popdsl.nn.masks import MASK_VALUE, MaskBlocks, causal_mask_blocks, triu_offset_sequence


def flash_attention_qkv_packed(qkv: pd.Tensor, num_chunks_q: int, num_chunks_kv: int) -> pd.Tensor:
    """Causal attention of qkv [3, G, L, D] -> out [G, L, D], in query and key/value chunks."""
    return flash_attention_qkv_packed_with_stash(qkv, num_chunks_q, num_chunks_kv)[0]


def _flash_attention_vjp(grads, outputs, qkv, num_chunks_q, num_chunks_kv):
    """pd.grad's gradient of flash attention: its grad builder, reusing the forward's output and
    log-sum-exp (log_sum_exp has no gradient)."""
    d_out, d_log_sum_exp = grads
    if d_log_sum_exp is not None:
        raise BuildError("pd.grad: flash attention's log_sum_exp output has no gradient")
    if d_out is None:
        return [None]
    out, log_sum_exp = outputs
    return [flash_attention_qkv_packed_grad(d_out, qkv, num_chunks_q, num_chunks_kv, out=out, log_sum_exp=log_sum_exp)]


@pd.custom_grad(_flash_attention_vjp, reads_outputs=True, name="pd.nn.flash_attention_qkv_packed_with_stash")
def flash_attention_qkv_packed_with_stash(qkv: pd.Tensor, num_chunks_q: int,
                                          num_chunks_kv: int) -> Tuple[pd.Tensor, pd.Tensor]:
    """(out [G, L, D], log_sum_exp [num_chunks_q, G, L/num_chunks_q]): the forward and its softmax
    statistics, log-sum-exp over the keys of each query's masked scores, chunk-major."""
    _check_qkv(qkv)
    _check_chunks(qkv.shape[2], num_chunks_q, num_chunks_kv)
    with pd.name_scope("flash_attention"):
        out, log_sum_exp = _forward(*_chunked_qkv(qkv, num_chunks_q, num_chunks_kv))
    return qkv.graph.track(_unchunked(out)), log_sum_exp


def flash_attention_qkv_packed_grad(grad: pd.Tensor, qkv: pd.Tensor, num_chunks_q: int, num_chunks_kv: int,
                                    out: pd.Tensor = None, log_sum_exp: pd.Tensor = None) -> pd.Tensor:
    """dqkv [3, G, L, D] from the output gradient grad [G, L, D]. Given out= and log_sum_exp=
    (what flash_attention_qkv_packed_with_stash returned for this qkv and num_chunks_q) it
    uses them; without them it recomputes the forward."""
    _check_qkv(qkv)
    _check_chunks(qkv.shape[2], num_chunks_q, num_chunks_kv)
    _check_grad(grad, qkv)
    _check_stash(out, log_sum_exp, qkv, num_chunks_q)
    with pd.name_scope("flash_attention_grad"):
        q, k, v = _chunked_qkv(qkv, num_chunks_q, num_chunks_kv)
        if out is None:
            out_chunks, log_sum_exp = _forward(q, k, v)
        else:
            out_chunks = _chunked(out, num_chunks_q, "out chunks")
        grads = _backward(_chunked(grad, num_chunks_q, "grad chunks"), q, k, v, out_chunks, log_sum_exp)
        return _packed_like(qkv, [_unchunked(g) for g in grads])


@pd.custom_grad(lambda grads, outputs, qkv: [vanilla_attention_grad(grads[0], qkv)], name="pd.nn.vanilla_attention")
def vanilla_attention(qkv: pd.Tensor) -> pd.Tensor:
    """The same attention with the whole [G, L, L] score matrix: the in-graph reference."""
    _check_qkv(qkv)
    with pd.name_scope("vanilla_attention"):
        return _probabilities(qkv[0], qkv[1]) @ qkv[2]


def vanilla_attention_grad(grad: pd.Tensor, qkv: pd.Tensor) -> pd.Tensor:
    """dqkv [3, G, L, D] of vanilla_attention from the output gradient grad [G, L, D]."""
    _check_qkv(qkv)
    _check_grad(grad, qkv)
    with pd.name_scope("vanilla_attention_grad"):
        q, k, v = qkv[0], qkv[1], qkv[2]
        p = _probabilities(q, k)
        d_scores = pd.nonlinearity_grad(p, grad @ v.mT, "softmax")
        return _packed_like(qkv, [d_scores @ k, d_scores.mT @ q, p.mT @ grad])


def scaled_dot_product_attention(q: pd.Tensor, k: pd.Tensor, v: pd.Tensor, scale: Optional[float] = None,
                                 causal: bool = True, num_chunks: Optional[Tuple[int, int]] = None,
                                 mask: Optional[Union[pd.Tensor, np.ndarray]] = None) -> pd.Tensor:
    """softmax(scale * q k^T + M) v for q [G, Lq, D] and k, v [G, Lk, D], like torch's
    scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal); scale
    defaults to 1/sqrt(D). Causal without a mask runs flash attention (num_chunks =
    (num_chunks_q, num_chunks_kv), by default chunk_counts(L, D)), never holding an L x L
    matrix. Otherwise the [G, Lq, Lk] scores are made whole: `mask` (a bool pd.Tensor or
    numpy array broadcasting to them) keeps the scores where it is True, as torch's boolean
    attn_mask; masked scores get MASK_VALUE, so a fully masked row attends evenly rather
    than giving NaN as torch does."""
    if not all(isinstance(t, pd.Tensor) for t in (q, k, v)) or not q.ndim == k.ndim == v.ndim == 3 \
            or k.shape != v.shape or q.shape[0] != k.shape[0] or q.shape[2] != k.shape[2]:
        raise BuildError(f"q must be a pd.Tensor [G, Lq, D] and k, v [G, Lk, D], not {q!r}, {k!r}, {v!r}")
    groups, length, head_dim = q.shape
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, numbers.Real)):
        raise BuildError(f"scaled_dot_product_attention: scale must be a number or None, got {describe(scale)}")
    scale = 1 / math.sqrt(head_dim) if scale is None else float(scale)
    if causal and q.shape[1] != k.shape[1]:
        raise BuildError(f"scaled_dot_product_attention: causal needs as many queries as keys, got {q!r}, {k!r}")
    if mask is not None:
        _check_mask(mask, (groups, length, k.shape[1]))
    if not causal or mask is not None:
        return _whole_attention(q * scale, k, v, causal, mask)
    if q.shape != k.shape:
        raise BuildError(f"scaled_dot_product_attention: causal flash attention needs q, k and v of one shape "
                         f"[G, L, D], not {q!r}, {k!r}")
    if num_chunks is None:
        num_chunks = chunk_counts(length, head_dim)
    elif not isinstance(num_chunks, (tuple, list)) or len(num_chunks) != 2:
        raise BuildError(f"scaled_dot_product_attention: num_chunks must be (num_chunks_q, num_chunks_kv), "
                         f"got {describe(num_chunks)}")
    _check_chunks(length, *num_chunks, names=("num_chunks[0]", "num_chunks[1]"))
    qkv = pd.concat([(q * scale).expand(0), k.expand(0), v.expand(0)])
    return flash_attention_qkv_packed(qkv, *num_chunks)


def _whole_attention(q, k, v, causal: bool, mask) -> pd.Tensor:
    """softmax(q k^T, masked) v with the [G, Lq, Lk] scores made whole (pd.grad differentiates it)."""
    scores = q @ k.mT
    if causal and scores.shape[-1] > 1:
        causal_mask_blocks(scores).add_next(scores)
    if mask is not None:
        scores = pd.where(mask, scores, MASK_VALUE)
    return pd.softmax(scores) @ v


def _check_mask(mask, scores_shape: tuple) -> None:
    if not (isinstance(mask, pd.Tensor) and mask.dtype == pd.bool_) and \
            not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_):
        raise BuildError(f"scaled_dot_product_attention: mask must be a bool pd.Tensor or numpy array, "
                         f"got {describe(mask)}")
    try:
        fits = np.broadcast_shapes(tuple(mask.shape), scores_shape) == scores_shape
    except ValueError:
        fits = False
    if not fits:
        raise BuildError(f"scaled_dot_product_attention: mask {tuple(mask.shape)} does not broadcast to the "
                         f"scores {scores_shape} [G, Lq, Lk]")


def chunk_counts(length: int, head_dim: int) -> tuple:
    """(num_chunks_q, num_chunks_kv) for L and D: powers of two near sqrt(L/D), the query side
    rounded up (flash-attention-ipu's heuristic), lowered where needed to divide L."""
    length = expect_int(length, "chunk_counts: length", 1)
    head_dim = expect_int(head_dim, "chunk_counts: head_dim", 1)
    ratio = max(length, head_dim) // head_dim
    suggested = (2 ** math.ceil(math.log2(ratio) / 2), 2 ** math.floor(math.log2(ratio) / 2))
    return tuple(max(d for d in range(1, n + 1) if length % d == 0) for n in suggested)


# --- checks: all before anything is built --------------------------------------------------------
def _check_qkv(qkv):
    if not isinstance(qkv, pd.Tensor):
        raise BuildError(f"qkv must be a pd.Tensor, got {describe(qkv)}")
    if qkv.ndim != 4 or qkv.shape[0] != 3:
        raise BuildError(f"qkv must be packed as [3, G, L, D] (rank 4, leading dimension 3), but {qkv!r} "
                         f"has shape {qkv.shape}")
    if qkv.dtype not in (pd.float32, pd.float16):
        raise BuildError(f"attention takes float or half qkv, not {qkv.dtype} ({qkv!r})")


def _check_chunks(length, num_chunks_q, num_chunks_kv, names=("num_chunks_q", "num_chunks_kv")):
    for name, chunks in zip(names, (num_chunks_q, num_chunks_kv)):
        if not isinstance(chunks, numbers.Integral) or chunks < 1 or length % chunks:
            raise BuildError(f"{name}={chunks!r} must be a positive int dividing the sequence length L={length}")


def _check_grad(grad, qkv):
    if not isinstance(grad, pd.Tensor) or grad.shape != qkv.shape[1:] or grad.dtype != qkv.dtype:
        raise BuildError(f"grad must be a {qkv.dtype} tensor of shape {qkv.shape[1:]} (the output's), not {grad!r}")


def _check_stash(out, log_sum_exp, qkv, num_chunks_q):
    if (out is None) != (log_sum_exp is None):
        raise BuildError("flash_attention_qkv_packed_grad: out= and log_sum_exp= go together (both from "
                         "flash_attention_qkv_packed_with_stash), or neither to recompute the forward")
    if out is None:
        return
    groups, length, _ = qkv.shape[1:]
    for name, t, shape in (("out", out, qkv.shape[1:]), ("log_sum_exp", log_sum_exp,
                                                          (num_chunks_q, groups, length // num_chunks_q))):
        if not isinstance(t, pd.Tensor) or t.shape != shape or t.dtype != qkv.dtype:
            raise BuildError(f"flash_attention_qkv_packed_grad: {name}= must be a {qkv.dtype} tensor of shape "
                             f"{shape} (from flash_attention_qkv_packed_with_stash), not {describe(t)}")


# --- chunked layout ----------------------------------------------------------------------------
def _chunked(t: pd.Tensor, chunks: int, name: str) -> pd.Tensor:
    """A copy of t [G, L, D] as sliceable chunks [chunks, G, L/chunks, D]."""
    groups, length, head_dim = t.shape
    size = length // chunks
    chunked = t.graph.sliceable(t.dtype, (chunks, groups, size, head_dim), name=name)
    pd.copy(t.reshape(groups, chunks, size, head_dim).transpose(1, 0, 2, 3), chunked)
    return chunked


def _chunked_qkv(qkv, num_chunks_q, num_chunks_kv):
    return (_chunked(qkv[0], num_chunks_q, "q chunks"), _chunked(qkv[1], num_chunks_kv, "k chunks"),
            _chunked(qkv[2], num_chunks_kv, "v chunks"))


def _unchunked(t: pd.Tensor) -> pd.Tensor:
    """The [G, L, D] view of chunks [n, G, L/n, D]."""
    chunks, groups, size, head_dim = t.shape
    return t.transpose(1, 0, 2, 3).reshape(groups, chunks * size, head_dim)


def _packed_like(qkv: pd.Tensor, parts) -> pd.Tensor:
    """The three [G, L, D] parts copied into one new tensor laid out like qkv."""
    packed = qkv.graph.clone(qkv, name="dqkv")
    pd.copy(pd.concat([part.expand(0) for part in parts]), packed)
    return packed


def _counter(graph, name) -> pd.Tensor:
    counter = graph.variable(pd.uint32, (1,), name=name)
    pd.zero(counter)
    return counter


# --- blocks ------------------------------------------------------------------------------------
# A diagonal block's products run in this many bands of query rows, each only against the keys up to
# its last query: 5/8 of the block's multiply-adds. More bands save less and make smaller products.
_DIAGONAL_BANDS = 4


def _has_visible_keys(i, j, cq, ckv) -> pd.Tensor:
    """Block (i, j) is not wholly masked: its first key comes at or before its last query."""
    return pd.map(lambda i, j: j * ckv < (i + 1) * cq, i, j)


def _crosses_diagonal(i, j, cq, ckv) -> pd.Tensor:
    """Block (i, j), one with visible keys, also has masked ones: its last key comes after its first query."""
    return pd.map(lambda i, j: (j + 1) * ckv - 1 > i * cq, i, j)


def _bands(cq, ckv, on_diagonal) -> list:
    """(query rows, number of keys) of each band a block's products are cut into: the whole block
    or, for a square block on the diagonal, _DIAGONAL_BANDS bands of rows, each with the keys up to
    its last query (every later key is masked for every query of the band)."""
    if not on_diagonal or cq != ckv:
        return [(slice(0, cq), ckv)]
    count = min(_DIAGONAL_BANDS, cq)
    edges = [cq * band // count for band in range(count + 1)]
    return [(slice(first, last), last) for first, last in zip(edges, edges[1:])]


def _for_each_kind_of_block(i, j, cq, ckv, masks, block) -> None:
    """Adds block(bands, masks) for block (i, j), one with visible keys: where it crosses the diagonal,
    with the diagonal's bands and the mask blocks, else whole and without masks."""
    if masks is None:  # every block is wholly visible or wholly masked
        return block(_bands(cq, ckv, on_diagonal=False), None)
    with pd.If(_crosses_diagonal(i, j, cq, ckv)):
        block(_bands(cq, ckv, on_diagonal=True), masks)
    with pd.Else():
        block(_bands(cq, ckv, on_diagonal=False), None)


def _block_buffer(graph, like, cq, ckv, name) -> pd.Tensor:
    """A zeroed [G, cq, ckv] buffer for a block's scores. The banded products leave the part above
    the bands as the last block left it: masked, finite, and read by no product."""
    buffer = graph.variable(like.dtype, (like.shape[1], cq, ckv), name=name)
    pd.zero(buffer)
    return buffer


def _mask_blocks(scores) -> Optional[MaskBlocks]:
    """The causal mask blocks for score blocks like `scores`, or None where no block crosses the diagonal."""
    return causal_mask_blocks(scores) if triu_offset_sequence(*scores.shape[1:]) else None


# --- products over the bands: a [G, rows, D] chunk, b [G, keys, D], weights [G, rows, keys] ----------------
def _band_name(name, bands, rows) -> str:
    """The product's debug name, and the band's rows where there are several."""
    return name if len(bands) == 1 else f"{name}, rows {rows.start}:{rows.stop}"


def _scores_into(scores, a, b, bands, name) -> None:
    """scores = a @ b^T, band by band."""
    for rows, keys in bands:
        pd.matmul(a[:, rows], b[:, :keys].mT, out=scores[:, rows, :keys], name=_band_name(name, bands, rows))


def _accumulate_rows(c, weights, b, bands, name) -> None:
    """c [G, rows, D] += weights @ b, band by band."""
    for rows, keys in bands:
        pd.matmul_acc(c[:, rows], weights[:, rows, :keys], b[:, :keys], name=_band_name(name, bands, rows))


def _accumulate_keys(c, weights, a, bands, name) -> None:
    """c [G, keys, D] += weights^T @ a, band by band."""
    for rows, keys in bands:
        pd.matmul_acc(c[:, :keys], weights[:, rows, :keys].mT, a[:, rows], name=_band_name(name, bands, rows))


# --- the loops ---------------------------------------------------------------------------------
def _forward(q, k, v):
    """Online softmax over chunks q [nq, G, cq, D], k, v [nkv, G, ckv, D] -> out chunks
    [nq, G, cq, D] and log-sum-exp [nq, G, cq]."""
    graph = q.graph
    nq, groups, cq, _ = q.shape
    nkv, _, ckv, _ = k.shape
    out = graph.clone(q, name="out chunks")
    log_sum_exp = graph.sliceable(q.dtype, (nq, groups, cq), name="log_sum_exp")
    o_i = graph.clone(q[0], name="o_i")  # running state of one query chunk
    m_i = graph.variable(q.dtype, (groups, cq), name="running max m_i")
    l_i = graph.clone(m_i, name="running sum l_i")
    p = _block_buffer(graph, q, cq, ckv, "scores")
    masks = _mask_blocks(p)
    i, j = _counter(graph, "i"), _counter(graph, "j")

    def online_softmax_step(bands, masks):
        _scores_into(p, q_i, k_j, bands, "S = q_i k_j^T")
        if masks:
            masks.add_next(p)
        m_new = pd.max(m_i, p.max(2))
        correction = pd.map(lambda m, m_new: pd.exp(m - m_new), m_i, m_new)
        pd.copy(m_new, m_i)
        pd.map_(lambda s, m: pd.exp(s - m), p, m_i.expand(2))  # the scores become probabilities
        pd.map_(lambda l, c, s: l * c + s, l_i, correction, p.sum(2))
        pd.map_(lambda o, c: o * c, o_i, correction.expand(2))
        _accumulate_rows(o_i, p, v_j, bands, "o_i += P v_j")

    with pd.Repeat(nq, name="query chunks"):
        q_i = q.at[i].get()
        pd.zero(o_i)
        pd.zero(l_i)
        pd.fill(m_i, MASK_VALUE)
        with pd.Repeat(nkv, name="key/value chunks"):
            with pd.If(_has_visible_keys(i, j, cq, ckv)):
                k_j, v_j = k.at[j].get(), v.at[j].get()
                _for_each_kind_of_block(i, j, cq, ckv, masks, online_softmax_step)
            j += 1
        o_i /= l_i.expand(2)
        out.at[i].set(o_i)
        log_sum_exp.at[i].set(pd.map(lambda m, l: m + pd.log(l), m_i, l_i))
        i += 1
        pd.zero(j)
    return out, log_sum_exp


def _backward(grad, q, k, v, out, log_sum_exp):
    """Chunks of dq, dk, dv from the chunked output gradient, key/value chunks on the outside."""
    graph = q.graph
    nq, _, cq, _ = q.shape
    nkv, _, ckv, _ = k.shape
    out_dot_grad = (out * grad).sum(3)  # [nq, G, cq]: rowsum(P * dP) in the softmax gradient
    dq = graph.clone(q, name="dq chunks")
    dk, dv = graph.clone(k, name="dk chunks"), graph.clone(v, name="dv chunks")
    dk_j, dv_j = graph.clone(k[0], name="dk_j"), graph.clone(v[0], name="dv_j")
    pd.zero(dq)
    p = _block_buffer(graph, q, cq, ckv, "probabilities")
    d_scores = _block_buffer(graph, q, cq, ckv, "d_scores")
    masks = _mask_blocks(p)
    i, j = _counter(graph, "i"), _counter(graph, "j")

    def gradient_step(bands, masks):
        _scores_into(p, q_i, k_j, bands, "S = q_i k_j^T")
        if masks:
            masks.add_next(p)
        pd.map_(lambda s, lse: pd.exp(s - lse), p, log_sum_exp.at[i].get().expand(2))
        _accumulate_keys(dv_j, p, grad_i, bands, "dv_j += P^T dO_i")
        _scores_into(d_scores, grad_i, v_j, bands, "dP = dO_i v_j^T")
        pd.map_(lambda dp, p, od: p * (dp - od), d_scores, p, out_dot_grad.at[i].get().expand(2))
        _accumulate_rows(dq_i, d_scores, k_j, bands, "dq_i += dS k_j")
        _accumulate_keys(dk_j, d_scores, q_i, bands, "dk_j += dS^T q_i")

    with pd.Repeat(nkv, name="key/value chunks"):
        k_j, v_j = k.at[j].get(), v.at[j].get()
        pd.zero(dk_j)
        pd.zero(dv_j)
        with pd.Repeat(nq, name="query chunks"):
            with pd.If(_has_visible_keys(i, j, cq, ckv)):
                q_i, grad_i, dq_i = q.at[i].get(), grad.at[i].get(), dq.at[i].get()
                _for_each_kind_of_block(i, j, cq, ckv, masks, gradient_step)
                dq.at[i].set(dq_i)
            i += 1
        dk.at[j].set(dk_j)
        dv.at[j].set(dv_j)
        j += 1
        pd.zero(i)
    return dq, dk, dv


def _probabilities(q, k) -> pd.Tensor:
    """softmax(q k^T + M) over the keys, as one [G, L, L] matrix."""
    scores = q @ k.mT
    if scores.shape[-1] > 1:  # a single query sees its only key
        causal_mask_blocks(scores).add_next(scores)  # one block: the whole mask
    return pd.nonlinearity(scores, "softmax_stable")
