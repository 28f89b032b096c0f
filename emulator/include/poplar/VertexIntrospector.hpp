#pragma once
// What a perf estimator (poplar/PerfEstimateFunc.hpp) can see of the vertex it
// estimates: each field's rank and sizes, and the initial values of plain fields
// and of edges connected to constants.
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <poplar/GraphElements.hpp>

namespace poplar {

class Target;

namespace detail {
struct FieldDataState;
struct VertexIntrospectorState;
struct Internals;
} // namespace detail

class FieldData {
public:
  // One sub-vector of a 2-D field, as fieldData[i]: its size().
  class SizeT {
  public:
    explicit SizeT(std::size_t n) : n_(n) {}
    std::size_t size() const { return n_; }

  private:
    std::size_t n_;
  };

  // 0 for one element, 1 for a vector, 2 for a list of vectors.
  unsigned rank() const;
  // 1 for a scalar, the length of a vector, or the number of sub-vectors of a 2-D field.
  std::size_t size() const;
  // The length of sub-vector i of a 2-D field; throws poplar_error for other fields.
  std::size_t getSizeAtIndex(std::size_t i) const;
  SizeT operator[](std::size_t i) const { return SizeT(getSizeAtIndex(i)); }
  std::string name() const;

  // The initial value of a plain field or of an edge connected to a constant,
  // converted to T; throws poplar_error when the field has none.
  template <class T> T getInitialValue(const Target &target) const {
    static_assert(std::is_arithmetic<T>::value, "getInitialValue<T>: T must be an arithmetic type");
    checkSingleInitialValue(target);
    T value;
    initialValueAs(0, kindOf<T>(), sizeof(T), &value);
    return value;
  }
  template <class T> std::vector<T> getInitialValues(const Target &target) const {
    static_assert(std::is_arithmetic<T>::value, "getInitialValues<T>: T must be an arithmetic type");
    const std::size_t n = numInitialValues(target);
    std::vector<T> values;
    values.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      T value;
      initialValueAs(i, kindOf<T>(), sizeof(T), &value);
      values.push_back(value);
    }
    return values;
  }

private:
  friend struct detail::Internals;
  explicit FieldData(std::shared_ptr<const detail::FieldDataState> state) : state_(state) {}
  enum ValueKind { Bool, Signed, Unsigned, Floating };
  template <class T> static ValueKind kindOf() {
    return std::is_same<T, bool>::value           ? Bool
           : std::is_floating_point<T>::value     ? Floating
           : std::is_signed<T>::value             ? Signed
                                                  : Unsigned;
  }
  std::size_t numInitialValues(const Target &target) const;
  void checkSingleInitialValue(const Target &target) const;
  void initialValueAs(std::size_t index, ValueKind kind, std::size_t size, void *out) const;

  std::shared_ptr<const detail::FieldDataState> state_;
};

class VertexIntrospector {
public:
  // Throws unknown_field when the vertex's class has no field `name`.
  FieldData getFieldInfo(const std::string &name) const;
  // The compute set the vertex belongs to.
  const ComputeSet &getComputeSet() const { return computeSet_; }

private:
  friend struct detail::Internals;
  VertexIntrospector(std::shared_ptr<const detail::VertexIntrospectorState> vertex, ComputeSet computeSet)
      : vertex_(vertex), computeSet_(computeSet) {}
  std::shared_ptr<const detail::VertexIntrospectorState> vertex_;
  ComputeSet computeSet_;
};

} // namespace poplar
