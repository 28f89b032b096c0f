"""Python and numpy protocols on pd.Tensor: numpy arrays and scalars as operands (constants in
the tensor's dtype), dtype mismatches named with their fix, float()/int() refused clearly."""
import numpy as np
import pytest

import popdsl as pd


def test_numpy_arrays_and_scalars_combine_with_tensors(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (2, 3), name="x", init=np.arange(6).reshape(2, 3))
    k = g.variable(pd.int32, (3,), name="k", init=[1, 2, 3])
    row = np.array([0.5, -1.0, 2.0])
    with pd.Sequence() as main:
        a = x + row                     # float64 array -> a float32 constant, broadcast
        b = row * x                     # numpy's reflected call reaches the tensor
        c = x - np.float32(1.5)         # a numpy scalar is a number
        d = k * np.array([2, 3, 4])     # int64 array -> int32
        e = np.array([[1.0], [2.0]]) / x[:, 1:]
    with pd.Session(g, main, device=device) as s:
        s.run()
        base = np.arange(6.0).reshape(2, 3)
        np.testing.assert_allclose(s.read(a), base + row)
        np.testing.assert_allclose(s.read(b), row * base)
        np.testing.assert_allclose(s.read(c), base - 1.5)
        np.testing.assert_array_equal(s.read(d), [2, 6, 12])
        assert s.read(d).dtype == np.int32
        np.testing.assert_allclose(s.read(e), np.array([[1.0], [2.0]]) / base[:, 1:], rtol=1e-6)


def test_mismatches_and_conversions_are_named(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (3,), name="x")
    h = g.variable(pd.float16, (3,), name="h")
    k = g.variable(pd.int32, (3,), name="k")
    with pd.Sequence():
        with pytest.raises(pd.BuildError, match=r"differ in dtype: left .*'x'.*right .*'h'.*pd.cast\(t, dtype\) "
                                                r"or t.astype\(dtype\)"):
            x + h
        with pytest.raises(pd.BuildError, match="float array would be truncated.*integer tensor"):
            k + np.array([0.5, 1.0, 2.0])
        with pytest.raises(pd.BuildError, match="a Python number or a numpy array, got str"):
            pd.max(x, "3")
        with pytest.raises(TypeError, match=r"float\(\) of device tensor .*session.read"):
            float(x[0])
        with pytest.raises(TypeError, match=r"int\(\) of device tensor .*session.read"):
            int(k[0])


def test_where_takes_arrays_in_the_values_dtype_not_the_conditions(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (3,), name="x", init=[1.0, -2.0, 3.0])
    with pd.Sequence() as main:
        y = pd.where(x > 0.0, np.array([0.5, 0.5, 0.5]), x)
        z = pd.where(np.array([True, False, True]), x, -x)
    with pd.Session(g, main, device=device) as s:
        s.run()
        np.testing.assert_allclose(s.read(y), [0.5, -2.0, 0.5])
        np.testing.assert_allclose(s.read(z), [1.0, 2.0, 3.0])
