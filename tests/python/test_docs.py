"""The documentation: every Python snippet of its pages runs (the snippets check what they
compute against numpy), and `python -m popdsl docs` builds the site with warnings as errors."""
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

from popdsl.device import ipu_model
from popdsl.session import Session

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(DOCS.glob("*.rst"))
SNIPPET = re.compile(r"^\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)", re.M)


def snippets(page: pathlib.Path) -> list:
    return [textwrap.dedent(block) for block in SNIPPET.findall(page.read_text())]


def fixtures() -> dict:
    """What the plugin's fixtures give, for the pages' pytest-style examples."""
    device = ipu_model(tiles=4)
    return {"ipu_device": device,
            "session_factory": lambda graph, programs, options=None: Session(graph, programs, device=device,
                                                                             options=options)}


def test_the_guide_has_its_pages():
    names = {p.stem for p in PAGES}
    assert {"getting_started", "pythonic_layer", "control_flow", "sessions_and_streams", "training",
            "profiling", "builders", "convolutions", "custom_vertices", "porting", "sdk", "emulator",
            "performance", "developing"} <= names
    assert sum(len(snippets(p)) for p in PAGES) >= 20


# Pages whose snippets use what only the emulator backend has (the sdk build skips them).
NEEDS_EMULATOR = {"profiling": "profile data", "emulator": "profile data",
                  "profiling_pva": "the emulator's profile.pop",
                  "sessions_and_streams": "a session's stream feeds and host callbacks",
                  "training": "a session's stream feeds",
                  "replicas_and_ipus": "replicated graphs and profile data",
                  "training_at_scale": "replicated graphs and profile data"}


def page_params() -> list:
    return [pytest.param(p, id=p.stem, marks=[pytest.mark.needs_emulator(NEEDS_EMULATOR[p.stem])]
                         if p.stem in NEEDS_EMULATOR else [])
            for p in PAGES if snippets(p)]


@pytest.mark.parametrize("page", page_params())
def test_the_snippets_of_a_page_run(page, tmp_path, monkeypatch, capsys):
    # A page's snippets share one namespace, in order, as a reader runs them.
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": f"docs_{page.stem}"}
    for i, code in enumerate(snippets(page)):
        exec(compile(code, f"{page.name} snippet {i + 1}", "exec"), namespace)
    for name, test in [(n, v) for n, v in namespace.items() if n.startswith("test_") and callable(v)]:
        given = fixtures()
        test(**{arg: given[arg] for arg in test.__code__.co_varnames[:test.__code__.co_argcount]})


def test_the_cpp_program_of_the_sdk_page_builds_against_the_prefix_and_runs(tmp_path):
    from cpp_build import build_program

    (source,) = re.findall(r"^\.\. code-block:: c\+\+\n\n((?:(?:   .*)?\n)+)", (DOCS / "sdk.rst").read_text(), re.M)
    exe = build_program(tmp_path, textwrap.dedent(source), std="c++11")
    printed = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert [float(v) for v in printed.split()] == [v * v for v in (1.0, 2.0, 3.0, 4.0)]


def test_python_m_popdsl_docs_builds_the_site_once_and_prints_its_index(tmp_path):
    out = tmp_path / "html"
    command = [sys.executable, "-m", "popdsl", "docs", "--out", str(out)]
    built = subprocess.run(command, capture_output=True, text=True, cwd=DOCS.parent)
    assert built.returncode == 0, built.stdout + built.stderr  # -W: any warning fails the build
    index = out / "index.html"
    assert built.stdout.strip() == str(index) and index.is_file()
    # The reference carries the docstrings, of the Pythonic layer and of the raw bindings.
    assert "Runs program" in (out / "api" / "pythonic.html").read_text()  # Session.run's
    assert "addVariable" in (out / "api" / "raw.html").read_text()
    assert "not loop-carried" in (out / "control_flow.html").read_text()
    # Up to date: the second call prints the path without building again.
    built_at = index.stat().st_mtime
    again = subprocess.run(command, capture_output=True, text=True, cwd=DOCS.parent, check=True)
    assert again.stdout.strip() == str(index) and index.stat().st_mtime == built_at


def test_python_m_popdsl_docs_without_the_sources_says_where_they_are(tmp_path, monkeypatch, capsys):
    import popdsl.__main__ as cli

    # A pip-installed popdsl run outside a clone: no docs/ beside the package or here.
    monkeypatch.setattr(cli, "__file__", str(tmp_path / "site-packages" / "popdsl" / "__main__.py"))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["docs"]) == 1
    assert "no documentation sources (docs/conf.py)" in capsys.readouterr().err


# "differentiates through ``pd.Repeat``, ``pd.If``/``pd.Else`` and ``pd.Switch``", "refuses ``pd.While``"
_GRADIENT_CLAIM = re.compile(r"(differentiates through|refuses|differentiating through) "
                             r"((?:``pd\.[\w.]+``(?:/``pd\.[\w.]+``)?(?:,? and |,? or |, )?)+)")


def test_the_gradient_claims_of_the_prose_match_the_rules():
    """Where a page says pd.grad differentiates through an op or refuses it, the gradient
    registry agrees (a page once said pd.Switch was refused while its rule existed)."""
    import popdsl  # noqa: F401  (registers the rules)
    from popdsl.autodiff import registry

    claims = []
    for page in PAGES:
        text = " ".join(page.read_text().split())
        for verb, names in _GRADIENT_CLAIM.findall(text):
            for name in re.findall(r"``(pd\.[\w.]+)``", names):
                kind = "pd.If" if name == "pd.Else" else name  # an Else is part of its If's record
                refused = verb != "differentiates through"
                claims.append((page.name, verb, name))
                assert (kind in registry.NO_GRADIENT) == refused and (kind in registry.RULES) != refused, \
                    f"{page.name}: says pd.grad {verb} {name}, but the registry " \
                    f"{'has a rule for' if kind in registry.RULES else 'refuses'} it"
    assert {("control_flow.rst", "refuses", "pd.While"), ("training.rst", "differentiating through", "pd.While"),
            ("control_flow.rst", "differentiates through", "pd.Switch")} <= set(claims), claims
