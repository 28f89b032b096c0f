"""pd.nn.lstm against a float64 numpy LSTM written from the equations (forward and BPTT)."""
import itertools

import numpy as np
import pytest

import popdsl as pd
from popdsl.nn import lstm
from popdsl.nn.lstm import weights as lstm_weights
from popdsl.nn.lstm.vertex import ROWS_PER_VERTEX

GATES = ("forget", "input", "candidate", "output")
SHUFFLED = ("output", "candidate", "forget", "input")
SCALED_SOFTMAX_FACTOR = 32768.0


# --- the float64 reference ---------------------------------------------------------------------
def _softmax(x):
    e = np.exp(x)  # popnn's plain SOFTMAX does not subtract the maximum
    return e / e.sum(-1, keepdims=True)


def _stable_softmax(x):
    return _softmax(x - x.max(-1, keepdims=True))


def _softmax_grad(y, g, scale=1.0):
    # y = scale * softmax(x): dx = y * (g - sum(g * y) / scale) per row
    return y * (g - (g * y).sum(-1, keepdims=True) / scale)


# name -> (activation, input gradient from the activation's output y and the output gradient g)
ACTIVATIONS = {
    "tanh": (np.tanh, lambda y, g: g * (1 - y * y)),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), lambda y, g: g * y * (1 - y)),
    "hard_sigmoid": (lambda x: np.clip(0.2 * x + 0.5, 0, 1), lambda y, g: g * 0.2 * ((y > 0) & (y < 1))),
    "relu": (lambda x: np.maximum(x, 0), lambda y, g: g * (y > 0)),
    "softmax": (_softmax, _softmax_grad),
    "softmax_stable": (_stable_softmax, _softmax_grad),
    "softmax_scaled": (lambda x: SCALED_SOFTMAX_FACTOR * _stable_softmax(x),
                       lambda y, g: _softmax_grad(y, g, SCALED_SOFTMAX_FACTOR)),
}


class Reference:
    """The LSTM in float64: forward over S steps, then backpropagation through time."""

    def __init__(self, cfg, data):
        self.cfg, self.d = cfg, data
        self.pos = {g: cfg["cell_order"].index(g) for g in GATES}
        self.act, self.act_grad = ACTIVATIONS[cfg["activation"]]
        self.rec, self.rec_grad = ACTIVATIONS[cfg["recurrent_activation"]]
        S, B = data["x"].shape[:2]
        limits = cfg["limits"]
        self.valid = [(t < limits).astype(np.float64)[:, None] * np.ones((B, 1)) for t in range(S)]
        with np.errstate(over="ignore", invalid="ignore"):  # saturating activation pairs overflow like the device
            self.forward()
            self.backward()

    def forward(self):
        d, p = self.d, self.pos
        h, c = d["h0"].copy(), d["c0"].copy()
        self.steps, self.Y = [], []
        for t, m in enumerate(self.valid):
            z = {g: d["x"][t] @ d["Win"][p[g]] + h @ d["Wout"][p[g]] + d["b"][p[g]] for g in GATES}
            f, i, o = (self.rec(z[g]) * m for g in ("forget", "input", "output"))
            cand = self.act(z["candidate"]) * m
            c_new = f * c + i * cand
            act_c = self.act(c_new) * m
            h_new = o * act_c
            self.steps.append(dict(f=f, i=i, g=cand, o=o, act_c=act_c, c_prev=c * m, h_prev=h, h=h_new))
            self.Y.append(h_new)
            h = np.where(m > 0, h_new, h)
            c = np.where(m > 0, c_new, c)
        self.h_final, self.c_final = h, c

    def intermediates(self, recomputation="none"):
        rows = ["f", "i", "g", "o"] + (["act_c", "c_prev"] if recomputation == "none" else [])
        rows += [] if self.cfg["full"] else ["h"]
        return np.stack([np.stack([s[r] for r in rows]) for s in self.steps])

    def output(self):
        return np.stack(self.Y) if self.cfg["full"] else self.h_final

    def backward(self):
        d, p, full = self.d, self.pos, self.cfg["full"]
        S = len(self.steps)
        dh, dc = d["dh_last"].copy(), d["dc_last"].copy()
        self.dx = np.zeros_like(d["x"])
        self.dZ = np.zeros((S, 4) + dh.shape)
        for t in reversed(range(S)):
            s, m = self.steps[t], self.valid[t]
            g_out = (d["dY"][t] if full else (d["dY"] if t == S - 1 else 0)) + dh
            dA = self.act_grad(s["act_c"], s["o"] * g_out)
            dC = dA + dc
            dz = {"output": self.rec_grad(s["o"], s["act_c"] * g_out),
                  "candidate": self.act_grad(s["g"], s["i"] * dC),
                  "input": self.rec_grad(s["i"], s["g"] * dC),
                  "forget": self.rec_grad(s["f"], s["c_prev"] * dC)}
            for g in GATES:
                self.dZ[t, p[g]] = dz[g]
            self.dx[t] = sum(dz[g] @ d["Win"][p[g]].T for g in GATES)
            dh_prev = sum(dz[g] @ d["Wout"][p[g]].T for g in GATES)
            dh = np.where(m > 0, dh_prev, dh if full else g_out)
            dc = np.where(m > 0, s["f"] * dC, dc)
        self.dh0, self.dc0 = dh, dc
        h_prev = np.stack([s["h_prev"] for s in self.steps])
        self.dWin = np.einsum("tbi,tgbh->gih", d["x"], self.dZ)
        self.dWout = np.einsum("tbi,tgbh->gih", h_prev, self.dZ)
        self.db = self.dZ.sum(axis=(0, 2))


