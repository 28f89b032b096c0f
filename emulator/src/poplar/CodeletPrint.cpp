#include "CodeletPrint.hpp"

#include <cstdio>
#include <mutex>
#include <ostream>

namespace poplar::detail {

namespace {
// Vertices of a compute set print from the thread pool's threads: one lock orders them.
std::mutex gPrintMutex;
std::ostream *gPrintStream = nullptr;
} // namespace

CodeletPrintScope::CodeletPrintScope(std::ostream *stream) {
  std::lock_guard<std::mutex> lock(gPrintMutex);
  previous_ = gPrintStream;
  gPrintStream = stream;
}

CodeletPrintScope::~CodeletPrintScope() {
  std::lock_guard<std::mutex> lock(gPrintMutex);
  if (gPrintStream) gPrintStream->flush();
  gPrintStream = previous_;
}

void printFromCodelet(const char *text, std::size_t size) {
  std::lock_guard<std::mutex> lock(gPrintMutex);
  if (gPrintStream)
    gPrintStream->write(text, static_cast<std::streamsize>(size));
  else
    std::fwrite(text, 1, size, stdout);
}

} // namespace poplar::detail
