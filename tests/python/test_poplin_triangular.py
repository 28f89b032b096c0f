"""poplin/Cholesky.hpp and poplin/TriangularSolve.hpp (tests/cpp/triangular.cpp) against
numpy's Cholesky factor and a float64 solve of the masked triangle."""
import numpy as np
import pytest

from cpp_build import run_labelled_program
from recurrent_reference import values

B, N, K = 2, 4, 3


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    lines = run_labelled_program(tmp_path_factory.mktemp("triangular"), "triangular")[0]
    return {k: np.array(v.split(), dtype=np.float64) for k, v in lines.items()}


def spd():
    m = values((B, N, N), 0.1, 1.0)
    return m @ m.transpose(0, 2, 1) + 4 * np.eye(N)


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_factor_and_in_place_match_numpy(out, lower):
    factor = np.linalg.cholesky(spd())  # lower, L L^T = a
    if not lower:
        factor = factor.transpose(0, 2, 1)
    got = out[f"cholesky {'lower' if lower else 'upper'}"]
    np.testing.assert_allclose(got, np.concatenate([factor.ravel()] * 2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("left", [0, 1])
@pytest.mark.parametrize("lower", [0, 1])
@pytest.mark.parametrize("unit", [0, 1])
def test_triangular_solve_and_mask_match_numpy(out, left, lower, unit):
    a = values((B, N, N), 0.3, 1.0) + 3 * np.eye(N)
    b = values((B, N, K) if left else (B, K, N), 0.5, 1.0)
    t = np.tril(a, -1) if lower else np.triu(a, 1)
    t = t + np.eye(N) * (1.0 if unit else np.diagonal(a, axis1=1, axis2=2)[:, :, None])
    x = np.linalg.solve(t, b) if left else np.linalg.solve(t.transpose(0, 2, 1), b.transpose(0, 2, 1)).transpose(
        0, 2, 1)
    np.testing.assert_allclose(out[f"solve {left}{lower}{unit}"], np.concatenate([x.ravel(), t.ravel()]),
                               rtol=1e-4, atol=1e-5)
