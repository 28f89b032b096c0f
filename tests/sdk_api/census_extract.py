"""Reads SDK 3.3 declaration lists for census.py: poplibs' public headers (with libclang,
`pip install libclang`) and the Clang-generated binding list of Poplar's headers."""
import os
import re
from pathlib import Path

SKIPPED_NAMESPACES = {"detail", "internal", "impl", ""}


def extract_poplibs(include, extra, libraries):
    """[(header, kind, declaration)] of every public declaration in include/<library>/."""
    import clang.cindex as ci
    from clang.cindex import AccessSpecifier as Access, CursorKind as K

    classes = (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE)
    hidden = (Access.PRIVATE, Access.PROTECTED)

    def qualified(cursor):
        parts = []
        while cursor is not None and cursor.kind != K.TRANSLATION_UNIT:
            parts.append(cursor.spelling)
            cursor = cursor.semantic_parent
        return "::".join(reversed(parts))

    def is_public(cursor):
        parent = cursor.semantic_parent
        while parent is not None and parent.kind != K.TRANSLATION_UNIT:
            if parent.kind == K.NAMESPACE and parent.spelling in SKIPPED_NAMESPACES:
                return False
            if parent.kind in classes and parent.access_specifier in hidden:
                return False
            parent = parent.semantic_parent
        return cursor.access_specifier not in hidden

    def parameters(cursor):
        arguments = [c for c in cursor.get_children() if c.kind == K.PARM_DECL]
        return ", ".join(a.type.spelling + default(a) for a in arguments)

    def default(argument):
        """' = <value>' of a defaulted parameter: its tokens after '=' up to the next ',' or
        ')' outside brackets (a parameter's token range can run on past it)."""
        tokens = [t.spelling for t in argument.get_tokens() if t.kind != ci.TokenKind.COMMENT]
        if "=" not in tokens:
            return ""
        value, depth = [], 0
        for token in tokens[tokens.index("=") + 1:]:
            if depth == 0 and token in (",", ")", ";"):
                break
            depth += (token in "([{") - (token in ")]}")
            value.append(token)
        return " = " + " ".join(value)

    def walk(cursor, header, path, rows):
        for child in cursor.get_children():
            if child.location.file is None or os.path.realpath(child.location.file.name) != path:
                continue
            kind = child.kind
            if kind == K.NAMESPACE:
                if child.spelling not in SKIPPED_NAMESPACES:
                    walk(child, header, path, rows)
                continue
            if child.semantic_parent is None or not is_public(child):
                continue
            in_class = child.semantic_parent.kind in classes
            name = qualified(child)
            if kind in classes + (K.ENUM_DECL,):
                if child.is_definition():
                    rows.append((header, "type", name))
                    walk(child, header, path, rows)
            elif kind in (K.TYPE_ALIAS_DECL, K.TYPEDEF_DECL, K.TYPE_ALIAS_TEMPLATE_DECL):
                rows.append((header, "type", name))
            elif kind == K.VAR_DECL and not in_class:
                rows.append((header, "variable", name))
            elif kind == K.FUNCTION_TEMPLATE and in_class and child.spelling == child.semantic_parent.spelling:
                rows.append((header, "ctor", f"{name}({parameters(child)})"))  # a constructor template
            elif kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE):
                if child.spelling.startswith("operator=") or child.is_deleted_method():
                    continue
                result = child.result_type.spelling
                static = "static " if in_class and child.is_static_method() else ""
                const = " const" if in_class and child.is_const_method() else ""
                rows.append((header, "method" if in_class else "function",
                             f"{static}{result} {name}({parameters(child)}){const}"))
            elif kind == K.CONSTRUCTOR:
                if not (child.is_copy_constructor() or child.is_move_constructor() or child.is_deleted_method()):
                    rows.append((header, "ctor", f"{name}({parameters(child)})"))

    # Headers that lean on what another header includes parse on their own with these.
    forced = ["limits", "poplar/Graph.hpp", "poplar/Program.hpp", "poplar/VectorLayout.hpp", "poplin/MatMul.hpp"]
    args = ["-x", "c++", "-std=c++17", f"-I{include}"] + [f"-I{e}" for e in extra]
    args += [a for f in forced for a in ("-include", f)]
    index, rows = ci.Index.create(), []
    for library in libraries:
        for path in sorted(Path(include, library).rglob("*.hpp")):
            real = os.path.realpath(path)
            unit = index.parse(real, args=args)
            errors = [d.spelling for d in unit.diagnostics if d.severity >= ci.Diagnostic.Error]
            if errors:
                raise RuntimeError(f"{path}: {errors[:3]}")
            walk(unit.cursor, str(path.relative_to(include)), real, rows)
    return list(dict.fromkeys(rows))


