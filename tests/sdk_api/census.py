"""How much of SDK 3.3's public API the manifests in tests/sdk_api cover, header by header.

    python tests/sdk_api/census.py [--missing] [--header poplar/Graph.hpp]

The SDK side is data, kept beside this file in census/ (one line a declaration:
header, kind, declaration; names and signatures only):
- census/poplibs-3.3.tsv: every public declaration of the poplibs headers of popops, poplin,
  popnn, poputil and poprand at poplibs' tag sdk/poplar/3.3.0 (GitHub graphcore/poplibs),
  read with libclang by `census.py extract-poplibs <poplibs>/include <poplar headers>...`.
- census/poplar-3.3.tsv: Poplar's own headers are not public; the list is the one a Clang
  walk of the SDK 3.3 headers left in JuliaIPU/IPUToolkit.jl's deps/wrapper/gen_inline.cpp
  (commit 0270e586), read by `census.py extract-poplar gen_inline.cpp`. That walk skipped
  operators, most templates and functions taking streams, and gives no return types; a
  shorter overload that is a prefix of a longer one is a defaulted parameter and is folded
  into it. Its declarations are placed in headers by where the emulator declares the class
  (the emulator mirrors the SDK's header tree); the unplaced go to poplar/(unplaced).

What counts: classes, structs, enums, aliases, namespace-scope variables, free functions,
public member functions and constructors (each overload once). Data members, destructors,
copy/move constructors and assignments, and private or detail-namespace names do not.
gcl's headers are not public and are not counted.

A declaration is covered when a manifest line declares the same qualified name with the
same parameter types (namespace qualifiers, spacing and `unsigned int`/`unsigned` spellings
aside); a type is covered by its `type` line or, for an enum, by any `enum` line of it.
An `expr` line covers an overload its call's arguments fit, by count and shape: a template's
`enable_if` pointer parameter need not be passed, and `X(...)(args)` calls X's operator().
"""
import argparse
import collections
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "census"
LIBRARIES = ("popops", "poplin", "popnn", "poputil", "poprand")


def split_top(text, sep=","):
    """Splits at top-level separators: brackets, parentheses, braces and templates nest."""
    depth, current, parts = 0, "", []
    for ch in text:
        depth += ch in "<([{" and 1 or ch in ">)]}" and -1 or 0
        if ch == sep and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def normal_type(text):
    """A parameter type with namespaces, spacing and integer spellings made uniform."""
    text = re.sub(r"\b[A-Za-z_]\w*::", "", text)
    if not re.search(r"[&*]", text):  # a by-value parameter's own const is no part of the type
        text = re.sub(r"^\s*const\s+", "", text)
    text = re.sub(r"\bunsigned int\b", "unsigned", text)
    text = re.sub(r"\bunsigned long\b", "size_t", text)
    text = re.sub(r"\blong long\b", "longlong", text)
    return re.sub(r"\s+", "", text)


def call_key(declaration):
    """(qualified name, normalised parameter types) of a function, method or constructor
    declaration: the last balanced (...) holds the parameters."""
    body = re.sub(r"\)\s*const$", ")", declaration.strip())
    depth = 0
    for i in range(len(body) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(body[i], 0)
        if depth == 0:
            break
    head, params = body[:i].strip(), body[i + 1:-1]
    # A template's arguments (make<T>, ExprType<T>) are not part of the name.
    name = re.search(r"([A-Za-z_~][\w:]*(?:operator\s*\S+?)?)(?:<[^()]*>)?$", head).group(1)
    return name, tuple(normal_type(p) for p in split_top(params) if p not in ("void",))


# The template parameters the SDK's headers name; a manifest's concrete type takes their place.
TEMPLATE_PARAMETERS = ("T", "constType", "ValueMapT", "ArgType")


def fits_template(sdk, manifest):
    """Whether a normalised SDK parameter type is the manifest's, or a template parameter
    (T, const T &, T && ...) that the manifest's type instantiates."""
    bare = re.sub(r"^const|&+$", "", sdk)
    return sdk == manifest or bare in TEMPLATE_PARAMETERS


def sdk_declarations():
    """[(header, kind, declaration)] from the data files."""
    found = []
    for path in sorted(DATA.glob("*.tsv")):
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                found.append(tuple(line.split("\t")))
    return found


# What the names in `expr` lines stand for (test_sdk_api.PRELUDE's variables).
RECEIVERS = {"g": "poplar::Graph", "t": "poplar::Tensor", "seq": "poplar::program::Sequence",
             "e": "poplar::Engine", "target": "poplar::Target", "dc": "poplar::DebugContext"}


def manifest_lines():
    """[(header, declaration text)] of every manifest line."""
    lines = []
    for path in sorted(HERE.rglob("*.api")):
        header = str(path.relative_to(HERE))[: -len(".api")]
        for line in path.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "using ")):
                lines.append((header, line.rsplit("->", 1)[0].strip()))
    return lines


