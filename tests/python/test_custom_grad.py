"""@pd.custom_grad: builders differentiated through their own gradient builders."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close, check_grads
from popdsl.testing.attention import causal_attention_grad
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

rng = np.random.default_rng(5)
QKV = rng.standard_normal((3, 2, 8, 4)).astype(np.float32)
D_OUT = rng.standard_normal((2, 8, 4)).astype(np.float32)


def gradient_of(ipu_device, session_factory, attention, wrt_shape=QKV.shape):
    """pd.grad of sum(attention(qkv) * D_OUT) with respect to qkv."""
    g = pd.Graph(ipu_device)
    qkv, d_out = g.constant(QKV, name="qkv"), g.constant(D_OUT, name="d_out")
    with pd.Sequence() as main:
        (dqkv,) = pd.grad((attention(qkv) * d_out).sum(), [qkv])
    with session_factory(g, main) as s:
        s.run()
        return s.read(dqkv)


@pytest.mark.parametrize("attention", [
    lambda qkv: pd.nn.flash_attention_qkv_packed(qkv, 2, 2),
    lambda qkv: pd.nn.flash_attention_qkv_packed_with_stash(qkv, 4, 2)[0],
    pd.nn.vanilla_attention,
], ids=["flash", "flash with stash", "vanilla"])
def test_attention_builders_use_their_gradient_builders(attention, ipu_device, session_factory):
    assert_close(gradient_of(ipu_device, session_factory, attention), causal_attention_grad(QKV, D_OUT),
                 rtol=1e-4, atol=1e-5)


SMALL_QKV = rng.standard_normal((3, 1, 4, 2)).astype(np.float32)
CUSTOM = {
    "flash attention": (lambda qkv: pd.nn.flash_attention_qkv_packed(qkv, 2, 2), [SMALL_QKV]),
    "vanilla attention": (pd.nn.vanilla_attention, [SMALL_QKV]),
}


@pytest.mark.parametrize("case", list(CUSTOM))
def test_custom_gradients_match_finite_differences(case):
    fn, inputs = CUSTOM[case]
    check_grads(fn, inputs)


def test_scaled_dot_product_attention_differentiates_its_scaling_and_packing(ipu_device, session_factory):
    scale = 0.5
    g = pd.Graph(ipu_device)
    q, k, v = (g.constant(QKV[i], name=n) for i, n in enumerate("qkv"))
    d_out = g.constant(D_OUT, name="d_out")
    with pd.Sequence() as main:
        out = pd.nn.scaled_dot_product_attention(q, k, v, scale=scale, num_chunks=(2, 2))
        grads = pd.grad((out * d_out).sum(), [q, k, v])
    scaled = QKV.astype(np.float64).copy()
    scaled[0] *= scale
    expected = causal_attention_grad(scaled, D_OUT)
    expected[0] *= scale
    with session_factory(g, main) as s:
        s.run()
        for got, want in zip(grads, expected):
            assert_close(s.read(got), want, rtol=1e-4, atol=1e-5)


def quadruple_in_a_loop(x):
    """4 * x, by a loop pd.grad could not differentiate itself."""
    out = x * 1.0
    with pd.Repeat(2):
        out *= 2.0
    return out


def test_a_user_builder_with_a_custom_gradient(ipu_device, session_factory):
    builder = pd.custom_grad(lambda grads, outputs, x: [grads[0] * outputs[0] / x],
                             reads_outputs=True)(quadruple_in_a_loop)  # 4x / x
    g = pd.Graph(ipu_device)
    x = g.variable(pd.float32, (3,), name="x", init=[1.0, 2.0, 3.0])
    with pd.Sequence() as main:
        y = pd.square(builder(x)).sum()
        (dx,) = pd.grad(y, [x])
    with session_factory(g, main) as s:
        s.run()
        assert_close(s.read(dx), 2 * 4 * 4 * np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("grad_builder, message", [
    (lambda grads, outputs, x: [grads[0], grads[0]], "gave 2 gradients for 1 tensor arguments"),
    (lambda grads, outputs, x: [grads[0].sum()], r"gave <pd.Tensor .* shape=\(\) .* as the gradient of argument 0 "
                                        r"<pd.Tensor 'x' shape=\(3,\) dtype=float>: it must be a tensor of that shape"),
])
def test_a_wrong_gradient_builder_is_named(grad_builder, message):
    builder = pd.custom_grad(grad_builder)(quadruple_in_a_loop)
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (3,), name="x")
    with pd.Sequence():
        y = builder(x).sum()
        with pytest.raises(pd.BuildError, match=f"the gradient builder of quadruple_in_a_loop {message}"):
            pd.grad(y, [x])


def test_a_builder_is_named_by_the_name_it_gives():
    # popdsl's own builders pass their public name (pd.nn.lstm.forward, ...), as users may.
    builder = pd.custom_grad(lambda grads, outputs, x: [grads[0], grads[0]], name="my.quadruple")(quadruple_in_a_loop)
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (3,), name="x")
    with pd.Sequence():
        y = builder(x).sum()
        with pytest.raises(pd.BuildError, match="the gradient builder of my.quadruple gave 2 gradients for 1 tensor"):
            pd.grad(y, [x])


def test_flash_attention_log_sum_exp_has_no_gradient():
    g = pd.Graph(pd.ipu_model(tiles=4))
    qkv = g.variable(pd.float32, QKV.shape, name="qkv")
    with pd.Sequence():
        _, log_sum_exp = pd.nn.flash_attention_qkv_packed_with_stash(qkv, 2, 2)
        with pytest.raises(pd.BuildError, match="log_sum_exp output has no gradient"):
            pd.grad(log_sum_exp.sum(), [qkv])


@pytest.mark.parametrize("full", [True, False], ids=["full_sequence", "last_output"])
def test_lstm_forward_uses_backward_with_weight_update(full):
    from test_lstm import Reference, make_config, make_data  # the float64 numpy LSTM

    cfg = make_config(full=full, last_grad=False)
    data = make_data(cfg)
    data["dc_last"] = np.random.default_rng(1).uniform(-1, 1, data["dc_last"].shape)
    ref = Reference(cfg, data)
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    params = pd.nn.lstm.LstmParams(pd.float32, cfg["B"], cfg["S"], (cfg["I"], cfg["H"]), output_full_sequence=full,
                                   calc_input_gradients=True)
    x = pd.nn.lstm.create_input(g, params)
    state = pd.nn.lstm.create_initial_state(g, params)
    weights = pd.nn.lstm.create_weights(g, params)
    d_out, d_cell = g.constant(data["dY"], name="dY"), g.constant(data["dc_last"], name="dc")
    with pd.Sequence() as main:
        out, cell, _ = pd.nn.lstm.forward(params, state, x, weights)
        loss = (out * d_out).sum() + (cell * d_cell).sum()
        grads = pd.grad(loss, [state.output, state.cell_state, x, *weights])
    with pd.Session(g, main, device=dev) as s:
        for t, key in zip([x, state.output, state.cell_state, *weights], ["x", "h0", "c0", "Win", "Wout", "b"]):
            s.write(t, data[key])
        s.run()
        for got, want in zip(grads, [ref.dh0, ref.dc0, ref.dx, ref.dWin, ref.dWout, ref.db]):
            assert_close(s.read(got), want, rtol=2e-5, atol=2e-6)


def graph_size(build, sequence_length) -> tuple:
    """(variables, compute sets, programs, program steps) of the engine of `build`'s
    training graph (its forward and pd.grad's backward) at a sequence length."""
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    with pd.Sequence() as main:
        build(g, sequence_length)
    with pd.Session(g, main, device=dev) as s:
        p = s.profile
        return p.num_variables, p.num_compute_sets, p.num_programs, len(p.steps)


def lstm_training(g, steps):
    params = pd.nn.lstm.LstmParams(pd.float32, 2, steps, (3, 4), calc_input_gradients=True)
    x, state = pd.nn.lstm.create_input(g, params), pd.nn.lstm.create_initial_state(g, params)
    weights = pd.nn.lstm.create_weights(g, params)
    out, _, _ = pd.nn.lstm.forward(params, state, x, weights)
    pd.grad(out.sum(), [x, *weights])


def flash_attention_training(g, length):
    qkv = g.variable(pd.float32, (3, 1, length, 4), name="qkv")
    out = pd.nn.flash_attention_qkv_packed(qkv, length // 4, length // 4)  # chunks of 4 rows
    pd.grad(out.sum(), [qkv])


@pytest.mark.needs_emulator("profile data (Session.profile)")
@pytest.mark.parametrize("build, lengths", [(lstm_training, (4, 64)), (flash_attention_training, (8, 64))],
                         ids=["lstm", "flash attention"])
def test_differentiated_builders_do_not_grow_with_the_sequence_length(build, lengths):
    short, long = (graph_size(build, n) for n in lengths)
    assert short == long
    assert short[1] > 0
