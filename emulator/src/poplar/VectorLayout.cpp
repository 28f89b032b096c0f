#include <poplar/VectorLayout.hpp>
#include <poplar/exceptions.hpp>

namespace poplar {
namespace layout {

std::string to_string(const Vector v) {
  switch (v) {
  case Vector::NotAVector: return "NotAVector";
  case Vector::Span: return "Span";
  case Vector::ShortSpan: return "ShortSpan";
  case Vector::OnePtr: return "OnePtr";
  case Vector::ScaledPtr32: return "ScaledPtr32";
  case Vector::ScaledPtr64: return "ScaledPtr64";
  case Vector::ScaledPtr128: return "ScaledPtr128";
  }
  throw poplar_error("layout::to_string: unknown Vector layout " + std::to_string(static_cast<int>(v)));
}

std::string to_string(const VectorList v) {
  switch (v) {
  case VectorList::NotAVector: return "NotAVector";
  case VectorList::OnePtr: return "OnePtr";
  case VectorList::ScaledPtr32: return "ScaledPtr32";
  case VectorList::ScaledPtr64: return "ScaledPtr64";
  case VectorList::ScaledPtr128: return "ScaledPtr128";
  case VectorList::DeltaN: return "DeltaN";
  case VectorList::DeltaNElements: return "DeltaNElements";
  }
  throw poplar_error("layout::to_string: unknown VectorList layout " + std::to_string(static_cast<int>(v)));
}

} // namespace layout
} // namespace poplar
