#pragma once
// Codelets compiled with the host C++ compiler and the vertex classes they
// define (see Graph::addCodelets). A compiled library is cached on disk under
// the SHA-256 of everything that decides its contents and loaded once per
// process; its vertex classes stay loaded for the life of the process.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <poplar/Type.hpp>

namespace poplar::detail {

enum class FieldKind { Input, Output, InOut, State, Other };

struct VertexField {
  std::string name;
  FieldKind kind;
  unsigned rank;    // 0: one element; 1: a vector; 2: a list of vectors
  Type elementType; // invalid for FieldKind::Other
  unsigned elementSize;
  unsigned minAlign;
  std::size_t offset;
  // Per dimension: a VectorLayout, or kListLayout + a VectorListLayout (VertexRegistration.hpp).
  unsigned layout[2] = {0, 0};
  static constexpr unsigned kListLayout = 0x100;
  bool isEdge() const { return kind == FieldKind::Input || kind == FieldKind::Output || kind == FieldKind::InOut; }
};

// Returns 0 on success, 1 when compute() returned false, 2 when it threw (message filled).
using VertexRunFunction = int (*)(void *vertex, char *message, std::size_t messageSize);

struct VertexClass {
  std::string name; // as poputil::templateVertex spells it: "popops::Foo<float,4>"
  std::size_t size = 0, align = 1;
  std::vector<VertexField> fields;
  VertexRunFunction run = nullptr;
  std::string libraryKey;
  // The index of the field called `field`, or -1.
  int fieldIndex(const std::string &field) const;
};

// What Graph::addCodelets was given, kept so executables can rebuild it.
struct CodeletSource {
  std::string name;     // the file path, or a label for source text (shown in compiler messages)
  std::string text;
  std::string flags;    // the user's compile flags
  std::string quoteDir; // where the source's #include "..." files are (a file's directory)
};

struct CodeletLibrary {
  std::string key; // the SHA-256 the library is cached under
  std::vector<std::string> targets; // a codelet object's (popc --target); empty: any target
  std::map<std::string, std::shared_ptr<const VertexClass>> vertices; // by name
};

// Compiles `source` (or finds it in the cache) and loads it. Throws
// graph_program_compilation_error with the compiler's messages when it fails.
std::shared_ptr<const CodeletLibrary> loadCodeletLibrary(const CodeletSource &source);

// Loads the codelet object (.gp) `bytes`, read from `name`; throws
// graph_program_compilation_error when they are not one of this platform's.
std::shared_ptr<const CodeletLibrary> loadCodeletObject(const std::string &name, const std::string &bytes);

// popc's compile of one source: the bytes of the shared library loadCodeletObject loads.
std::string compileCodeletModule(const CodeletSource &source);
// The codelet ABI a codelet object records, and the host compiler's version line.
extern const char kCodeletAbi[];
std::string codeletCompilerVersion();

// A vertex class of a library loaded in this process, or null.
std::shared_ptr<const VertexClass> findLoadedVertexClass(const std::string &libraryKey, const std::string &name);

// "const char* f() [with V = popops::Foo<_Float16, 4>]" -> "popops::Foo<half,4>".
std::string vertexNameFromPrettyFunction(const std::string &pretty);

} // namespace poplar::detail
