"""poplin/experimental's LU and QR factorizations (tests/cpp/factorizations.cpp) against
float64 numpy: Doolittle elimination written out here for LU, LAPACK's Householder QR."""
import numpy as np

from cpp_build import labelled_array, run_labelled_program


def entries(rows, columns, diagonal):
    i, j = np.meshgrid(np.arange(rows), np.arange(columns), indexing="ij")
    return np.sin(1.0 + 3.0 * i + 7.0 * j) + diagonal * (i == j)


def doolittle(a):
    """L (unit lower triangular) and U with a = L U, eliminating column by column without
    pivoting."""
    rows, columns = a.shape
    lower, upper = np.eye(rows), a.astype(np.float64).copy()
    for k in range(min(rows, columns)):
        for i in range(k + 1, rows):
            lower[i, k] = upper[i, k] / upper[k, k]
            upper[i] -= lower[i, k] * upper[k]
    return lower, upper


def test_lu_and_qr_factorizations_match_numpy(tmp_path):
    out = run_labelled_program(tmp_path, "factorizations")[0]

    for rows, columns in [(4, 3), (3, 5)]:
        a = entries(rows, columns, 3.0).astype(np.float16).astype(np.float64)  # the HALF input
        lower, upper = labelled_array(out, f"lu {rows}x{columns} L", (rows, rows)), labelled_array(out, f"lu {rows}x{columns} U", (rows, columns))
        want_lower, want_upper = doolittle(a)
        np.testing.assert_allclose(lower, want_lower, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(upper, want_upper, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(lower @ upper, a, atol=1e-5)
        assert np.all(np.triu(lower, 1) == 0) and np.all(np.diag(lower) == 1) and np.all(np.tril(upper, -1) == 0)

    a = entries(5, 3, 2.0)  # full rank (the sines alone have rank 2), so Q is unique
    q_want, r_want = np.linalg.qr(a, mode="complete")
    r, q = labelled_array(out, "qr R", (5, 3)), labelled_array(out, "qr Q", (5, 5))
    np.testing.assert_allclose(r, r_want, atol=1e-5)
    np.testing.assert_allclose(q, q_want, atol=1e-5)
    np.testing.assert_allclose(q @ r, a, atol=1e-5)
    np.testing.assert_allclose(q.T @ q, np.eye(5), atol=1e-5)
    assert out["qr types"] == "float [5,3] [5,5]"
    assert out["wide qr"] == ("createQRFactorizationMatrices: A must have at least as many rows as columns, and "
                              "some columns; got 2 x 3")
    assert out["bad option"] == "Invalid value '0' for option 'rowsPerIteration': expected a positive integer"
    assert out["wrong Q"].startswith("QRFactorization: Q ")
    assert out["lu of a vector"] == "LUFactorization: input 'vector' [4] float must be a FLOAT or HALF matrix"
