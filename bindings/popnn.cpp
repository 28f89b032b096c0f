#include "bindings.hpp"

namespace popdsl_bindings {

void bindPopnn(py::module_ &m) {}

} // namespace popdsl_bindings
