#pragma once
// The codelet side of Poplar: vertex base classes and the field types a vertex
// declares its connections with. The popdsl emulator compiles codelets with the
// host C++ compiler (__POPC__ defined, __IPU__ not), never constructs a vertex,
// and lays each field over zeroed storage before calling compute():
//   * Input<T>/Output<T>/InOut<T> of a scalar: a pointer to the element;
//   * of Vector<T>: a pointer and a size;
//   * of VectorList<T> (and Vector<Input<Vector<T>>>): a pointer to an array
//     of (pointer, size) pairs and its length;
//   * plain fields (`unsigned n;`, `Vector<unsigned> rows;`) hold values set
//     from the host with Graph::setInitialValue.
// Compiled with POPDSL_CHECK_VERTEX_ACCESS (the engine option emulator.checkVertexAccess),
// every element access through operator[] checks its index and throws before it reads or
// writes out of bounds; the emulator names the vertex, field, index and tile.
#include <cstddef>
#include <type_traits>

#include <poplar/HalfFloat.hpp>

namespace poplar {

enum class VectorLayout : unsigned {
  NOT_A_VECTOR,
  SPAN,
  SHORT_SPAN,
  ONE_PTR,
  SCALED_PTR32,
  SCALED_PTR64,
  SCALED_PTR128,
  COMPACT_PTR
};

enum class VectorListLayout : unsigned {
  NOT_A_VECTOR,
  ONE_PTR,
  SCALED_PTR32,
  SCALED_PTR64,
  SCALED_PTR128,
  DELTAN,
  DELTANELEMENTS,
  COMPACT_DELTAN
};

namespace codelet_detail {

#ifdef POPDSL_CHECK_VERTEX_ACCESS
// What a checked access that is out of bounds throws: the field (or list element) it went
// through, the index and the size. run() in the registration code hands it to the emulator.
struct AccessFault {
  const void *vector;
  std::size_t index, size;
};
[[noreturn]] inline void outOfBounds(const void *vector, std::size_t index, std::size_t size) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  throw AccessFault{vector, index, size};
#else
  __builtin_trap(); // no exceptions: the emulator's fault report names the vertex
#endif
}
#define POPDSL_CHECK_INDEX(index, size)                                                  \
  if ((index) >= (size)) ::poplar::codelet_detail::outOfBounds(this, index, size)
#else
#define POPDSL_CHECK_INDEX(index, size)
#endif

} // namespace codelet_detail

// compute() runs on one worker.
class Vertex {};

// compute(unsigned workerId) runs on every worker of the tile.
class MultiVertex {
public:
  static constexpr unsigned numWorkers() { return 6; }
};

// compute() runs on the supervisor (a legacy form; the emulator runs it once).
class SupervisorVertex {};

template <bool pred>
using SupervisorVertexIf = typename std::conditional<pred, SupervisorVertex, Vertex>::type;

// A span of elements. Only its layout's alignment (MinAlign) matters on the host:
// the emulator hands a vertex data aligned to at least MinAlign bytes.
template <class T, VectorLayout L = VectorLayout::SPAN, unsigned MinAlign = alignof(T),
          bool Interleaved = false>
class Vector {
public:
  typedef T value_type;
  static const unsigned minAlign = MinAlign;
  T &operator[](std::size_t i) const {
    POPDSL_CHECK_INDEX(i, size_);
    return data_[i];
  }
  std::size_t size() const { return size_; }
  T *data() const { return data_; }
  T *begin() const { return data_; }
  T *end() const { return data_ + size_; }

private:
  T *data_;
  std::size_t size_;
};

// A jagged 2-D array: size() vectors of possibly different lengths.
template <class T, VectorListLayout L = VectorListLayout::DELTANELEMENTS,
          unsigned MinAlign = alignof(T), bool Interleaved = false>
class VectorList {
public:
  typedef Vector<T, VectorLayout::SPAN, MinAlign> value_type;
  static const unsigned minAlign = MinAlign;
  value_type &operator[](std::size_t i) const {
    POPDSL_CHECK_INDEX(i, size_);
    return lists_[i];
  }
  std::size_t size() const { return size_; }
  value_type *begin() const { return lists_; }
  value_type *end() const { return lists_ + size_; }

private:
  value_type *lists_;
  std::size_t size_;
};

namespace codelet_detail {

template <class T> struct IsVectorLike : std::false_type {};
template <class T, VectorLayout L, unsigned A, bool I>
struct IsVectorLike<Vector<T, L, A, I> > : std::true_type {};
template <class T, VectorListLayout L, unsigned A, bool I>
struct IsVectorLike<VectorList<T, L, A, I> > : std::true_type {};

template <class T, bool Writable> struct Access {
  typedef typename std::conditional<Writable, T &, const T &>::type Reference;
  typedef typename std::conditional<Writable, T *, const T *>::type Pointer;
};

// An edge to one element: behaves like a pointer to it.
template <class T, bool Writable, bool VectorLike = IsVectorLike<T>::value> class Edge {
public:
  typedef typename Access<T, Writable>::Reference Reference;
  typedef typename Access<T, Writable>::Pointer Pointer;
  operator Reference() const { return *p_; }
  Reference operator*() const { return *p_; }
  Pointer operator->() const { return p_; }
  Reference operator[](std::size_t i) const {
    POPDSL_CHECK_INDEX(i, std::size_t(1));
    return p_[i];
  }
  Edge &operator=(const T &value) {
    static_assert(Writable, "an Input field cannot be written");
    *p_ = value;
    return *this;
  }

private:
  Pointer p_;
};

// An edge to a Vector or VectorList: behaves like the vector, read-only for Inputs.
template <class V, bool Writable> class Edge<V, Writable, true> {
public:
  typedef typename V::value_type Element;
  typedef typename Access<Element, Writable>::Reference Reference;
  typedef typename Access<Element, Writable>::Pointer Pointer;
  Reference operator[](std::size_t i) const { return v_[i]; }
  std::size_t size() const { return v_.size(); }
  Pointer data() const { return v_.begin(); }
  Pointer begin() const { return v_.begin(); }
  Pointer end() const { return v_.end(); }
  const V &operator*() const { return v_; }
  const V *operator->() const { return &v_; }

private:
  V v_;
};

} // namespace codelet_detail

template <class T> class Input : public codelet_detail::Edge<T, false> {};
template <class T> class Output : public codelet_detail::Edge<T, true> {
public:
  using codelet_detail::Edge<T, true>::operator=;
};
template <class T> class InOut : public codelet_detail::Edge<T, true> {
public:
  using codelet_detail::Edge<T, true>::operator=;
};

} // namespace poplar

#undef POPDSL_CHECK_INDEX

// Codelets written for the IPU guard assembly with these; the host runs the C++.
#ifndef DEF_STACK_USAGE
#define DEF_STACK_USAGE(bytes, symbol)
#endif
