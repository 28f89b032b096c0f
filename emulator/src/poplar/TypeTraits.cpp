#include <poplar/TypeTraits.hpp>

namespace poplar {

bool TypeTraits::isSimpleType() const {
  if (isFloat) return size == 4 || size == 8;
  return isIntegral && (size == 1 || size == 2 || size == 4 || size == 8);
}

} // namespace poplar
