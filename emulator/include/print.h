#pragma once
// Codelet-side printf. On the emulator a vertex's printf goes to the print stream of the
// engine running it (Engine::setPrintStream; the host's stdout until one is set).
#include <cstddef>
#include <cstdarg>
#include <cstdio>

extern "C" {
// Writes `size` bytes of formatted text to the running engine's print stream; the
// emulator hands it to each codelet library it loads.
typedef void (*popdsl_codelet_print_function)(const char *text, std::size_t size);
}

namespace popdsl_codelet {
inline popdsl_codelet_print_function &printer() {
  static popdsl_codelet_print_function print = 0;
  return print;
}

__attribute__((format(__printf__, 1, 2))) inline int print(const char *format, ...) {
  char small[256];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (n < 0) return n;
  const std::size_t size = static_cast<std::size_t>(n);
  if (size < sizeof small) {
    if (printer()) printer()(small, size);
    else std::fwrite(small, 1, size, stdout);
    return n;
  }
  char *large = new char[size + 1];
  va_start(args, format);
  std::vsnprintf(large, size + 1, format, args);
  va_end(args);
  if (printer()) printer()(large, size);
  else std::fwrite(large, 1, size, stdout);
  delete[] large;
  return n;
}
} // namespace popdsl_codelet

// A macro, as the C library's printf cannot be overloaded: codelets call printf(...),
// not std::printf(...), after including this header.
#define printf ::popdsl_codelet::print
