"""popnn/experimental/ROIAlign.hpp (tests/cpp/roi_align.cpp) against ONNX's RoiAlign
(average mode) written out in float64 numpy, and its gradient as that map's adjoint."""
import numpy as np

from cpp_build import run_labelled_program

ROIS = np.array([[0.5, 1.0, 4.0, 3.5], [-1.5, -0.5, 2.0, 6.0], [1.0, 1.0, 1.2, 1.1], [0.0, 0.0, 2.0, 2.0]])
BATCH_INDEX = [1, 0, 1, 5]  # the last is not in the batch: it pools zeros


def sample_weights(roi, height, width, pooled_h, pooled_w, sampling, aligned, scale):
    """[pooled_h * pooled_w][height * width]: each bin's mean of bilinear samples."""
    offset = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = np.asarray(roi, np.float64) * scale - offset
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:
        roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
    bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
    grid_h = sampling or int(np.ceil(bin_h))
    grid_w = sampling or int(np.ceil(bin_w))
    count = max(grid_h * grid_w, 1)
    weights = np.zeros((pooled_h * pooled_w, height * width))
    for ph in range(pooled_h):
        for pw in range(pooled_w):
            for iy in range(grid_h):
                for ix in range(grid_w):
                    y = y1 + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                    x = x1 + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                    if y < -1 or y > height or x < -1 or x > width:
                        continue
                    y, x = max(y, 0.0), max(x, 0.0)
                    y0, x0 = int(y), int(x)
                    y1_, x1_ = y0 + 1, x0 + 1
                    if y0 >= height - 1:
                        y0 = y1_ = height - 1
                        y = float(y0)
                    if x0 >= width - 1:
                        x0 = x1_ = width - 1
                        x = float(x0)
                    ly, lx = y - y0, x - x0
                    for yy, xx, w in [(y0, x0, (1 - ly) * (1 - lx)), (y0, x1_, (1 - ly) * lx),
                                      (y1_, x0, ly * (1 - lx)), (y1_, x1_, ly * lx)]:
                        weights[ph * pooled_w + pw, yy * width + xx] += w / count
    return weights


def test_roi_align_pools_and_its_gradient_is_the_adjoint(tmp_path):
    out = run_labelled_program(tmp_path, "roi_align")[0]
    data = (3 * np.sin(0.37 * np.arange(2 * 2 * 5 * 6).astype(np.float32))).astype(np.float64).reshape(2, 2, 5, 6)
    for name, (sampling, ph, pw, aligned, scale) in [("aligned", (2, 2, 3, True, 1.0)),
                                                      ("adaptive", (0, 3, 2, False, 0.5))]:
        pooled = np.zeros((4, 2, ph, pw))
        top = (0.25 * np.arange(pooled.size) - 1).reshape(pooled.shape)
        gradient = np.zeros_like(data)
        for r, n in enumerate(BATCH_INDEX):
            if n >= 2:
                continue
            w = sample_weights(ROIS[r], 5, 6, ph, pw, sampling, aligned, scale)
            pooled[r] = (data[n].reshape(2, 30) @ w.T).reshape(2, ph, pw)
            gradient[n] += (top[r].reshape(2, ph * pw) @ w).reshape(2, 5, 6)
        got_pooled = np.array(out[f"{name} pooled"].split(), dtype=float).reshape(pooled.shape)
        got_gradient = np.array(out[f"{name} gradient"].split(), dtype=float).reshape(data.shape)
        np.testing.assert_allclose(got_pooled, pooled, rtol=1e-5, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(got_gradient, gradient, rtol=1e-5, atol=1e-5, err_msg=name)
        # The adjoint identity <pool(x), top> = <x, gradient(top)> holds for what was computed.
        assert np.isclose(np.sum(got_pooled * top), np.sum(data * got_gradient), rtol=1e-4)
        assert np.all(got_pooled[3] == 0)
    assert out["bad data"].startswith("roiAlignFwd: bottomData 'data' [120] float must be FLOAT or HALF [N][C][H][W]")
