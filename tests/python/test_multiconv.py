"""poplin.multiconv: sets of convolutions, each against the float64 numpy reference of
conv_reference.py (forward, input gradient with rearranged weights, weight deltas and both
weight updates), and the set's own errors."""
import numpy as np
import pytest

from conv_reference import conv, linear_adjoint
from popdsl import poplar, poplin, poputil
from raw_runner import Runner
from test_conv import assert_close, conv_params, input_gradient_params, random, shapes

multiconv = poplin.multiconv

# Two convolutions of different shapes built as one set.
SET = (dict(field=[6, 5], kernel=[3, 2], in_chans=2, out_chans=2, groups=2, stride=2, padding=(1, 0)),
       dict(field=[7], kernel=[3], batch=2, in_chans=3, out_chans=2, padding=(1, 1)))


def test_a_set_of_convolutions_creates_and_convolves_each_as_the_reference():
    r = Runner()
    params = [conv_params(**case) for case in SET]
    create = [multiconv.CreateTensorArgs(p, {"partialsType": "float"}, f"c{i}") for i, p in enumerate(params)]
    set_options = {"planType": "serial", "perConvReservedTiles": "10", "cycleBackOff": "0.2"}
    inputs = [multiconv.createInput(r.graph, create, i, set_options) for i in range(2)]
    weights = [multiconv.createWeights(r.graph, create, i) for i in range(2)]
    values = []
    for i, p in enumerate(params):
        in_shape, weights_shape, _ = shapes(p)
        assert (inputs[i].shape(), weights[i].shape()) == (list(in_shape), list(weights_shape))
        x, w = random(in_shape, 10 + i), random(weights_shape, 20 + i)
        r.graph.setInitialValue(inputs[i], x.astype(np.float32))
        r.graph.setInitialValue(weights[i], w.astype(np.float32))
        values.append((x, w))
    args = [multiconv.ConvolutionArgs(inputs[i], weights[i], p) for i, p in enumerate(params)]
    outs = multiconv.convolution(r.graph, args, False, r.prog, "set", set_options)
    got = r.run(*outs)
    for (x, w), p, result in zip(values, params, got):
        assert_close(result, conv(x, w, p), conv(np.abs(x), np.abs(w), p), poplar.FLOAT)


def test_a_set_computes_input_gradients_from_rearranged_weights():
    r = Runner()
    forwards = [conv_params(**case) for case in SET]
    backwards = [input_gradient_params(p) for p in forwards]
    ws = [random(shapes(p)[1], 30 + i) for i, p in enumerate(forwards)]
    dys = [random(shapes(p)[2], 40 + i) for i, p in enumerate(forwards)]
    create = [multiconv.CreateTensorArgs(p, name=f"arranged{i}") for i, p in enumerate(backwards)]
    args = [multiconv.ConvolutionArgs(r.tensor(dy, poplar.FLOAT, f"dy{i}"),
                                      multiconv.createWeights(r.graph, create, i), bwd)
            for i, (dy, bwd) in enumerate(zip(dys, backwards))]
    forward_weights = [r.tensor(w, poplar.FLOAT, f"w{i}") for i, w in enumerate(ws)]
    multiconv.weightsTransposeChansFlipXY(r.graph, args, forward_weights, r.prog, {}, "arrange")
    got = r.run(*multiconv.convolution(r.graph, args, False, r.prog, "bwd"))
    for fwd, w, dy, dx in zip(forwards, ws, dys, got):
        in_shape = shapes(fwd)[0]
        expected = linear_adjoint(lambda basis: conv(basis, w, fwd), in_shape, dy)
        magnitude = linear_adjoint(lambda basis: conv(basis, np.abs(w), fwd), in_shape, np.abs(dy))
        assert_close(dx, expected, magnitude, poplar.FLOAT)


