// Host-side checks of what a cast to the device's HALF or FLOAT keeps of a value.
#include <poputil/Util.hpp>
#include <poputil/exceptions.hpp>

#include <cmath>

namespace poputil {

double castToDeviceHalfValue(const poplar::Target &target, double input) {
  const float asFloat = static_cast<float>(input);
  std::uint16_t half = 0;
  poplar::copyFloatToDeviceHalf(target, &asFloat, &half, 1);
  float back = 0;
  poplar::copyDeviceHalfToFloat(target, &half, &back, 1);
  return back;
}

namespace {

double castTo(const poplar::Target &target, double value, const poplar::Type &type, const char *which) {
  if (type == poplar::FLOAT) return static_cast<float>(value);
  if (type == poplar::HALF) return castToDeviceHalfValue(target, value);
  throw poplibs_error(std::string("checkAccuracyWhenCast: the ") + which + " type " + std::string(type.toString()) +
                      " must be HALF or FLOAT");
}

} // namespace

bool checkAccuracyWhenCast(const poplar::Target &target, double input, poplar::Type inputType,
                           poplar::Type outputType, double tolerance) {
  const double held = castTo(target, input, inputType, "input");
  const double cast = castTo(target, held, outputType, "output");
  if (std::isinf(cast) && !std::isinf(held)) return false;
  if (held == 0) return cast == 0;
  return std::fabs(cast - held) <= tolerance * std::fabs(held);
}

} // namespace poputil
