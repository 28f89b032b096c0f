"""popnn/CTCLoss.hpp (tests/cpp/ctc_loss.cpp) against CTC computed the long way in float64
numpy: every path of classes over the steps is enumerated, collapsed (repeats merged, then
blanks dropped), and those giving the labels are summed."""
import numpy as np

from cpp_build import labelled_array, run_labelled_program
from ctc_reference import log_softmax, path_log_probs, paths_by_labelling, sine_data

MAX_TIME, BATCH, CLASSES, BLANK = 6, 3, 4, 0
LABELS = [[1, 2], [3, 3], [1, 2, 3]]
DATA_LENGTHS = [6, 5, 2]  # the last entry is too short for its three labels


def loss_and_occupancy(log_y, labels):
    """-log P(labels) and, for each step and class, the share of P whose path is at that
    class then (the gradient of the loss with respect to log_y is minus this)."""
    steps = log_y.shape[0]
    paths = paths_by_labelling(steps, CLASSES, BLANK).get(tuple(labels))
    if paths is None:
        return np.inf, np.zeros_like(log_y)
    log_p = path_log_probs(log_y, paths)
    total = np.logaddexp.reduce(log_p)
    share = np.exp(log_p - total)
    occupancy = np.zeros_like(log_y)
    for t in range(steps):
        np.add.at(occupancy[t], paths[:, t], share)
    return -total, occupancy


def test_ctc_loss_and_gradients_match_every_alignment_summed(tmp_path):
    out = run_labelled_program(tmp_path, "ctc_loss")[0]

    data = sine_data((MAX_TIME, BATCH, CLASSES), 1.5, 0.7, 0.3)
    log_probs = log_softmax(data)
    want = {name: np.zeros(BATCH) for name in ["logits", "log probabilities"]}
    grad = {name: np.zeros_like(data) for name in want}
    for b in range(BATCH):
        steps = DATA_LENGTHS[b]
        # From logits: the log-softmaxed data; the gradient by the chain rule through the
        # log-softmax is softmax - occupancy (the occupancies of a step sum to 1).
        loss, occupancy = loss_and_occupancy(log_probs[:steps, b], LABELS[b])
        want["logits"][b] = loss
        grad["logits"][:steps, b] = np.exp(log_probs[:steps, b]) - occupancy if np.isfinite(loss) else \
            np.exp(log_probs[:steps, b])
        # From "log probabilities" (the data as given, not normalised), without the softmax
        # gradient and with infinite losses zeroed: minus the occupancy.
        loss, occupancy = loss_and_occupancy(data[:steps, b], LABELS[b])
        want["log probabilities"][b] = loss if np.isfinite(loss) else 0.0
        grad["log probabilities"][:steps, b] = -occupancy
    assert np.isinf(want["logits"][2])
    for name in want:
        np.testing.assert_allclose(labelled_array(out, f"{name} loss", (BATCH,)), want[name], rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(labelled_array(out, f"{name} loss alone", (BATCH,)), want[name], rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(labelled_array(out, f"{name} gradient", data.shape), grad[name], rtol=1e-4, atol=1e-6,
                                   err_msg=name)
    assert out["plan"] == ("CTC plan: inType float, outType float, partialsType float, batchSize 3, maxTime 6, "
                           "maxLabelLength 3, numClasses 4")
    assert out["plans compare"] == "11111"
    assert out["bad option"] == "Invalid value 'yes' for option 'zeroInfinity': expected true or false"
    assert out["bad blank"] == "calcCTCLossLogits: blankClass 4 is not one of the 4 classes"
    assert out["bad plan"].startswith("calcCTCLossLogits: the data [6,3,4] does not fit the plan")
    assert out["bad plan option"] == ("Invalid value '1.5' for option 'availableMemoryProportion': expected a "
                                      "number in [0, 1]")
