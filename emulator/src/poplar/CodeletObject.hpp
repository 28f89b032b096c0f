#pragma once
// The codelet object files (.gp) popdsl's popc writes and Graph::addCodelets loads:
// host shared libraries (one per codelet source, each exporting its vertex table),
// with the targets they were compiled for.
//
// Format (version 1; integers little-endian):
//   "POPDSLGP"                magic, 8 bytes
//   u32 version               kCodeletObjectVersion
//   strings (u64 length + bytes): the targets (comma-separated), the host platform
//     ("x86_64-Linux"), the codelet ABI, the compiler's version line, popc's command line
//   u64 module count, then per module: its source's name and its shared library
//   64 characters             the SHA-256 (hex) of everything before it
#include <string>
#include <vector>

namespace poplar::detail {

constexpr unsigned kCodeletObjectVersion = 1;

struct CodeletObject {
  std::vector<std::string> targets;
  std::string host, abi, compiler, command;
  struct Module {
    std::string source;  // the codelet source's name, for messages
    std::string library; // the bytes of a shared library
  };
  std::vector<Module> modules;
};

// Whether `bytes` start as a popdsl codelet object.
bool isCodeletObject(const std::string &bytes);

// The platform a shared library compiled here runs on: "<machine>-<system>".
std::string hostPlatform();

std::string serializeCodeletObject(const CodeletObject &object);

// The object in `bytes` (read from `name`). Throws graph_program_compilation_error,
// naming `name`, when the bytes are not a whole, intact object of this format,
// platform and codelet ABI (an IPU ELF from the SDK's popc is named as such).
CodeletObject readCodeletObject(const std::string &name, const std::string &bytes, const std::string &abi);

} // namespace poplar::detail
