#pragma once
// Shared pieces of the popops kernels: dense views of operands while a kernel
// runs, option parsing, error text and output creation.
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/exceptions.hpp>
#include <poputil/TileMapping.hpp>

#include "poplar/Access.hpp"
#include "poplar/TensorImpl.hpp"

namespace popops::detail {

using poplar::detail::Access;

// An operand's elements as one dense array while a kernel runs: the engine's
// memory itself when the access is contiguous, otherwise a staging copy.
// `snapshot` forces the copy, for inputs that share memory with an output.
class DenseOperand {
public:
  DenseOperand() = default;
  explicit DenseOperand(const Access &access, bool snapshot = false)
      : access_(access), inPlace_(access.contiguous() && !snapshot) {}

  std::size_t size() const { return access_.numElements; }
  template <class T> const T *read() { return reinterpret_cast<const T *>(gathered()); }
  // Writable elements with unspecified contents; commit() stores them.
  template <class T> T *write() {
    return reinterpret_cast<T *>(inPlace_ ? access_.data() : staged());
  }
  // Writable elements holding the current values; commit() stores them.
  template <class T> T *update() { return reinterpret_cast<T *>(gathered()); }
  void commit() {
    if (!inPlace_) access_.scatter(staging_.data());
  }

private:
  std::uint8_t *staged() {
    staging_.resize(access_.numElements * access_.elemSize);
    return staging_.data();
  }
  std::uint8_t *gathered() {
    if (inPlace_) return access_.data();
    access_.gather(staged());
    return staging_.data();
  }

  Access access_;
  bool inPlace_ = true;
  std::vector<std::uint8_t> staging_;
};

// Sets every element of `a` to the element held in `pattern` (Fill.cpp).
void fillAccess(const Access &a, const std::vector<std::uint8_t> &pattern);

// The address of element `index` (flat order) of an access.
inline std::uint8_t *elementAddress(const Access &a, std::size_t index) {
  for (const auto &s : a.segments) {
    if (index < s.count) return s.base + static_cast<std::ptrdiff_t>(index) * s.stride;
    index -= s.count;
  }
  throw poplar::poplar_error("Internal error: element " + std::to_string(index) +
                             " is outside the access");
}

// "'name' [shape] type", for error messages.
inline std::string describe(const poplar::Tensor &t) { return poplar::detail::tensorImpl(t).describe(); }

// "[1,2,3]", for shapes and lists of dimensions in error messages.
inline std::string bracketed(const std::vector<std::size_t> &values) {
  return poplar::detail::shapeString(values);
}

// A new variable spread linearly over the tiles.
inline poplar::Tensor createLinearOutput(poplar::Graph &graph, const poplar::Type &type,
                                         const std::vector<std::size_t> &shape,
                                         const poplar::DebugContext &debugContext) {
  poplar::Tensor out = graph.addVariable(type, shape, debugContext);
  poputil::mapTensorLinearly(graph, out);
  return out;
}

// Option parsing as poplibs does it: each key must have a handler, which
// receives the value; unknown keys and bad values raise invalid_option.
using OptionHandlers = std::map<std::string, std::function<void(const std::string &value)>>;

inline void parseOptions(const poplar::OptionFlags &options, const OptionHandlers &handlers) {
  for (const auto &kv : options) {
    auto it = handlers.find(kv.first);
    if (it == handlers.end()) throw poplar::invalid_option("Unrecognised option '" + kv.first + "'");
    it->second(kv.second);
  }
}

inline std::function<void(const std::string &)> boolOption(const std::string &key, bool &target) {
  return [key, &target](const std::string &value) {
    if (value != "true" && value != "false")
      throw poplar::invalid_option("Invalid value '" + value + "' for option '" + key +
                                   "': expected true or false");
    target = value == "true";
  };
}

inline std::function<void(const std::string &)> doubleOption(const std::string &key, double &target) {
  return [key, &target](const std::string &value) {
    std::size_t used = 0;
    try {
      target = std::stod(value, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used == 0 || used != value.size())
      throw poplar::invalid_option("Invalid value '" + value + "' for option '" + key +
                                   "': expected a number");
  };
}

// Accepts one of `choices` and stores it in `target`.
inline std::function<void(const std::string &)>
choiceOption(const std::string &key, const std::vector<std::string> &choices, std::string &target) {
  return [key, choices, &target](const std::string &value) {
    for (const auto &c : choices)
      if (c == value) {
        target = value;
        return;
      }
    std::string list;
    for (const auto &c : choices) list += (list.empty() ? "" : ", ") + c;
    throw poplar::invalid_option("Invalid value '" + value + "' for option '" + key +
                                 "': expected one of " + list);
  };
}

} // namespace popops::detail
