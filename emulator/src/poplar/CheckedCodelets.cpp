// Codelets compiled a second time with checks on every field access, for engines made
// with emulator.checkVertexAccess (Vertex.hpp's POPDSL_CHECK_VERTEX_ACCESS). The checked
// library goes through the same compile, cache and load as the one addCodelets made: only
// its flags differ, so it has its own cache key.
#include <poplar/exceptions.hpp>

#include <algorithm>
#include <map>
#include <mutex>

#include "CodeletObject.hpp"
#include "Codelets.hpp"
#include "GraphState.hpp"
#include "VertexKernel.hpp"

namespace poplar::detail {

std::shared_ptr<const VertexClass> checkedVertexClass(const GraphState &g, const VertexClass &cls) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const CodeletLibrary>> checkedLibraries; // by unchecked key
  std::shared_ptr<const CodeletLibrary> library;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = checkedLibraries.find(cls.libraryKey); it != checkedLibraries.end()) library = it->second;
  }
  if (!library) {
    const auto at = std::find(g.codeletKeys.begin(), g.codeletKeys.end(), cls.libraryKey);
    if (at == g.codeletKeys.end())
      throw poplar_error("Vertex class '" + cls.name + "': the graph has no codelets that define it");
    CodeletSource source = g.codelets[static_cast<std::size_t>(at - g.codeletKeys.begin())];
    if (isCodeletObject(source.text)) return nullptr;
    source.flags += " -DPOPDSL_CHECK_VERTEX_ACCESS";
    library = loadCodeletLibrary(source);
    std::lock_guard<std::mutex> lock(mutex);
    checkedLibraries.emplace(cls.libraryKey, library);
  }
  const auto it = library->vertices.find(cls.name);
  if (it == library->vertices.end())
    throw graph_program_compilation_error("Vertex class '" + cls.name +
                                          "': its codelets compiled with access checks do not define it");
  return it->second;
}

} // namespace poplar::detail
