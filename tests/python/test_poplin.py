"""poplin matrix multiplication on the emulator, checked against float64 numpy.

Results are compared elementwise with a bound scaled by |A| @ |B| (the size of
the terms summed), so sums that cancel to near zero are not held to a relative
precision no floating-point dot product has.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from popdsl import poplar, poplin, poputil, program
from cpp_build import build_program, run_labelled_program

RELATIVE_TOLERANCE = {poplar.FLOAT: 1e-5, poplar.HALF: 1e-2}
NUMPY_DTYPE = {poplar.FLOAT: np.float32, poplar.HALF: np.float16}


def random_values(shape, dtype=poplar.FLOAT, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(NUMPY_DTYPE[dtype])


def variable(graph, values, name, dtype=poplar.FLOAT):
    """A linearly mapped variable that starts with `values`."""
    tensor = graph.addVariable(dtype, list(values.shape), name)
    poputil.mapTensorLinearly(graph, tensor)
    graph.setInitialValue(tensor, values.astype(NUMPY_DTYPE[dtype]))
    return tensor


def run(graph, device, prog, outputs, runs=1):
    """Runs `prog` and returns the values of the tensors in `outputs`."""
    for i, tensor in enumerate(outputs):
        graph.createHostRead(f"out{i}", tensor)
    engine = poplar.Engine(graph, prog)
    engine.load(device)
    for _ in range(runs):
        engine.run(0)
    results = []
    for i, tensor in enumerate(outputs):
        out = np.zeros(tensor.shape(), NUMPY_DTYPE[tensor.elementType()])
        engine.readTensor(f"out{i}", out)
        results.append(out)
    return results


def assert_product_close(got, a, b, dtype, c=None, k=1.0):
    """got ~ c + k * a @ b, within the dtype's tolerance of the summed magnitudes."""
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    expected = k * (a64 @ b64)
    magnitude = abs(k) * (np.abs(a64) @ np.abs(b64))
    if c is not None:
        expected += c
        magnitude += np.abs(np.asarray(c, np.float64))
    assert got.shape == expected.shape
    error = np.abs(got.astype(np.float64) - expected)
    bound = RELATIVE_TOLERANCE[dtype] * magnitude + 1e-30
    assert np.all(error <= bound), f"max error {error.max()} over bound {(error / bound).max()}x"


@pytest.mark.parametrize(
    "m, k, n",
    [(1, 1, 1), (3, 5, 7), (1, 4, 1), (4, 1, 3), (17, 33, 9), (200, 300, 150)],
)
def test_matmul_float(graph, device, m, k, n):
    a, b = random_values((m, k), seed=1), random_values((k, n), seed=2)
    seq = program.Sequence()
    c = poplin.matMul(graph, variable(graph, a, "a"), variable(graph, b, "b"), seq, "mm")
    assert c.shape() == [m, n] and c.elementType() == poplar.FLOAT
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, a, b, poplar.FLOAT)


@pytest.mark.parametrize("output_type", [poplar.HALF, poplar.FLOAT])
def test_matmul_half(graph, device, output_type):
    a, b = random_values((33, 70), poplar.HALF, 1), random_values((70, 21), poplar.HALF, 2)
    seq = program.Sequence()
    A, B = variable(graph, a, "a", poplar.HALF), variable(graph, b, "b", poplar.HALF)
    c = poplin.matMul(graph, A, B, seq, output_type, "mm")
    assert c.elementType() == output_type
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, a, b, output_type)


def test_float_inputs_to_half_output(graph, device):
    a, b = random_values((6, 40), seed=1), random_values((40, 5), seed=2)
    seq = program.Sequence()
    c = poplin.matMul(graph, variable(graph, a, "a"), variable(graph, b, "b"), seq, poplar.HALF)
    (got,) = run(graph, device, seq, [c])
    assert got.dtype == np.float16
    assert_product_close(got, a, b, poplar.HALF)


def test_large_half_with_float_partials(graph, device):
    a, b = random_values((128, 512), poplar.HALF, 1), random_values((512, 96), poplar.HALF, 2)
    seq = program.Sequence()
    A, B = variable(graph, a, "a", poplar.HALF), variable(graph, b, "b", poplar.HALF)
    c = poplin.matMul(graph, A, B, seq, options={"partialsType": "float"})
    (got,) = run(graph, device, seq, [c])
    # Summed in float and rounded once: within half an ulp of the exact result,
    # plus float's own summation error (far smaller, but it can tip a rounding).
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact = a64 @ b64
    half_ulp = np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64) / 2
    float_error = RELATIVE_TOLERANCE[poplar.FLOAT] * (np.abs(a64) @ np.abs(b64))
    assert np.all(np.abs(got - exact) <= half_ulp + float_error)


def test_half_partials_round_the_running_sum(graph, device):
    # 0.0999755859375 is exact in half; 4096 of them sum to exactly 409.5.
    k = 4096
    a = np.ones((1, k), np.float16)
    b = np.full((k, 1), 0.0999755859375, np.float16)
    seq = program.Sequence()
    A, B = variable(graph, a, "a", poplar.HALF), variable(graph, b, "b", poplar.HALF)
    with_float = poplin.matMul(graph, A, B, seq, options={"partialsType": "float"})
    with_half = poplin.matMul(graph, A, B, seq, options={"partialsType": "half"})
    got_float, got_half = run(graph, device, seq, [with_float, with_half])
    assert got_float[0, 0] == np.float16(409.5)
    # The documented model: 16 products summed, then the running sum rounded to half.
    running = np.float16(0)
    for begin in range(0, k, 16):
        chunk = float(a[0, begin:begin + 16].astype(np.float64) @ b[begin:begin + 16, 0])
        running = np.float16(float(running) + chunk)
    assert got_half[0, 0] == running
    assert running != np.float16(409.5)


def test_half_partials_are_float_for_float_inputs(graph, device):
    a, b = random_values((5, 300), seed=1), random_values((300, 4), seed=2)
    seq = program.Sequence()
    c = poplin.matMul(graph, variable(graph, a, "a"), variable(graph, b, "b"), seq,
                      options={"partialsType": "half"})
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, a, b, poplar.FLOAT)