# --- running the builders ----------------------------------------------------------------------
def make_config(**overrides):
    cfg = dict(S=4, B=3, I=5, H=4, dtype=np.float32, cell_order=GATES, activation="tanh",
               recurrent_activation="sigmoid", full=True, time_steps=None, options={}, calc_input=True,
               last_grad=True)
    cfg.update(overrides)
    S, B = cfg["S"], cfg["B"]
    steps = cfg["time_steps"]
    cfg["limits"] = np.full(B, S) if steps is None else np.broadcast_to(np.asarray(steps), (B,)).copy()
    return cfg


def make_data(cfg, seed=0):
    rng = np.random.default_rng(seed)
    S, B, I, H = cfg["S"], cfg["B"], cfg["I"], cfg["H"]

    def r(*shape, scale=1.0):
        return rng.uniform(-scale, scale, shape)

    out_shape = (S, B, H) if cfg["full"] else (B, H)
    w = cfg.get("weight_scale", 0.5)
    data = dict(x=r(S, B, I), h0=r(B, H, scale=0.5), c0=r(B, H, scale=0.5), Win=r(4, I, H, scale=w),
                Wout=r(4, H, H, scale=w), b=r(4, H, scale=0.3), dY=r(*out_shape),
                dh_last=r(B, H) if cfg["last_grad"] else np.zeros((B, H)),
                dc_last=r(B, H) if cfg["last_grad"] else np.zeros((B, H)))
    # values as the device stores them, so the reference starts from the same numbers
    return {k: v.astype(cfg["dtype"]).astype(np.float64) for k, v in data.items()}


