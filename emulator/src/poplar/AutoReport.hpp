#pragma once
// autoReport: like Poplar, an Engine whose options ask for reports writes them when it
// is destroyed, into autoReport.directory (default: the working directory).
#include <poplar/Engine.hpp>

namespace poplar::detail {

// Writes the report unless writeProfileReport already did; errors go to stderr, as a
// destructor must not throw.
void writeAutoReportIfRequested(const Engine &engine) noexcept;

} // namespace poplar::detail
