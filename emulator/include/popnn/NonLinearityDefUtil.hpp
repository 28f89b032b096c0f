#pragma once
// Names of popnn::NonLinearityType: a readable one (asString, also what << prints), the
// token >> reads ("relu", "hard_sigmoid", "softmax_stable", ...), and the fully qualified one
// vertex templates use ("popnn::NonLinearityType::RELU").
#include <istream>
#include <ostream>
#include <string>

#include <popnn/NonLinearityDef.hpp>
#include <poputil/VertexTemplates.hpp>
#include <poputil/exceptions.hpp>

namespace popnn {

namespace detail {

struct NonLinearityNames {
  const char *readable;
  const char *token;
  const char *enumerator;
};

// In NonLinearityType's order.
inline const NonLinearityNames &nonLinearityNames(NonLinearityType type) {
  static const NonLinearityNames names[] = {
      {"sigmoid", "sigmoid", "SIGMOID"},
      {"hard sigmoid", "hard_sigmoid", "HARD_SIGMOID"},
      {"relu", "relu", "RELU"},
      {"tanh", "tanh", "TANH"},
      {"gelu", "gelu", "GELU"},
      {"gelu_erf", "gelu_erf", "GELU_ERF"},
      {"swish", "swish", "SWISH"},
      {"softmax", "softmax", "SOFTMAX"},
      {"softmax (stable)", "softmax_stable", "SOFTMAX_STABLE"},
      {"softmax (scaled, stable)", "softmax_scaled", "SOFTMAX_SCALED"},
  };
  const unsigned index = static_cast<unsigned>(type);
  if (index >= sizeof(names) / sizeof(names[0])) throw poputil::poplibs_error("Unsupported non-linearity type");
  return names[index];
}

} // namespace detail

inline const char *asString(const NonLinearityType &type) { return detail::nonLinearityNames(type).readable; }

inline std::ostream &operator<<(std::ostream &os, const NonLinearityType &type) { return os << asString(type); }

inline std::istream &operator>>(std::istream &in, NonLinearityType &type) {
  std::string token;
  in >> token;
  for (unsigned i = 0; i <= static_cast<unsigned>(NonLinearityType::SOFTMAX_SCALED); ++i)
    if (token == detail::nonLinearityNames(static_cast<NonLinearityType>(i)).token) {
      type = static_cast<NonLinearityType>(i);
      return in;
    }
  throw poputil::poplibs_error("Unsupported non-linearity type '" + token + "'");
}

} // namespace popnn

namespace poputil {

template <> struct VertexTemplateToString<popnn::NonLinearityType> {
  static std::string to_string(const popnn::NonLinearityType &type) {
    return std::string("popnn::NonLinearityType::") + popnn::detail::nonLinearityNames(type).enumerator;
  }
};

} // namespace poputil