class Built:
    """A graph with four programs: fwd, bwd (backward only), wu (weight update only) and all."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.device = pd.ipu_model(tiles=4)
        g = self.graph = pd.Graph(self.device)
        steps = cfg["time_steps"]
        if isinstance(steps, (list, np.ndarray)):
            self.limits = g.variable(pd.uint32, (len(steps),), name="timeSteps")
            steps = self.limits
        self.params = lstm.LstmParams(cfg["dtype"], cfg["B"], cfg["S"], (cfg["I"], cfg["H"]),
                                      activation=cfg["activation"],
                                      recurrent_activation=cfg["recurrent_activation"],
                                      cell_order=cfg["cell_order"], output_full_sequence=cfg["full"],
                                      calc_input_gradients=cfg["calc_input"], variable_time_steps=steps)
        p, opts = self.params, cfg["options"]
        self.x = lstm.create_input(g, p)
        self.state = lstm.create_initial_state(g, p)
        self.weights = lstm.create_weights(g, p)
        out_shape = (cfg["S"], cfg["B"], cfg["H"]) if cfg["full"] else (cfg["B"], cfg["H"])
        self.dY = g.variable(p.dtype, out_shape, name="dY")
        self.last = None
        if cfg["last_grad"] and steps is None:
            self.last = lstm.LstmState(g.variable(p.dtype, (cfg["B"], cfg["H"]), name="dhLast"),
                                       g.variable(p.dtype, (cfg["B"], cfg["H"]), name="dcLast"))
        with pd.Sequence("fwd") as fwd:
            self.out, self.cell, self.inter = lstm.forward(p, self.state, self.x, self.weights, options=opts)
        with pd.Sequence("bwd") as bwd:
            self.state_grad, self.input_grad, self.bwd_inter = lstm.backward(
                p, self.state, self.inter, self.weights, self.x, self.out, self.dY, self.last, options=opts,
                save_intermediates=True)
        with pd.Sequence("wu") as wu:
            self.weight_grads = lstm.weight_update(p, self.state, self.inter, self.bwd_inter, self.weights, self.x,
                                                   self.out, options=opts)
        with pd.Sequence("all") as all_phases:
            out, cell, inter = lstm.forward(p, self.state, self.x, self.weights, options=opts)
            self.all_out, self.all_cell = out, cell
            self.all_state_grad, self.all_input_grad, self.all_weight_grads = lstm.backward_with_weight_update(
                p, self.state, inter, self.weights, self.x, out, self.dY, self.last, options=opts)
        self.session = pd.Session(g, {"fwd": fwd, "bwd": bwd, "wu": wu, "all": all_phases}, device=self.device)

    def write_inputs(self, s, data):
        s.write(self.x, data["x"])
        s.write(self.state.output, data["h0"])
        s.write(self.state.cell_state, data["c0"])
        s.write(self.weights.input_weights, data["Win"])
        s.write(self.weights.output_weights, data["Wout"])
        s.write(self.weights.biases, data["b"])
        s.write(self.dY, data["dY"])
        if self.last is not None:
            s.write(self.last.output, data["dh_last"])
            s.write(self.last.cell_state, data["dc_last"])
        if isinstance(self.cfg["time_steps"], (list, np.ndarray)):
            s.write(self.limits, np.asarray(self.cfg["time_steps"], np.uint32))


def tolerance(cfg):
    # half rounds each op's result to 11 bits (~5e-4); a few steps of sums reach a few 1e-3
    return dict(rtol=2e-5, atol=2e-6) if cfg["dtype"] == np.float32 else dict(rtol=1e-2, atol=4e-3)


def check(actual, expected, cfg, what):
    tol = tolerance(cfg)
    scale = max(1.0, float(np.abs(expected).max()))  # half: errors grow with the magnitudes summed
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected, rtol=tol["rtol"], atol=tol["atol"] * scale,
                               err_msg=what)


def check_forward(s, ref, cfg, out, cell):
    check(s.read(out), ref.output(), cfg, "output")
    check(s.read(cell), ref.c_final, cfg, "final cell state")


def check_backward(s, ref, cfg, state_grad, input_grad):
    check(s.read(state_grad.output), ref.dh0, cfg, "initial output gradient")
    check(s.read(state_grad.cell_state), ref.dc0, cfg, "initial cell state gradient")
    if cfg["calc_input"]:
        check(s.read(input_grad), ref.dx, cfg, "input gradient")
    else:
        assert input_grad is None


def check_weight_grads(s, ref, cfg, grads):
    check(s.read(grads.input_weights), ref.dWin, cfg, "input weight gradients")
    check(s.read(grads.output_weights), ref.dWout, cfg, "output weight gradients")
    check(s.read(grads.biases), ref.db, cfg, "bias gradients")


def run_phases(cfg, phases=("fwd", "bwd", "wu", "all")):
    """Each phase on its own (bwd and wu start from the reference's intermediates), then all together."""
    data = make_data(cfg)
    ref = Reference(cfg, data)
    built = Built(cfg)
    mode = cfg["options"].get("recomputationMode", "none")
    with built.session as s:
        built.write_inputs(s, data)
        if "fwd" in phases:
            s.run("fwd")
            check_forward(s, ref, cfg, built.out, built.cell)
            check(s.read(built.inter), ref.intermediates(mode), cfg, "forward intermediates")
        if "bwd" in phases:
            s.write(built.inter, ref.intermediates(mode))
            s.write(built.out, ref.output())
            s.run("bwd")
            check_backward(s, ref, cfg, built.state_grad, built.input_grad)
            check(s.read(built.bwd_inter), ref.dZ, cfg, "backward intermediates")
        if "wu" in phases:
            s.write(built.inter, ref.intermediates(mode))
            s.write(built.out, ref.output())
            s.write(built.bwd_inter, ref.dZ)
            s.run("wu")
            check_weight_grads(s, ref, cfg, built.weight_grads)
        if "all" in phases:
            s.run("all")
            check_forward(s, ref, cfg, built.all_out, built.all_cell)
            check_backward(s, ref, cfg, built.all_state_grad, built.all_input_grad)
            check_weight_grads(s, ref, cfg, built.all_weight_grads)
    return built


# --- tests -------------------------------------------------------------------------------------
@pytest.mark.parametrize("cell_order", [GATES, SHUFFLED], ids=["default_order", "shuffled_order"])
@pytest.mark.parametrize("pre_calc", ["false", "true"], ids=["no_precalc", "precalc"])
@pytest.mark.parametrize("recomputation", ["none", "cellAndTanh"])
@pytest.mark.parametrize("full", [True, False], ids=["full_sequence", "last_output"])
def test_every_phase_matches_reference(cell_order, pre_calc, recomputation, full):
    run_phases(make_config(cell_order=cell_order, full=full,
                           options={"preCalcWeights": pre_calc, "recomputationMode": recomputation}))


@pytest.mark.parametrize("time_steps", [2, [4, 1, 3], [3]], ids=["int", "per_batch", "one_for_all"])
@pytest.mark.parametrize("recomputation", ["none", "cellAndTanh"])
@pytest.mark.parametrize("full", [True, False], ids=["full_sequence", "last_output"])
def test_variable_time_steps(time_steps, recomputation, full):
    run_phases(make_config(time_steps=time_steps, full=full, last_grad=False,
                           options={"recomputationMode": recomputation}))


# Scaled softmax outputs (~1e4) fed to the plain softmax overflow exp: at 88 in float32 and at
# 709 in float64, so the device and the reference disagree on where the NaNs appear.
OVERFLOWING_PAIRS = {("softmax", "softmax_scaled"), ("softmax_scaled", "softmax")}


@pytest.mark.parametrize("activation,recurrent", [pair for pair in itertools.product(lstm.ACTIVATIONS, repeat=2)
                                                  if pair not in OVERFLOWING_PAIRS])
def test_activation_pairs(activation, recurrent):
    run_phases(make_config(S=3, B=2, I=3, H=4, activation=activation, recurrent_activation=recurrent),
               phases=("all",))


@pytest.mark.parametrize("cfg", [
    dict(),
    dict(cell_order=SHUFFLED, full=False, options={"recomputationMode": "cellAndTanh", "preCalcWeights": "true"}),
    dict(time_steps=[4, 2, 3], last_grad=False),
    dict(activation="softmax", recurrent_activation="hard_sigmoid"),
], ids=["default", "shuffled_last_cellAndTanh_precalc", "variable_steps", "softmax_hard_sigmoid"])
def test_half_precision(cfg):
    built = run_phases(make_config(dtype=np.float16, **cfg))
    # computed in half: every tensor the layer makes is half
    for t in (built.out, built.inter, built.bwd_inter, built.input_grad, *built.all_weight_grads):
        assert t.dtype == pd.float16


@pytest.mark.parametrize("options", [{"rnnStepsPerWU": 1}, {"rnnStepsPerWU": 2}, {"rnnStepsPerWU": 0},
                                     {"rnnStepsPerWU": 9}, {"disableWUPartialInterleaving": True}],
                         ids=["every_step", "two_steps_partial_window", "after_loop", "longer_than_sequence",
                              "legacy"])
def test_weight_update_cadence(options):
    run_phases(make_config(S=5, options=options), phases=("all",))


@pytest.mark.parametrize("pre_calc", ["false", "true"], ids=["no_precalc", "precalc"])
def test_batch_of_one(pre_calc):
    # one row: every product is a matrix-vector product (BLAS gemv)
    run_phases(make_config(B=1, options={"preCalcWeights": pre_calc}), phases=("all",))


def var_places(t):
    """Where a tensor's elements lie: [(begin, end)] in the variable(s) it views."""
    return [(r.interval.begin(), r.interval.end()) for r in t.raw.getVarRegions()]


@pytest.mark.needs_emulator("the emulator's layout of createMatMulInputRHS")
@pytest.mark.parametrize("pre_calc", ["false", "true"], ids=["no_precalc", "precalc"])
def test_create_weights_lays_w_out_as_poplin_creates_a_step_products_rhs(pre_calc):
    # W [I + H, 4H] lies as poplin's createMatMulInputRHS lays out B of a step's product
    # [B, I + H] x W: on the emulator, at H = 256 and 2 rows, four panels of 256 columns, one
    # after the other, each with its rows back to back, which the forward multiplies where
    # they lie; every phase still matches the reference.
    built = run_phases(make_config(S=2, B=2, I=3, H=256, options={"preCalcWeights": pre_calc}), phases=("fwd", "all"))
    gates = built.weights.output_weights.raw.getVarRegions()  # a gate's rows of W_out: rows 3.. of its panel
    assert [(r.interval.begin(), r.interval.size()) for r in gates] == [(g * 259 * 256 + 3 * 256, 256 * 256)
                                                                       for g in range(4)]
    created = pd.poplin.createMatMulInputRHS(built.graph.raw, pd.float32, [2, 259], [259, 1024], "W")
    assert var_places(lstm_weights._stacked_weights(built.weights)) == \
        [(r.interval.begin(), r.interval.end()) for r in created.getVarRegions()]
    narrow = lstm.create_weights(built.graph, lstm.LstmParams(pd.float32, 2, 2, (3, 4))).output_weights  # plain rows
    assert [begin for begin, _ in var_places(narrow)[:3]] == [3 * 16, 4 * 16, 5 * 16]


@pytest.mark.parametrize("dtype, hidden, panels, width", [
    (pd.float32, 4, 1, 16), (pd.float32, 64, 1, 256), (pd.float32, 100, 2, 256), (pd.float32, 257, 5, 256),
    (pd.float32, 256, 4, 256), (pd.float16, 256, 1, 1024)])
def test_forward_copies_only_weights_laid_out_otherwise(dtype, hidden, panels, width):
    # create_weights' W is read where it lies (panels of 256 columns, the last one's columns past
    # 4H unused; up to 256 columns, and in half, plain rows); the forward copies weights laid out
    # otherwise into a variable of poplin's layout, once, before its loop.
    g = pd.Graph(pd.ipu_model(tiles=4))
    params = lstm.LstmParams(dtype, 2, 2, (3, hidden))
    x, state = lstm.create_input(g, params), lstm.create_initial_state(g, params)
    weights = lstm.create_weights(g, params)
    stacked = lstm_weights._stacked_weights(weights)
    if pd.backend() == "emulator":
        starts = [begin for begin, _ in var_places(stacked)]
        assert starts[:panels] == [p * (3 + hidden) * width for p in range(panels)]  # row 0 of each panel
    assert lstm_weights._laid_out_for_products(stacked, params)
    own = lstm.LstmWeights(g.variable(dtype, (4, 3, hidden)), g.variable(dtype, (4, hidden, hidden)), weights.biases)
    assert not lstm_weights._laid_out_for_products(lstm_weights._stacked_weights(own), params)
    for w, copies in ((weights, 0), (own, 1)):
        before = len(g.variables)
        with pd.Sequence():
            lstm.forward(params, state, x, w)
        assert [t.name for t in g.variables[before:]].count("lstm/fwd/weights") == copies


def test_weights_in_variables_of_their_own_match_reference():
    # not create_weights' layout: the forward copies them into it at every run
    cfg = make_config(S=2, B=2, I=3, H=256, last_grad=False)
    data, (S, B, I, H) = make_data(cfg), (cfg[k] for k in "SBIH")
    ref = Reference(cfg, data)
    g = pd.Graph(pd.ipu_model(tiles=4))
    p = lstm.LstmParams(pd.float32, B, S, (I, H))
    x, state = lstm.create_input(g, p), lstm.create_initial_state(g, p)
    weights = lstm.LstmWeights(g.variable(pd.float32, (4, I, H), name="Win"),
                               g.variable(pd.float32, (4, H, H), name="Wout"), g.variable(pd.float32, (4, H), name="b"))
    with pd.Sequence() as prog:
        out, cell, _ = lstm.forward(p, state, x, weights)
    with pd.Session(g, prog) as s:
        for tensor, key in [(x, "x"), (state.output, "h0"), (state.cell_state, "c0"), (weights.input_weights, "Win"),
                            (weights.output_weights, "Wout"), (weights.biases, "b")]:
            s.write(tensor, data[key])
        s.run()
        check_forward(s, ref, cfg, out, cell)


def test_options_that_only_tune():
    cfg = make_config(options={"inferenceOnly": "false", "partialsType": "float", "availableMemoryProportion": 0.3,
                               "numShards": 2, "rnnCodeReuse": "true"})
    run_phases(cfg, phases=("all",))


# Without intermediates, element-wise activations take the fused in-place cell (the softmaxes
# and step limits the general one); preCalcWeights the per-gate products before the loop.
@pytest.mark.parametrize("cfg", [
    dict(full=False, options={"inferenceOnly": "true"}),
    dict(options={"inferenceOnly": "true", "preCalcWeights": "true"}),
    dict(cell_order=SHUFFLED, full=False, options={"preCalcWeights": "true"}),
    dict(cell_order=SHUFFLED, activation="relu", recurrent_activation="hard_sigmoid"),
    dict(activation="softmax", recurrent_activation="tanh", options={"preCalcWeights": "true"}),
    dict(time_steps=[4, 1, 3], options={"preCalcWeights": "true"}),
    dict(dtype=np.float16, options={"preCalcWeights": "true"}),
    dict(B=1, options={"inferenceOnly": "true", "preCalcWeights": "true"}),
], ids=["last_output", "precalc_full_sequence", "shuffled_precalc", "shuffled_relu_hard_sigmoid",
        "softmax_precalc", "variable_steps_precalc", "half_precalc", "batch_of_one_precalc"])
def test_inference_forward_without_intermediates(cfg):
    cfg = make_config(**cfg)
    data = make_data(cfg)
    ref = Reference(cfg, data)
    built = Built(cfg)
    with pd.Sequence("infer") as infer:
        out, cell, inter = lstm.forward(built.params, built.state, built.x, built.weights, save_intermediates=False,
                                        options=cfg["options"])
    assert inter is None
    with pd.Session(built.graph, infer, device=built.device) as s:
        built.write_inputs(s, data)
        s.run()
        check_forward(s, ref, cfg, out, cell)


# --- the cell's vertices (popdsl/nn/lstm/vertex.py) ---------------------------------------------
def test_cell_vertices_take_groups_of_rows_and_any_hidden_size():
    # two full vertices and one of one row; H = 37: not a whole number of vectors
    run_phases(make_config(S=3, B=2 * ROWS_PER_VERTEX + 1, I=6, H=37, cell_order=SHUFFLED))


def test_cell_vertices_saturate_as_the_reference_does():
    # gate pre-activations of tens: sigmoid and tanh at 0 and +-1 to the last bit, exp at its clamps
    run_phases(make_config(S=3, B=5, I=5, H=8, weight_scale=30.0), phases=("all",))


def test_cell_vertices_carry_nan_through():
    # a NaN input makes every later output NaN, as the maps' exp, sigmoid and tanh keep NaN
    cfg = make_config(S=3, B=2 * ROWS_PER_VERTEX, I=3, H=5)
    data = make_data(cfg)
    data["x"][1, 3, 2] = np.nan  # step 1, batch row 3
    built = Built(cfg)
    with built.session as s:
        built.write_inputs(s, data)
        s.run("fwd")
        out, inter = s.read(built.out), s.read(built.inter)
    assert np.isnan(out[1:, 3]).all() and not np.isnan(np.delete(out, 3, axis=1)).any()
    assert np.isnan(inter[1:, :4, 3]).all() and not np.isnan(inter[0]).any()


@pytest.mark.parametrize("cfg, save, vertices", [
    (dict(), True, True),
    (dict(cell_order=SHUFFLED, options={"preCalcWeights": "true"}), True, True),
    (dict(), False, False),  # popnn's two-pass inference cell
    (dict(dtype=np.float16), True, False),
    (dict(activation="relu"), True, False),
    (dict(time_steps=2), True, False),
], ids=["float", "float_shuffled_precalc", "without_intermediates", "half", "relu", "variable_steps"])
def test_the_cell_runs_as_vertices_where_they_serve(cfg, save, vertices):
    cfg = make_config(**cfg)
    built = Built(cfg)
    with pd.Sequence("forward") as forward:
        lstm.forward(built.params, built.state, built.x, built.weights, save_intermediates=save,
                     options=cfg["options"])
    with pd.Session(built.graph, forward, device=built.device) as s:
        built.write_inputs(s, make_data(cfg))
        s.run()
        names = [step.name for step in s.profile.steps]
    assert any("lstmCell" in name for name in names) == vertices, names


@pytest.mark.parametrize("cfg, vertices", [
    (dict(), True),
    (dict(cell_order=SHUFFLED, options={"preCalcWeights": "true"}), True),
    (dict(full=False), False),  # the last output's gradient only
    (dict(options={"recomputationMode": "cellAndTanh"}), False),
    (dict(dtype=np.float16), False),
    (dict(time_steps=2, last_grad=False), False),
], ids=["float", "float_shuffled_precalc", "last_output", "cellAndTanh", "half", "variable_steps"])
def test_the_backward_cell_runs_as_vertices_where_they_serve(cfg, vertices):
    cfg = make_config(**cfg)
    built = Built(cfg)
    with built.session as s:
        built.write_inputs(s, make_data(cfg))
        s.run("bwd")
        names = [step.name for step in s.profile.steps]
    assert any("lstmCellGrad" in name for name in names) == vertices, names


def test_half_data_with_float_accumulators():
    cfg = make_config(dtype=np.float16, options={"weightAccumulatorsType": "float", "partialsType": "half"})
    built = run_phases(cfg, phases=("all",))
    assert all(t.dtype == pd.float32 for t in built.all_weight_grads)


def test_without_input_gradients_or_last_step_gradients():
    run_phases(make_config(calc_input=False, last_grad=False))


def test_running_twice_gives_identical_results():
    cfg = make_config()
    data = make_data(cfg)
    built = Built(cfg)
    results = []
    with built.session as s:
        for _ in range(2):
            built.write_inputs(s, data)
            s.run("all")
            results.append([s.read(t) for t in (built.all_out, built.all_cell, built.all_input_grad,
                                                  *built.all_state_grad, *built.all_weight_grads)])
    for first, second in zip(*results):
        np.testing.assert_array_equal(first, second)


def test_cadence_follows_popnn_rules():
    device = pd.ipu_model(tiles=16)
    g = pd.Graph(device)
    p = lstm.LstmParams(pd.float32, 3, 7, (5, 4))
    assert lstm.steps_per_weight_update(p, g, {"rnnStepsPerWU": 3}) == 3
    # interleaving saves memory when the weights are smaller than all the gate gradients
    assert lstm.steps_per_weight_update(p, g, {"disableWUPartialInterleaving": "true"}) == 1
    big_weights = lstm.LstmParams(pd.float32, 1, 2, (64, 64))
    assert lstm.steps_per_weight_update(big_weights, g, {"disableWUPartialInterleaving": "true"}) == 0
    assert lstm.steps_per_weight_update(p, g) == 6  # all 7 steps fit; rounded to 2 floats per 64-bit path


def test_flops_as_popnn_counts():
    p = lstm.LstmParams(pd.float32, 2, 3, (5, 4))
    steps = 2 * 3
    assert lstm.fwd_flops(p) == 5 * 16 * steps * 2 + 4 * 16 * steps * 2 + 3 * steps * 4 + steps * 4
    assert lstm.bwd_flops(p) == 6 * steps * 4 + 5 * 16 * steps * 2 + 4 * 16 * steps * 2
    assert lstm.wu_flops(p) == 9 * 16 * steps * 2 + 4 * 4 * steps * 2
    p.calc_input_gradients = False
    assert lstm.bwd_flops(p) == 6 * steps * 4 + 4 * 16 * steps * 2


def test_zero_initial_state_and_shapes():
    device = pd.ipu_model(tiles=4)
    g = pd.Graph(device)
    p = lstm.LstmParams(pd.float32, 2, 3, (5, 4), cell_order=SHUFFLED)
    state = lstm.create_initial_state(g, p)
    weights = lstm.create_weights(g, p)
    assert lstm.create_input(g, p).shape == (3, 2, 5)
    assert (weights.input_weights.shape, weights.output_weights.shape, weights.biases.shape) == \
        ((4, 5, 4), (4, 4, 4), (4, 4))
    with pd.Sequence() as main:
        lstm.zero_initial_state(state)
    with pd.Session(g, main, device=device) as s:
        s.write(state.output, np.ones((2, 4)))
        s.write(state.cell_state, np.ones((2, 4)))
        s.run()
        assert not s.read(state.output).any() and not s.read(state.cell_state).any()


def test_pd_nn_lstm_is_the_module():
    assert pd.nn.lstm is lstm


# --- errors ------------------------------------------------------------------------------------
def small_layer(**kwargs):
    device = pd.ipu_model(tiles=4)
    g = pd.Graph(device)
    p = lstm.LstmParams(pd.float32, 2, 3, (5, 4), **kwargs)
    return g, p, lstm.create_initial_state(g, p), lstm.create_input(g, p), lstm.create_weights(g, p)


@pytest.mark.parametrize("layer_sizes,message", [((5,), "two positive ints"), ((5, 4, 3), "two positive ints"),
                                                 ((5, 0), "two positive ints")])
def test_wrong_layer_sizes(layer_sizes, message):
    with pytest.raises(pd.BuildError, match=message):
        lstm.LstmParams(pd.float32, 2, 3, layer_sizes)


def test_weights_of_another_layer_size():
    g, p, state, x, _ = small_layer()
    other = lstm.create_weights(g, lstm.LstmParams(pd.float32, 2, 3, (6, 4)))
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"input weights must have shape \(4, 5, 4\)"):
            lstm.forward(p, state, x, other)


