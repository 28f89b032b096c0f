"""poputil.graphfn: a body built once on clones of its signature, then called at several
sites with copies in and out (a Function and program.Call, or inlined), against numpy."""
import subprocess

import numpy as np
import pytest

from popdsl import poplar, popops, poputil, program
from cpp_build import build_program
from raw_runner import Runner

graphfn = poputil.graphfn
rng = np.random.default_rng(3)


@pytest.mark.parametrize("inlined", [False, True])
def test_void_function_body_is_built_once_and_each_call_site_gets_its_own_results(inlined):
    x1, x2 = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (2, 3))
    acc1, acc2 = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (2, 3))
    r = Runner()
    g = r.graph
    tx1, tx2 = r.tensor(x1, poplar.FLOAT, "x1"), r.tensor(x2, poplar.FLOAT, "x2")
    tacc1, tacc2 = r.tensor(acc1, poplar.FLOAT, "acc1"), r.tensor(acc2, poplar.FLOAT, "acc2")
    outs = [r.tensor(np.zeros((2, 3)), poplar.FLOAT, f"out{i}") for i in range(3)]
    builds = []

    def body(args, seq):
        builds.append(len(args))
        x, acc, out = args
        popops.mulWithOutput(g, x, 2.0, out, seq)  # out = 2x
        popops.addInPlace(g, acc, x, seq)  # acc += x

    sig = [graphfn.input(tx1, "x"), graphfn.inout(tacc1, "acc"), graphfn.output(outs[0], "out")]
    assert [s.type for s in sig] == [graphfn.InputArg, graphfn.InOutArg, graphfn.OutputArg]
    assert sig[0].similarTensor == tx1 and sig[1].debugName == "acc"
    fn = graphfn.VoidFunction(g, sig, body, inlined)
    for args in ([tx1, tacc1, outs[0]], [tx2, tacc2, outs[1]], [tx1, tacc2, outs[2]]):
        fn(args, r.prog)
    got = r.run(tacc1, tacc2, *outs)
    assert builds == [3]
    for value, want in zip(got, [acc1 + x1, acc2 + x2 + x1, 2 * x1, 2 * x2, 2 * x1]):
        np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-6)


def test_created_arguments_are_fresh_tensors_per_call():
    x1, x2 = rng.uniform(-1, 1, (4,)), rng.uniform(-1, 1, (4,))
    r = Runner()
    tx1, tx2 = r.tensor(x1, poplar.FLOAT, "x1"), r.tensor(x2, poplar.FLOAT, "x2")

    def body(args, seq):
        args[1] = popops.exp(r.graph, args[0], seq)

    sig = [graphfn.input(tx1), graphfn.created("e")]
    assert sig[1].type == graphfn.CreatedArg and sig[1].debugName == "e"
    fn = graphfn.VoidFunction(r.graph, sig, body)
    first = fn([tx1, None], r.prog)[1]
    second = fn([tx2, None], r.prog)[1]
    got_first, got_second = r.run(first, second)
    np.testing.assert_allclose(got_first, np.exp(x1), rtol=1e-6)
    np.testing.assert_allclose(got_second, np.exp(x2), rtol=1e-6)


def test_tensor_function_returns_a_result_per_call():
    a, b = rng.uniform(-1, 1, (3,)), rng.uniform(-1, 1, (3,))
    r = Runner()
    ta, tb = r.tensor(a, poplar.FLOAT, "a"), r.tensor(b, poplar.FLOAT, "b")
    builds = []

    def body(args, seq):
        builds.append(1)
        return popops.sub(r.graph, args[0], args[1], seq)

    fn = graphfn.TensorFunction(r.graph, [graphfn.input(ta), graphfn.input(tb)], body)
    ab, ba, aa = fn([ta, tb], r.prog), fn([tb, ta], r.prog), fn([ta, ta], r.prog)
    got = r.run(ab, ba, aa)
    assert builds == [1]
    for value, want in zip(got, [a - b, b - a, np.zeros(3)]):
        np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-7)


