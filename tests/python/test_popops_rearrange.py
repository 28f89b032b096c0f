"""popops/Rearrange.hpp (tests/cpp/rearrange.cpp): every regrouping returns its input's
contents and shape; regroupTensor adds one copy (none for a one-dimensional tensor)."""
import numpy as np

from cpp_build import run_labelled_program


def test_regrouping_keeps_contents_and_shapes(tmp_path):
    out = run_labelled_program(tmp_path, "rearrange")[0]
    assert out["copies"] == "1 0 0"
    assert out["shapes"] == "4x6 4x6 4x6 4x6 4x6 4x6 1"
    assert out["bad grouping"] == "regroupTensor: grouping from (dimension 1, 4 elements) does not divide the tensor"
    t = np.arange(24) * 0.5 - 3.0
    contents = np.array(out["contents"].split(), dtype=float)
    np.testing.assert_array_equal(contents[:7 * 24], np.tile(t, 7))


def test_transpositions_and_the_fast_transposition_rules(tmp_path):
    """partialTranspose swaps the innermost two dimensions; addTransposeVertices transposes
    each indexed rows x cols matrix; the grain sizes and fast-codelet answers follow the
    element sizes (8 for one byte, 4 for two, 2 for four) and the limits the header states."""
    out = run_labelled_program(tmp_path, "rearrange")[0]
    t = np.arange(24) * 0.5 - 3.0
    contents = np.array(out["contents"].split(), dtype=float)[7 * 24:]
    assert out["partial shape"] == "[2,4,3]"
    np.testing.assert_array_equal(contents[:24], np.swapaxes(t.reshape(2, 3, 4), 1, 2).ravel())
    np.testing.assert_array_equal(contents[24:], np.concatenate([m.T.ravel() for m in t.reshape(4, 2, 3)]))
    assert out["bad matrices"] == ("addTransposeVertices: transposition 0's input 't' [6] float must be 4 "
                                   "float elements, flattened")
    assert out["grain sizes"] == "8 4 4 2 2 1"
    # 16-bit 8x4 and 4x12; float; 6 rows; quarter 16x8 and 4x8; too many; too many blocks.
    assert out["fast"] == "1 1 0 0 1 0 0 0"
