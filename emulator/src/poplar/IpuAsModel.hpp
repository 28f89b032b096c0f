#pragma once
// The opt-in that lets programs written for IPU hardware run on the emulator:
// with POPDSL_IPU_AS_MODEL set, DeviceManager answers IPU device requests with
// IPUModel-backed devices of an emulated IPU-POD16 (docs/emulator.rst).
#include <optional>
#include <string>

namespace poplar::detail {

// The IPUs of the emulated system.
constexpr unsigned kSystemIPUs = 16;

// The IPUModel version the opt-in asks for ("ipu1", "ipu2", "ipu21"), or none when it is
// off (unset, empty or "0"). "1" means "ipu2". Raises poplar_error naming the variable
// for any other value. The first call that finds it on prints a one-line notice on stderr.
std::optional<std::string> ipuAsModelVersion();

// Exclusive use of the system IPUs [first, first + count): false if any is taken.
bool claimSystemIPUs(unsigned first, unsigned count);
void releaseSystemIPUs(unsigned first, unsigned count);

} // namespace poplar::detail
