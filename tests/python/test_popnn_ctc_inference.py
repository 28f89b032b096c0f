"""popnn/CTCInference.hpp (tests/cpp/ctc_inference.cpp): beam-search decoding against the
probability of every labelling, summed over every alignment enumerated in float64 numpy."""
import itertools

import numpy as np

from cpp_build import run_labelled_program

MAX_TIME, BATCH, CLASSES, BLANK = 4, 2, 3, 2
DATA_LENGTHS = [4, 3]


def labelling_log_probs(log_y):
    """{labelling: log of the summed probability of the paths that collapse to it}."""
    found = {}
    for path in itertools.product(range(CLASSES), repeat=log_y.shape[0]):
        merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        labels = tuple(k for k in merged if k != BLANK)
        log_p = sum(log_y[t, k] for t, k in enumerate(path))
        found[labels] = np.logaddexp(found.get(labels, -np.inf), log_p)
    return found


def test_beam_search_finds_the_most_probable_labellings(tmp_path):
    out = run_labelled_program(tmp_path, "ctc_inference")[0]

    def got(name, shape):
        return np.array(out[name].split(), dtype=float).reshape(shape)

    data = (2 * np.sin(1.3 * np.arange(MAX_TIME * BATCH * CLASSES, dtype=np.float32) + np.float32(0.5))
            ).astype(np.float64).reshape(MAX_TIME, BATCH, CLASSES)
    log_softmax = data - np.logaddexp.reduce(data, axis=2, keepdims=True)
    for name, inputs in [("wide logits", log_softmax), ("wide log probabilities", data)]:
        probs, lengths = got(f"{name} probs", (BATCH, 3)), got(f"{name} lengths", (BATCH, 3))
        labels = got(f"{name} labels", (BATCH, 3, MAX_TIME))
        for b in range(BATCH):
            found = labelling_log_probs(inputs[:DATA_LENGTHS[b], b])
            best = sorted(found.items(), key=lambda item: -item[1])[:3]
            for path, (labelling, log_p) in enumerate(best):
                n = int(lengths[b, path])
                assert tuple(labels[b, path, :n].astype(int)) == labelling, (name, b, path)
                assert np.all(labels[b, path, n:] == BLANK)
                np.testing.assert_allclose(probs[b, path], -log_p, rtol=1e-5, err_msg=name)
    # A narrow beam keeps fewer alignments: its probabilities are at most the exact ones.
    narrow, narrow_lengths = got("narrow logits probs", (BATCH, 2)), got("narrow logits lengths", (BATCH, 2))
    narrow_labels = got("narrow logits labels", (BATCH, 2, MAX_TIME))
    for b in range(BATCH):
        found = labelling_log_probs(log_softmax[:DATA_LENGTHS[b], b])
        assert narrow[b, 0] <= narrow[b, 1]
        for path in range(2):
            labelling = tuple(narrow_labels[b, path, :int(narrow_lengths[b, path])].astype(int))
            assert narrow[b, path] >= -found[labelling] - 1e-5
    assert out["plan"].endswith("numClasses 3, beamwidth 40")
    assert out["too many paths"] == "beamSearchDecoderLogits: topPaths 3 must be between 1 and beamwidth 2"
    assert out["bad option"] == "Unrecognised option 'x'"
