"""pd.nn.KVCache: generation one token at a time gives, token by token, the causal
attention of the whole sequence, checked against float64 numpy."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.debug import BuildError

G, L, D = 2, 8, 4


def causal_attention(q, k, v):
    """float64 softmax(q k^T / sqrt(D), causal) v for [G, T, D] arrays."""
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    scores = np.where(np.tril(np.ones(scores.shape[1:], bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return (weights / weights.sum(-1, keepdims=True)) @ v


def generation_session(prompt_tokens):
    """(session, streams): program "prompt" prefills `prompt_tokens` tokens, "step" adds one."""
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    cache = pd.nn.KVCache(g, groups=G, max_length=L, head_dim=D)
    feeds = {name: g.host_to_device(pd.float32, (G, prompt_tokens, D), name=name) for name in ("pq", "pk", "pv")}
    step_feeds = {name: g.host_to_device(pd.float32, (G, D), name=name) for name in ("q", "k", "v")}
    prompt_out = g.device_to_host(pd.float32, (G, prompt_tokens, D), name="prompt_out")
    step_out = g.device_to_host(pd.float32, (G, D), name="step_out")
    with pd.Sequence("prompt") as prompt:
        cache.reset()
        prompt_out.write(cache.prefill(*(feeds[n].read() for n in ("pq", "pk", "pv"))))
    with pd.Sequence("step") as step:
        step_out.write(cache.step(*(step_feeds[n].read() for n in ("q", "k", "v"))))
    return pd.Session(g, {"prompt": prompt, "step": step}, device=dev), feeds, step_feeds, prompt_out, step_out, cache


@pytest.mark.parametrize("prompt_tokens", [1, 3])
def test_token_by_token_generation_equals_whole_sequence_causal_attention(prompt_tokens):
    rng = np.random.default_rng(prompt_tokens)
    q, k, v = (rng.standard_normal((G, L, D)) for _ in range(3))
    expected = causal_attention(q, k, v)
    session, feeds, step_feeds, prompt_out, step_out, cache = generation_session(prompt_tokens)
    with session as s:
        for _ in range(2):  # a second generation after reset() must not see the first one's tokens
            out = s.run("prompt", feeds={feeds[n]: a[None, :, :prompt_tokens].astype(np.float32)
                                         for n, a in zip(("pq", "pk", "pv"), (q, k, v))})
            np.testing.assert_allclose(out[prompt_out][0], expected[:, :prompt_tokens], rtol=1e-5, atol=1e-6)
            for t in range(prompt_tokens, L):
                out = s.run("step", feeds={step_feeds[n]: a[None, :, t].astype(np.float32)
                                           for n, a in zip(("q", "k", "v"), (q, k, v))})
                np.testing.assert_allclose(out[step_out][0], expected[:, t], rtol=1e-5, atol=1e-6)
            assert s.read(cache.length).tolist() == [L]
            np.testing.assert_allclose(s.read(cache.keys), k, rtol=1e-6)


def test_misuse_is_named():
    g = pd.Graph(pd.ipu_model(tiles=4))
    cache = pd.nn.KVCache(g, groups=G, max_length=L, head_dim=D)
    with pytest.raises(BuildError, match=r"k must be a float pd.Tensor \[G, D\] with G=2, D=4"):
        with pd.Sequence("bad"):
            cache.append(g.variable(pd.float32, (G, D + 1)), g.variable(pd.float32, (G, D)))
    with pytest.raises(BuildError, match="the prompt has 9 tokens, more than max_length 8"):
        with pd.Sequence("long"):
            x = g.variable(pd.float32, (G, L + 1, D))
            cache.prefill(x, x, x)
    with pytest.raises(ValueError, match="max_length"):
        pd.nn.KVCache(g, groups=G, max_length=0, head_dim=D)
    with pytest.raises(BuildError, match="graph must be a pd.Graph"):
        pd.nn.KVCache("g", groups=G, max_length=L, head_dim=D)
