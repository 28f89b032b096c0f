"""poputil.graphfn: a body built once on clones of its signature, then called at several
sites with copies in and out (a Function and program.Call, or inlined), against numpy."""
import numpy as np
import pytest

from popdsl import poplar, popops, poputil, program
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