# Views as operands: (the viewed variable's shape, the view of the
# variable, the same view in numpy). BLAS reads some in place (transposes,
# slices); the others are gathered first (strided, reversed, broadcast).
VIEWS = {
    "transpose": ((7, 5), lambda t: t.transpose(), lambda x: x.T),
    "column slice": ((5, 12), lambda t: t.slice(3, 10, 1), lambda x: x[:, 3:10]),
    "row slice": ((9, 7), lambda t: t.slice(2, 7, 0), lambda x: x[2:7]),
    "transposed slice": ((10, 6), lambda t: t.slice(1, 8, 0).transpose(), lambda x: x[1:8].T),
    "one column": ((5, 9), lambda t: t.slice(4, 5, 1), lambda x: x[:, 4:5]),
    "subsampled": ((5, 14), lambda t: t.subSample(2, 1), lambda x: x[:, ::2]),
    "reversed": ((5, 7), lambda t: t.reverse(1), lambda x: x[:, ::-1]),
    "broadcast rows": ((1, 7), lambda t: t.broadcast(5, 0), lambda x: np.repeat(x, 5, 0)),
    "dimShuffle of 3d": ((7, 1, 5), lambda t: t.dimShuffle([2, 0, 1]).reshape([5, 7]),
                         lambda x: x.transpose(2, 0, 1).reshape(5, 7)),
}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("operand", ["A", "B"])
@pytest.mark.parametrize("dtype", [poplar.FLOAT, poplar.HALF])
def test_views_as_operands(graph, device, view, operand, dtype):
    base_shape, view_of_tensor, view_of_array = VIEWS[view]
    base = random_values(base_shape, dtype, seed=3)
    viewed = view_of_array(base)
    if operand == "A":
        a, b = viewed, random_values((viewed.shape[1], 4), dtype, seed=4)
        A, B = view_of_tensor(variable(graph, base, "base", dtype)), variable(graph, b, "b", dtype)
    else:
        a, b = random_values((3, viewed.shape[0]), dtype, seed=4), viewed
        A, B = variable(graph, a, "a", dtype), view_of_tensor(variable(graph, base, "base", dtype))
    seq = program.Sequence()
    c = poplin.matMul(graph, A, B, seq)
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, a, b, dtype)


def test_concatenated_operands(graph, device):
    top, bottom = random_values((2, 6), seed=1), random_values((3, 6), seed=2)
    b = random_values((6, 4), seed=3)
    A = poplar.concat([variable(graph, top, "top"), variable(graph, bottom, "bottom")], 0)
    B = poplar.concat([variable(graph, b[:, :1], "left"), variable(graph, b[:, 1:], "right")], 1)
    seq = program.Sequence()
    c = poplin.matMul(graph, A, B, seq)
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, np.concatenate([top, bottom]), b, poplar.FLOAT)


def test_operand_times_its_own_transpose(graph, device):
    x = random_values((6, 9))
    X = variable(graph, x, "x")
    seq = program.Sequence()
    c = poplin.matMul(graph, X, X.transpose(), seq)
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, x, x.T, poplar.FLOAT)


@pytest.mark.parametrize("layout", ["transposed", "slice of a wider variable"])
def test_matmul_with_output_view(graph, device, layout):
    a, b = random_values((4, 6), seed=1), random_values((6, 5), seed=2)
    seq = program.Sequence()
    if layout == "transposed":
        store = variable(graph, np.zeros((5, 4), np.float32), "store")
        out = store.transpose()
    else:
        store = variable(graph, np.full((4, 9), 7.0, np.float32), "store")
        out = store.slice(2, 7, 1)
    poplin.matMulWithOutput(graph, variable(graph, a, "a"), variable(graph, b, "b"), out, seq)
    (got,) = run(graph, device, seq, [store])
    if layout == "transposed":
        assert_product_close(got.T, a, b, poplar.FLOAT)
    else:
        assert_product_close(got[:, 2:7], a, b, poplar.FLOAT)
        assert np.all(got[:, :2] == 7) and np.all(got[:, 7:] == 7)


def test_matmul_reruns_overwrite_the_output(graph, device):
    a, b = random_values((3, 4), seed=1), random_values((4, 2), seed=2)
    seq = program.Sequence()
    c = poplin.matMul(graph, variable(graph, a, "a"), variable(graph, b, "b"), seq)
    (got,) = run(graph, device, seq, [c], runs=3)
    assert_product_close(got, a, b, poplar.FLOAT)


