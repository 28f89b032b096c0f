"""README's Python snippets run as written."""
import pathlib
import re

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
