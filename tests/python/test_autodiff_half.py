"""pd.grad of float16 graphs: every check_grads case of the suite whose function works in
any float dtype, built again in float16 and compared with central differences of the same
function in float32 (float64 sums on the host) at float16's tolerance."""
import numpy as np
import pytest

import popdsl as pd
from popdsl.testing import assert_close, check_grads
from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)
from test_gradient_registry import CHECK_GRADS_CASES

FLOAT32_ONLY = {  # their functions make float32 tensors of their own, which float16 ones do not mix with
    "cast of an integer factor", "astype", "pd.map clamp and cast", "copy", "writes through views",
}


def as_half(a):
    a = np.asarray(a)
    return a.astype(np.float16) if a.dtype.kind == "f" else a


@pytest.mark.parametrize("case", [c for c in CHECK_GRADS_CASES if c not in FLOAT32_ONLY])
def test_a_float16_gradient_matches_float32_finite_differences(case):
    fn, inputs = CHECK_GRADS_CASES[case]
    grads = check_grads(fn, [as_half(a) for a in inputs])
    assert grads  # one per float input, computed in float16


def test_the_backward_is_built_in_float16_and_the_differences_in_float32():
    built = []
    check_grads(lambda a, b: built.append((a.dtype, b.dtype)) or a @ b,
                [as_half(np.ones((2, 3))), as_half(np.ones((3, 2)))])
    assert sorted(built, key=str) == [(pd.float32, pd.float32), (pd.float16, pd.float16)]


def test_a_float16_gradient_summed_over_many_iterations_is_summed_in_float32(ipu_device, session_factory):
    """d/dw of sum over 2000 iterations of x[i] * w is the sum of x's rows: about 1500, where
    float16's spacing is 1, so a float16 running sum would drop most of each 0.75."""
    x = np.random.default_rng(2).uniform(0.5, 1.0, (2000, 4)).astype(np.float16)
    g = pd.Graph(ipu_device)
    tx = g.constant(x, name="x")
    w = g.variable(pd.float16, (4,), name="w", init=np.ones(4, np.float16))
    with pd.Sequence() as main:
        total, i = pd.zero(g.variable(pd.float16, (4,), name="total")), pd.zero(g.variable(pd.uint32, (1,), name="i"))
        with pd.Repeat(len(x)):
            total += tx.at[i].get() * w
            i += 1
        dw = pd.grad(total.sum(), w)
    with session_factory(g, main) as s:
        s.run()
        assert_close(s.read(dw), x.astype(np.float64).sum(0), rtol=1e-3, atol=0)
