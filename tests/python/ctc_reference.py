"""CTC the long way, for the CTC tests: every path of classes over the steps is enumerated
and collapsed (repeats merged, then blanks dropped) to the labelling it gives."""
import itertools

import numpy as np


def paths_by_labelling(steps, classes, blank):
    """{labelling: [[class at each step] of every path giving it]}."""
    found = {}
    for path in itertools.product(range(classes), repeat=steps):
        merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        found.setdefault(tuple(k for k in merged if k != blank), []).append(path)
    return {labelling: np.array(paths) for labelling, paths in found.items()}


def path_log_probs(log_y, paths):
    """Each path's log probability: the sum of its classes' log probabilities."""
    return log_y[np.arange(log_y.shape[0]), paths].sum(axis=1)


def sine_data(shape, amplitude, frequency, phase):
    """amplitude sin(frequency i + phase) for the i-th element, in float32 as the C++
    programs compute it, returned as float64."""
    i = np.arange(np.prod(shape), dtype=np.float32)
    return (amplitude * np.sin(np.float32(frequency) * i + np.float32(phase))).astype(np.float64).reshape(shape)


def log_softmax(data):
    """Log probabilities from logits over the last dimension."""
    return data - np.logaddexp.reduce(data, axis=-1, keepdims=True)
