#pragma once
#include <stdexcept>
#include <string>

namespace poputil {

// The exception poplibs throws for misuse of its functions.
struct poplibs_error : std::runtime_error {
  std::string type = "poplibs_error";
  explicit poplibs_error(const std::string &s) : std::runtime_error(s) {}
  explicit poplibs_error(const char *s) : std::runtime_error(s) {}
};

} // namespace poputil