def test_program_function_gives_a_program_per_call_that_can_run_repeatedly():
    counts = np.array([0, 10, 20], np.uint32)
    r = Runner()
    t = r.tensor(counts, poplar.UNSIGNED_INT, "t")
    other = r.tensor(counts * 2, poplar.UNSIGNED_INT, "other")

    def body(args):
        seq = program.Sequence()
        popops.addInPlace(r.graph, args[0], 1, seq)
        return seq

    fn = graphfn.ProgramFunction(r.graph, [graphfn.inout(t)], body)
    r.prog.add(program.Repeat(3, fn([t])))
    r.prog.add(fn([other]))
    got_t, got_other = r.run(t, other)
    np.testing.assert_array_equal(got_t, counts + 3)
    np.testing.assert_array_equal(got_other, counts * 2 + 1)


def test_misuse_names_the_problem():
    r = Runner()
    t = r.tensor(np.zeros(3), poplar.FLOAT, "t")
    fn = graphfn.VoidFunction(r.graph, [graphfn.input(t)], lambda args, seq: None)
    with pytest.raises(poputil.poplibs_error, match=r"called with 2 argument\(s\); its signature has 1"):
        fn([t, t], r.prog)
    wrong = r.tensor(np.zeros(4), poplar.FLOAT, "wrong")
    with pytest.raises(poputil.poplibs_error, match=r"argument 0 is float\[4\]; the signature expects float\[3\]"):
        fn([wrong], r.prog)
    with pytest.raises(poputil.poplibs_error, match="did not set created argument 1"):
        graphfn.VoidFunction(r.graph, [graphfn.input(t), graphfn.created()], lambda args, seq: None)
    with pytest.raises(ZeroDivisionError):
        graphfn.VoidFunction(r.graph, [graphfn.input(t)], lambda args, seq: 1 / 0)


CPP_PROGRAM = r'''
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <poputil/GraphFunction.hpp>
#include <poputil/TileMapping.hpp>
#include <cstdio>
#include <string>
#include <vector>

using namespace poputil::graphfn;

// The C++ forms whose bodies also receive the function's DebugNameAndId, with an ArgSig
// built directly and a Signature.
int main() {
  poplar::IPUModel model;
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph g(device.getTarget());
  poplar::Tensor x = g.addConstant<float>(poplar::FLOAT, {3}, {1, 2, 3}, "x");
  g.setTileMapping(x, 0);
  poplar::Tensor y = g.addVariable(poplar::FLOAT, {3}, "y");
  poputil::mapTensorLinearly(g, y);
  std::string names;
  Signature sig = {ArgSig(InputArg, x, "in"), output(y, "out")};
  VoidFunction twice(g, sig,
                     [&](std::vector<poplar::Tensor> &args, poplar::program::Sequence &seq,
                         const poplar::DebugNameAndId &dnai) {
                       names += dnai.getPathName() + ";";
                       popops::mulWithOutput(g, args[0], 2.0f, args[1], seq);
                     },
                     false, "twice");
  TensorFunction plusOne(g, {input(x)},
                         [&](std::vector<poplar::Tensor> &args, poplar::program::Sequence &seq,
                             const poplar::DebugNameAndId &dnai) {
                           names += dnai.getPathName() + ";";
                           return popops::add(g, args[0], 1.0f, seq);
                         },
                         true, "plusOne");
  ProgramFunction square(g, {inout(y)},
                         [&](std::vector<poplar::Tensor> &args, const poplar::DebugNameAndId &dnai) {
                           names += dnai.getPathName() + ";";
                           poplar::program::Sequence seq;
                           popops::squareInPlace(g, args[0], seq);
                           return seq;
                         },
                         false, "square");
  poplar::program::Sequence prog;
  std::vector<poplar::Tensor> args = {x, y};
  twice(args, prog);
  std::vector<poplar::Tensor> one = {x};
  poplar::Tensor z = plusOne(one, prog);
  std::vector<poplar::Tensor> squared = {y};
  prog.add(square(squared));
  g.createHostRead("y", y);
  g.createHostRead("z", z);
  poplar::Engine engine(g, prog);
  engine.load(device);
  engine.run(0);
  std::vector<float> hy(3), hz(3);
  engine.readTensor("y", hy.data(), hy.data() + 3);
  engine.readTensor("z", hz.data(), hz.data() + 3);
  std::printf("%s\n%g %g %g\n%g %g %g\n", names.c_str(), hy[0], hy[1], hy[2], hz[0], hz[1], hz[2]);
}
'''


def test_cpp_bodies_receive_the_debug_name_and_id(tmp_path):
    exe = build_program(tmp_path, CPP_PROGRAM)
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.splitlines()
    assert lines == ["twice;plusOne;square;", "4 16 36", "2 3 4"]
