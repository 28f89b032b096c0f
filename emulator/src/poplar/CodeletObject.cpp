// Writing and reading the codelet object files (.gp) of CodeletObject.hpp.
#include "CodeletObject.hpp"

#include <poplar/exceptions.hpp>

#include <sys/utsname.h>

#include <cstdint>
#include <sstream>

#include "Sha256.hpp"

namespace poplar::detail {

namespace {

const char kObjectMagic[] = "POPDSLGP"; // 8 characters
const std::size_t kObjectMagicSize = 8, kObjectChecksumSize = 64;

void putInteger(std::string &out, std::uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

void putString(std::string &out, const std::string &s) {
  putInteger(out, s.size(), 8);
  out += s;
}

std::string joined(const std::vector<std::string> &words) {
  std::string s;
  for (const std::string &w : words) s += (s.empty() ? "" : ",") + w;
  return s;
}

// Reads the fields of an object in order; a read past the end is a truncated file.
class ObjectReader {
public:
  ObjectReader(const std::string &name, const std::string &bytes, std::size_t end) : name_(name), bytes_(bytes), end_(end) {}
  std::uint64_t integer(unsigned bytes) {
    need(bytes);
    std::uint64_t value = 0;
    for (unsigned i = 0; i < bytes; ++i) value |= std::uint64_t(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
    at_ += bytes;
    return value;
  }
  std::string string() {
    const std::uint64_t size = integer(8);
    need(size);
    std::string s = bytes_.substr(at_, size);
    at_ += size;
    return s;
  }
  void skip(std::size_t n) { at_ += n; }
  bool atEnd() const { return at_ == end_; }

private:
  void need(std::uint64_t n) const {
    if (n > end_ - at_)
      throw graph_program_compilation_error("Codelet object '" + name_ + "' is truncated or corrupt (" +
                                            std::to_string(bytes_.size()) +
                                            " bytes): compile it again with popc");
  }
  const std::string &name_, &bytes_;
  std::size_t end_, at_ = 0;
};

} // namespace

bool isCodeletObject(const std::string &bytes) { return bytes.compare(0, kObjectMagicSize, kObjectMagic) == 0; }

std::string hostPlatform() {
  struct utsname u;
  if (::uname(&u) != 0) return "unknown";
  return std::string(u.machine) + "-" + u.sysname;
}

std::string serializeCodeletObject(const CodeletObject &object) {
  std::string out(kObjectMagic, kObjectMagicSize);
  putInteger(out, kCodeletObjectVersion, 4);
  for (const std::string &s : {joined(object.targets), object.host, object.abi, object.compiler, object.command})
    putString(out, s);
  putInteger(out, object.modules.size(), 8);
  for (const CodeletObject::Module &m : object.modules) {
    putString(out, m.source);
    putString(out, m.library);
  }
  return out + sha256Hex(out);
}

CodeletObject readCodeletObject(const std::string &name, const std::string &bytes, const std::string &abi) {
  const std::string what = "Codelet object '" + name + "'";
  if (!isCodeletObject(bytes)) {
    if (bytes.compare(0, 4, "\x7f" "ELF") == 0)
      throw graph_program_compilation_error(
          what + " is an ELF object, as the Poplar SDK's popc writes for IPU hardware: the emulator runs codelets "
                 "on the host and cannot load IPU code. Compile the codelet sources with popdsl's popc (on the "
                 "PATH after `eval \"$(python -m popdsl sdk --enable)\"`, or `python -m popdsl popc`), or add the "
                 "sources themselves with addCodelets");
    throw graph_program_compilation_error(what + " is not a codelet object written by popc (it does not start with "
                                                 "popdsl's .gp header)");
  }
  if (bytes.size() < kObjectMagicSize + 4 + kObjectChecksumSize)
    throw graph_program_compilation_error(what + " is truncated (" + std::to_string(bytes.size()) +
                                          " bytes): compile it again with popc");
  ObjectReader r(name, bytes, bytes.size() - kObjectChecksumSize);
  r.skip(kObjectMagicSize);
  const std::uint64_t version = r.integer(4);
  if (version != kCodeletObjectVersion)
    throw graph_program_compilation_error(what + " has format version " + std::to_string(version) +
                                          "; this emulator reads version " + std::to_string(kCodeletObjectVersion) +
                                          ": compile it again with this popdsl's popc");
  if (sha256Hex(bytes.substr(0, bytes.size() - kObjectChecksumSize)) != bytes.substr(bytes.size() - kObjectChecksumSize))
    throw graph_program_compilation_error(what + " is truncated or corrupt (its checksum does not match): "
                                                 "compile it again with popc");
  CodeletObject object;
  std::istringstream targets(r.string());
  for (std::string t; std::getline(targets, t, ',');) object.targets.push_back(t);
  object.host = r.string();
  object.abi = r.string();
  object.compiler = r.string();
  object.command = r.string();
  for (std::uint64_t i = 0, n = r.integer(8); i < n; ++i) {
    CodeletObject::Module m;
    m.source = r.string();
    m.library = r.string();
    object.modules.push_back(std::move(m));
  }
  if (!r.atEnd()) throw graph_program_compilation_error(what + " is corrupt (bytes after its last module)");
  if (object.host != hostPlatform())
    throw graph_program_compilation_error(what + " holds host code for " + object.host + "; this machine is " +
                                          hostPlatform() + ": compile it again with popc here");
  if (object.abi != abi)
    throw graph_program_compilation_error(what + " was written by the popc of another popdsl version (codelet ABI " +
                                          object.abi + ", this one reads " + abi + "): compile it again with popc");
  return object;
}

} // namespace poplar::detail