@pytest.mark.parametrize("bad,message", [
    (dict(activation="gelu"), "activation must be one of"),
    (dict(cell_order=("forget", "input", "output")), "cell_order must order the gates"),
    (dict(variable_time_steps=9), r"variable_time_steps must be None, an int in \[0, 3\]"),
    (dict(dtype=pd.int32), "dtype must be pd.float32 or pd.float16"),
])
def test_bad_params(bad, message):
    kwargs = dict(dtype=pd.float32, batch_size=2, time_steps=3, layer_sizes=(5, 4))
    kwargs.update(bad)
    with pytest.raises(pd.BuildError, match=message):
        lstm.LstmParams(**kwargs)


def test_variable_time_steps_tensor_must_be_unsigned_per_batch():
    g = pd.Graph(pd.ipu_model(tiles=4))
    with pytest.raises(pd.BuildError, match=r"UNSIGNED_INT tensor of shape \(2,\) or \(1,\)"):
        lstm.LstmParams(pd.float32, 2, 3, (5, 4), variable_time_steps=g.variable(pd.int32, (2,)))


def test_input_gradient_follows_calc_input_gradients():
    g, p, state, x, weights = small_layer(calc_input_gradients=False)
    with pd.Sequence():
        out, _, inter = lstm.forward(p, state, x, weights)
        _, input_grad, _ = lstm.backward(p, state, inter, weights, x, out, g.clone(out))
    assert input_grad is None


