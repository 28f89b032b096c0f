"""The SDK 3.3 declarations the project ships, walked one by one.

`tests/sdk_api/<library>/<Header>.hpp.api` lists, per public header, the declarations the
SDK has there (from ../shared/reference and the SDK's documented API). Each line is

    <declaration>  ->  <test module>::<test function>[, ...]

and the declaration is one of
    R ns::Class::name(P1, P2) [const]     a member function: exactly these parameter
                                          types, this return type and const-ness
    static R ns::Class::name(P1, P2)      a static member function
    R ns::name(P1, P2)                    a free function
    ns::Class::Class(P1, P2)              a constructor (the class is constructible so)
    type ns::Name                         a class, enum or alias
    enum ns::Enum::VALUE                  an enumerator
    expr <C++ expression>                 compiles (templates, defaults, operators), with
                                          the variables of PRELUDE in scope
A line `using ns1 ns2` puts `using namespace` directives into that header's check.

Every declaration is taken by address or used in a program that is compiled and linked
against the prefix's libraries, so a declaration without a definition fails here. The
tests after `->` must exist, and a function's or member's name must occur in one of them
(or in a tests/cpp program one of them names): each declaration is exercised by a
behavioural test."""
import ast
import functools
import re
import sys
from pathlib import Path


from cpp_build import build_program, compiler

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sdk_api"))
from census import split_top as split_params  # noqa: E402  the same top-level comma split

TESTS = Path(__file__).resolve().parent
MANIFESTS = TESTS.parent / "sdk_api"
CPP_PROGRAMS = TESTS.parent / "cpp"

# What `expr` lines may use: a function never called, but compiled and linked.
PRELUDE = """
void exprScope(poplar::Graph &g, poplar::Tensor &t, poplar::program::Sequence &seq,
                                       poplar::Engine &e, const poplar::Target &target,
                                       const poplar::DebugContext &dc) {
  (void)g; (void)t; (void)seq; (void)e; (void)target; (void)dc;
"""


class Declaration:
    """One manifest line, parsed."""

    def __init__(self, header, number, text, tests):
        self.header, self.number, self.text, self.tests = header, number, text, tests
        self.kind, self.name, self.check = parse(text)

    def __repr__(self):
        return f"{self.header}:{self.number}: {self.text}"


