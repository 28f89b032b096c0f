// Engine::getReport: declared with the Engine (poplar/Engine.hpp) and, as in the SDK,
// part of libpva: a program that calls it links -lpva.
#include <poplar/Engine.hpp>
#include <poplar/ProfileData.hpp>

#include "ReportData.hpp"

namespace poplar {

pva::Report Engine::getReport(bool reportExecution) const {
  return pva::detail::ReportData::fromText(detail::profileReportText(*this), "the report of Engine::getReport",
                                           reportExecution);
}

} // namespace poplar