def calls_in(expression):
    """[(callee, receiver or None, [argument texts])] of the calls an expression makes."""
    found = []
    while re.search(r"(\w)<[^<>()]*>", expression):  # template arguments: X<T>::f( is X::f(
        expression = re.sub(r"(\w)<[^<>()]*>", r"\1", expression)
    for match in re.finditer(r"(?:([A-Za-z_][\w:]*)\s*\.\s*)?([A-Za-z_~][\w:]*)(?:<[^()]*?>)?\(", expression):
        depth, i = 1, match.end()
        while i < len(expression) and depth:
            depth += {"(": 1, ")": -1}.get(expression[i], 0)
            i += 1
        receiver = match.group(1)
        if receiver is None and re.search(r"(\.|->)\s*$", expression[:match.start()]):
            receiver = "<expression>"  # a member called on a value: its class is not named
        found.append((match.group(2), receiver, split_top(expression[match.end():i - 1])))
        if expression[i:i + 1] == "(":  # X(...)(args): the made object's operator() is called
            start, depth = i + 1, 1
            for i in range(start, len(expression)):
                depth += {"(": 1, ")": -1}.get(expression[i], 0)
                if not depth:
                    break
            found.append((match.group(2) + "::operator()", receiver, split_top(expression[start:i])))
    return found


def is_sfinae(parameter):
    """Whether a (normalised) parameter only enables a template (`enable_if<...>::type *`, which
    the headers default and callers never pass)."""
    return "enable_if<" in parameter and parameter.endswith("*")


def argument_fits(argument, parameter):
    """Whether an expr's argument could bind to a parameter type, by the argument's shape."""
    heavy = re.search(r"Tensor|Graph|Sequence|vector|ArrayRef|Expr\b", parameter)
    if re.fullmatch(r"-?[\d.]+[fFuU]*|true|false", argument):
        return not heavy
    if argument in ("g", "t", "seq"):
        return {"g": "Graph", "t": "Tensor", "seq": "Sequence"}[argument] in parameter and "vector" not in parameter
    return True


