#include "bindings.hpp"

namespace popdsl_bindings {

void bindPopopsExpr(py::module_ &m) {}

} // namespace popdsl_bindings