@pytest.mark.parametrize("options,message", [
    ({"preCalcWeight": "true"}, "unknown LSTM option 'preCalcWeight'"),
    ({"recomputationMode": "some"}, r"recomputationMode='some': expected one of none, cellAndTanh, full"),
    ({"recomputationMode": "full"}, "recomputationMode='full' is not supported"),
    ({"inferenceOnly": "yes"}, r"inferenceOnly='yes': expected true or false"),
    ({"partialsType": "double"}, "partialsType='double'"),
    ({"weightAccumulatorsType": "int"}, "weightAccumulatorsType='int'"),
    ({"availableMemoryProportion": 1.5}, "availableMemoryProportion=1.5"),
    ({"numShards": 0}, "numShards=0"),
    ({"numShards": 4}, r"numShards must be within interval \[1,3\]"),
    ({"rnnStepsPerWU": -1}, "rnnStepsPerWU=-1"),
    ({"rnnCodeReuse": 1}, "rnnCodeReuse=1"),
])
def test_bad_options(options, message):
    g, p, state, x, weights = small_layer()
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=message):
            lstm.forward(p, state, x, weights, options=options)


def test_intermediates_of_other_options_are_rejected():
    g, p, state, x, weights = small_layer()
    with pd.Sequence():
        out, _, inter = lstm.forward(p, state, x, weights, options={"recomputationMode": "cellAndTanh"})
        with pytest.raises(pd.BuildError, match="needs 6: pass the options given to forward"):
            lstm.backward(p, state, inter, weights, x, out, g.clone(out))


def test_last_step_gradient_with_variable_time_steps_is_an_error():
    g, p, state, x, weights = small_layer(variable_time_steps=2)
    with pd.Sequence():
        out, _, inter = lstm.forward(p, state, x, weights)
        with pytest.raises(pd.BuildError, match="last_step_state_grad=None"):
            lstm.backward(p, state, inter, weights, x, out, g.clone(out), lstm.LstmState(None, g.clone(state.output)))


def test_output_gradient_shape_is_checked():
    g, p, state, x, weights = small_layer(output_full_sequence=False)
    with pd.Sequence():
        out, _, inter = lstm.forward(p, state, x, weights)
        with pytest.raises(pd.BuildError, match=r"output gradient must have shape \(2, 4\)"):
            lstm.backward(p, state, inter, weights, x, out, x)
