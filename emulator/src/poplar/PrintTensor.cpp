#include <algorithm>
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

  // Depth first over the dimensions on an explicit stack, one entry a dimension open: a
  // tensor can have more dimensions than a recursion could descend on a small thread stack.
  // Dimension d is indented 2 * d spaces, up to 64 levels (as dumpProgram), so that the
  // text grows with the rank, not its square; the innermost prints its elements on one line.
  void print(std::ostream &os) const {
    const auto indentOf = [](std::size_t dim) { return std::string(2 * std::min<std::size_t>(dim, 64), ' '); };
    if (shape_.empty()) {
      os << formatElement(type_, data_, fmt_);
      return;
    }
    struct Open {
      std::size_t dim, offset, next;
      bool first;
    };
    std::vector<Open> open;
    const auto enter = [&](std::size_t dim, std::size_t offset) {
      os << fmt_.openBracket;
      if (dim + 1 != shape_.size()) os << '\n';
      open.push_back({dim, offset, 0, true});
    };
    enter(0, 0);
    while (!open.empty()) {
      Open &o = open.back();
      const bool inner = o.dim + 1 == shape_.size();
      const std::size_t n = shape_[o.dim], edge = fmt_.edgeItems;
      if (o.next == n) {
        if (!inner) os << indentOf(o.dim);
        os << fmt_.closeBracket;
        open.pop_back();
        if (!open.empty()) os << '\n'; // the enclosing dimension is not the innermost
        continue;
      }
      const std::size_t i = o.next++;
      if (summarise_ && n > 2 * edge && i == edge) {
        if (inner) os << fmt_.separator << "...";
        else os << indentOf(o.dim + 1) << "...\n";
        o.next = n - edge;
        continue;
      }
      const bool first = o.first;
      o.first = false;
      if (inner) {
        if (!first) os << fmt_.separator;
        os << formatElement(type_, data_ + (o.offset + i) * size_, fmt_);
      } else {
        os << indentOf(o.dim + 1);
        enter(o.dim + 1, o.offset + i * strides_[o.dim]); // `o` is not used after this
      }
    }
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
  Printer(type, shape, data, fmt).print(os);
  os << '\n';
  return os.str();
}

} // namespace poplar::detail
