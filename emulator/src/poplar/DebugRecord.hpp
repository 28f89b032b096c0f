#pragma once
// What the report keeps of the DebugContext a program or variable was made with, for
// libpva's debug contexts (ProfileReport.cpp): its name, its parent's path and, when
// the context has one, the source location (C++ callers get theirs by default; the
// Python bindings pass none, as popdsl's names carry the user's file and line).
#include <poplar/DebugContext.hpp>

#include <string>

namespace poplar::detail {

struct DebugRecord {
  std::string name, parentPath, fileName, functionName;
  unsigned lineNumber = 0;
  bool hasLocation = false;

  static DebugRecord of(const DebugContext &dc) {
    DebugRecord r;
    const std::string path = dc.getPathName();
    r.name = dc.getName();
    if (!r.name.empty() && path.size() > r.name.size() + 1 && path.compare(path.size() - r.name.size(), r.name.size(), r.name) == 0 &&
        path[path.size() - r.name.size() - 1] == '/')
      r.parentPath = path.substr(0, path.size() - r.name.size() - 1);
    else
      r.name = path; // no name of its own, or no parent: the whole path names it
    const SourceLocation &loc = dc.getSourceLocation();
    if (loc.isValid()) {
      r.fileName = loc.getFileName();
      r.functionName = loc.getFunctionName();
      r.lineNumber = loc.getLineNumber();
      r.hasLocation = true;
    }
    return r;
  }
  std::string path() const { return parentPath.empty() ? name : parentPath + "/" + name; }
};

} // namespace poplar::detail