def panel_widths(cols):
    """Column panels of at least 16 columns (the narrowest the emulator's products read in
    place), a third of the columns each, the last taking the rest; one below 32 columns."""
    width = max(16, cols // 3)
    widths = [width] * max(0, cols // width - 1)
    return widths + [cols - sum(widths)]


def in_panels(graph, values, name, widths):
    """A [rows, cols] view holding `values` in column panels of `widths` side by side in one
    variable, each with its rows back to back."""
    rows, edges = values.shape[0], np.cumsum([0] + widths)
    flat = variable(graph, np.concatenate([values[:, x:y].ravel() for x, y in zip(edges, edges[1:])]), name)
    return poplar.concat([flat.slice(rows * int(x), rows * int(y)).reshape([rows, int(y - x)])
                          for x, y in zip(edges, edges[1:])], 1)


def stored(graph, values, name, layout):
    """A [rows, cols] view holding `values`: a variable of that shape, the transpose of one,
    column panels side by side in one variable, each with its rows back to back (as
    pd.nn.lstm.create_weights lays out its weights), or a column slice of a wider one (rows
    apart by more than their length)."""
    if layout == "plain":
        return variable(graph, values, name)
    if layout == "transposed":
        return variable(graph, values.T.copy(), name).transpose()
    if layout == "panels":
        return in_panels(graph, values, name, panel_widths(values.shape[1]))
    wider = np.full((values.shape[0], values.shape[1] + 3), np.nan, np.float32)
    wider[:, 1:-2] = values
    return variable(graph, wider, name).slice(1, values.shape[1] + 1, 1)


# Few rows or few columns, in every layout of the operands: the emulator's few-rows kernel
# (where the CPU has AVX2, for A [m <= 256, k] with B's rows or A's columns unit-stride, any m
# in AVX-512, which [300, 260] shows;
# its register blocks are 1 to 6 rows by 8 to 64 columns in AVX2, 16 to 256 in AVX-512, its
# column panels 16 or 64 wide; B in column panels of its own, a product per panel) or
# BLAS's matrix-vector product. The shapes cut the blocks at every edge.
@pytest.mark.parametrize("m, k, n", [(1, 37, 23), (23, 37, 1), (1, 5, 1), (1, 3, 70), (2, 9, 33), (3, 4, 31),
                                     (5, 33, 70), (7, 40, 65), (32, 300, 129), (64, 17, 16), (65, 8, 30),
                                     (70, 16, 3), (257, 8, 30), (300, 70, 260), (1, 20, 600)])
@pytest.mark.parametrize("a_layout", ["plain", "transposed", "strided"])
@pytest.mark.parametrize("b_layout", ["plain", "transposed", "strided", "panels"])
@pytest.mark.parametrize("c_layout", ["plain", "transposed", "strided"])
def test_products_with_few_rows_or_columns(graph, device, m, k, n, a_layout, b_layout, c_layout):
    a, b = random_values((m, k), seed=1), random_values((k, n), seed=2)
    c0 = random_values((m, n), seed=3)
    A, B = stored(graph, a, "a", a_layout), stored(graph, b, "b", b_layout)
    product = stored(graph, np.full((m, n), np.nan, np.float32), "product", c_layout)  # overwritten, NaN or not
    accumulated = stored(graph, c0, "accumulated", c_layout)
    seq = program.Sequence()
    poplin.matMulWithOutput(graph, A, B, product, seq)
    poplin.matMulAcc(graph, accumulated, -0.5, A, B, seq)
    got_product, got_accumulated = run(graph, device, seq, [product, accumulated])
    assert_product_close(got_product, a, b, poplar.FLOAT)
    assert_product_close(got_accumulated, a, b, poplar.FLOAT, c=c0, k=-0.5)


# Products big enough to share out over the pool: the few-rows kernel (columns to each thread,
# or rows where the columns are too few; every element one chain of multiply-adds over k in
# order) and OpenBLAS cut into ranges of rows (m >= n) or columns, never of k.
@pytest.mark.needs_emulator("the emulator's thread pool")
@pytest.mark.parametrize("m, k, n", [(32, 300, 1000), (300, 200, 500), (100, 200, 700), (200, 100, 60)])
def test_pooled_products_give_the_same_bits_on_one_thread(device, m, k, n):
    a, b, c0 = random_values((m, k), seed=1), random_values((k, n), seed=2), random_values((m, n), seed=3)
    results = []
    for threads in ("1", "auto"):
        graph = poplar.Graph(device.getTarget())
        C = variable(graph, c0, "c")
        seq = program.Sequence()
        poplin.matMulAcc(graph, C, 0.25, variable(graph, a, "a"), variable(graph, b, "b"), seq)
        graph.createHostRead("c", C)
        engine = poplar.Engine(graph, seq, {"emulator.numThreads": threads})
        engine.load(device)
        engine.run(0)
        results.append(engine.readTensor("c", np.zeros((m, n), np.float32)))
    assert results[0].tobytes() == results[1].tobytes()
    assert_product_close(results[1], a, b, poplar.FLOAT, c=c0, k=0.25)


# B in column panels (as pd.nn.lstm.create_weights lays out its weights, panels of 256 columns)
# is read where it lies, a product per panel: every element the same chain of multiply-adds as
# over B in rows, so the same bits, on one thread or all of them; the one-row products read
# panels of 256 columns in blocks as wide as a panel, wider than over rows.
@pytest.mark.needs_emulator("the emulator's thread pool")
@pytest.mark.parametrize("m, k, n, widths", [(1, 256, 1024, [256] * 4), (1, 300, 530, [256, 274]),
                                             (3, 70, 100, [16, 84]), (32, 256, 1024, [256] * 4),
                                             (7, 40, 300, [100, 17, 183]), (2, 40, 516, [256, 256, 4])])
def test_products_over_column_panels_give_the_bits_of_rows(device, m, k, n, widths):
    a, b, c0 = random_values((m, k), seed=1), random_values((k, n), seed=2), random_values((m, n), seed=3)
    results = {}
    for threads in ("1", "auto"):
        for layout in ("rows", "panels"):
            graph = poplar.Graph(device.getTarget())
            B = variable(graph, b, "b") if layout == "rows" else in_panels(graph, b, "b", widths)
            C, D = variable(graph, c0, "c"), graph.addVariable(poplar.FLOAT, [m, n], "d")
            poputil.mapTensorLinearly(graph, D)
            seq = program.Sequence()
            poplin.matMulAcc(graph, C, 0.25, variable(graph, a, "a"), B, seq)
            poplin.matMulWithOutput(graph, variable(graph, a, "a2"), B, D, seq)
            graph.createHostRead("c", C)
            graph.createHostRead("d", D)
            engine = poplar.Engine(graph, seq, {"emulator.numThreads": threads})
            engine.load(device)
            engine.run(0)
            results[threads, layout] = [engine.readTensor(name, np.zeros((m, n), np.float32)) for name in "cd"]
    for key, (accumulated, product) in results.items():
        assert accumulated.tobytes() == results["1", "rows"][0].tobytes(), f"{key} differs from rows on one thread"
        assert product.tobytes() == results["1", "rows"][1].tobytes(), f"{key} differs from rows on one thread"
    assert_product_close(results["auto", "panels"][0], a, b, poplar.FLOAT, c=c0, k=0.25)
    assert_product_close(results["auto", "panels"][1], a, b, poplar.FLOAT)


def cpu_has(*flags):
    """Whether /proc/cpuinfo lists every flag (False where there is none)."""
    try:
        listed = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return False
    return all(flag in listed for flag in flags)


# B stored transposed (x @ W^T, W row-major) in products of 2 rows or more: the few-rows kernel
# transposes each panel of B it reads into a copy its row blocks read, so every element is the
# chain of multiply-adds it is over B in rows: the same bits, on one thread or all of them. The
# shapes cut the transposed tiles (16 x 16 in AVX-512, 8 x 8 in AVX2) and the sum's chunks of 96
# steps at their edges, with one row block (up to 6 rows, a copy of every step) and several.
@pytest.mark.needs_emulator("the emulator's few-rows kernel")
@pytest.mark.skipif(not cpu_has("avx2", "fma"), reason="the few-rows kernel needs AVX2 and FMA")
@pytest.mark.parametrize("m, k, n", [(2, 37, 70), (3, 300, 129), (6, 512, 600), (7, 40, 65), (13, 100, 17),
                                     (32, 1024, 256), (40, 250, 130)])
def test_products_over_transposed_b_give_the_bits_of_rows(device, m, k, n):
    a, b, c0 = random_values((m, k), seed=1), random_values((k, n), seed=2), random_values((m, n), seed=3)
    results = {}
    for threads in ("1", "auto"):
        for layout in ("plain", "transposed"):
            graph = poplar.Graph(device.getTarget())
            C = variable(graph, c0, "c")
            seq = program.Sequence()
            poplin.matMulAcc(graph, C, 0.25, variable(graph, a, "a"), stored(graph, b, "b", layout), seq)
            graph.createHostRead("c", C)
            engine = poplar.Engine(graph, seq, {"emulator.numThreads": threads})
            engine.load(device)
            engine.run(0)
            results[threads, layout] = engine.readTensor("c", np.zeros((m, n), np.float32))
    for key, got in results.items():
        assert got.tobytes() == results["1", "plain"].tobytes(), f"{key} differs from B in rows on one thread"
    assert_product_close(results["auto", "transposed"], a, b, poplar.FLOAT, c=c0, k=0.25)


# The few-rows kernel's shapes and layouts for the instruction-set test: blocks cut at every
# edge, panels of several row blocks, products big enough to share out over the pool (by columns
# and by rows). Rows and columns stay within AVX2's limit of 256, so that both instruction sets
# give every layout to the kernel (AVX-512 has no limit where OpenBLAS lacks AVX-512 kernels of
# its own: it takes, say, a [32,1000] product with a transposed b as its transpose, where AVX2
# leaves it to BLAS).
ISA_SHAPES = [(2, 9, 33), (3, 4, 31), (5, 33, 70), (7, 40, 65), (13, 50, 100), (32, 300, 129), (64, 17, 16),
              (70, 16, 3), (32, 256, 250), (5, 300, 250), (200, 100, 60), (256, 20, 90)]
ISA_LAYOUTS = [(a, b, c) for a in ("plain", "transposed") for b in ("plain", "transposed", "strided", "panels")
               for c in ("plain", "strided")]


def few_rows_products():
    """{name: value} of C = A @ B and C' = C0 - 0.5 * A @ B over ISA_SHAPES x ISA_LAYOUTS."""
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    seq = program.Sequence()
    outputs = {}
    for m, k, n in ISA_SHAPES:
        a, b, c0 = random_values((m, k), seed=1), random_values((k, n), seed=2), random_values((m, n), seed=3)
        for layouts in ISA_LAYOUTS:
            name = f"{m}x{k}x{n}_{'_'.join(layouts)}"
            A, B = stored(graph, a, f"a_{name}", layouts[0]), stored(graph, b, f"b_{name}", layouts[1])
            product = stored(graph, np.zeros((m, n), np.float32), f"product_{name}", layouts[2])
            accumulated = stored(graph, c0, f"accumulated_{name}", layouts[2])
            poplin.matMulWithOutput(graph, A, B, product, seq)
            poplin.matMulAcc(graph, accumulated, -0.5, A, B, seq)
            outputs[f"product_{name}"], outputs[f"accumulated_{name}"] = product, accumulated
    return dict(zip(outputs, run(graph, device, seq, list(outputs.values()))))


# The few-rows kernel has a body per instruction set (AVX-512 where the CPU has it, else AVX2),
# each element the same chain of multiply-adds in both: POPDSL_FEW_ROWS_ISA=avx2 keeps a process
# to AVX2. (Where the CPU lacks AVX-512 both runs are AVX2.)
@pytest.mark.needs_emulator("the emulator's few-rows kernel")
def test_few_rows_products_give_the_same_bits_in_avx2_and_avx512(tmp_path):
    here = Path(__file__).resolve().parent
    results = []
    for isa in (None, "avx2"):
        env = {key: value for key, value in os.environ.items() if key != "POPDSL_FEW_ROWS_ISA"}
        env["PYTHONPATH"] = os.pathsep.join([str(Path(poplar.__file__).resolve().parents[1]), str(here)])
        if isa:
            env["POPDSL_FEW_ROWS_ISA"] = isa
        out = tmp_path / f"{isa or 'widest'}.npz"
        subprocess.run([sys.executable, "-c", "import sys, numpy, test_poplin; "
                        "numpy.savez(sys.argv[1], **test_poplin.few_rows_products())", str(out)],
                       env=env, cwd=here, check=True, timeout=300)
        with np.load(out) as saved:
            results.append(dict(saved))
    widest, avx2 = results
    assert widest.keys() == avx2.keys()
    for name in widest:
        assert widest[name].tobytes() == avx2[name].tobytes(), f"{name} differs between AVX-512 and AVX2"
    for m, k, n in ISA_SHAPES:
        a, b, c0 = random_values((m, k), seed=1), random_values((k, n), seed=2), random_values((m, n), seed=3)
        for layouts in ISA_LAYOUTS:
            name = f"{m}x{k}x{n}_{'_'.join(layouts)}"
            assert_product_close(widest[f"product_{name}"], a, b, poplar.FLOAT)
            assert_product_close(widest[f"accumulated_{name}"], a, b, poplar.FLOAT, c=c0, k=-0.5)


@pytest.mark.parametrize("dtype", [poplar.FLOAT, poplar.HALF])
def test_matmul_acc_float_scale(graph, device, dtype):
    a, b = random_values((9, 13), dtype, 1), random_values((13, 6), dtype, 2)
    c0 = random_values((9, 6), dtype, 3)
    C = variable(graph, c0, "c", dtype)
    seq = program.Sequence()
    poplin.matMulAcc(graph, C, -0.5, variable(graph, a, "a", dtype), variable(graph, b, "b", dtype), seq)
    (got,) = run(graph, device, seq, [C])
    assert_product_close(got, a, b, dtype, c=c0, k=-0.5)


def test_matmul_acc_accumulates_on_every_run(graph, device):
    a, b, c0 = random_values((3, 4), seed=1), random_values((4, 5), seed=2), random_values((3, 5), seed=3)
    C = variable(graph, c0, "c")
    seq = program.Sequence()
    poplin.matMulAcc(graph, C, 2, variable(graph, a, "a"), variable(graph, b, "b"), seq)
    (got,) = run(graph, device, seq, [C], runs=3)
    assert_product_close(got, a, b, poplar.FLOAT, c=c0, k=6.0)


@pytest.mark.parametrize("scale_type", [poplar.FLOAT, poplar.HALF])
def test_matmul_acc_tensor_scale_is_read_at_run_time(graph, device, scale_type):
    a, b, c0 = random_values((5, 8), seed=1), random_values((8, 3), seed=2), random_values((5, 3), seed=3)
    C = variable(graph, c0, "c")
    k = variable(graph, np.array([0.0], np.float32), "k", scale_type)
    graph.createHostWrite("k", k)
    graph.createHostRead("c", C)
    seq = program.Sequence()
    poplin.matMulAcc(graph, C, k, variable(graph, a, "a"), variable(graph, b, "b"), seq)
    engine = poplar.Engine(graph, seq)
    engine.load(device)
    engine.writeTensor("k", np.array([1.5], NUMPY_DTYPE[scale_type]))
    engine.run(0)
    engine.writeTensor("k", np.array([-0.25], NUMPY_DTYPE[scale_type]))
    engine.run(0)
    got = np.zeros((5, 3), np.float32)
    engine.readTensor("c", got)
    assert_product_close(got, a, b, poplar.FLOAT, c=c0, k=1.25)


def test_matmul_acc_into_an_operand(graph, device):
    # C += C @ B must use C's value from before the product.
    c0, b = random_values((4, 4), seed=1), random_values((4, 4), seed=2)
    C = variable(graph, c0, "c")
    seq = program.Sequence()
    poplin.matMulAcc(graph, C, 1.0, C, variable(graph, b, "b"), seq)
    (got,) = run(graph, device, seq, [C])
    assert_product_close(got, c0, b, poplar.FLOAT, c=c0)


def test_matmul_acc_half_into_float(graph, device):
    a, b = random_values((6, 20), poplar.HALF, 1), random_values((20, 3), poplar.HALF, 2)
    c0 = random_values((6, 3), seed=3)
    C = variable(graph, c0, "c")
    seq = program.Sequence()
    poplin.matMulAcc(graph, C, 3.0, variable(graph, a, "a", poplar.HALF),
                     variable(graph, b, "b", poplar.HALF), seq)
    (got,) = run(graph, device, seq, [C])
    assert_product_close(got, a, b, poplar.FLOAT, c=c0, k=3.0)


def test_empty_inner_dimension(graph, device):
    seq = program.Sequence()
    A = graph.addVariable(poplar.FLOAT, [3, 0], "a")
    B = graph.addVariable(poplar.FLOAT, [0, 2], "b")
    c0 = random_values((3, 2))
    C = variable(graph, c0, "c")
    product = poplin.matMul(graph, A, B, seq)
    poplin.matMulAcc(graph, C, 1.0, A, B, seq)
    got_product, got_c = run(graph, device, seq, [product, C])
    assert np.all(got_product == 0)
    assert np.array_equal(got_c, c0)


@pytest.mark.parametrize("dtype", [poplar.FLOAT, poplar.HALF])
def test_matmul_grouped(graph, device, dtype):
    a, b = random_values((3, 7, 10), dtype, 1), random_values((3, 10, 4), dtype, 2)
    seq = program.Sequence()
    c = poplin.matMulGrouped(graph, variable(graph, a, "a", dtype), variable(graph, b, "b", dtype),
                             seq, dtype, "grouped")
    assert c.shape() == [3, 7, 4]
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, a, b, dtype)


@pytest.mark.parametrize("size", [64, 128])  # 2M multiply-adds run on the calling thread, 16.7M as a threaded batch
def test_matmul_grouped_small_and_threaded_batches(graph, device, size):
    a, b = random_values((8, size, size), seed=1), random_values((8, size, size), seed=2)
    c0 = random_values((8, size, size), seed=3)
    A, B, C = variable(graph, a, "a"), variable(graph, b, "b"), variable(graph, c0, "c")
    seq = program.Sequence()
    product = poplin.matMulGrouped(graph, A, B, seq, poplar.FLOAT)
    poplin.matMulGroupedAcc(graph, C, 0.5, A, B, seq)
    got_product, got_acc = run(graph, device, seq, [product, C])
    assert_product_close(got_product, a, b, poplar.FLOAT)
    assert_product_close(got_acc, a, b, poplar.FLOAT, c=c0, k=0.5)


def test_matmul_grouped_with_transposed_rhs(graph, device):
    # Attention's q @ k^T: k [g,n,k] viewed as [g,k,n].
    q, k = random_values((2, 6, 8), seed=1), random_values((2, 5, 8), seed=2)
    K = variable(graph, k, "k")
    seq = program.Sequence()
    c = poplin.matMulGrouped(graph, variable(graph, q, "q"), poplin.transposeGroupedMatrix(K),
                             seq, poplar.FLOAT)
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, q, k.transpose(0, 2, 1), poplar.FLOAT)


