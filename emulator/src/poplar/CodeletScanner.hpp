#pragma once
// Finds the vertex classes of a codelet source without compiling it, and writes
// the registration code compiled with it (popdsl_codelet/VertexRegistration.hpp). The
// scan strips comments, strings and preprocessor lines, then tracks namespaces
// and class bodies: a class is a vertex when it derives from Vertex,
// MultiVertex, SupervisorVertex(If) or another vertex class; its fields are its
// (and its vertex bases') non-static data members; a class template is
// registered once per explicit instantiation (`template class Foo<float>;`).
#include <string>
#include <vector>

namespace poplar::detail {

struct ScannedVertex {
  std::vector<std::string> namespaces; // where to register it ("" for an anonymous one)
  std::string type;                    // as the source spells it: "SumVertex", "Foo<float>"
  std::vector<std::string> fields;
};

std::vector<ScannedVertex> scanCodeletVertices(const std::string &source);

// C++ appended to the codelet source: describes every scanned vertex and
// exports popdsl_codelet_vertices().
std::string vertexRegistrationCode(const std::vector<ScannedVertex> &vertices);

} // namespace poplar::detail
