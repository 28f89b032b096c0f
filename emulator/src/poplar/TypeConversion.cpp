#include <poplar/TypeConversion.hpp>

#include <poplar/IeeeHalf.hpp>
#include <poplar/exceptions.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "QuarterFormat.hpp"
#include "TypeInfo.hpp"

namespace poplar {

namespace {

// The bytes per element of `type`, which these conversions must be able to write.
unsigned deviceSize(const char *api, const Type &type) {
  const detail::TypeInfo &info = detail::typeInfo(type);
  if (info.kind == detail::TypeKind::Quarter || type == QUARTER_METADATA)
    throw poplar_error(std::string(api) + ": " + type.toString().str() + " needs quarter metadata");
  if (info.kind == detail::TypeKind::Invalid || !info.supportedOnDevice)
    throw poplar_error(std::string(api) + ": type '" + type.toString().str() + "' has no device representation");
  return info.size;
}

double hostValue(IeeeHalf h) { return float(h); }
template <class T> double hostValue(T v) { return static_cast<double>(v); }

void setHostValue(IeeeHalf &out, long double v) { out = IeeeHalf::fromBits(detail::doubleToHalf(double(v))); }
// Integers as the device converts: truncated towards zero, saturated, NaN as 0.
template <class T> void setHostValue(T &out, long double v) {
  if (std::is_integral<T>::value) {
    const long double lowest = std::numeric_limits<T>::lowest(), highest = std::numeric_limits<T>::max();
    v = v != v ? 0 : v < lowest ? lowest : v > highest ? highest : v;
  }
  out = static_cast<T>(v);
}

} // namespace

template <typename T> void convertToDeviceType(Type dstType, ArrayRef<T> src, void *dst) {
  const unsigned size = deviceSize("convertToDeviceType", dstType);
  auto *out = static_cast<std::uint8_t *>(dst);
  for (std::size_t i = 0; i < src.size(); ++i) detail::storeElement(dstType, out + i * size, hostValue(src[i]));
}

template <typename T> void convertFromDeviceType(Type srcType, const void *src, ArrayRef<T> dst) {
  const unsigned size = deviceSize("convertFromDeviceType", srcType);
  const auto *in = static_cast<const std::uint8_t *>(src);
  // ArrayRef views its elements as const; the caller hands over writable storage.
  T *out = const_cast<T *>(dst.data());
  for (std::size_t i = 0; i < dst.size(); ++i) setHostValue(out[i], detail::loadElement(srcType, in + i * size));
}

namespace {
void checkQuarter(const char *api, const Type &type) {
  if (type != QUARTER)
    throw poplar_error(std::string(api) + ": the QuarterMetadata overload converts quarter, not " +
                       type.toString().str());
}
} // namespace

template <typename T>
void convertToDeviceType(Type dstType, const QuarterMetadata &metadata, ArrayRef<T> src, void *dst,
                         bool nanOnOverflow) {
  checkQuarter("convertToDeviceType", dstType);
  auto *out = static_cast<std::uint8_t *>(dst);
  for (std::size_t i = 0; i < src.size(); ++i)
    out[i] = detail::doubleToQuarter(hostValue(src[i]), metadata, nanOnOverflow);
}

template <typename T>
void convertFromDeviceType(Type srcType, const QuarterMetadata &metadata, const void *src, ArrayRef<T> dst) {
  checkQuarter("convertFromDeviceType", srcType);
  const auto *in = static_cast<const std::uint8_t *>(src);
  T *out = const_cast<T *>(dst.data());
  for (std::size_t i = 0; i < dst.size(); ++i) setHostValue(out[i], detail::quarterToDouble(in[i], metadata));
}

#define POPLAR_TYPE_CONVERSIONS(T)                                                                        \
  template void convertToDeviceType<T>(Type, ArrayRef<T>, void *);                                       \
  template void convertToDeviceType<const T>(Type, ArrayRef<const T>, void *);                           \
  template void convertFromDeviceType<T>(Type, const void *, ArrayRef<T>);                               \
  template void convertToDeviceType<T>(Type, const QuarterMetadata &, ArrayRef<T>, void *, bool);        \
  template void convertToDeviceType<const T>(Type, const QuarterMetadata &, ArrayRef<const T>, void *, bool); \
  template void convertFromDeviceType<T>(Type, const QuarterMetadata &, const void *, ArrayRef<T>);
POPLAR_TYPE_CONVERSIONS(float)
POPLAR_TYPE_CONVERSIONS(double)
POPLAR_TYPE_CONVERSIONS(int)
POPLAR_TYPE_CONVERSIONS(unsigned)
POPLAR_TYPE_CONVERSIONS(IeeeHalf)
#undef POPLAR_TYPE_CONVERSIONS

} // namespace poplar