class Coverage:
    """What the manifests cover: exact signatures, type names, and `expr` calls."""

    def __init__(self, lines):
        self.calls, self.names, self.exprs = set(), set(), []
        for header, text in lines:
            if text.startswith("type "):
                self.names.add(text[5:].strip())
            elif text.startswith("enum "):
                self.names.add(text[5:].strip().rsplit("::", 1)[0])
            elif text.startswith("expr "):
                self.exprs.append((header, text[5:]))
                # An expression names the variables (popops::expr::_1) and types it uses.
                self.names.update(re.findall(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+", text))
            else:
                name, params = call_key(text[7:] if text.startswith("static ") else text)
                self.calls.add((name, params))
                self.names.add(name.rsplit("::", 1)[0])  # a member's line declares its class

    def covers(self, kind, declaration, header=None):
        if kind in ("type", "variable"):
            return declaration in self.names
        name, params = call_key(declaration)
        required = tuple(p.split("=", 1)[0] for p in params)
        if (name, required) in self.calls or any(
                n == name and len(p) == len(required) and all(fits_template(r, q) for r, q in zip(required, p))
                for n, p in self.calls):
            return True
        least = sum("=" not in p and "..." not in p and not is_sfinae(p) for p in params)
        short = name.rsplit("::", 1)[-1]
        scope = name.rsplit("::", 1)[0]
        for line_header, expression in self.exprs:
            if "operator" in short and short != "operator()":
                if self.operator_used(short[len("operator"):].strip(), params, expression):
                    return True
                continue
            for callee, receiver, arguments in calls_in(expression):
                if receiver == "<expression>":  # only the members of the manifest's own header
                    if callee != short or kind != "method" or header != line_header:
                        continue
                elif receiver is not None:
                    owner = RECEIVERS.get(receiver)
                    if callee != short or (owner and owner != scope) or (not owner and kind != "method"):
                        continue
                elif callee not in (name, scope) or callee == scope and kind != "ctor":
                    continue
                most = 99 if params and "..." in params[-1] else len(params)
                if least <= len(arguments) <= most and all(
                        argument_fits(a, p) for a, p in zip(arguments, params)):
                    return True
        return False

    @staticmethod
    def operator_used(symbol, params, expression):
        """Whether `a <symbol> b` (or a unary use) in an expression fits the parameters: a
        literal where the declaration takes a plain value, an expression elsewhere."""
        for match in re.finditer(rf"(\S+)\s+{re.escape(symbol)}\s+(\S+)", expression):
            operands = [match.group(1), match.group(2)]
            if len(params) == 2 and all(argument_fits(o, p) and (re.fullmatch(r"-?[\d.]+[fFuU]*", o) or
                                                                 "Expr" in p or "Tensor" in p or "&" in p)
                                        for o, p in zip(operands, params)):
                return True
        return len(params) <= 1 and re.search(rf"(^|[(\s]){re.escape(symbol)}\s*[\w(]", expression) is not None


def census(selected=None):
    """{header: (covered declarations, missing declarations)}."""
    coverage = Coverage(manifest_lines())
    table = collections.defaultdict(lambda: ([], []))
    for header, kind, declaration in sdk_declarations():
        if not selected or header == selected:
            table[header][0 if coverage.covers(kind, declaration, header) else 1].append((kind, declaration))
    return dict(table)


def report(table, missing=False, out=sys.stdout):
    total_have = total_all = 0
    by_library = collections.defaultdict(lambda: [0, 0])
    for header in sorted(table):
        have, lack = table[header]
        n = len(have) + len(lack)
        total_have, total_all = total_have + len(have), total_all + n
        library = by_library[header.split("/")[0]]
        library[0], library[1] = library[0] + len(have), library[1] + n
        print(f"{header:45s} {len(have):4d}/{n:<4d} {100.0 * len(have) / n:5.1f}%", file=out)
        if missing:
            for kind, declaration in lack:
                print(f"    - {kind:8s} {declaration}", file=out)
    for library, (have, n) in sorted(by_library.items()):
        print(f"{library + ' (all headers)':45s} {have:4d}/{n:<4d} {100.0 * have / n:5.1f}%", file=out)
    print(f"{'SDK 3.3 census':45s} {total_have:4d}/{total_all:<4d} {100.0 * total_have / total_all:5.1f}%",
          file=out)
    return total_have, total_all


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    parser.add_argument("--missing", action="store_true", help="list each uncovered declaration")
    parser.add_argument("--header", help="only this header, e.g. popnn/Rnn.hpp")
    poplibs = sub.add_parser("extract-poplibs", help="rewrite census/poplibs-3.3.tsv (needs libclang)")
    poplibs.add_argument("include", help="poplibs' include/ at tag sdk/poplar/3.3.0")
    poplibs.add_argument("extra", nargs="*", help="include folders for poplar's and the compiler's headers")
    poplar = sub.add_parser("extract-poplar", help="rewrite census/poplar-3.3.tsv")
    poplar.add_argument("gen_inline", help="IPUToolkit.jl's deps/wrapper/gen_inline.cpp at 0270e586")
    args = parser.parse_args(argv)
    if args.command == "extract-poplibs":
        from census_extract import extract_poplibs
        write(DATA / "poplibs-3.3.tsv", extract_poplibs(args.include, args.extra, LIBRARIES))
    elif args.command == "extract-poplar":
        from census_extract import extract_poplar
        write(DATA / "poplar-3.3.tsv", extract_poplar(args.gen_inline, HERE.parent.parent / "emulator" / "include"))
    else:
        report(census(args.header), args.missing)


def write(path, rows):
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(f"{h}\t{k}\t{d}\n" for h, k, d in rows))
    print(f"{path}: {len(rows)} declarations")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