def test_matmul_grouped_with_broadcast_group(graph, device):
    a, w = random_values((4, 3, 5), seed=1), random_values((5, 6), seed=2)
    W = variable(graph, w, "w").expand([0]).broadcast(4, 0)
    seq = program.Sequence()
    c = poplin.matMulGrouped(graph, variable(graph, a, "a"), W, seq, poplar.FLOAT)
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, a, np.broadcast_to(w, (4, 5, 6)), poplar.FLOAT)


def test_matmul_grouped_acc(graph, device):
    a, b = random_values((2, 4, 3), seed=1), random_values((2, 3, 5), seed=2)
    c0 = random_values((2, 4, 5), seed=3)
    C1, C2 = variable(graph, c0, "c1"), variable(graph, c0, "c2")
    k = variable(graph, np.array([0.75], np.float32), "k")
    A, B = variable(graph, a, "a"), variable(graph, b, "b")
    seq = program.Sequence()
    poplin.matMulGroupedAcc(graph, C1, 1.0, A, B, seq)
    poplin.matMulGroupedAcc(graph, C2, k, A, B, seq)
    got1, got2 = run(graph, device, seq, [C1, C2])
    assert_product_close(got1, a, b, poplar.FLOAT, c=c0)
    assert_product_close(got2, a, b, poplar.FLOAT, c=c0, k=0.75)


