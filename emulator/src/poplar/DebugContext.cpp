#include <poplar/DebugContext.hpp>

namespace poplar {

namespace {
std::string joinPath(const std::string &parent, const std::string &name) {
  if (parent.empty()) return name;
  if (name.empty()) return parent;
  return parent + "/" + name;
}
} // namespace

DebugNameAndId::DebugNameAndId(std::string name, DebugId id, std::string path)
    : name_(std::move(name)), id_(id), path_(std::move(path)) {}

DebugNameAndId::DebugNameAndId(const DebugNameAndId &parent, StringRef name)
    : name_(name.str()), id_(parent.id_), path_(parent.getPathName()) {}

std::string DebugNameAndId::getPathName() const { return joinPath(path_, name_); }

DebugContext::DebugContext(const DebugNameAndId &parent, std::string name)
    : name_(std::move(name)), parentPath_(parent.getPathName()) {}

DebugContext::DebugContext(const DebugContext &parent, std::string name)
    : name_(std::move(name)), parentPath_(parent.getPathName()) {}

std::string DebugContext::getPathName() const { return joinPath(parentPath_, name_); }

} // namespace poplar
