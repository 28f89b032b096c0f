#include <iomanip>
#include <sstream>

#include "EngineState.hpp"

namespace poplar::detail {

namespace {

std::string formatElement(const Type &type, const std::uint8_t *p, const PrintTensorFmt &fmt) {
  const long double v = loadElement(type, p);
  std::ostringstream os;
  if (!type.isFloatingPoint()) {
    // Unsigned 64-bit values above LLONG_MAX do not fit a long long.
    if (typeInfo(type).kind == TypeKind::Unsigned) return std::to_string(static_cast<unsigned long long>(v));
    return std::to_string(static_cast<long long>(v));
  }
  const double d = static_cast<double>(v);
  switch (fmt.floatFormat) {
  case PrintTensorFmt::FloatFormat::Fixed:
    os << std::fixed << std::setprecision(static_cast<int>(fmt.digits)) << d;
    break;
  case PrintTensorFmt::FloatFormat::Scientific:
    os << std::scientific << std::setprecision(static_cast<int>(fmt.digits)) << d;
    break;
  case PrintTensorFmt::FloatFormat::None:
    os << d;
    break;
  case PrintTensorFmt::FloatFormat::Auto:
    os << std::showpoint << std::setprecision(static_cast<int>(fmt.digits)) << d;
    break;
  }
  return os.str();
}

class Printer {
public:
  Printer(const Type &type, const std::vector<std::size_t> &shape, const std::uint8_t *data,
          const PrintTensorFmt &fmt)
      : type_(type), shape_(shape), data_(data), fmt_(fmt), size_(typeSize(type)) {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    summarise_ = fmt.summariseThreshold > 0 && n > fmt.summariseThreshold;
    strides_.assign(shape.size(), 1);
    for (std::size_t i = shape.size(); i-- > 1;) strides_[i - 1] = strides_[i] * shape[i];
  }

  void print(std::ostream &os, std::size_t dim, std::size_t offset, unsigned indent) {
    if (dim == shape_.size()) {
      os << formatElement(type_, data_ + offset * size_, fmt_);
      return;
    }
    const bool inner = dim + 1 == shape_.size();
    os << fmt_.openBracket;
    if (!inner) os << '\n';
    const std::size_t n = shape_[dim];
    const std::size_t edge = fmt_.edgeItems;
    bool first = true;
    for (std::size_t i = 0; i < n; ++i) {
      if (summarise_ && n > 2 * edge && i == edge) {
        if (inner) os << fmt_.separator << "...";
        else os << std::string(indent + 2, ' ') << "...\n";
        i = n - edge - 1;
        continue;
      }
      if (inner) {
        if (!first) os << fmt_.separator;
      } else {
        os << std::string(indent + 2, ' ');
      }
      print(os, dim + 1, offset + i * strides_[dim], indent + 2);
      if (!inner) os << '\n';
      first = false;
    }
    if (!inner) os << std::string(indent, ' ');
    os << fmt_.closeBracket;
  }

private:
  const Type &type_;
  const std::vector<std::size_t> &shape_;
  const std::uint8_t *data_;
  const PrintTensorFmt &fmt_;
  unsigned size_;
  bool summarise_;
  std::vector<std::size_t> strides_;
};

} // namespace

std::string formatTensor(const std::string &title, const Type &type,
                         const std::vector<std::size_t> &shape, const std::uint8_t *data,
                         const PrintTensorFmt &fmt) {
  std::ostringstream os;
  os << title << ": ";
  Printer(type, shape, data, fmt).print(os, 0, 0, 0);
  os << '\n';
  return os.str();
}

} // namespace poplar::detail
