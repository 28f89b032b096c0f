"""Every op kind the Pythonic layer records has a gradient rule that a check_grads case
runs, or a declared reason why it has none: "gradients of every op match finite
differences" is enforced here, not hoped for.

The kinds are found in popdsl's source: the kind argument of each record(...) call (and
of the helpers that pass theirs on), the kinds of views and control-flow steps. A call
whose kind this walk cannot work out fails the test, so a new op cannot slip past it."""
import ast
import pathlib

import numpy as np
import pytest

import popdsl as pd
import test_autodiff
import test_autodiff_control
import test_autodiff_ops
import test_custom_grad
import test_losses
import test_multi_ipu
import test_replication_pythonic
from popdsl.autodiff import backprop, registry
from popdsl.dtypes import is_floating

SOURCE = pathlib.Path(pd.__file__).parent
CHECK_GRADS_CASES = {**test_autodiff.CASES, **test_autodiff_control.CASES, **test_autodiff_control.NESTED,
                     **test_autodiff_ops.GRADIENTS, **test_losses.LOSSES, **test_custom_grad.CUSTOM}
# Rules check_grads cannot run (it builds a graph of one replica on one IPU), with the test comparing them
# with numpy.
TESTED_ELSEWHERE = {"pd.all_reduce": (test_replication_pythonic, "test_grad_through_all_reduce_reduces_the_gradients"),
                    "pd.ipu_copy": (test_multi_ipu, "test_ipu_copy_moves_values_and_gradients")}
RECORDERS = {"record": 0, "record_control": 0, "Record": 0, "_view": 1}  # call -> position of its kind


def _calls(tree, name):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and
            (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)]


def _enclosing_functions(tree):
    """node -> the innermost function definition around it."""
    around = {}
    for f in ast.walk(tree):
        if isinstance(f, ast.FunctionDef):
            for n in ast.walk(f):
                around[n] = f  # inner functions are walked later and win
    return around


def _unpacked_from_view_of(function) -> list:
    """The names `kind, bases, attrs = t.view_of` assigns in function."""
    unpackings = [n for n in ast.walk(function)
                  if isinstance(n, ast.Assign) and getattr(n.value, "attr", None) == "view_of"]
    return [e.id for n in unpackings for t in n.targets if isinstance(t, ast.Tuple) for e in t.elts
            if isinstance(e, ast.Name)]


