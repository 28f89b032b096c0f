"""Profiles that attribute clearly: source paths (the user's relative to the working
directory, popdsl's own as popdsl/...), one line's several steps told apart by step kind
and debug name, name= keeping the line, memory per variable against hand-computed sizes,
and plots with whole-number tile ticks and titles that say per tile or in total."""
import linecache
import os

import numpy as np
import pytest

import popdsl as pd

from debug_paths import shown_path

pytestmark = pytest.mark.needs_emulator("profile data (Engine.getProfileData, Session.profile)")

HERE = shown_path(__file__)  # how debug names show this file


def line_of(text: str) -> int:
    """The line of this file that ends with `text`."""
    [number] = [i for i, line in enumerate(open(__file__), 1) if line.rstrip().endswith(text)]
    return number


@pytest.fixture
def profiled(device):
    """A graph of a few variables, a line of several ops, a named op and a builder's op."""
    g = pd.Graph(device)
    x = g.variable(pd.float32, (4, 8), name="x", init=0.5)
    h = g.variable(pd.float16, (3, 5), name="h", init=1.0)
    k = g.variable(pd.int32, (7,), name="k", init=2)
    g.constant(np.ones(9, np.float32), name="c")
    with pd.Sequence() as main:
        y = pd.exp(x) + pd.sin(x)  # SEVERAL OPS
        z = pd.map(lambda a: a * 2, y, name="doubled")  # NAMED OP
        loss = pd.nn.mse(z, y)
    with pd.Session(g, main, device=device) as s:
        s.run()
        np.testing.assert_allclose(s.read(loss), np.mean((np.exp(0.5) + np.sin(0.5)) ** 2), rtol=1e-5)
        np.testing.assert_array_equal(s.read("h"), np.ones((3, 5)))  # a variable keeps its plain name
        return s.profile, dict(x=x, h=h, k=k, y=y, z=z)


def test_memory_by_variable_matches_hand_computed_sizes(profiled):
    profile, t = profiled
    sizes = profile.memory.by_variable()
    assert sizes["x"] == 4 * 8 * 4 and sizes["h"] == 3 * 5 * 2 and sizes["k"] == 7 * 4
    assert "c" not in sizes  # constants are not variables
    [y_bytes] = [b for name, b in sizes.items() if "pd.map ADD(_1, _2)" in name]
    assert y_bytes == 4 * 8 * 4
    assert sum(sizes.values()) == sum(profile.memory.variable_bytes)  # every variable byte, once
    assert list(sizes.values()) == sorted(sizes.values(), reverse=True)
    assert pd.Profile.from_json(profile.to_json()).memory.by_variable() == sizes


def test_a_users_line_shows_its_path_relative_to_the_working_directory(profiled):
    profile, _ = profiled
    line = line_of("# SEVERAL OPS")
    [cost] = [c for c in profile.by_line() if c.location == f"{HERE}:{line}"]
    assert cost.label == f"{HERE}:{line}: y = pd.exp(x) + pd.sin(x)  # SEVERAL OPS"


def test_a_builders_line_shows_its_package_relative_path(profiled):
    profile, _ = profiled
    library = [c for c in profile.by_line() if c.location.startswith("popdsl/nn/losses.py:")]
    assert library, [c.location for c in profile.by_line()]
    package = os.path.dirname(os.path.dirname(pd.__file__))
    for cost in library:
        path, line = cost.location.rsplit(":", 1)
        statement = cost.label[len(cost.location) + 2:]
        assert linecache.getline(os.path.join(package, path), int(line)).strip() == statement


def test_one_lines_steps_are_told_apart_by_kind_and_debug_name(profiled):
    profile, _ = profiled
    line = line_of("# SEVERAL OPS")
    [cost] = [c for c in profile.by_line() if c.location == f"{HERE}:{line}"]
    ops = sorted(p.name.rsplit("/", 1)[1] for p in cost.parts)
    assert ops == ["pd.map ADD(_1, _2)", "pd.map EXPONENT(_1)", "pd.map SIN(_1)"]
    assert all(p.kind == "Execute" and p.steps == 1 and p.executions == 1 for p in cost.parts)
    assert sum(p.total_cycles for p in cost.parts) == cost.total_cycles
    assert cost.steps == 3


def test_name_keeps_the_source_line(profiled):
    profile, _ = profiled
    line = line_of("# NAMED OP")
    [step] = [s for s in profile.steps if s.name.startswith("doubled @ ")]
    assert step.source.startswith(f"{HERE}:{line}: z = pd.map(lambda a: a * 2, y, name=\"doubled\")")
    assert [c.location for c in profile.by_line() if "doubled" in c.parts[0].name] == [f"{HERE}:{line}"]


def test_memory_plot_has_whole_tile_ticks_and_says_per_tile_or_total(profiled):
    pytest.importorskip("matplotlib")
    from popdsl import _plots
    profile, _ = profiled
    top, bottom = _plots.memory_figure(profile).axes
    low, high = top.get_xlim()
    ticks = [tick for tick in top.get_xticks() if low <= tick <= high]
    assert ticks and all(float(tick).is_integer() for tick in ticks)
    assert all(float(tick).is_integer() for tick in bottom.get_yticks())  # counts of tiles
    total_kb = profile.memory.total_bytes / 1024
    assert f"{total_kb:,.1f} kB in total on {profile.target.num_tiles:,} tiles" in top.get_title()
    assert "per tile" not in top.get_title() and top.get_ylabel() == "memory per tile (kB)"
    assert bottom.get_xlabel() == "memory per tile (kB)"


