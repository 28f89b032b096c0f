"""poplin convolutions (forward, input gradient, weight deltas and updates, biases) against
the float64 numpy references of conv_reference.py, over groups, strides, padding,
truncation, dilation, flips and 1-3 field dimensions.

Results are compared with a bound scaled by conv(|x|, |w|) (the size of the summed terms),
so sums that cancel are not held to a relative precision no dot product has."""
import numpy as np
import pytest

from conv_reference import conv, linear_adjoint
import popdsl as pd
from popdsl import poplar, poplin, poputil
from popdsl.nn.conv import input_gradient_params
from raw_runner import Runner

TOLERANCE = {poplar.FLOAT: 1e-5, poplar.HALF: 1e-2}


def random(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def conv_params(field, kernel, dtype=poplar.FLOAT, batch=1, in_chans=1, out_chans=1, groups=1,
                stride=1, padding=(0, 0), input_dilation=1, kernel_dilation=1,
                input_truncation=(0, 0), kernel_truncation=(0, 0), kernel_padding=(0, 0),
                input_flip=False, kernel_flip=False, output_truncation=(0, 0),
                output_padding=(0, 0)):
    """ConvParams with the full constructor; a scalar applies to every field dimension, a
    (lower, upper) pair to both ends of every dimension, a list gives one per dimension."""
    dims = len(field)

    def each(value):
        return list(value) if isinstance(value, list) else [value] * dims

    def ends(pair):
        return [pair[0]] * dims, [pair[1]] * dims

    input_transform = poplin.ConvParams.InputTransform(
        *ends(input_truncation), each(input_dilation), *ends(padding), each(input_flip))
    kernel_transform = poplin.ConvParams.InputTransform(
        *ends(kernel_truncation), each(kernel_dilation), *ends(kernel_padding), each(kernel_flip))
    output_transform = poplin.ConvParams.OutputTransform(
        *ends(output_truncation), each(stride), *ends(output_padding))
    return poplin.ConvParams(dtype, dtype, batch, field, kernel, in_chans, out_chans, groups,
                             input_transform, kernel_transform, output_transform)


def shapes(p):
    """(input, weights, output) shapes of ConvParams p, as poplin lays them out."""
    field, kernel = list(p.inputFieldShape), list(p.kernelShape)
    return ((p.batchSize, p.getNumInputChans(), *field),
            (p.numConvGroups, p.outputChannelsPerConvGroup, p.inputChannelsPerConvGroup, *kernel),
            (p.batchSize, p.getNumOutputChans(), *p.getOutputFieldShape()))


def assert_close(got, expected, magnitude, dtype):
    assert got.shape == expected.shape
    error = np.abs(got.astype(np.float64) - expected)
    bound = TOLERANCE[dtype] * magnitude + 1e-30
    assert np.all(error <= bound), f"max error {error.max()}, {(error / bound).max()}x the bound"


FORWARD_CASES = {
    "1d": dict(field=[7], kernel=[3], in_chans=2, out_chans=3),
    "2d_groups_stride_padding": dict(field=[6, 5], kernel=[3, 2], in_chans=2, out_chans=2,
                                     groups=2, stride=2, padding=(1, 2)),
    "2d_dilations": dict(field=[5, 6], kernel=[2, 3], in_chans=3, out_chans=2,
                         input_dilation=2, kernel_dilation=[1, 2]),
    "2d_flips_truncation": dict(field=[6, 6], kernel=[3, 3], in_chans=2, out_chans=2,
                                input_truncation=(1, 0), kernel_truncation=(0, 1),
                                kernel_padding=(1, 0), input_flip=[True, False],
                                kernel_flip=[False, True], padding=(0, 1)),
    "3d_batch": dict(field=[4, 5, 3], kernel=[2, 3, 2], batch=2, in_chans=2, out_chans=3,
                     stride=[1, 2, 1], padding=(1, 0)),
    "output_transform": dict(field=[8], kernel=[3], in_chans=2, out_chans=2, batch=2,
                             output_truncation=(1, 2), output_padding=(2, 1), stride=2),
    "depthwise": dict(field=[5, 5], kernel=[3, 3], batch=3, groups=3, padding=(1, 1)),
    "fully_connected": dict(field=[1], kernel=[1], batch=4, in_chans=6, out_chans=5),
    "half_groups": dict(field=[6, 6], kernel=[3, 3], dtype=poplar.HALF, in_chans=4, out_chans=3,
                        groups=2, padding=(1, 1)),
}


@pytest.mark.parametrize("case", FORWARD_CASES.values(), ids=FORWARD_CASES.keys())
def test_convolution_matches_the_reference(case):
    p = conv_params(**case)
    dtype = p.inputType
    in_shape, weights_shape, out_shape = shapes(p)
    x, w = random(in_shape, 1), random(weights_shape, 2)
    r = Runner()
    out = poplin.convolution(r.graph, r.tensor(x, dtype), r.tensor(w, dtype), p, False, r.prog, "conv")
    assert out.shape() == list(out_shape) and out.elementType() == dtype
    (got,) = r.run(out)
    x, w = x.astype(dtype.numpy_dtype), w.astype(dtype.numpy_dtype)  # what the device holds
    assert_close(got, conv(x, w, p), conv(np.abs(x), np.abs(w), p), dtype)


GRADIENT_CASES = {
    "1d": dict(field=[7], kernel=[3], in_chans=2, out_chans=3, padding=(1, 1)),
    "2d_groups_stride": dict(field=[6, 5], kernel=[3, 2], in_chans=2, out_chans=3, groups=2,
                             stride=2, padding=(1, 0)),
    "2d_dilation": dict(field=[6, 6], kernel=[2, 2], in_chans=2, out_chans=2, kernel_dilation=2,
                        batch=2),
    "3d": dict(field=[3, 4, 3], kernel=[2, 2, 2], in_chans=2, out_chans=2, padding=(1, 1)),
}


@pytest.mark.parametrize("case", GRADIENT_CASES.values(), ids=GRADIENT_CASES.keys())
def test_input_gradient_is_a_convolution_with_transposed_flipped_weights(case):
    fwd = conv_params(**case)
    bwd = input_gradient_params(fwd)
    in_shape, weights_shape, out_shape = shapes(fwd)
    w, dy = random(weights_shape, 3), random(out_shape, 4)
    r = Runner()
    W = r.tensor(w, poplar.FLOAT)
    dx = poplin.convolution(r.graph, r.tensor(dy, poplar.FLOAT), W, bwd, True, r.prog, "bwd")
    # The same with the weights rearranged first (what transposeAndFlipWeights does).
    arranged = r.graph.clone(poplin.createWeights(r.graph, bwd, "arranged"))
    poplin.weightsTransposeChansFlipXY(r.graph, W, arranged, r.prog, "arrange", {"partialsType": "float"})
    dx_arranged = poplin.convolution(r.graph, r.tensor(dy, poplar.FLOAT, "dy2"), arranged, bwd, False, r.prog)
    got, got_arranged = r.run(dx, dx_arranged)
    expected = linear_adjoint(lambda basis: conv(basis, w, fwd), in_shape, dy)
    magnitude = linear_adjoint(lambda basis: conv(basis, np.abs(w), fwd), in_shape, np.abs(dy))
    assert_close(got, expected, magnitude, poplar.FLOAT)
    np.testing.assert_array_equal(got, got_arranged)


WEIGHT_DELTA_CASES = {
    "1d_groups": dict(field=[7], kernel=[3], in_chans=2, out_chans=2, groups=2, batch=2, padding=(1, 1)),
    "2d_transforms": dict(field=[6, 5], kernel=[3, 3], in_chans=2, out_chans=2, stride=[2, 1],
                          kernel_dilation=[1, 2], input_flip=[False, True], kernel_flip=True,
                          kernel_truncation=(1, 0), padding=(1, 1)),
    "3d": dict(field=[3, 4, 3], kernel=[2, 2, 1], in_chans=1, out_chans=2, input_dilation=[2, 1, 1]),
    "half": dict(field=[5, 5], kernel=[3, 3], dtype=poplar.HALF, in_chans=2, out_chans=2, batch=2),
}


@pytest.mark.parametrize("case", WEIGHT_DELTA_CASES.values(), ids=WEIGHT_DELTA_CASES.keys())
def test_weight_deltas_and_updates_match_the_reference(case):
    p = conv_params(**case)
    dtype = p.inputType
    in_shape, weights_shape, out_shape = shapes(p)
    x, dy, w = random(in_shape, 5), random(out_shape, 6), random(weights_shape, 7)
    r = Runner()
    X, DY = r.tensor(x, dtype), r.tensor(dy, dtype)
    deltas = poplin.calculateWeightDeltas(r.graph, DY, X, p, r.prog, "wd")
    updated_by_float = r.tensor(w, dtype, "w1")
    poplin.convolutionWeightUpdate(r.graph, DY, updated_by_float, X, p, -0.5, r.prog, "wu1")
    scale = r.tensor(np.float32(0.25).reshape(()), dtype, "scale")
    updated_by_tensor = r.tensor(w, dtype, "w2")
    poplin.convolutionWeightUpdate(r.graph, DY, updated_by_tensor, X, p, scale, r.prog, "wu2")
    got, got_float, got_tensor = r.run(deltas, updated_by_float, updated_by_tensor)
    x, dy, w = (a.astype(dtype.numpy_dtype).astype(np.float64) for a in (x, dy, w))
    expected = linear_adjoint(lambda basis: conv(x, basis, p), weights_shape, dy)
    magnitude = linear_adjoint(lambda basis: conv(np.abs(x), basis, p), weights_shape, np.abs(dy))
    assert_close(got, expected, magnitude, dtype)
    assert_close(got_float, w - 0.5 * expected, np.abs(w) + 0.5 * magnitude, dtype)
    assert_close(got_tensor, w + 0.25 * expected, np.abs(w) + 0.25 * magnitude, dtype)


def half_partials_model(products):
    """poplin's documented half partials: 16 products summed, then the running sum rounded
    to half (as test_poplin.py's matmul test has it)."""
    running = np.float16(0)
    for begin in range(0, len(products), 16):
        running = np.float16(float(running) + float(np.sum(products[begin:begin + 16], dtype=np.float64)))
    return running


def test_half_partials_round_the_running_sum_of_convolutions_and_weight_deltas():
    # 4096 products of 1 and 0.0999755859375 (exact in half) sum to exactly 409.5; rounded
    # to half after every 16 they do not.
    small = 0.0999755859375
    exact, rounded = np.float16(409.5), half_partials_model(np.full(4096, small))
    assert rounded != exact
    r = Runner()
    # Forward: 256 channels times a 16-tap kernel, one output.
    fwd = conv_params([16], [16], dtype=poplar.HALF, in_chans=256)
    x, w = np.ones((1, 256, 16)), np.full((1, 1, 256, 16), small)
    X, W = r.tensor(x, poplar.HALF, "x"), r.tensor(w, poplar.HALF, "w")
    outs = {partials: poplin.convolution(r.graph, X, W, fwd, False, r.prog, "conv", {"partialsType": partials})
            for partials in ("float", "half")}
    # Weight deltas: one channel, 4096 outputs of a 1-tap kernel.
    wu = conv_params([4096], [1], dtype=poplar.HALF)
    DY, ACTS = r.tensor(np.ones((1, 1, 4096)), poplar.HALF, "dy"), r.tensor(np.full((1, 1, 4096), small), poplar.HALF, "a")
    deltas = {partials: poplin.calculateWeightDeltas(r.graph, DY, ACTS, wu, r.prog, "wd", {"partialsType": partials})
              for partials in ("float", "half")}
    got = r.run(outs["float"], outs["half"], deltas["float"], deltas["half"])
    assert [g.item() for g in got] == [exact, rounded, exact, rounded]


def test_biases_are_added_per_channel_and_updated_from_the_output_gradient():
    r = Runner()
    acts, dy = random((2, 3, 4, 5), 8), random((2, 3, 4, 5), 9)
    b0 = np.array([1.0, -2.0, 0.5])
    A = r.tensor(acts, poplar.FLOAT)
    biases = poplin.createBiases(r.graph, A)
    assert biases.shape() == [3]
    r.graph.setInitialValue(biases, b0.astype(np.float32))
    poplin.addBias(r.graph, A, biases, r.prog, "addBias")
    DY = r.tensor(dy, poplar.FLOAT, "dy")
    by_float, by_tensor = r.tensor(b0, poplar.FLOAT, "b1"), r.tensor(b0, poplar.FLOAT, "b2")
    poplin.convolutionBiasUpdate(r.graph, DY, by_float, -0.1, {}, r.prog, "bu1")
    scale = r.tensor(np.float32(2.0).reshape(()), poplar.FLOAT, "scale")
    poplin.convolutionBiasUpdate(r.graph, DY, by_tensor, scale, {}, r.prog, "bu2")
    got_acts, got_float, got_tensor = r.run(A, by_float, by_tensor)
    np.testing.assert_allclose(got_acts, acts + b0[None, :, None, None], rtol=1e-6)
    np.testing.assert_allclose(got_float, b0 - 0.1 * dy.sum(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(got_tensor, b0 + 2.0 * dy.sum(axis=(0, 2, 3)), rtol=1e-5)


def test_create_functions_lay_out_the_operands_and_fill_the_planning_cache():
    r = Runner()
    p = conv_params([5, 4], [3, 3], batch=2, in_chans=3, out_chans=4, groups=2, padding=(1, 1))
    cache = poplin.PlanningCache()
    inp = poplin.createInput(r.graph, p, "in", {}, cache)
    weights = poplin.createWeights(r.graph, p, "w", {"partialsType": "half"}, cache)
    out = poplin.createConvOutput(r.graph, p, "out", {}, cache)
    assert inp.shape() == [2, 6, 5, 4] and weights.shape() == [2, 4, 3, 3, 3] and out.shape() == [2, 8, 5, 4]
    assert poplin.createBiases(r.graph, out, p, "b", {}, cache).shape() == [8]
    assert cache.size() == 1  # one distinct convolution
    poplin.preplanConvolutions(r.graph, [p, conv_params([3], [1])], {}, cache)
    assert cache.size() == 2
    r.graph.setInitialValue(inp, np.ones((2, 6, 5, 4), np.float32))
    r.graph.setInitialValue(weights, np.ones((2, 4, 3, 3, 3), np.float32))
    poplin.convolutionWithOutput(r.graph, inp, weights, out, p, False, r.prog, "conv", {}, cache)
    (got,) = r.run(out)
    np.testing.assert_allclose(got, conv(np.ones((2, 6, 5, 4)), np.ones((2, 4, 3, 3, 3)), p))


def test_fully_connected_weight_transpose_swaps_the_channel_dimensions():
    r = Runner()
    p = conv_params([1], [1], batch=3, in_chans=4, out_chans=2, groups=2)
    w = random((2, 2, 4, 1), 10)
    transposed = poplin.fullyConnectedWeightTranspose(r.graph, r.tensor(w, poplar.FLOAT), p, r.prog, "t", {})
    (got,) = r.run(transposed)
    np.testing.assert_array_equal(got, w.astype(np.float32).transpose(0, 2, 1, 3))


def test_conv_params_sizes_comparisons_and_canonical_form():
    p = conv_params([9, 6], [3, 2], batch=2, in_chans=3, out_chans=5, groups=2, stride=[2, 1],
                    padding=(1, 0), input_dilation=[1, 2], output_padding=(0, 1))
    assert (p.getBatchSize(), p.getNumFieldDims(), p.getNumConvGroups()) == (2, 2, 2)
    assert (p.getNumInputChans(), p.getNumInputChansPerConvGroup()) == (6, 3)
    assert (p.getNumOutputChans(), p.getNumOutputChansPerConvGroup()) == (10, 5)
    assert p.getInputSize(1) == 6 and p.getTruncatedInputSize(1) == 6
    assert p.getTransformedInputSize(0) == 10 and p.getTransformedInputSize(1) == 12
    assert p.getTruncatedKernelSize(0) == 3 and p.getTransformedKernelSize(1) == 2
    assert p.getUntransformedOutputSize(0) == 8 and p.getOutputSize(0) == 5  # 4 strided + 1 padding
    assert p.getOutputFieldShape() == [5, 12]
    p.validate()
    same = conv_params([9, 6], [3, 2], batch=2, in_chans=3, out_chans=5, groups=2, stride=[2, 1],
                       padding=(1, 0), input_dilation=[1, 2], output_padding=(0, 1))
    assert p == same and not p != same and hash(p) == hash(same)
    other = conv_params([9, 6], [3, 2], batch=3)
    assert (p < other) != (other < p) and p != other
    assert "inputFieldShape {9,6}" in str(p)
    t = poplin.ConvParams.InputTransform(2)
    assert t.dilation == [1, 1] and t == poplin.ConvParams.InputTransform(2)
    assert poplin.hash_value(t) == poplin.hash_value(poplin.ConvParams.InputTransform(2))
    assert hash(t) == hash(poplin.ConvParams.InputTransform(2))
    o = poplin.ConvParams.OutputTransform(1)
    assert o.stride == [1] and not o < o
    assert poplin.hash_value(o) == poplin.hash_value(poplin.ConvParams.OutputTransform(1))
    assert hash(o) == hash(poplin.ConvParams.OutputTransform(1))
    # Dilating one element, flipping one element and striding one output change nothing.
    redundant = conv_params([1, 5], [1, 5], input_dilation=[3, 1], kernel_flip=True, stride=2)
    canonical = redundant.canonicalize()
    assert canonical.inputTransform.dilation == [1, 1] and canonical.kernelTransform.flip == [False, True]
    assert canonical.outputTransform.stride == [1, 1]
    assert canonical.getOutputFieldShape() == redundant.getOutputFieldShape()


def test_flops_perfect_cycles_and_plan_reports():
    r = Runner()
    p = conv_params([6, 6], [3, 3], batch=2, in_chans=4, out_chans=8)
    flops = 2 * 2 * 8 * 4 * 4 * 4 * 9
    assert poplin.getFwdFlops(p) == poplin.getBwdFlops(p) == poplin.getWuFlops(p) == flops
    padded = conv_params([6, 6], [3, 3], batch=2, in_chans=4, out_chans=8, padding=(1, 1))
    assert poplin.getFwdFlops(padded) < 2 * 2 * 8 * 4 * 36 * 9  # products with padding are not counted
    tiles, amp = r.graph.getTarget().getNumTiles(), 32  # ipu2: 32 float FLOPs per tile per cycle
    for perfect in (poplin.getFwdPerfectCycleCount, poplin.getBwdPerfectCycleCount,
                    poplin.getWuPerfectCycleCount):
        assert perfect(r.graph, p) == pytest.approx(flops / (amp * tiles))
    costs = poplin.reportPlanEstimatedCosts(r.graph, p)
    assert costs.cycles > 0 and costs.memory == 4 * (2 * 4 * 36 + 8 * 4 * 9 + 2 * 8 * 16)
    assert "im2col" in poplin.reportPlanInfo(r.graph, p)
    assert "Weight update plan" in poplin.reportWeightUpdatePlanInfo(r.graph, p)


def test_kernels_survive_executable_serialization():
    p = conv_params([5, 5], [3, 3], batch=2, in_chans=2, out_chans=3, groups=2, stride=2, padding=(1, 1))
    in_shape, weights_shape, out_shape = shapes(p)
    r = Runner()
    X, DY = r.tensor(random(in_shape, 11), poplar.FLOAT), r.tensor(random(out_shape, 12), poplar.FLOAT, "dy")
    out = poplin.convolution(r.graph, X, r.tensor(random(weights_shape, 13), poplar.FLOAT, "w"), p, False, r.prog)
    deltas = poplin.calculateWeightDeltas(r.graph, DY, X, p, r.prog)
    compiled, reloaded = r.run_compiled_and_reloaded(out, deltas)
    for a, b in zip(compiled, reloaded):
        np.testing.assert_array_equal(a, b)


def test_pd_nn_conv_builds_params_and_adds_the_bias():
    dev = pd.ipu_model(tiles=4)
    g = pd.Graph(dev)
    x_values, w_values, b_values = random((2, 4, 7, 6), 1), random((2, 3, 2, 3, 2), 2), random(6, 3)
    x = g.variable(pd.float32, x_values.shape, name="x")
    w = g.variable(pd.float32, w_values.shape, name="w")
    b = g.variable(pd.float32, b_values.shape, name="b")
    with pd.Sequence() as main:
        y = pd.nn.conv(x, w, stride=(2, 1), padding=[(1, 0), (-1, 2)], dilation=(1, 2), bias=b)
    p = pd.nn.conv_params(x.shape, w.shape, pd.float32, (2, 1), [(1, 0), (-1, 2)], (1, 2))
    assert p.inputTransform.truncationLower == [0, 1] and p.inputTransform.paddingUpper == [0, 2]
    assert y.shape == tuple(shapes(p)[2])
    with pd.Session(g, main, device=dev) as s:
        for t, v in ((x, x_values), (w, w_values), (b, b_values)):
            s.write(t, v)
        s.run()
        got = s.read(y)
    x_values, w_values = x_values.astype(np.float32), w_values.astype(np.float32)
    expected = conv(x_values, w_values, p) + b_values.astype(np.float32)[None, :, None, None]
    assert_close(got, expected, conv(np.abs(x_values), np.abs(w_values), p) + np.abs(b_values)[None, :, None, None],
                 poplar.FLOAT)


def test_pd_nn_conv_errors_name_the_source_line():
    g = pd.Graph(pd.ipu_model(tiles=4))
    x = g.variable(pd.float32, (1, 4, 5, 5), name="x")
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"test_conv.py:\d+: pd.nn.conv\(x, .*\): conv: x has 4 channels; weights \[1, 2, 3, 3, 3\]"):
            pd.nn.conv(x, g.variable(pd.float32, (1, 2, 3, 3, 3), name="w"))
        with pytest.raises(pd.BuildError, match=r"stride must be an int or 2 ints"):
            pd.nn.conv(x, g.variable(pd.float32, (2, 2, 2, 3, 3), name="w2"), stride=(1, 2, 3))
        with pytest.raises(pd.BuildError, match=r"poplin::convolution: ConvParams: in dimension 0 the transformed kernel"):
            pd.nn.conv(x, g.variable(pd.float32, (1, 2, 4, 7, 3), name="w3"))


@pytest.mark.needs_emulator("profile data (Session.profile)")
def test_the_profile_estimates_amp_cycles_from_the_multiply_adds():
    cycles = []
    for in_chans in (2, 16):
        dev = pd.ipu_model(tiles=4)
        g = pd.Graph(dev)
        x = g.variable(pd.float32, (1, in_chans, 8, 8), name="x", mapping=0)
        w = g.variable(pd.float32, (1, 8, in_chans, 3, 3), name="w", mapping=0)
        with pd.Sequence() as main:
            with pd.name_scope("conv"):
                pd.nn.conv(x, w, padding=1)
        with pd.Session(g, main, device=dev) as s:
            s.run()
            (step,) = [st for st in s.profile.steps if st.name.startswith("conv/") and st.kind == "Execute"]
        cycles.append(step.compute_cycles)
    # The busiest tile holds a quarter of the 8 x 64 outputs; each takes in_chans * 9 multiply-adds,
    # 2 FLOPs each at 32 float FLOPs per cycle.
    assert cycles == [50 + 2 * in_chans * 9 * 128 // 32 for in_chans in (2, 16)]


def expect_error(match, build):
    with pytest.raises(poputil.poplibs_error, match=match):
        build(Runner())


def test_bad_operands_and_params_raise_named_poplibs_errors():
    p = conv_params([5], [3], in_chans=2, out_chans=3)
    x, w = np.zeros((1, 2, 5)), np.zeros((1, 3, 2, 3))

    def convolve(params, x_values=x, w_values=w, dtype=poplar.FLOAT):
        return lambda r: poplin.convolution(r.graph, r.tensor(x_values, dtype), r.tensor(w_values, dtype, "w"),
                                            params, False, r.prog)

    expect_error(r"poplin::convolution: in must have shape \[1,2,5\]", convolve(p, x_values=np.zeros((1, 3, 5))))
    expect_error(r"poplin::convolution: weights must have shape \[1,3,2,3\]", convolve(p, w_values=np.zeros((3, 2, 3))))
    expect_error(r"in must have element type float", convolve(p, dtype=poplar.HALF))
    expect_error(r"outputTransform.stride\[0\] is 0", convolve(conv_params([5], [3], in_chans=2, out_chans=3, stride=0)))
    expect_error(r"transformed kernel \(size 6\) is larger than the transformed input \(size 5\)",
                 convolve(conv_params([5], [6], in_chans=2, out_chans=3), w_values=np.zeros((1, 3, 2, 6))))
    expect_error(r"inputTransform.dilation\[0\] is 0", convolve(conv_params([5], [3], in_chans=2, out_chans=3,
                                                                          input_dilation=0)))
    # (5 - 1) * 2**31 + 1 elements wrap around the SDK's unsigned sizes to a small one
    expect_error(r"in dimension 0 the transformed input or kernel has more than 4294967295 elements",
                 convolve(conv_params([5], [3], in_chans=2, out_chans=3, input_dilation=2 ** 31)))
    short = poplin.ConvParams(poplar.FLOAT, 1, [5, 5], [3], 1, 1, 1)
    expect_error(r"kernelShape has 1 entries; the field has 2 dimensions",
                 lambda r: poplin.createInput(r.graph, short, "in"))
    with pytest.raises(poputil.poplibs_error, match="dimension 3 is not one of the 1 field dimensions"):
        p.getOutputSize(3)
    with pytest.raises(poplar.invalid_option, match="option 'pass'"):
        poplin.convolutionValidateOptions({"pass": "SIDEWAYS"})
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'colour'"):
        poplin.createWeights(Runner().graph, p, "w", {"colour": "red"})
    expect_error(r"biases must have shape \[2\]", lambda r: poplin.addBias(
        r.graph, r.tensor(x, poplar.FLOAT), r.tensor(np.zeros(3), poplar.FLOAT, "b"), r.prog))
    expect_error(r"weightsOut must have shape \[1,2,3,3\]", lambda r: poplin.weightsTransposeChansFlipXY(
        r.graph, r.tensor(w, poplar.FLOAT), r.tensor(w, poplar.FLOAT, "w2"), r.prog))
    r = Runner()
    with pytest.raises(poplar.invalid_option, match="Unrecognised option 'colour'"):
        poplin.weightsTransposeChansFlipXY(r.graph, r.tensor(w, poplar.FLOAT), r.tensor(w, poplar.FLOAT, "w3"), r.prog,
                                           "w", {"colour": "red"})
