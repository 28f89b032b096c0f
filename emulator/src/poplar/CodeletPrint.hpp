#pragma once
// Where vertices' printf (print.h) goes: the print stream of the engine running them.
#include <cstddef>
#include <iosfwd>

namespace poplar::detail {

// While a scope lives, what vertices print goes to `stream` (stdout when null). Engines
// run one compute set at a time, so the innermost scope is the running engine's.
class CodeletPrintScope {
public:
  explicit CodeletPrintScope(std::ostream *stream);
  CodeletPrintScope(const CodeletPrintScope &) = delete;
  CodeletPrintScope &operator=(const CodeletPrintScope &) = delete;
  ~CodeletPrintScope();

private:
  std::ostream *previous_;
};

// The print function handed to each codelet library (popdsl_codelet_set_printer).
void printFromCodelet(const char *text, std::size_t size);

} // namespace poplar::detail
