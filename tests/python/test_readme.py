"""README's Python snippets run as written, its first program is examples/quickstart.py, and
its commands are the ones CI runs (.ci/run). The rest of the documentation's snippets run in
test_docs.py."""
import pathlib
import re

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", README, re.S)


def numbers(text: str) -> list:
    return [float(v) for v in re.findall(r"-?\d+\.\d*(?:e-?\d+)?", text)]


def test_the_readme_stays_short():
    assert len(README.splitlines()) <= 160


def test_the_commands_are_the_ones_ci_runs():
    (commands,) = re.findall(r"```sh\n(.*?)```", README, re.S)
    install, test = [line.split("#")[0].strip() for line in commands.splitlines()]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert install.startswith("pip install '.[test]' && python examples/quickstart.py")
    assert "pip install '.[test]'" in ci and test == "pytest" and ci[-1] == "pytest"


def test_the_first_program_is_examples_quickstart():
    quickstart = (ROOT / "examples" / "quickstart.py").read_text()
    assert SNIPPETS[0] in quickstart


def test_the_first_program_prints_what_numpy_computes(capsys):
    exec(compile(SNIPPETS[0], "README first program", "exec"), {})
    got = numbers(capsys.readouterr().out)
    x = np.arange(8).reshape(2, 4) / 8
    y = np.tanh(x @ np.full((4, 3), 0.5)) + 1.0
    np.testing.assert_allclose(got[:6], y.ravel(), rtol=1e-6)
    np.testing.assert_allclose(got[6:], (x * 8).ravel())


def test_the_training_example_matches_numpy(capsys):
    (snippet,) = [s for s in SNIPPETS if "pd.grad(" in s]
    exec(compile(snippet, "README training example", "exec"), {})
    got = numbers(capsys.readouterr().out)
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


def test_the_pages_it_points_to_exist():
    # "Where to read next" names the docs site's pages by their titles.
    titles = {page.read_text().splitlines()[0] for page in (ROOT / "docs").glob("*.rst")}
    named = re.findall(r"\*\*(.+?)\*\*", README.split("## Where to read next")[1])
    for name in named:
        if name != "API reference":
            assert any(title.startswith(name) for title in titles), name
    assert (ROOT / "CONTRIBUTING.md").is_file()
