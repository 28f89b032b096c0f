"""README's Python snippets run as written."""
import pathlib
import re

import numpy as np

from popdsl.testing.plugin import ipu_device, session_factory  # noqa: F401  (fixtures)

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_first_program_runs(capsys):
    exec(compile(SNIPPETS[0], "README first program", "exec"), {})
    assert "5.4365" in capsys.readouterr().out  # exp(2) * 2 from the fused map


def test_testing_example_passes(ipu_device, session_factory):
    namespace = {}
    exec(compile(SNIPPETS[1], "README testing example", "exec"), namespace)
    namespace["test_softplus"](ipu_device, session_factory)


def test_builders_example_runs(capsys):
    (snippet,) = [s for s in SNIPPETS if "pd.nn.flash_attention_qkv_packed_with_stash" in s]
    exec(compile(snippet, "README builders example", "exec"), {})
    shape, last_h = capsys.readouterr().out.split(")", 1)
    assert shape == "(2, 16, 8"
    # Every input, weight and bias is 0.1, so all 4 units of both rows share one value.
    h = c = 0.0
    for _ in range(5):
        z = 3 * 0.1 * 0.1 + 4 * 0.1 * h + 0.1
        gate = 1 / (1 + np.exp(-z))
        c = gate * c + gate * np.tanh(z)
        h = gate * np.tanh(c)
    got = np.array([float(v) for v in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", last_h)])
    assert got.shape == (8,)
    np.testing.assert_allclose(got, h, rtol=1e-5)


def test_convolution_example_runs(capsys):
    (snippet,) = [s for s in SNIPPETS if "pd.nn.conv(" in s]
    exec(compile(snippet, "README convolution example", "exec"), {})
    values, shape = capsys.readouterr().out.rsplit("(", 1)
    # An inner output sums 2 input channels x 3 x 3 ones times 0.5.
    np.testing.assert_allclose([float(v) for v in values.strip(" []\n").split()], [9.0] * 6)
    assert shape.strip() == "2, 6, 2, 2)"


def test_training_example_matches_numpy(capsys):
    (snippet,) = [s for s in SNIPPETS if "pd.grad(" in s]
    exec(compile(snippet, "README training example", "exec"), {})
    got = [float(v) for v in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", capsys.readouterr().out)]
    # The same 100 steps of SGD with momentum 0.9 (PyTorch's: the first buffer is the gradient).
    x = np.linspace(-1, 1, 8)
    y = 3 * x + 0.5
    params, buffer = np.zeros(2), None
    for _ in range(100):
        residual = params[0] * x + params[1] - y
        grad = np.array([2 * residual @ x, 2 * residual.sum()]) / 8
        buffer = grad if buffer is None else 0.9 * buffer + grad
        params = params - 0.1 * buffer
    np.testing.assert_allclose(got, params, rtol=1e-4)
    np.testing.assert_allclose(got, [3.0, 0.5], atol=0.01)


def test_replication_example_runs():
    (snippet,) = [s for s in SNIPPETS if "pd.Graph(dev, replicas=4)" in s]
    namespace = {}
    exec(compile(snippet, "README replication example", "exec"), namespace)
    feed = np.arange(32, dtype=np.float64).reshape(4, 8) / 32
    expected = 1 - 0.1 * feed.mean(0)  # every replica applies the mean gradient
    np.testing.assert_allclose(namespace["new_w"], np.broadcast_to(expected, (4, 8)), rtol=1e-6)
