"""The report's debug contexts (libpva's DebugContext): the DebugContexts the graph's programs
and variables were made with, with their parents and source locations."""


class SourceLocation:
    """Where a DebugContext was made: given by C++ callers (SourceLocation::Current()); empty
    for graphs built from Python, whose popdsl names carry the user's file and line."""

    def __init__(self, d=None):
        d = d or {}
        self.fileName = d.get("fileName", "")
        self.functionName = d.get("functionName", "")
        self.lineNumber = d.get("lineNumber", 0)
        self.columnNumber = 0
        self.isValid = bool(d)


class DebugContext:
    """A DebugContext: its own name, its path ("parent/.../name"), its parent (None at the top)
    and children, and its source location."""

    def __init__(self, d):
        self.name = d["name"]
        self.path = d["path"]
        self.location = SourceLocation(d.get("location"))
        self.parent = None
        self.children = []

    def __repr__(self):
        return f"<pva.DebugContext {self.path!r}>"


def debug_contexts(items):
    """The contexts of the report's list, parents linked (a parent comes before its children)."""
    contexts = []
    for i, d in enumerate(items):
        context = DebugContext(d)
        if "parent" in d:
            parent = d["parent"]
            if not isinstance(parent, int) or not 0 <= parent < i:
                raise ValueError(f"debug context {i} has parent {parent!r}, not an earlier context")
            context.parent = contexts[parent]
            context.parent.children.append(context)
        contexts.append(context)
    return contexts