def test_matmul_grouped_with_output(graph, device):
    a, b = random_values((2, 3, 4), seed=1), random_values((2, 4, 2), seed=2)
    out = graph.addVariable(poplar.FLOAT, [2, 3, 2], "out")
    poputil.mapTensorLinearly(graph, out)
    seq = program.Sequence()
    poplin.matMulGroupedWithOutput(graph, variable(graph, a, "a"), variable(graph, b, "b"), out, seq)
    (got,) = run(graph, device, seq, [out])
    assert_product_close(got, a, b, poplar.FLOAT)


def covered_elements(mapping):
    return sorted(i for intervals in mapping for interval in intervals for i in range(*interval))


@pytest.mark.parametrize("dtype", [poplar.FLOAT, poplar.HALF])
def test_created_operands_are_mapped_and_usable(graph, device, dtype):
    a_shape, b_shape = [64, 48], [48, 32]
    A = poplin.createMatMulInputLHS(graph, dtype, a_shape, b_shape, "A")
    B = poplin.createMatMulInputRHS(graph, dtype, dtype, a_shape, b_shape, "B")
    out = poplin.createMatMulOutput(graph, dtype, a_shape, b_shape, "out")
    assert (A.shape(), B.shape(), out.shape()) == (a_shape, b_shape, [64, 32])
    assert A.elementType() == dtype and B.elementType() == dtype
    for t in (A, B, out):
        mapping = graph.getTileMapping(t)
        assert covered_elements(mapping) == list(range(t.numElements()))
        assert sum(1 for intervals in mapping if intervals) > 1
    a, b = random_values(a_shape, dtype, 1), random_values(b_shape, dtype, 2)
    graph.setInitialValue(A, a)
    graph.setInitialValue(B, b)
    seq = program.Sequence()
    poplin.matMulWithOutput(graph, A, B, out, seq)
    (got,) = run(graph, device, seq, [out])
    assert_product_close(got, a, b, dtype)


