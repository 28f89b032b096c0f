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
    np.testing.assert_array_equal(np.array(out["contents"].split(), dtype=float), np.tile(t, 7))
