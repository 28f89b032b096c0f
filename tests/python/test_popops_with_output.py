"""popops *WithOutput forms (tensor and scalar operands) and the variance/inverse
standard deviation conversions, against float64 numpy."""
import numpy as np
import pytest

from popdsl import poplar, popops, poputil
from cpp_build import check_syntax, run_labelled_program
from raw_runner import Runner

rng = np.random.default_rng(11)


def test_binary_with_output_takes_scalars_on_either_side():
    a = rng.uniform(1, 2, size=(3, 4))
    r = Runner()
    ta = r.tensor(a, poplar.FLOAT, "a")
    outs = [r.tensor(np.zeros((3, 4)), poplar.FLOAT, f"o{i}") for i in range(4)]
    popops.subWithOutput(r.graph, ta, 0.5, outs[0], r.prog)
    popops.subWithOutput(r.graph, 0.5, ta, outs[1], r.prog)
    popops.powWithOutput(r.graph, ta, ta, outs[2], r.prog)
    popops.sqrtWithOutput(r.graph, ta, outs[3], r.prog)
    got = r.run(*outs)
    for g, want in zip(got, [a - 0.5, 0.5 - a, a ** a, np.sqrt(a)]):
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_select_and_clamp_with_output():
    a, b = rng.uniform(-2, 2, size=(2, 5)), rng.uniform(-2, 2, size=(2, 5))
    r = Runner()
    ta, tb = r.tensor(a, poplar.FLOAT, "a"), r.tensor(b, poplar.FLOAT, "b")
    cond = r.tensor(a > b, poplar.BOOL, "c")
    lo, hi = r.tensor(np.full((2, 5), -1.0), poplar.FLOAT, "lo"), r.tensor(np.full((2, 5), 1.0), poplar.FLOAT, "hi")
    selected, clamped = r.tensor(np.zeros((2, 5)), poplar.FLOAT, "s"), r.tensor(np.zeros((2, 5)), poplar.FLOAT, "k")
    popops.selectWithOutput(r.graph, ta, tb, cond, selected, r.prog)
    popops.clampWithOutput(r.graph, ta, lo, hi, clamped, r.prog)
    got_selected, got_clamped = r.run(selected, clamped)
    np.testing.assert_allclose(got_selected, np.maximum(a, b).astype(np.float32))
    np.testing.assert_allclose(got_clamped, np.clip(a, -1, 1).astype(np.float32))


def test_variance_and_inverse_standard_deviation():
    variance = rng.uniform(0.1, 4.0, size=(6,))
    r = Runner()
    v = r.tensor(variance, poplar.FLOAT, "v")
    eps = r.tensor(np.array(0.01), poplar.FLOAT, "eps")
    inv_half = popops.varianceToInvStdDev(r.graph, v, eps, r.prog)  # HALF by default
    inv_float = popops.varianceToInvStdDev(r.graph, v, 0.01, r.prog, poplar.FLOAT)
    back = popops.invStdDevToVariance(r.graph, inv_float, 0.01, r.prog)  # FLOAT by default
    back_from_half = popops.invStdDevToVariance(r.graph, inv_half, eps, r.prog)
    assert inv_half.elementType() == poplar.HALF and back.elementType() == poplar.FLOAT
    got = r.run(inv_half, inv_float, back, back_from_half)
    want_inv = 1 / np.sqrt(variance + 0.01)
    np.testing.assert_allclose(got[0], want_inv, rtol=1e-3)
    np.testing.assert_allclose(got[1], want_inv, rtol=1e-6)
    np.testing.assert_allclose(got[2], variance, rtol=1e-5)
    np.testing.assert_allclose(got[3], 1 / got[0].astype(np.float64) ** 2 - 0.01, rtol=1e-5)
    with pytest.raises(poputil.poplibs_error, match="varianceToInvStdDev: the destination type int must be FLOAT or HALF"):
        popops.varianceToInvStdDev(r.graph, v, 0.01, r.prog, poplar.INT)


def test_scalar_with_output_templates_compile_for_cpp_users(tmp_path):
    """The C++ scalar overloads are templates: instantiate them as user code would."""
    check_syntax(tmp_path, r'''
#include <popops/ElementWise.hpp>
void use(poplar::Graph &g, const poplar::Tensor &t, const poplar::Tensor &out, poplar::program::Sequence &p) {
  popops::addWithOutput(g, t, 1.5f, out, p);
  popops::mulWithOutput(g, 2, t, out, p, "scaled");
  popops::varianceToInvStdDev(g, t, 1e-5f, p);
}''')


def test_variance_binary_ops_in_every_form(tmp_path):
    """tests/cpp/variance_ops.cpp: the generated binary forms keep the operands' type (FLOAT)
    and compute invStdDevToVariance(a, b) = 1 / a^2 - b, varianceToInvStdDev(a, b) =
    1 / sqrt(a + b), with a scalar on either side."""
    out = run_labelled_program(tmp_path, "variance_ops")[0]
    a, b = np.array([0.5, 1.0, 2.0, 4.0]), np.array([0.25, 0.0, 0.125, 1.0])
    def inv_to_var(x, y):
        return 1 / x ** 2 - y
    def var_to_inv(x, y):
        return 1 / np.sqrt(x + y)
    want = {"inv to var": inv_to_var(a, b), "inv to var scalar": inv_to_var(a, 0.5),
            "scalar inv to var": inv_to_var(2.0, b), "var to inv": var_to_inv(a, b),
            "var to inv scalar": var_to_inv(a, 0.5), "scalar var to inv": var_to_inv(3.0, b),
            "inv to var in place": inv_to_var(a, b), "var to inv in place scalar": var_to_inv(a, 1.0)}
    for name in list(want):
        if "in place" not in name:
            want[name + " out"] = want[name]
    assert len(out) == len(want) == 14
    for name, values in want.items():
        np.testing.assert_allclose(np.array(out[name].split(), dtype=float), values, rtol=1e-5, err_msg=name)