def rhs_panel_places(k, n, groups=1, width=256):
    """[(begin, end)] of B [k, n] (each of `groups` after the other) in column panels of `width`
    columns, one after the other, each with its rows back to back, the last one's columns past
    n unused: the layout createMatMulInputRHS gives where the emulator's few-rows products read B."""
    panels = -(-n // width)
    return [(((g * panels + p) * k + i) * width, ((g * panels + p) * k + i) * width + min(width, n - p * width))
            for g in range(groups) for i in range(k) for p in range(panels)]


# createMatMulInputRHS (and preArrangeMatMulInputRHS) lay B out for the product's kernel: for an
# A of few rows a FLOAT B wider than 256 columns in column panels, which the products read where
# they lie (in place of rows 4 KB apart); otherwise plain rows. A is plain rows either way.
@pytest.mark.needs_emulator("the emulator's layout of matmul operands")
@pytest.mark.parametrize("how", ["created", "pre-arranged"])
@pytest.mark.parametrize("dtype, m, n, in_panels", [(poplar.FLOAT, 2, 1024, True), (poplar.FLOAT, 32, 600, True),
                                                    (poplar.FLOAT, 2, 256, False), (poplar.HALF, 32, 600, False)])
def test_rhs_is_laid_out_for_the_product(graph, device, how, dtype, m, n, in_panels):
    k = 7
    a, b = random_values((m, k), dtype, 1), random_values((k, n), dtype, 2)
    A = poplin.createMatMulInputLHS(graph, dtype, [m, k], [k, n], "A")
    seq = program.Sequence()
    plain_b = variable(graph, b, "plainB", dtype)
    if how == "created":
        B = poplin.createMatMulInputRHS(graph, dtype, [m, k], [k, n], "B")
        seq.add(program.Copy(plain_b, B))
    else:
        B = poplin.preArrangeMatMulInputRHS(graph, [m, k], plain_b, seq, "B")
    seq.add(program.Copy(variable(graph, a, "plainA", dtype), A))
    places = [(r.interval.begin(), r.interval.end()) for r in B.getVarRegions()]
    assert places == (rhs_panel_places(k, n) if in_panels else [(0, k * n)])
    assert [(r.interval.begin(), r.interval.end()) for r in A.getVarRegions()] == [(0, m * k)]
    assert covered_elements(graph.getTileMapping(B)) == list(range(k * n))
    (got,) = run(graph, device, seq, [poplin.matMul(graph, A, B, seq, "product")])
    assert_product_close(got, a, b, dtype)


@pytest.mark.needs_emulator("the emulator's layout of matmul operands")
def test_grouped_rhs_is_laid_out_for_the_product(graph, device):
    a, b = random_values((2, 3, 4), seed=1), random_values((2, 4, 300), seed=2)
    B = poplin.createMatMulGroupedInputRHS(graph, poplar.FLOAT, poplar.FLOAT, [2, 3, 4], [2, 4, 300], "B")
    assert [(r.interval.begin(), r.interval.end()) for r in B.getVarRegions()] == rhs_panel_places(4, 300, groups=2)
    seq = program.Sequence([program.Copy(variable(graph, b, "plainB"), B)])
    (got,) = run(graph, device, seq, [poplin.matMulGrouped(graph, variable(graph, a, "a"), B, seq, poplar.FLOAT)])
    assert_product_close(got, a, b, poplar.FLOAT)


# A C++ program as written for the SDK (tests/cpp/matmul_created_operands.cpp): its B from
# createMatMulInputRHS lies in column panels, which its product reads where they lie.
@pytest.mark.needs_emulator("the emulator's layout of matmul operands")
def test_cpp_program_gets_the_created_layout(tmp_path):
    printed = run_labelled_program(tmp_path, "matmul_created_operands")[0]
    m, k, n = 2, 5, 600

    def values(size, seed):
        return np.sin(0.37 * np.arange(size) + seed).astype(np.float32).astype(np.float64)
    places = [int(v) for v in printed["B"].split()]
    assert list(zip(places[::2], places[1::2])) == rhs_panel_places(k, n)
    got = np.array(printed["C"].split(), np.float32).reshape(m, n)
    assert_product_close(got, values(m * k, 0.1).reshape(m, k), values(k * n, 0.2).reshape(k, n), poplar.FLOAT)


def test_created_grouped_operands(graph):
    a_shape, b_shape = [3, 8, 5], [3, 5, 7]
    created = [
        poplin.createMatMulGroupedInputLHS(graph, poplar.HALF, poplar.FLOAT, a_shape, b_shape),
        poplin.createMatMulGroupedInputRHS(graph, poplar.HALF, poplar.FLOAT, a_shape, b_shape),
        poplin.createMatMulGroupedOutput(graph, poplar.HALF, poplar.FLOAT, a_shape, b_shape),
    ]
    assert [t.shape() for t in created] == [a_shape, b_shape, [3, 8, 7]]
    assert [t.elementType() for t in created] == [poplar.HALF, poplar.HALF, poplar.FLOAT]
    for t in created:
        assert covered_elements(graph.getTileMapping(t)) == list(range(t.numElements()))


def test_output_rows_are_spread_over_tiles(graph):
    A = graph.addVariable(poplar.FLOAT, [64, 16], "a")
    B = graph.addVariable(poplar.FLOAT, [16, 32], "b")
    c = poplin.matMul(graph, A, B, program.Sequence())
    mapping = graph.getTileMapping(c)
    assert sum(1 for intervals in mapping if intervals) == 4
    assert covered_elements(mapping) == list(range(64 * 32))
    for intervals in mapping:  # whole rows on each tile
        assert all(begin % 32 == 0 and end % 32 == 0 for begin, end in intervals)


def test_pre_arranged_rhs_is_a_copy(graph, device):
    a, b = random_values((3, 4), seed=1), random_values((4, 5), seed=2)
    B = variable(graph, b, "b")
    seq = program.Sequence()
    arranged = poplin.preArrangeMatMulInputRHS(graph, [3, 4], B, seq, "arrange")
    assert arranged.shape() == [4, 5]
    assert covered_elements(graph.getTileMapping(arranged)) == list(range(20))
    seq.add(program.Copy(variable(graph, np.zeros((4, 5), np.float32), "zeros"), B))
    c = poplin.matMul(graph, variable(graph, a, "a"), arranged, seq,
                      options={"inputRHSIsPreArranged": True})
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, a, b, poplar.FLOAT)


