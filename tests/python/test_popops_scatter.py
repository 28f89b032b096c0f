"""popops/Scatter.hpp (tests/cpp/scatter.cpp): XLA's scatter, replacing and combining,
against a float64 numpy scatter written from XLA's definition."""
import numpy as np

from cpp_build import labelled_array, run_labelled_program


def xla_scatter(operand, indices, updates, index_vector_dim, update_window_dims, insert_window_dims,
                to_operand, combine=None, remap=False, padding=False):
    """XLA's scatter, one scatter index after another: the window of each starts where its
    index vector says; a window that does not fit is skipped (or starts at 0 with remap); an
    index equal to its dimension's size is skipped with padding."""
    out = operand.astype(np.float64).copy()
    vectors = indices[..., None] if index_vector_dim == indices.ndim else np.moveaxis(indices, index_vector_dim, -1)
    scatter_dims = [d for d in range(updates.ndim) if d not in update_window_dims]
    windows = np.moveaxis(updates.astype(np.float64), scatter_dims, list(range(len(scatter_dims))))
    kept = [d for d in range(out.ndim) if d not in insert_window_dims]
    for batch in np.ndindex(*vectors.shape[:-1]):
        window = windows[batch]
        window = window.reshape([1 if d in insert_window_dims else window.shape[kept.index(d)]
                                 for d in range(out.ndim)])
        start, skip = [0] * out.ndim, False
        for k, d in enumerate(to_operand):
            v, extent = int(vectors[batch][k]), out.shape[d]
            if padding and v == extent:
                skip = True
            elif 0 <= v <= extent - window.shape[d]:
                start[d] = v
            elif not remap:
                skip = True
        if not skip:
            where = tuple(slice(s, s + n) for s, n in zip(start, window.shape))
            out[where] = window if combine is None else combine(out[where], window)
    return out


def ramp(n, offset=0.0):
    return np.arange(n) * 0.5 + offset


def test_scatter_replaces_and_combines_windows_as_xla_defines(tmp_path):
    out = run_labelled_program(tmp_path, "scatter")[0]

    rows = ramp(15).reshape(5, 3)
    for name, idx in [("rows", [3, 1]), ("rows repeated and out of bounds", [4, 7, 4])]:
        updates = ramp(3 * len(idx), 100).reshape(len(idx), 3)
        want = xla_scatter(rows, np.array(idx), updates, 1, [1], [0], [0])
        np.testing.assert_allclose(labelled_array(out, name, (5, 3)), want, rtol=1e-6, err_msg=name)
    # The later of two updates of row 4 wins; row 7 does not fit and is skipped.
    np.testing.assert_allclose(labelled_array(out, "rows repeated and out of bounds", (5, 3))[4], ramp(9, 100)[6:])
    updates = ramp(6, 100).reshape(2, 3)
    for name, flags in [("remapOutOfBoundIndices", dict(remap=True)), ("paddingIndexUsed", dict(padding=True))]:
        want = xla_scatter(rows, np.array([7, 5]), updates, 1, [1], [0], [0], **flags)
        np.testing.assert_allclose(labelled_array(out, name, (5, 3)), want, rtol=1e-6, err_msg=name)
    # Remapped, both 7 and 5 start at row 0 (the second wins); as padding, 5 is skipped and 7 too.
    np.testing.assert_allclose(labelled_array(out, "remapOutOfBoundIndices", (5, 3))[0], updates[1])
    np.testing.assert_allclose(labelled_array(out, "paddingIndexUsed", (5, 3)), rows)

    indices = np.array([0, 1, 3, 0, 1, 0]).reshape(2, 3)
    updates = ramp(12, 10).reshape(2, 2, 3)
    want = xla_scatter(ramp(16).reshape(4, 4), indices, updates, 0, [0, 1], [], [0, 1], combine=np.add)
    np.testing.assert_allclose(labelled_array(out, "windows added", (4, 4)), want, rtol=1e-6)
    assert want[1, 1] == 2.5 + updates[1, 1, 0] + updates[0, 0, 1]  # the overlap adds both windows

    assert out["bad window dims"] == ("scatter into 'bad' [5,3] float: updateWindowDims and insertWindowDims together must "
                                      "have one entry per operand dimension")
    assert "scatter dimensions [3] must be the batch dimensions of indices [2]" in out["bad batch"]
    assert out["bad option"] == "Invalid value 'maybe' for option 'paddingIndexUsed': expected true or false"
    assert "the update computation returned" in out["bad computation"]
