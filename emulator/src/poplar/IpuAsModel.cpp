#include "IpuAsModel.hpp"

#include <poplar/exceptions.hpp>

#include <bitset>
#include <cstdlib>
#include <iostream>
#include <mutex>

namespace poplar::detail {

namespace {
std::mutex systemMutex;
std::bitset<kSystemIPUs> claimed; // guarded by systemMutex
} // namespace

std::optional<std::string> ipuAsModelVersion() {
  const char *env = std::getenv("POPDSL_IPU_AS_MODEL");
  const std::string value = env ? env : "";
  if (value.empty() || value == "0") return std::nullopt;
  const std::string version = value == "1" ? "ipu2" : value;
  if (version != "ipu1" && version != "ipu2" && version != "ipu21")
    throw poplar_error("POPDSL_IPU_AS_MODEL='" + value +
                       "' is not one of 0, 1, ipu1, ipu2, ipu21 (1 means ipu2)");
  static std::once_flag noticed;
  std::call_once(noticed, [&] {
    std::cerr << "popdsl: POPDSL_IPU_AS_MODEL=" << value << ": IPU device requests get IPUModel(\"" << version
              << "\") devices of an emulated " << kSystemIPUs << "-IPU system, not hardware\n";
  });
  return version;
}

bool claimSystemIPUs(unsigned first, unsigned count) {
  std::lock_guard<std::mutex> lock(systemMutex);
  for (unsigned i = first; i < first + count; ++i)
    if (claimed[i]) return false;
  for (unsigned i = first; i < first + count; ++i) claimed[i] = true;
  return true;
}

void releaseSystemIPUs(unsigned first, unsigned count) {
  std::lock_guard<std::mutex> lock(systemMutex);
  for (unsigned i = first; i < first + count; ++i) claimed[i] = false;
}

} // namespace poplar::detail