def parse(text):
    """(kind, unqualified name, C++ that checks it) for one declaration."""
    if text.startswith("expr "):
        return "expr", None, f"  (void)({text[5:]});\n"
    if text.startswith("type "):
        name = text[5:].strip()
        return "type", name.rsplit("::", 1)[-1], f"static_assert(sizeof(std::is_class<{name}>) > 0, \"{name}\");\n"
    if text.startswith("enum "):
        name = text[5:].strip()
        return "enum", name.rsplit("::", 1)[-1], f"static_assert(sizeof({name}) > 0, \"{name}\");\n"
    is_static = text.startswith("static ")
    body = text[7:] if is_static else text
    is_const = bool(re.search(r"\)\s*const$", body))
    if is_const:
        body = body[: body.rindex("const")].rstrip()
    # The parameter list is the last balanced (...) of the declaration.
    depth = 0
    for i in range(len(body) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(body[i], 0)
        if depth == 0:
            break
    head, params = body[:i].strip(), body[i + 1:-1].strip()
    qualified = re.search(r"([A-Za-z_][\w:]*(?:operator\S+)?)$", head).group(1)
    result = head[: len(head) - len(qualified)].strip()
    name = qualified.rsplit("::", 1)[-1]
    param_types = ", ".join(split_params(params))
    scope = qualified.rsplit("::", 1)[0] if "::" in qualified else ""
    if not result:  # a constructor: Class::Class(...)
        return "ctor", name, (f"static_assert(std::is_constructible<{scope}{', ' if param_types else ''}"
                              f"{param_types}>::value, \"{text}\");\n")
    member = scope and not is_static and is_class_scope(scope)
    pointer = f"{result} ({scope}::*)({param_types}){' const' if is_const else ''}" if member \
        else f"{result} (*)({param_types})"
    return ("method" if member else "function"), name, f"static_cast<{pointer}>(&{qualified})"


def is_class_scope(scope):
    """Whether a qualified scope names a class (its last part starts upper-case, as poplar's
    classes do, or is one of the lower-case classes listed); namespaces are lower-case."""
    last = scope.rsplit("::", 1)[-1]
    return last[:1].isupper() or last in ("replication_factor", "poplar_error", "recoverable_runtime_error")


def manifests():
    return sorted(MANIFESTS.rglob("*.api"))


def header_of(manifest: Path) -> str:
    """tests/sdk_api/poplar/Graph.hpp.api -> poplar/Graph.hpp"""
    return str(manifest.relative_to(MANIFESTS))[: -len(".api")]


@functools.lru_cache(maxsize=None)
def declarations():
    found = []
    for path in manifests():
        header = header_of(path)
        for number, line in enumerate(path.read_text().splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("using "):
                continue
            assert "->" in line, f"{header}:{number}: no '-> tests' in: {line}"
            text, tests = (part.strip() for part in line.rsplit("->", 1))
            found.append(Declaration(header, number, text, [t.strip() for t in tests.split(",") if t.strip()]))
    return found


def usings(path):
    return [ns for line in path.read_text().splitlines() if line.startswith("using ")
            for ns in line.split()[1:]]


def check_source():
    """One translation unit holding every declaration's check, per header in a block."""
    lines = ["#include <type_traits>\n"]
    for path in manifests():
        lines.append(f"#include <{header_of(path)}>\n")
    lines += ["#include <poplar/Engine.hpp>\n#include <poplar/Graph.hpp>\n#include <poplar/Program.hpp>\n"]
    for index, path in enumerate(manifests()):
        header = header_of(path)
        mine = [d for d in declarations() if d.header == header]
        lines.append(f"namespace check{index} {{ // {header}\n")
        lines += [f"using namespace {ns};\n" for ns in usings(path)]
        lines += [d.check for d in mine if d.kind in ("type", "enum", "ctor")]
        # Globals with external linkage are emitted, so each address must link.
        lines += [f"auto address{k} = {d.check};\n"
                  for k, d in enumerate(d for d in mine if d.kind in ("method", "function"))]
        exprs = [d.check for d in mine if d.kind == "expr"]
        if exprs:
            lines.append(PRELUDE)
            lines += exprs
            lines.append("}\n")
        lines.append("}\n")
    lines.append("int main() { return 0; }\n")
    return "".join(lines)


def test_every_shipped_declaration_compiles_and_links_with_its_sdk_signature(tmp_path):
    compiler()
    assert len(declarations()) >= 40
    build_program(tmp_path, check_source(), std="c++14")


@functools.lru_cache(maxsize=None)
def functions_of_tests(module):
    """name -> source of every test function in tests/python/<module>, with its decorators
    and the module-level helpers and tables it names, and those they name."""
    path = TESTS / module
    if not path.is_file():
        return {}
    source = path.read_text()
    tree = ast.parse(source)
    segment = functools.partial(ast.get_source_segment, source)
    helpers = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            helpers[node.name] = segment(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    helpers[target.id] = segment(node)
    tests = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            own = "\n".join([segment(d) for d in node.decorator_list] + [segment(node)])
            used, pending = set(), [node, *node.decorator_list]
            while pending:
                names = {n.id for n in ast.walk(pending.pop()) if isinstance(n, ast.Name)} & helpers.keys()
                for name in names - used:
                    used.add(name)
                    pending.append(ast.parse(helpers[name]))
            tests[node.name] = "\n".join([own] + [helpers[name] for name in sorted(used)])
    return tests


def mentions(source, name):
    if re.search(rf"\b{re.escape(name)}\b", source):
        return True
    programs = [p for p in CPP_PROGRAMS.glob("*.cpp") if re.search(rf"\b{re.escape(p.stem)}\b", source)]
    return any(re.search(rf"\b{re.escape(name)}\b", p.read_text()) for p in programs)


def problems_with_tests(what, tests, name=None) -> list:
    """What is wrong with the tests tied to `what`: none named, a named one that does not
    exist, or (given a name) none of them using the name."""
    problems = [] if tests else [f"{what}: no test named"]
    sources = []
    for test in tests:
        module, _, function = test.partition("::")
        source = functions_of_tests(module).get(function)
        if source is None:
            problems.append(f"{what}: no test {test}")
        else:
            sources.append(source)
    if name and sources and not any(mentions(s, name) for s in sources):
        problems.append(f"{what}: none of {tests} uses '{name}'")
    return problems


def test_every_declaration_is_exercised_by_a_named_test():
    problems = []
    for d in declarations():
        named = d.name and d.kind != "type" and not d.name.startswith("operator")
        problems += problems_with_tests(d, d.tests, d.name if named else None)
    assert not problems, "\n".join(problems)


def test_the_parser_reads_each_kind_of_declaration():
    assert parse("std::size_t poplar::Tensor::dim(unsigned) const") == (
        "method", "dim", "static_cast<std::size_t (poplar::Tensor::*)(unsigned) const>(&poplar::Tensor::dim)")
    assert parse("static poplar::Target poplar::Target::createCPUTarget(bool, unsigned)")[0] == "function"
    assert parse("poplar::Tensor poplar::concat(poplar::ArrayRef<poplar::Tensor>, unsigned)")[:2] == (
        "function", "concat")
    kind, name, check = parse("poplar::Graph::Graph(const poplar::Target &, poplar::replication_factor)")
    assert (kind, name) == ("ctor", "Graph")
    assert "std::is_constructible<poplar::Graph, const poplar::Target &, poplar::replication_factor>" in check
    assert parse("void poplar::Graph::setTileMapping(const poplar::Tensor &, const std::vector<std::vector<"
                 "poplar::Interval>> &)")[0] == "method"
    assert parse("type poplar::TileToTensorMapping")[:2] == ("type", "TileToTensorMapping")
    assert parse("expr g.addConstant<float>(poplar::FLOAT, {2}, {1.f, 2.f})")[0] == "expr"


if __name__ == "__main__":
    # python tests/python/test_sdk_api.py NAME...: the tests that use each name, to cite.
    import sys
    for wanted in sys.argv[1:]:
        users = [f"{p.name}::{f}" for p in sorted(TESTS.glob("test_*.py"))
                 for f, src in functions_of_tests(p.name).items() if mentions(src, wanted)]
        print(f"{wanted}: {', '.join(users[:6]) or '(no test uses it)'}")