def extract_poplar(gen_inline, emulator_include):
    """[(header, kind, declaration)] of the `poplar::` declarations listed in comments
    `// <name>(<params>)__<Clang kind>` of IPUToolkit.jl's generated bindings."""
    kinds = {"ClassDecl": "type", "StructDecl": "type", "EnumDecl": "type", "FunctionDecl": "function",
             "FunctionTemplate": "function", "CXXMethod": "method", "CXXConstructor": "ctor"}
    seen = []
    for line in Path(gen_inline).read_text().splitlines():
        match = re.match(r"// (.+)__(\w+)$", line)
        if not match or match.group(2) not in kinds:
            continue
        text = match.group(1).replace("std::string::StringRef", "poplar::StringRef::StringRef")
        text = text.replace("std::string::cloneAsString", "poplar::StringRef::cloneAsString")
        if text == "std::string" or not text.startswith("poplar::"):
            continue
        copy = re.match(r"([\w:]+)::(\w+)::\2\(const (\w+) &\)$", text)
        if copy and copy.group(2) == copy.group(3):  # copy constructors do not count
            continue
        seen.append((kinds[match.group(2)], text))
    seen = list(dict.fromkeys(seen))
    # A shorter overload that is a prefix of a longer one is a defaulted parameter.
    calls = [(k, t) for k, t in seen if k != "type"]

    def split(text):
        name, _, params = text.partition("(")
        return name, [p.strip() for p in params[:-1].split(",") if p.strip()]

    folded, least = set(), {}
    for kind, text in calls:
        name, params = split(text)
        for _, other in calls:
            other_name, other_params = split(other)
            if other_name == name and len(other_params) > len(params) and other_params[:len(params)] == params:
                folded.add(text)
                least[other] = min(least.get(other, len(other_params)), len(params))
    places = header_places(emulator_include)
    rows = []
    for kind, text in seen:
        if text in folded:
            continue
        name, params = split(text)
        if text in least:  # the parameters from the shortest overload on have defaults
            params = params[:least[text]] + [p + " = ?" for p in params[least[text]:]]
            text = f"{name}({', '.join(params)})"
        rows.append((place(name, kind, places), kind, text))
    return rows


def header_places(emulator_include):
    """(class or enum name -> header, header -> text) of the emulator's poplar headers (the
    emulator mirrors the SDK's header tree)."""
    classes, texts = {}, {}
    for path in sorted(Path(emulator_include, "poplar").glob("*.hpp")):
        header = f"poplar/{path.name}"
        texts[header] = path.read_text()
        for name in re.findall(r"\b(?:class|struct|enum(?: class)?)\s+(?:\w+\s+)?(\w+)\s*(?:final\s*)?[:{]",
                               texts[header]):
            classes.setdefault(name, header)
        for name in re.findall(r"POPLAR_DECLARE_\w*\((\w+)", texts[header]):  # the error classes
            classes.setdefault(name, header)
    return classes, texts


def place(name, kind, places):
    """The header of a declaration: its outermost class's, or for a free function the
    first header declaring a function of that name."""
    classes, texts = places
    parts = name.split("::")
    if kind == "function":
        declares = re.compile(rf"[\w>&*]\s+{re.escape(parts[-1])}\s*\(")
        return next((h for h, text in texts.items() if declares.search(text)), "poplar/(unplaced)")
    owners = parts[1:] if kind == "type" else parts[1:-1]
    return next((classes[p] for p in owners if p in classes and p != "program"), "poplar/(unplaced)")
