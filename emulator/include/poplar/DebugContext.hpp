#pragma once
#include <cstdint>
#include <string>

#include <poplar/StringRef.hpp>

namespace poplar {

using DebugId = std::uint64_t;

// A debug name plus its path: the names of the enclosing contexts joined by '/'.
class DebugNameAndId {
public:
  DebugNameAndId(std::string name = "", DebugId id = {}, std::string path = "");
  DebugNameAndId(const char *name) : DebugNameAndId(std::string(name)) {}
  DebugNameAndId(const DebugNameAndId &parent, StringRef name);
  DebugNameAndId(const DebugNameAndId &) = default;
  DebugNameAndId &operator=(const DebugNameAndId &) = default;

  std::string getPathName() const;
  const std::string &getName() const { return name_; }
  DebugId getId() const { return id_; }

private:
  std::string name_;
  DebugId id_;
  std::string path_;
};

class DebugContext {
public:
  DebugContext() = default;
  DebugContext(const char *name) : name_(name ? name : "") {}
  DebugContext(std::string name) : name_(std::move(name)) {}
  DebugContext(StringRef name) : name_(name.str()) {}
  DebugContext(const DebugNameAndId &parent, std::string name = "");
  DebugContext(const DebugContext &parent, std::string name);
  DebugContext(const DebugContext &) = default;
  DebugContext(DebugContext &&) = default;
  DebugContext &operator=(const DebugContext &) = default;

  const std::string &getName() const { return name_; }
  // "parent/child" when this context has a parent, else just the name.
  std::string getPathName() const;
  operator DebugNameAndId() const { return DebugNameAndId(name_, 0, parentPath_); }

private:
  std::string name_;
  std::string parentPath_;
};

} // namespace poplar
