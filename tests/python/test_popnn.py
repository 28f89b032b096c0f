"""popnn non-linearities and their input gradients against float64 numpy."""
import math
import subprocess

import numpy as np
import pytest

from popdsl import poplar, popnn, poputil, program
from cpp_build import build_program
from raw_runner import Runner

NLT = popnn.NonLinearityType
erf = np.vectorize(math.erf)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


FORWARD = {
    NLT.SIGMOID: lambda x: 1 / (1 + np.exp(-x)),
    NLT.HARD_SIGMOID: lambda x: np.clip(0.2 * x + 0.5, 0, 1),
    NLT.RELU: lambda x: np.maximum(x, 0),
    NLT.TANH: np.tanh,
    NLT.GELU: lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    NLT.GELU_ERF: lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2))),
    NLT.SWISH: lambda x: x / (1 + np.exp(-x)),
    NLT.SOFTMAX: softmax,
    NLT.SOFTMAX_STABLE: softmax,
}
TAKES_INPUT = {NLT.GELU, NLT.GELU_ERF, NLT.SWISH}
NUMPY = {poplar.FLOAT: np.float32, poplar.HALF: np.float16}
TOL = {poplar.FLOAT: 1e-5, poplar.HALF: 1e-2}


def finite_difference_gradient(f, x, g, h=1e-6):
    """Input gradient of sum(g * f(x)) by central differences, element by element."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        grad[index] = np.sum(g * (f(x + step) - f(x - step))) / (2 * h)
    return grad


rng = np.random.default_rng(1)


@pytest.mark.parametrize("ptype", [poplar.FLOAT, poplar.HALF])
@pytest.mark.parametrize("kind", list(FORWARD), ids=lambda k: k.name)
def test_forward(kind, ptype):
    x = rng.uniform(-3, 3, size=(3, 5))
    r = Runner()
    t = r.tensor(x, ptype, "x")
    out = popnn.nonLinearity(r.graph, kind, t, r.prog, "nl")
    (got,) = r.run(out)
    want = FORWARD[kind](x.astype(NUMPY[ptype]).astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=TOL[ptype], atol=TOL[ptype])


@pytest.mark.parametrize("kind", list(FORWARD), ids=lambda k: k.name)
def test_input_gradient(kind):
    # Away from the kinks of RELU and HARD_SIGMOID so the finite difference is exact.
    x = rng.uniform(-3, 3, size=(2, 6))
    x[np.abs(x) < 0.1] = 0.5
    x[np.abs(np.abs(x) - 2.5) < 0.1] = 1.0
    g = rng.standard_normal(x.shape)
    f = FORWARD[kind]
    r = Runner()
    act = r.tensor(x if kind in TAKES_INPUT else f(x), poplar.FLOAT, "act")
    grad = r.tensor(g, poplar.FLOAT, "grad")
    out = popnn.nonLinearityInputGradient(r.graph, kind, act, grad, r.prog, "grad")
    (got,) = r.run(out)
    np.testing.assert_allclose(got, finite_difference_gradient(f, x, g), rtol=1e-4, atol=1e-5)


def test_scaled_softmax_reports_its_scaling_and_gradient_matches():
    x = rng.uniform(-2, 2, size=(4, 8))
    g = rng.standard_normal(x.shape)
    r = Runner()
    t = r.tensor(x, poplar.FLOAT, "x")
    out, scaling = popnn.nonLinearityWithScaling(r.graph, NLT.SOFTMAX_SCALED, t, r.prog)
    grad = popnn.nonLinearityInputGradient(r.graph, NLT.SOFTMAX_SCALED, out, r.tensor(g, poplar.FLOAT, "g"), r.prog)
    got, got_grad = r.run(out, grad)
    assert scaling > 1
    np.testing.assert_allclose(got, scaling * softmax(x), rtol=1e-5)
    want_grad = finite_difference_gradient(lambda v: scaling * softmax(v), x, g)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-3)
    _, plain_scaling = popnn.nonLinearityWithScaling(r.graph, NLT.RELU, t, r.prog)
    assert plain_scaling == 1


def test_in_place_program_and_compute_set_forms_through_a_view():
    x = rng.uniform(-2, 2, size=(4, 3))
    r = Runner()
    a = r.tensor(x, poplar.FLOAT, "a")
    b = r.tensor(x, poplar.FLOAT, "b")
    popnn.nonLinearityInPlace(r.graph, NLT.TANH, a.transpose(), r.prog)
    cs = r.graph.addComputeSet("relu")
    popnn.nonLinearityInPlace(r.graph, NLT.RELU, b, cs)
    r.prog.add(program.Execute(cs))
    popnn.softmaxStableInPlace(r.graph, b.transpose(), r.prog)
    got_a, got_b = r.run(a, b)
    np.testing.assert_allclose(got_a, np.tanh(x), rtol=1e-6)
    np.testing.assert_allclose(got_b, softmax(np.maximum(x, 0).T).T, rtol=1e-6)


def test_errors_name_the_problem():
    r = Runner()
    ints = r.graph.addVariable(poplar.INT, [4], "ints")
    floats = r.tensor(np.zeros(4), poplar.FLOAT, "floats")
    with pytest.raises(poputil.poplibs_error, match="needs a FLOAT or HALF tensor.*ints"):
        popnn.nonLinearity(r.graph, NLT.RELU, ints, r.prog)
    cs = r.graph.addComputeSet("cs")
    with pytest.raises(poputil.poplibs_error, match="ComputeSet form .* does not support SOFTMAX"):
        popnn.nonLinearityInPlace(r.graph, NLT.SOFTMAX, floats, cs)
    with pytest.raises(poputil.poplibs_error, match="must match in shape and type"):
        popnn.nonLinearityInputGradient(r.graph, NLT.TANH, floats, r.tensor(np.zeros(3), poplar.FLOAT, "g"), r.prog)


def test_non_linearity_type_takes_only_its_members():
    # NonLinearityType(2**30) used to index the table of names: SIGSEGV.
    assert NLT(2) == NLT.RELU
    with pytest.raises(ValueError, match=r"1073741824 is not a valid NonLinearityType \(members: SIGMOID, "):
        NLT(2**30)


# Each named convenience function, its InPlace form and the type it applies.
NAMED = [("sigmoid", "sigmoidInPlace", NLT.SIGMOID), ("relu", "reluInPlace", NLT.RELU),
         ("tanh", "tanhInPlace", NLT.TANH), ("gelu", "geluInPlace", NLT.GELU),
         ("geluErf", "geluErfInPlace", NLT.GELU_ERF), ("swish", "swishInPlace", NLT.SWISH),
         ("softmax", "softmaxInPlace", NLT.SOFTMAX), ("softmaxStable", "softmaxStableInPlace", NLT.SOFTMAX_STABLE),
         ("scaledSoftmaxStable", "scaledSoftmaxStableInPlace", NLT.SOFTMAX_SCALED)]


@pytest.mark.parametrize("name,in_place,kind", NAMED, ids=[n[0] for n in NAMED])
def test_named_functions_and_their_in_place_forms(name, in_place, kind):
    x = rng.uniform(-2, 2, size=(3, 5))
    r = Runner()
    a, b = r.tensor(x, poplar.FLOAT, "a"), r.tensor(x, poplar.FLOAT, "b")
    out = getattr(popnn, name)(r.graph, a, r.prog)
    getattr(popnn, in_place)(r.graph, b, r.prog)
    _, scaling = popnn.nonLinearityWithScaling(r.graph, kind, a, r.prog)
    got_out, got_b = r.run(out, b)
    want = scaling * softmax(x) if kind == NLT.SOFTMAX_SCALED else FORWARD[kind](x)
    np.testing.assert_allclose(got_out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_b, want, rtol=1e-5, atol=1e-6)


def test_cpp_forms_that_report_the_scaling(tmp_path):
    names = ", ".join(f"{{\"{n}\", [&](poplar::Tensor t, float &s) {{ return popnn::{n}(g, t, s, prog); }}, "
                      f"[&](poplar::Tensor t, float &s) {{ popnn::{p}(g, t, s, prog); }}}}" for n, p, _ in NAMED)
    exe = build_program(tmp_path, r'''
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/NonLinearity.hpp>
#include <poputil/TileMapping.hpp>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

// Each named function's scaling forms on x = {-1, 0.5, 2}; prints the name, the scaling
// from both forms, the result and the in-place result.
int main() {
  poplar::IPUModel model;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph g(device.getTarget());
  poplar::program::Sequence prog;
  struct Named {
    const char *name;
    std::function<poplar::Tensor(poplar::Tensor, float &)> apply;
    std::function<void(poplar::Tensor, float &)> inPlace;
  };
  std::vector<Named> named = {@NAMES@};
  poplar::Tensor x = g.addConstant<float>(poplar::FLOAT, {3}, {-1.0f, 0.5f, 2.0f}, "x");
  g.setTileMapping(x, 0);
  std::vector<std::vector<float>> scalings;
  std::vector<poplar::Tensor> results;
  for (std::size_t i = 0; i < named.size(); ++i) {
    float applied = 0, inPlaced = 0;
    results.push_back(named[i].apply(x, applied));
    poplar::Tensor target = g.clone(x, "target");
    prog.add(poplar::program::Copy(x, target));
    named[i].inPlace(target, inPlaced);
    results.push_back(target);
    scalings.push_back({applied, inPlaced});
  }
  float generic = 0, genericInPlace = 0;
  poplar::Tensor viaType = popnn::nonLinearity(g, popnn::NonLinearityType::SOFTMAX_SCALED, x, generic, prog);
  poplar::Tensor inPlaceTarget = g.clone(x, "generic");
  prog.add(poplar::program::Copy(x, inPlaceTarget));
  popnn::nonLinearityInPlace(g, popnn::NonLinearityType::RELU, inPlaceTarget, genericInPlace, prog);
  results.push_back(viaType);
  results.push_back(inPlaceTarget);
  for (std::size_t i = 0; i < results.size(); ++i) g.createHostRead(std::to_string(i), results[i]);
  poplar::Engine engine(g, prog);
  engine.load(device);
  engine.run(0);
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::vector<float> v(3);
    engine.readTensor(std::to_string(i), v.data(), v.data() + 3);
    if (i < 2 * named.size() && i % 2 == 0)
      std::printf("%s %g %g", named[i / 2].name, scalings[i / 2][0], scalings[i / 2][1]);
    else if (i == 2 * named.size())
      std::printf("nonLinearity %g %g", generic, genericInPlace);
    std::printf(" %.7g %.7g %.7g%s", v[0], v[1], v[2], i % 2 ? "\n" : "");
  }
}'''.replace("@NAMES@", names))
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    x = np.array([-1.0, 0.5, 2.0])
    assert len(lines) == len(NAMED) + 1
    for line, (name, _, kind) in zip(lines, NAMED):
        fields = line.split()
        assert fields[0] == name
        scaling, in_place_scaling = float(fields[1]), float(fields[2])
        assert scaling == in_place_scaling and (scaling > 1 if kind == NLT.SOFTMAX_SCALED else scaling == 1)
        want = scaling * softmax(x) if kind == NLT.SOFTMAX_SCALED else FORWARD[kind](x)
        got = np.array(fields[3:], np.float64).reshape(2, 3)
        np.testing.assert_allclose(got, [want, want], rtol=1e-5, atol=1e-6, err_msg=name)
    fields = lines[-1].split()
    generic, generic_in_place = float(fields[1]), float(fields[2])
    assert generic > 1 and generic_in_place == 1
    np.testing.assert_allclose(np.array(fields[3:], np.float64).reshape(2, 3),
                               [generic * softmax(x), np.maximum(x, 0)], rtol=1e-5)


@pytest.mark.parametrize("ptype,tolerance", [(poplar.FLOAT, 1e-6), (poplar.HALF, 2e-3)], ids=["float", "half"])
def test_log_softmax_matches_numpy(ptype, tolerance):
    # Rows far from zero: a naive log(sum(exp(x))) would overflow float and half.
    x = np.random.default_rng(4).normal(size=(2, 3, 5)) * 3 + np.array([0.0, 80.0, -60.0]).reshape(1, 3, 1)
    x = x.astype(ptype.numpy_dtype).astype(np.float64)
    r = Runner()
    t, in_place = r.tensor(x, ptype, "t"), r.tensor(x, ptype, "inPlace")
    out = popnn.logSoftmax(r.graph, t, r.prog, "logSoftmax")
    popnn.logSoftmaxInPlace(r.graph, in_place, r.prog)
    got, got_in_place, unchanged = r.run(out, in_place, t)
    want = x - x.max(axis=-1, keepdims=True)
    want -= np.log(np.exp(want).sum(axis=-1, keepdims=True))
    assert out.elementType() == ptype and out.shape() == [2, 3, 5]
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * 10)
    np.testing.assert_array_equal(got_in_place, got)
    np.testing.assert_array_equal(unchanged, x.astype(ptype.numpy_dtype))
    with pytest.raises(poputil.poplibs_error, match=r"logSoftmax: t 'ints' \[3\] int must be a non-empty FLOAT or HALF"):
        popnn.logSoftmax(r.graph, r.tensor(np.zeros(3), poplar.INT, "ints"), r.prog)


@pytest.mark.parametrize("disable_softmax", [False, True], ids=["softmax", "given"])
def test_spatial_softmax_gives_each_fields_expected_coordinates(disable_softmax):
    fields = np.random.default_rng(5).normal(size=(3, 4, 5)).astype(np.float32).astype(np.float64)
    if disable_softmax:
        fields = np.abs(fields) / np.abs(fields).sum()
    r = Runner()
    coordinates, temperature = popnn.spatialSoftMax2D(r.graph, r.prog, r.tensor(fields, poplar.FLOAT, "fields"),
                                                      0.5, disable_softmax, "ssm")
    got, got_temperature = r.run(coordinates, temperature)
    # fields / temperature, then (unless disabled) one softmax over every element of every
    # field together, as poplibs computes it.
    scaled = fields / 0.5
    p = scaled if disable_softmax else np.exp(scaled - scaled.max()) / np.exp(scaled - scaled.max()).sum()
    ys, xs = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 5), indexing="ij")
    want = np.stack([(p * ys).sum(axis=(1, 2)), (p * xs).sum(axis=(1, 2))], axis=1)
    assert coordinates.shape() == [3, 2] and temperature.shape() == []
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert got_temperature == 0.5
    with pytest.raises(poputil.poplibs_error, match=r"spatialSoftMax2D: fields 'flat' \[4\] float must be a FLOAT"):
        popnn.spatialSoftMax2D(r.graph, r.prog, r.tensor(np.zeros(4), poplar.FLOAT, "flat"), 1.0)
