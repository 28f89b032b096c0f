#include <popops/codelets.hpp>

namespace popops {

void addCodelets(poplar::Graph &) {}

} // namespace popops