def test_a_set_computes_weight_deltas_and_applies_both_kinds_of_update():
    r = Runner()
    params = [conv_params(**case) for case in SET]
    data = [tuple(random(shape, 50 + 3 * i + k) for k, shape in enumerate(shapes(p))) for i, p in enumerate(params)]
    acts = [r.tensor(x, poplar.FLOAT, f"x{i}") for i, (x, _, _) in enumerate(data)]
    grads = [r.tensor(dy, poplar.FLOAT, f"dy{i}") for i, (_, _, dy) in enumerate(data)]
    deltas = multiconv.calculateWeightDeltas(
        r.graph, [multiconv.CalculateWeightDeltasArgs(grads[i], acts[i], p) for i, p in enumerate(params)],
        r.prog, "wd")
    by_tensor = [r.tensor(w, poplar.FLOAT, f"wt{i}") for i, (_, w, _) in enumerate(data)]
    by_float = [r.tensor(w, poplar.FLOAT, f"wf{i}") for i, (_, w, _) in enumerate(data)]
    scale = r.tensor(np.float32(0.25).reshape(()), poplar.FLOAT, "scale")
    multiconv.convolutionWeightUpdate(
        r.graph, [multiconv.ConvWeightUpdateArgs(grads[i], by_tensor[i], acts[i], scale, p)
                  for i, p in enumerate(params)], r.prog, "wu")
    multiconv.convolutionWeightUpdate(
        r.graph, [multiconv.ConvWeightUpdateArgsScalar(grads[i], by_float[i], acts[i], -0.5, p)
                  for i, p in enumerate(params)], r.prog, "wus")
    got = r.run(*deltas, *by_tensor, *by_float)
    for i, (p, (x, w, dy)) in enumerate(zip(params, data)):
        expected = linear_adjoint(lambda basis: conv(x, basis, p), w.shape, dy)
        magnitude = linear_adjoint(lambda basis: conv(np.abs(x), basis, p), w.shape, np.abs(dy))
        assert_close(got[i], expected, magnitude, poplar.FLOAT)
        assert_close(got[2 + i], w + 0.25 * expected, np.abs(w) + 0.25 * magnitude, poplar.FLOAT)
        assert_close(got[4 + i], w - 0.5 * expected, np.abs(w) + 0.5 * magnitude, poplar.FLOAT)


def test_a_set_names_a_bad_index_option_or_count():
    r = Runner()
    create = [multiconv.CreateTensorArgs(conv_params(**SET[1]))]
    with pytest.raises(poputil.poplibs_error,
                       match=r"poplin::multiconv::createWeights: weightsIndex 1 is out of range for 1 convolutions"):
        multiconv.createWeights(r.graph, create, 1)
    with pytest.raises(poputil.poplibs_error, match=r"poplin::multiconv::createInput: inputIndex 2 is out of range"):
        multiconv.createInput(r.graph, create, 2)
    with pytest.raises(poplar.invalid_option, match=r"Invalid value 'diagonal' for option 'planType'"):
        multiconv.createInput(r.graph, create, 0, {"planType": "diagonal"})
    with pytest.raises(poplar.invalid_option, match=r"Invalid value '-3' for option 'perConvReservedTiles'"):
        multiconv.convolution(r.graph, [], False, r.prog, "c", {"perConvReservedTiles": "-3"})
    with pytest.raises(poplar.invalid_option, match=r"Unrecognised option 'partialsType'"):
        multiconv.calculateWeightDeltas(r.graph, [], r.prog, "d", {"partialsType": "half"})
    args = [multiconv.ConvolutionArgs(r.tensor(np.zeros((2, 3, 7)), poplar.FLOAT),
                                      multiconv.createWeights(r.graph, create, 0), create[0].params)]
    with pytest.raises(poputil.poplibs_error, match=r"weightsTransposeChansFlipXY: 0 weightsIn for 1 convolutions"):
        multiconv.weightsTransposeChansFlipXY(r.graph, args, [], r.prog, {}, "arrange")
    # A member's own options are convolution options, checked as such.
    args[0].options = {"planType": "serial"}
    with pytest.raises(poplar.invalid_option, match=r"Unrecognised option 'planType'"):
        multiconv.convolution(r.graph, args, False, r.prog)