def test_execution_plot_labels_identical_steps_with_their_step_numbers(device, tmp_path):
    pytest.importorskip("matplotlib")
    from popdsl import _plots
    g = pd.Graph(device)
    x = g.variable(pd.float32, (16,), name="x", init=1.0)
    with pd.Sequence() as main:
        x += 1; x += 1  # noqa: E702  (two identical steps from one line)
    with pd.Session(g, main, device=device) as s:
        s.run()
        steps = [st for st in s.profile.steps if "x += 1; x += 1" in st.name]
    labels = _plots._step_labels(steps)
    assert len(steps) == 2 and len(set(labels)) == 2
    assert all(label.endswith(f"(step {st.index})") for label, st in zip(labels, steps))


def test_variables_sharing_a_name_add_up_in_the_profile_and_in_its_report(device, tmp_path):
    g = pd.Graph(device)
    first = g.variable(pd.float32, (2,), name="twin", init=1.0)
    second = g.variable(pd.int32, (3,), name="twin", init=1)
    with pd.Sequence() as main:
        first += 1
        second += 1
    options = {"autoReport.all": "true", "autoReport.directory": str(tmp_path)}
    with pd.Session(g, main, device=device, options=options) as s:
        s.run()
        live = s.profile.memory.by_variable()
    assert live["twin"] == 2 * 4 + 3 * 4
    [report] = tmp_path.rglob("profile.json")  # the engine's own file (a later session's is in a sub-directory)
    assert pd.Profile.from_json(report.read_text()).memory.by_variable() == live


def build_identical_ops_on_one_line(device):
    """A program whose lines each build two identical ops; its profile, as run."""
    g = pd.Graph(device)
    x = g.variable(pd.float32, (4, 8), name="x", init=0.5)
    w = g.variable(pd.float32, (8, 2), name="w", init=0.25)
    with pd.Sequence() as main:
        y = x @ w + x @ w  # TWO MATMULS
        a, b = pd.exp(x), pd.exp(x)  # TWO EXPS
        for _ in range(2):
            y += 1  # ONE PLACE, BUILT TWICE
    with pd.Session(g, main, device=device) as s:
        s.run()
        np.testing.assert_allclose(s.read(y), np.full((4, 2), 2 * 8 * 0.5 * 0.25 + 2), rtol=1e-6)
        return s.profile


def test_identical_ops_on_one_line_have_distinct_names_that_a_rebuild_keeps(device):
    profile = build_identical_ops_on_one_line(device)
    steps = [(step.kind, step.name) for step in profile.steps]
    matmuls = [name for kind, name in steps if name.endswith(("/pd.matmul", "/pd.matmul #2"))]
    line = line_of("# TWO MATMULS")
    assert matmuls == [f"{HERE}:{line}: y = x @ w + x @ w  # TWO MATMULS/pd.matmul",
                       f"{HERE}:{line}: y = x @ w + x @ w  # TWO MATMULS/pd.matmul #2"]
    exps = [name for kind, name in steps if "# TWO EXPS" in name]
    assert [name.rsplit("/", 1)[1] for name in exps] == ["pd.map EXPONENT(_1)", "pd.map EXPONENT(_1) #2"]
    # one place in the code built twice (a Python loop) is one name, as before
    assert len({name for kind, name in steps if "# ONE PLACE, BUILT TWICE" in name}) == 1
    again = build_identical_ops_on_one_line(device)  # the same names when the program is built again
    assert [(step.kind, step.name) for step in again.steps] == steps
    # the line's cost keeps its plain statement, its parts tell the two matmuls apart
    [cost] = [c for c in profile.by_line() if c.location == f"{HERE}:{line}"]
    assert cost.label == f"{HERE}:{line}: y = x @ w + x @ w  # TWO MATMULS"
    assert sorted(p.name.rsplit("/", 1)[1] for p in cost.parts) == ["pd.map ADD(_1, _2)", "pd.matmul", "pd.matmul #2"]


def test_backward_steps_are_charged_to_the_forward_line_they_differentiate(device):
    g = pd.Graph(device)
    x = g.variable(pd.float32, (4, 8), name="x", init=0.5)
    w = g.variable(pd.float32, (8, 3), name="w", init=0.25)
    with pd.Sequence() as main:
        h = pd.tanh(x @ w)  # FORWARD PRODUCT
        loss = (h * h).sum()  # FORWARD LOSS
        [dw] = pd.grad(loss, [w])  # THE GRAD CALL
    with pd.Session(g, main, device=device) as s:
        s.run()
        h64 = np.tanh(np.full((4, 8), 0.5) @ np.full((8, 3), 0.25))
        np.testing.assert_allclose(s.read(dw), np.full((4, 8), 0.5).T @ (2 * h64 * (1 - h64 ** 2)), rtol=1e-5)
        lines = {c.location: c for c in s.profile.by_line()}
    product, squares = line_of("# FORWARD PRODUCT"), line_of("# FORWARD LOSS")
    backward = lines[f"grad of {HERE}:{product}"]
    assert backward.label == f"grad of {HERE}:{product}: h = pd.tanh(x @ w)  # FORWARD PRODUCT"
    assert {p.name.rsplit("/", 1)[1] for p in backward.parts} >= {"pd.matmul"}
    assert f"grad of {HERE}:{squares}" in lines and f"{HERE}:{product}" in lines  # the forward's own line
    # pd.grad's own line keeps only its seed and final sums: no product of the backward.
    grad_call = [c for location, c in lines.items() if location.endswith(f":{line_of('# THE GRAD CALL')}")]
    assert all(not p.name.endswith("pd.matmul") for c in grad_call for p in c.parts)