def test_pre_arranged_grouped_rhs(graph):
    B = graph.addVariable(poplar.HALF, [2, 4, 5], "b")
    arranged = poplin.preArrangeMatMulGroupedInputRHS(graph, [2, 3, 4], B, program.Sequence(),
                                                      poplar.FLOAT)
    assert arranged.shape() == [2, 4, 5] and arranged.elementType() == poplar.HALF


def test_planning_cache_keeps_one_plan_per_problem(graph):
    cache = poplin.PlanningCache()
    assert cache.size() == 0
    A = graph.addVariable(poplar.FLOAT, [4, 3], "a")
    B = graph.addVariable(poplar.FLOAT, [3, 2], "b")
    seq = program.Sequence()
    poplin.matMul(graph, A, B, seq, cache=cache)
    poplin.matMul(graph, A, B, seq, cache=cache)
    assert cache.size() == 1
    poplin.matMul(graph, A, B, seq, poplar.HALF, cache=cache)
    poplin.createMatMulInputLHS(graph, poplar.FLOAT, [8, 3], [3, 2], cache=cache)
    assert cache.size() == 3


def test_accepted_options(graph, device):
    a, b = random_values((3, 4), seed=1), random_values((4, 5), seed=2)
    options = {
        "availableMemoryProportion": 0.3,
        "fullyConnectedPass": "TRAINING_FWD",
        "use128BitConvUnitLoad": True,
        "enableMultiStageReduce": "false",
        "remapOutputTensor": "true",
        "planConstraints": '{"method": "AMP"}',
    }
    poplin.matmulValidateOptions(options)
    seq = program.Sequence()
    c = poplin.matMul(graph, variable(graph, a, "a"), variable(graph, b, "b"), seq, options=options)
    (got,) = run(graph, device, seq, [c])
    assert_product_close(got, a, b, poplar.FLOAT)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"partialsType": "double"}, "Invalid value 'double' for option 'partialsType'"),
        ({"partialsType": "FLOAT16"}, "option 'partialsType': expected half or float"),
        ({"availableMemoryProportion": 1.5}, "option 'availableMemoryProportion'"),
        ({"availableMemoryProportion": "lots"}, "option 'availableMemoryProportion'"),
        ({"fullyConnectedPass": "BACKWARD"}, "option 'fullyConnectedPass'"),
        ({"remapOutputTensor": "yes"}, "option 'remapOutputTensor': expected true or false"),
        ({"partialType": "half"}, "Unrecognised option 'partialType'"),
    ],
)
def test_invalid_options(graph, options, message):
    A = graph.addVariable(poplar.FLOAT, [2, 3], "a")
    B = graph.addVariable(poplar.FLOAT, [3, 2], "b")
    with pytest.raises(poplar.invalid_option, match=message):
        poplin.matMul(graph, A, B, program.Sequence(), options=options)
    with pytest.raises(poplar.invalid_option, match=message):
        poplin.matmulValidateOptions(options)
    with pytest.raises(poplar.invalid_option, match=message):
        poplin.createMatMulInputRHS(graph, poplar.FLOAT, [2, 3], [3, 2], options=options)


def matmul_error(graph, call, *shapes_and_types):
    """The poplibs_error message of `call` on variables of the given (shape, type)."""
    tensors = [graph.addVariable(dtype, shape, name)
               for name, (shape, dtype) in zip("abck", shapes_and_types)]
    with pytest.raises(poputil.poplibs_error) as error:
        call(*tensors, program.Sequence())
    return str(error.value)


F32, F16, I32 = poplar.FLOAT, poplar.HALF, poplar.INT


@pytest.mark.parametrize(
    "call, operands, message",
    [
        ("matMul", [([2, 3, 4], F32), ([4, 5], F32)], "poplin::matMul: A must have rank 2, got 'a' [2,3,4] float"),
        ("matMul", [([3, 4], F32), ([4], F32)], "poplin::matMul: B must have rank 2, got 'b' [4] float"),
        ("matMul", [([3, 5], F32), ([4, 7], F32)],
         "poplin::matMul: inner dimensions differ: A 'a' [3,5] float needs B of shape [5,n], got 'b' [4,7] float"),
        ("matMul", [([3, 5], F32), ([5, 7], F16)],
         "poplin::matMul: A and B must have the same element type, got 'a' [3,5] float and 'b' [5,7] half"),
        ("matMul", [([3, 5], I32), ([5, 7], I32)],
         "poplin::matMul: the element type of A and B must be FLOAT or HALF, got int"),
        ("matMulGrouped", [([3, 5], F32), ([2, 5, 7], F32)],
         "poplin::matMulGrouped: A must have rank 3, got 'a' [3,5] float"),
        ("matMulGrouped", [([2, 3, 5], F32), ([3, 5, 7], F32)],
         "poplin::matMulGrouped: A and B must have the same number of groups, got 'a' [2,3,5] float and 'b' [3,5,7] float"),
        ("matMulGrouped", [([2, 3, 5], F32), ([2, 6, 7], F32)],
         "poplin::matMulGrouped: inner dimensions differ: A 'a' [2,3,5] float needs B of shape [2,5,n], got 'b' [2,6,7] float"),
    ],
)
def test_operand_errors(graph, call, operands, message):
    function = getattr(poplin, call)
    if call == "matMulGrouped":
        got = matmul_error(graph, lambda a, b, seq: function(graph, a, b, seq, poplar.FLOAT), *operands)
    else:
        got = matmul_error(graph, lambda a, b, seq: function(graph, a, b, seq), *operands)
    assert got == message


def test_output_type_error(graph):
    got = matmul_error(graph, lambda a, b, seq: poplin.matMul(graph, a, b, seq, poplar.INT),
                       ([2, 3], F32), ([3, 4], F32))
    assert got == "poplin::matMul: outputType must be FLOAT or HALF, got int"


