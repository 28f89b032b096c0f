#include <poplar/DebugContext.hpp>
#include <poplar/exceptions.hpp>

#include <atomic>
#include <fstream>
#include <mutex>

namespace poplar {

namespace {
std::string joinPath(const std::string &parent, const std::string &name) {
  if (parent.empty()) return name;
  if (name.empty()) return parent;
  return parent + "/" + name;
}

DebugId nextDebugId() {
  static std::atomic<DebugId> next{1};
  return next++;
}

// The file DebugInfo records go to between initializeStreamer and closeStreamer.
struct Streamer {
  std::mutex mutex;
  std::ofstream file;
  std::string fileName;
  bool open = false;
  bool first = true;
};

Streamer &streamer() {
  static Streamer s;
  return s;
}
} // namespace

DebugNameAndId::DebugNameAndId(std::string name, DebugId id, std::string path)
    : name_(std::move(name)), id_(id), path_(std::move(path)) {}

DebugNameAndId::DebugNameAndId(const DebugInfo &info, std::string name)
    : name_(std::move(name)), id_(info.getId()), path_(info.getPathName()) {}

DebugNameAndId::DebugNameAndId(const DebugNameAndId &parent, StringRef name)
    : name_(name.str()), id_(parent.id_), path_(parent.getPathName()) {}

std::string DebugNameAndId::getPathName() const { return joinPath(path_, name_); }

DebugContext::DebugContext(const DebugInfo &parent, std::string name, SourceLocation loc)
    : name_(std::move(name)), parentPath_(parent.getPathName()), parentId_(parent.getId()), location_(loc) {}

DebugContext::DebugContext(const DebugNameAndId &parent, std::string name, SourceLocation loc)
    : name_(std::move(name)), parentPath_(parent.getPathName()), parentId_(parent.getId()), location_(loc) {}

DebugContext::DebugContext(const DebugContext &parent, std::string name, SourceLocation loc)
    : name_(std::move(name)), parentPath_(parent.getPathName()), parentId_(parent.parentId_), location_(loc) {}

std::string DebugContext::getPathName() const { return joinPath(parentPath_, name_); }

struct DebugInfo::Record {
  DebugId id;
  DebugId parentId;
  std::string layer;
  std::string name;
  std::string path;
  SourceLocation location;
  ProfileValue::Map values;
};

DebugInfo::DebugInfo(const DebugContext &debugContext, std::string layer)
    : record_(new Record{nextDebugId(), debugContext.getId(), std::move(layer), debugContext.getName(),
                         debugContext.getPathName(), debugContext.getSourceLocation(), {}}) {}

DebugInfo::~DebugInfo() {
  Streamer &s = streamer();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.open) return;
  ProfileValue::Map entry = record_->values;
  entry.emplace("id", ProfileValue(record_->id));
  entry.emplace("parentId", ProfileValue(record_->parentId));
  entry.emplace("layer", ProfileValue(record_->layer));
  entry.emplace("name", ProfileValue(record_->name));
  entry.emplace("path", ProfileValue(record_->path));
  if (record_->location.isValid())
    entry.emplace("location", ProfileValue(ProfileValue::Map{
                                  {"function", ProfileValue(record_->location.getFunctionName())},
                                  {"file", ProfileValue(record_->location.getFileName())},
                                  {"line", ProfileValue(record_->location.getLineNumber())}}));
  s.file << (s.first ? "\n" : ",\n") << ProfileValue(std::move(entry));
  s.first = false;
}

DebugId DebugInfo::getId() const { return record_->id; }

std::string DebugInfo::getPathName() const { return record_->path; }

bool DebugInfo::setValue(std::string name, ProfileValue value) {
  // The names the record itself is written under.
  for (const char *reserved : {"id", "parentId", "layer", "name", "path", "location"})
    if (name == reserved) return false;
  return record_->values.emplace(std::move(name), std::move(value)).second;
}

void DebugInfo::initializeStreamer(const std::string &fileName, const DebugSerializationFormat &format) {
  if (format != DebugSerializationFormat::JSON)
    throw poplar_error("DebugInfo::initializeStreamer: the emulator writes debug information as JSON only");
  Streamer &s = streamer();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.open)
    throw poplar_error("DebugInfo::initializeStreamer: already streaming to '" + s.fileName +
                       "'; call closeStreamer() first");
  s.file.open(fileName, std::ios::trunc);
  if (!s.file) throw poplar_error("DebugInfo::initializeStreamer: cannot write '" + fileName + "'");
  s.file << "{\"contexts\": [";
  s.fileName = fileName;
  s.open = true;
  s.first = true;
}

void DebugInfo::closeStreamer() {
  Streamer &s = streamer();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.open) return;
  s.file << "\n]}\n";
  s.file.close();
  s.open = false;
}

} // namespace poplar
