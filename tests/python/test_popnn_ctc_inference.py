"""popnn/CTCInference.hpp (tests/cpp/ctc_inference.cpp): beam-search decoding against the
probability of every labelling, summed over every alignment enumerated in float64 numpy."""
import numpy as np

from cpp_build import labelled_array, run_labelled_program
from ctc_reference import log_softmax, path_log_probs, paths_by_labelling, sine_data

MAX_TIME, BATCH, CLASSES, BLANK = 4, 2, 3, 2
DATA_LENGTHS = [4, 3]


def labelling_log_probs(log_y):
    """{labelling: log of the summed probability of the paths that collapse to it}."""
    return {labelling: np.logaddexp.reduce(path_log_probs(log_y, paths))
            for labelling, paths in paths_by_labelling(log_y.shape[0], CLASSES, BLANK).items()}


def test_beam_search_finds_the_most_probable_labellings(tmp_path):
    out = run_labelled_program(tmp_path, "ctc_inference")[0]

    data = sine_data((MAX_TIME, BATCH, CLASSES), 2, 1.3, 0.5)
    log_probs = log_softmax(data)
    for name, inputs in [("wide logits", log_probs), ("wide log probabilities", data)]:
        probs, lengths = labelled_array(out, f"{name} probs", (BATCH, 3)), labelled_array(out, f"{name} lengths", (BATCH, 3))
        labels = labelled_array(out, f"{name} labels", (BATCH, 3, MAX_TIME))
        for b in range(BATCH):
            found = labelling_log_probs(inputs[:DATA_LENGTHS[b], b])
            best = sorted(found.items(), key=lambda item: -item[1])[:3]
            for path, (labelling, log_p) in enumerate(best):
                n = int(lengths[b, path])
                assert tuple(labels[b, path, :n].astype(int)) == labelling, (name, b, path)
                assert np.all(labels[b, path, n:] == BLANK)
                np.testing.assert_allclose(probs[b, path], -log_p, rtol=1e-5, err_msg=name)
    # A narrow beam keeps fewer alignments: its probabilities are at most the exact ones.
    narrow, narrow_lengths = labelled_array(out, "narrow logits probs", (BATCH, 2)), labelled_array(out, "narrow logits lengths", (BATCH, 2))
    narrow_labels = labelled_array(out, "narrow logits labels", (BATCH, 2, MAX_TIME))
    for b in range(BATCH):
        found = labelling_log_probs(log_probs[:DATA_LENGTHS[b], b])
        assert narrow[b, 0] <= narrow[b, 1]
        for path in range(2):
            labelling = tuple(narrow_labels[b, path, :int(narrow_lengths[b, path])].astype(int))
            assert narrow[b, path] >= -found[labelling] - 1e-5
    assert out["plan"].endswith("numClasses 3, beamwidth 40")
    assert out["too many paths"] == "beamSearchDecoderLogits: topPaths 3 must be between 1 and beamwidth 2"
    assert out["bad option"] == "Unrecognised option 'x'"
