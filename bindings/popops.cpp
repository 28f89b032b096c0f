#include "bindings.hpp"

namespace popdsl_bindings {

void bindPopops(py::module_ &m) {}

} // namespace popdsl_bindings
