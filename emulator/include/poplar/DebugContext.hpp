#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <poplar/ProfileValue.hpp>
#include <poplar/StringRef.hpp>

namespace poplar {

using DebugId = std::uint64_t;

// Where in the user's source a debug context was made: SourceLocation::Current() as a
// default argument records its caller's function, file and line.
class SourceLocation {
public:
  SourceLocation() = default;
  SourceLocation(const char *functionName, const char *fileName, unsigned lineNumber)
      : functionName_(functionName ? functionName : ""), fileName_(fileName ? fileName : ""),
        lineNumber_(lineNumber), valid_(true) {}
  const char *getFunctionName() const { return functionName_; }
  const char *getFileName() const { return fileName_; }
  unsigned getLineNumber() const { return lineNumber_; }
  bool isValid() const { return valid_; }
  static SourceLocation Current(const char *functionName = __builtin_FUNCTION(),
                                const char *fileName = __builtin_FILE(), unsigned lineNumber = __builtin_LINE()) {
    return SourceLocation(functionName, fileName, lineNumber);
  }

private:
  const char *functionName_ = "";
  const char *fileName_ = "";
  unsigned lineNumber_ = 0;
  bool valid_ = false;
};

enum class DebugSerializationFormat { JSON, CBOR };

class DebugInfo;

// A debug name plus its path: the names of the enclosing contexts joined by '/'.
class DebugNameAndId {
public:
  DebugNameAndId(std::string name = "", DebugId id = {}, std::string path = "");
  DebugNameAndId(const char *name) : DebugNameAndId(std::string(name ? name : "")) {}
  DebugNameAndId(DebugId id) : DebugNameAndId(std::string(), id) {}
  DebugNameAndId(const DebugInfo &info, std::string name = "");
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

// A name, the DebugId of the debug information it belongs to (0: none) and where it
// was made; the usual last parameter of graph-building calls.
class DebugContext {
public:
  DebugContext(SourceLocation loc = SourceLocation::Current()) : location_(loc) {}
  DebugContext(const char *name, SourceLocation loc = SourceLocation::Current())
      : name_(name ? name : ""), location_(loc) {}
  DebugContext(std::string name, SourceLocation loc = SourceLocation::Current())
      : name_(std::move(name)), location_(loc) {}
  DebugContext(StringRef name, SourceLocation loc = SourceLocation::Current())
      : name_(name.str()), location_(loc) {}
  DebugContext(const DebugInfo &parent, std::string name = "", SourceLocation loc = SourceLocation::Current());
  DebugContext(const DebugNameAndId &parent, std::string name = "",
               SourceLocation loc = SourceLocation::Current());
  DebugContext(const DebugContext &parent, std::string name, SourceLocation loc = SourceLocation::Current());
  DebugContext(const DebugContext &) = default;
  DebugContext(DebugContext &&) = default;
  DebugContext &operator=(const DebugContext &) = default;

  const std::string &getName() const { return name_; }
  // "parent/child" when this context has a parent, else just the name.
  std::string getPathName() const;
  DebugId getId() const { return parentId_; }
  const SourceLocation &getSourceLocation() const { return location_; }

private:
  std::string name_;
  std::string parentPath_;
  DebugId parentId_ = 0;
  SourceLocation location_;
};

// Debug information of one layer (poplar, popops, ...) about one graph element: a new
// DebugId under the context it was made from, with named values. Between
// initializeStreamer(file) and closeStreamer() every DebugInfo is written to the file
// (as JSON: {"contexts": [{"id", "parentId", "layer", "name", "path", "location",
// values...}]}) when it is destroyed.
class DebugInfo {
public:
  DebugInfo(const DebugContext &debugContext, std::string layer);
  DebugInfo(const DebugInfo &) = delete;
  DebugInfo &operator=(const DebugInfo &) = delete;
  virtual ~DebugInfo();

  DebugId getId() const;
  std::string getPathName() const;
  // Records `value` under `name`; false (and nothing changes) when the name is taken.
  bool setValue(std::string name, ProfileValue value);

  // Emulator: JSON only; CBOR raises poplar_error.
  static void initializeStreamer(const std::string &fileName,
                                 const DebugSerializationFormat &format = DebugSerializationFormat::JSON);
  static void closeStreamer();

private:
  struct Record;
  std::unique_ptr<Record> record_;
};

} // namespace poplar