class Sources:
    """popdsl's modules, parsed, and the op kinds their recording calls can record."""

    def __init__(self):
        self.trees = {p: ast.parse(p.read_text()) for p in sorted(SOURCE.rglob("*.py"))}
        self.constants = {t.id: n.value.value for tree in self.trees.values() for n in tree.body
                          if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                          for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value.value, str)}
        self.class_kinds = [n.value.value for tree in self.trees.values() for c in ast.walk(tree)
                            if isinstance(c, ast.ClassDef) for n in c.body if isinstance(n, ast.Assign)
                            and any(getattr(t, "id", None) == "kind" for t in n.targets)
                            and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)]

    def kinds(self) -> dict:
        """kind -> where it is recorded; fails on a kind it cannot work out."""
        found = {}
        for path, tree in self.trees.items():
            around = _enclosing_functions(tree)
            for name, position in RECORDERS.items():
                for call in _calls(tree, name):
                    where = f"{path.relative_to(SOURCE.parent)}:{call.lineno}"
                    for kind in self._values(call.args[position], around.get(call), where):
                        found.setdefault(kind, where)
            for n in ast.walk(tree):  # views made by hand: t.view_of = ("pd.concat", ...)
                if isinstance(n, ast.Assign) and any(getattr(t, "attr", None) == "view_of" for t in n.targets) \
                        and isinstance(n.value, ast.Tuple):
                    where = f"{path.relative_to(SOURCE.parent)}:{n.lineno}"
                    for kind in self._values(n.value.elts[0], around.get(n), where):
                        found.setdefault(kind, where)
        return found

    def _values(self, node, function, where) -> list:
        """The strings `node` (a kind argument in `function`) can be."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.Attribute) and node.attr == "kind":  # record_control(self.kind): a class's kind
            return self.class_kinds
        if isinstance(node, ast.Name) and function is not None:
            assigned = [n.value for n in ast.walk(function) if isinstance(n, ast.Assign)
                        and any(getattr(t, "id", None) == node.id for t in n.targets)]
            if assigned:
                return self._values(assigned[0], function, where)
            if node.id in _unpacked_from_view_of(function):
                return []  # a view's kind: found where views are made
            parameters = [a.arg for a in function.args.args]
            if node.id in parameters:  # passed on: the values callers give
                return self._arguments(function, parameters.index(node.id), where)
        if isinstance(node, ast.Name) and node.id in self.constants:
            return [self.constants[node.id]]
        if isinstance(node, ast.JoinedStr) and function is not None:
            parts = [v for v in node.values if isinstance(v, ast.FormattedValue)]
            if len(parts) == 1 and isinstance(parts[0].value, ast.Name):
                outer = self._function_with_parameter(function, parts[0].value.id)
                prefix = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
                if outer is not None:
                    index = [a.arg for a in outer.args.args].index(parts[0].value.id)
                    return [prefix + v for v in self._arguments(outer, index, where)]
        pytest.fail(f"{where}: cannot work out the op kind {ast.unparse(node)} this call records; teach "
                    "test_gradient_registry.py how")

    def _function_with_parameter(self, function, name):
        """function, or the function around it, that has the parameter `name`."""
        for tree in self.trees.values():
            for f in ast.walk(tree):
                if isinstance(f, ast.FunctionDef) and function in list(ast.walk(f)) and \
                        name in [a.arg for a in f.args.args]:
                    return f
        return None

    def _arguments(self, function, index, where) -> list:
        """The string arguments at `index` of every call of `function` (by name) in popdsl."""
        if function.name in RECORDERS:  # a recorder passing its own kind on
            return []
        values = [call.args[index].value for tree in self.trees.values() for call in _calls(tree, function.name)
                  if len(call.args) > index and isinstance(call.args[index], ast.Constant)]
        if not values:
            pytest.fail(f"{where}: cannot work out the op kinds {function.name}'s callers pass it")
        return values


@pytest.fixture(scope="module")
def recorded():
    return Sources().kinds()


def test_the_walk_finds_the_layers_ops(recorded):
    for kind in ["pd.map", "pd.matmul", "Tensor.reshape", "pd.concat", "pd.Repeat", "pd.If", "pd.Switch", "pd.While",
                 "pd.reduce_sum", "pd.random.normal", "pd.all_reduce", "a builder with a custom gradient",
                 "a write into a view", "pd.nn.conv"]:
        assert kind in recorded


def test_every_recorded_op_has_a_rule_or_says_why_it_has_none(recorded):
    missing = {k: where for k, where in recorded.items() if k not in registry.RULES and k not in registry.NO_GRADIENT}
    assert not missing, ("ops with neither a gradient rule nor a no_gradient(why, kind) declaration: "
                         + ", ".join(f"{k} (recorded at {where})" for k, where in missing.items()))
    assert not set(registry.RULES) & set(registry.NO_GRADIENT)


def test_every_gradient_rule_runs_in_a_check_grads_case(monkeypatch):
    """Builds (without running) the backward of every case the suite passes to check_grads,
    noting the rules it calls."""
    used = set()

    def noting(record):
        used.add(record.kind)
        return registry.rule_for(record)
    monkeypatch.setattr(backprop, "rule_for", noting)
    for fn, inputs in CHECK_GRADS_CASES.values():
        g = pd.Graph(pd.ipu_model(tiles=4))
        xs = [g.variable(np.asarray(a).dtype, np.shape(a), name=f"input{i}") for i, a in enumerate(inputs)]
        with pd.Sequence():
            y = fn(*xs)
            pd.grad(y, [x for x in xs if is_floating(x.dtype)],
                    grad_y=g.variable(y.dtype, y.shape, name="cotangent"))
    untested = sorted(set(registry.RULES) - used - set(TESTED_ELSEWHERE))
    assert not untested, f"gradient rules no check_grads case runs: {untested}"
    for module, test in TESTED_ELSEWHERE.values():
        assert callable(getattr(module, test))