@pytest.mark.parametrize(
    "c, k, message",
    [
        (([3, 5], F32), None, "poplin::matMulAcc: C must have shape [3,4], got 'c' [3,5] float"),
        (([4, 3], F32), None, "poplin::matMulAcc: C must have shape [3,4], got 'c' [4,3] float"),
        (([3, 4], I32), None, "poplin::matMulAcc: the element type of C must be FLOAT or HALF, got int"),
        (([3, 4], F32), ([2], F32), "poplin::matMulAcc: the scale k must have exactly one element, got 'k' [2] float"),
        (([3, 4], F32), ([1], I32), "poplin::matMulAcc: the element type of the scale k must be FLOAT or HALF, got int"),
    ],
)
def test_matmul_acc_errors(graph, c, k, message):
    operands = [([3, 2], F32), ([2, 4], F32), c] + ([k] if k else [])
    if k:
        call = lambda a, b, c, k, seq: poplin.matMulAcc(graph, c, k, a, b, seq)  # noqa: E731
    else:
        call = lambda a, b, c, seq: poplin.matMulAcc(graph, c, 1.0, a, b, seq)  # noqa: E731
    assert matmul_error(graph, call, *operands) == message


def test_grouped_acc_and_output_errors(graph):
    got = matmul_error(graph, lambda a, b, c, seq: poplin.matMulGroupedAcc(graph, c, 1.0, a, b, seq),
                       ([2, 3, 2], F32), ([2, 2, 4], F32), ([3, 4], F32))
    assert got == "poplin::matMulGroupedAcc: C must have shape [2,3,4], got 'c' [3,4] float"
    got = matmul_error(graph, lambda a, b, c, seq: poplin.matMulWithOutput(graph, a, b, c, seq),
                       ([3, 2], F32), ([2, 4], F32), ([4, 3], F32))
    assert got == "poplin::matMulWithOutput: out must have shape [3,4], got 'c' [4,3] float"
    got = matmul_error(graph, lambda a, b, c, seq: poplin.matMulGroupedWithOutput(graph, a, b, c, seq),
                       ([1, 3, 2], F32), ([1, 2, 4], F32), ([1, 3, 4], I32))
    assert got == "poplin::matMulGroupedWithOutput: the element type of out must be FLOAT or HALF, got int"


@pytest.mark.parametrize(
    "create, args, message",
    [
        ("createMatMulInputLHS", (F32, [3, 5], [4, 7]),
         "poplin::createMatMulInputLHS: inner dimensions differ: aShape [3,5] needs bShape of shape [5,n], got [4,7]"),
        ("createMatMulInputRHS", (F32, [3, 5, 1], [5, 7]),
         "poplin::createMatMulInputRHS: aShape must have rank 2, got [3,5,1]"),
        ("createMatMulOutput", (I32, [3, 5], [5, 7]),
         "poplin::createMatMulOutput: inputType must be FLOAT or HALF, got int"),
        ("createMatMulGroupedInputLHS", (F32, F32, [2, 3, 5], [1, 5, 7]),
         "poplin::createMatMulGroupedInputLHS: aShape and bShape must have the same number of groups, got [2,3,5] and [1,5,7]"),
        ("createMatMulGroupedOutput", (F32, F16, [2, 3, 5], [2, 5]),
         "poplin::createMatMulGroupedOutput: bShape must have rank 3, got [2,5]"),
        ("createMatMulGroupedInputRHS", (F32, I32, [2, 3, 5], [2, 5, 7]),
         "poplin::createMatMulGroupedInputRHS: outputType must be FLOAT or HALF, got int"),
    ],
)
def test_create_errors(graph, create, args, message):
    with pytest.raises(poputil.poplibs_error) as error:
        getattr(poplin, create)(graph, *args)
    assert str(error.value) == message


def test_pre_arrange_and_transpose_errors(graph):
    B = graph.addVariable(poplar.FLOAT, [4, 5], "b")
    with pytest.raises(poputil.poplibs_error) as error:
        poplin.preArrangeMatMulInputRHS(graph, [3, 6], B, program.Sequence())
    assert str(error.value) == (
        "poplin::preArrangeMatMulInputRHS: inner dimensions differ: "
        "aShape [3,6] needs B of shape [6,n], got 'b' [4,5] float")
    with pytest.raises(poputil.poplibs_error) as error:
        poplin.transposeGroupedMatrix(B)
    assert str(error.value) == "poplin::transposeGroupedMatrix: A must have rank 3, got 'b' [4,5] float"


def test_cpp_matmul_params_order_and_planning_cache(tmp_path):
    exe = build_program(tmp_path, r'''
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <cstdio>
int main() {
  poplar::IPUModel model;
  poplar::Device device = model.createDevice();
  poplin::MatMulParams a{poplar::FLOAT, poplar::FLOAT, {2, 3}, {3, 4}}, b{poplar::FLOAT, poplar::FLOAT, {2, 3}, {3, 5}};
  poplar::OptionFlags options;
  poplin::MatMulPlanParams planned{&device.getTarget(), a, &options};
  poplin::matmul::PlanningCache cache;
  poplin::PlanningCache &impl = cache.getImpl();
  std::printf("%d %d %d %zu\n", (a < b) != (b < a), !(a < a), &impl == &cache && std::get<1>(planned).bShape[1] == 4,
              impl.size());
}''')
    assert subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout == "1 1 1 0\n"


def test_linspace_and_meshgrid2d_match_numpy():
    from raw_runner import Runner

    r = Runner()
    xs = poplin.linspace(r.graph, poplar.FLOAT, -1.0, 1.0, 5, "xs")
    ys = poplin.linspace(r.graph, poplar.HALF, 2.0, 3.0, 3)
    one = poplin.linspace(r.graph, poplar.FLOAT, 4.0, 9.0, 1)
    x_grid, y_grid = poplin.meshgrid2d(r.graph, xs, poplin.linspace(r.graph, poplar.FLOAT, 0.0, 1.0, 3))
    got_x, got_y, got_one, got_xg, got_yg = r.run(xs, ys, one, x_grid, y_grid)
    np.testing.assert_allclose(got_x, np.linspace(-1.0, 1.0, 5), rtol=1e-7)
    np.testing.assert_allclose(got_y, np.linspace(2.0, 3.0, 3), rtol=1e-3)
    np.testing.assert_array_equal(got_one, [4.0])
    want_xg, want_yg = np.meshgrid(np.linspace(-1.0, 1.0, 5), np.linspace(0.0, 1.0, 3))
    np.testing.assert_allclose(got_xg, want_xg, rtol=1e-7)
    np.testing.assert_allclose(got_yg, want_yg, rtol=1e-7)
    assert ys.elementType() == poplar.HALF and x_grid.shape() == [3, 5]
    with pytest.raises(poputil.poplibs_error, match="linspace: the type must be FLOAT or HALF, not int"):
        poplin.linspace(r.graph, poplar.INT, 0.0, 1.0, 3)
    with pytest.raises(poputil.poplibs_error, match="meshgrid2d: the axes must be vectors, got .*\\[3,5\\]"):
        poplin.meshgrid2d(r.graph, x_grid, xs)
