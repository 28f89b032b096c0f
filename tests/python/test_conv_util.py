"""poplin/ConvUtil.hpp (tests/cpp/conv_util.cpp) against an independent derivation: each
operand's transformed sequence is built element by element (truncate, dilate with gaps,
pad, flip), the convolution pairs positions, and the output transform picks outputs."""
import pytest

from cpp_build import run_labelled_program

# As kCases in conv_util.cpp: sizes, the input's and kernel's (trunc lower, upper,
# dilation, pad lower, upper, flip), the output's (trunc lower, upper, stride, pad lower, upper).
CASES = [
    (7, 3, (0, 0, 1, 0, 0, False), (0, 0, 1, 0, 0, False), (0, 0, 1, 0, 0)),
    (6, 3, (1, 0, 2, 1, 2, False), (0, 1, 1, 0, 0, True), (0, 0, 2, 1, 0)),
    (5, 2, (0, 1, 1, 2, 1, True), (0, 0, 3, 1, 0, False), (1, 0, 1, 0, 2)),
    (8, 4, (2, 1, 3, 0, 1, True), (1, 0, 2, 0, 1, True), (0, 1, 3, 2, 1)),
]
NONE = None


def transformed(size, t):
    """The operand after its transform: original indices, None where padding or a gap."""
    lower, upper, dilation, pad_lower, pad_upper, flip = t
    kept = list(range(size))[lower:size - upper if upper else size]
    seq = []
    for n, i in enumerate(kept):
        seq += [NONE] * (dilation - 1 if n else 0) + [i]
    seq = [NONE] * pad_lower + seq + [NONE] * pad_upper
    return seq[::-1] if flip else seq


def pairs(case):
    """For each final output, the (input, kernel) index pairs it sums (None for padding)."""
    size_in, size_kernel, ti, tk, (lower, upper, stride, pad_lower, pad_upper) = case
    x, w = transformed(size_in, ti), transformed(size_kernel, tk)
    full = [[(x[o + j], w[j]) for j in range(len(w)) if x[o + j] is not NONE and w[j] is not NONE]
            for o in range(max(len(x) - len(w) + 1, 0))]
    kept = full[lower:len(full) - upper if upper else len(full)][::stride]
    return [NONE] * pad_lower + kept + [NONE] * pad_upper


def text(v):
    return "x" if v is NONE else str(v)


def hull(values):
    values = [v for v in values if v is not NONE]
    return f"{min(values)}-{max(values) + 1}" if values else "0-0"


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return run_labelled_program(tmp_path_factory.mktemp("conv_util"), "conv_util")[0]


def test_dilated_size(out):
    assert out["dilated"] == "0 1 10"


@pytest.mark.parametrize("n", range(len(CASES)))
def test_each_output_pairs_the_inputs_and_kernel_elements_of_the_transformed_sequences(out, n):
    size_in, size_kernel = CASES[n][:2]
    per_output = pairs(CASES[n])
    assert out[f"case {n} shapes"] == f"{size_in} {size_kernel}"  # getInputFieldShape, getKernelShape
    assert out[f"case {n} outputs"] == str(len(per_output))

    def input_of(o, k):
        return next((i for i, kk in per_output[o] or [] if kk == k), NONE)

    def kernel_of(o, i):
        return next((kk for ii, kk in per_output[o] or [] if ii == i), NONE)
    assert out[f"case {n} input index"].split() == [text(input_of(o, k)) for o in range(len(per_output))
                                                    for k in range(size_kernel)]
    assert out[f"case {n} kernel index"].split() == [text(kernel_of(o, i)) for o in range(len(per_output))
                                                     for i in range(size_in)]
    outs = len(per_output)
    for lo, hi in [(0, outs), (1, outs - 1 if outs > 2 else 1), (0, 0)]:
        window = range(lo, hi)
        want = []
        for k in range(size_kernel):
            want += [f"ok{k}={hull([o for o in window if input_of(o, k) is not NONE])}",
                     f"ik{k}={hull([input_of(o, k) for o in window])}"]
        for i in range(size_in):
            want += [f"oi{i}={hull([o for o in window if kernel_of(o, i) is not NONE])}",
                     f"ki{i}={hull([kernel_of(o, i) for o in window])}"]
        ks, ins = range(1, size_kernel), range(1, size_in - 1)
        want += [f"okr={hull([o for o in window for k in ks if input_of(o, k) is not NONE])}",
                 f"oir={hull([o for o in window for i in ins if kernel_of(o, i) is not NONE])}",
                 f"ikr={hull([input_of(o, k) for o in window for k in ks])}",
                 f"kir={hull([kernel_of(o, i) for o in window for i in ins])}",
                 f"iall={hull([input_of(o, k) for o in window for k in range(size_kernel)])}"]
        assert out[f"case {n} window {lo}-{hi}"].split() == want
    at_one = hull([input_of(1, k) for k in range(size_kernel)]) if outs > 1 else "0-0"
    assert out[f"case {n} at output 1"] == f"{at_one} {at_one}"
