#include "bindings.hpp"

namespace popdsl_bindings {

void bindPoplin(py::module_ &m) {}

} // namespace popdsl_bindings
