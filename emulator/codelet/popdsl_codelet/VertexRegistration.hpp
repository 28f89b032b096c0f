#pragma once
// popdsl emulator: how a compiled codelet library describes its vertex classes
// to the emulator (the codelet ABI). Not an SDK header: it lives outside the
// public include directory, in <prefix>/lib/popdsl/codelet (emulator/codelet in the
// source tree), which only the codelet compiler's command line names. Graph::addCodelets compiles each codelet source together with
// generated code that includes this header and exports
//   extern "C" const popdsl_vertex_info *popdsl_codelet_vertices(unsigned *count);
// Field kinds, ranks and element types are computed by C++ from each member's
// declared type, so the emulator's source scan only needs the members' names.
#include <cstddef>
#include <cstring>
#include <exception>
#include <type_traits>

#include <poplar/Vertex.hpp>

extern "C" {

enum popdsl_field_kind {
  POPDSL_FIELD_INPUT,
  POPDSL_FIELD_OUTPUT,
  POPDSL_FIELD_INOUT,
  POPDSL_FIELD_STATE, // a plain member set with Graph::setInitialValue
  POPDSL_FIELD_OTHER  // a member the host cannot set (a struct, an array, ...)
};

struct popdsl_field_info {
  const char *name;
  unsigned kind;          // popdsl_field_kind
  unsigned rank;          // 0: one element; 1: a vector; 2: a list of vectors
  const char *elementType; // the poplar::Type spelling ("float", "unsigned int", ...) or ""
  unsigned elementSize;
  unsigned minAlign;      // bytes the data must be aligned to
  std::size_t offset;     // of the member in the vertex
  // Per dimension: its poplar::VectorLayout, or POPDSL_LIST_LAYOUT + its
  // poplar::VectorListLayout for both dimensions of a VectorList (0: not a vector).
  unsigned layout[2];
};
#define POPDSL_LIST_LAYOUT 0x100u

// run: 0 when compute succeeded, 1 when it returned false, 2 when it threw
// (the exception's what() is copied into message), 3 when a checked access was out of
// bounds (compiled with POPDSL_CHECK_VERTEX_ACCESS: message holds a popdsl_access_fault).
struct popdsl_access_fault {
  const void *vector; // the field, or the list element, indexed
  std::size_t index, size;
};
typedef int (*popdsl_run_function)(void *vertex, char *message, std::size_t messageSize);

struct popdsl_vertex_info {
  const char *prettyName; // __PRETTY_FUNCTION__ of a function templated on the class
  std::size_t size;
  std::size_t align;
  unsigned numFields;
  const popdsl_field_info *fields;
  popdsl_run_function run; // null for a class without compute()
};
}

namespace popdsl_codelet {

using poplar::Input;
using poplar::InOut;
using poplar::Output;
using poplar::Vector;
using poplar::VectorList;
using poplar::VectorLayout;
using poplar::VectorListLayout;

template <class T> struct ElementName { static const char *get() { return ""; } };
#define POPDSL_ELEMENT_NAME(T, NAME)                                                     \
  template <> struct ElementName<T> {                                                    \
    static const char *get() { return NAME; }                                            \
  };
POPDSL_ELEMENT_NAME(bool, "bool")
POPDSL_ELEMENT_NAME(char, "char")
POPDSL_ELEMENT_NAME(signed char, "signed char")
POPDSL_ELEMENT_NAME(unsigned char, "unsigned char")
POPDSL_ELEMENT_NAME(short, "short")
POPDSL_ELEMENT_NAME(unsigned short, "unsigned short")
POPDSL_ELEMENT_NAME(int, "int")
POPDSL_ELEMENT_NAME(unsigned int, "unsigned int")
POPDSL_ELEMENT_NAME(long long, "long long")
POPDSL_ELEMENT_NAME(unsigned long long, "unsigned long long")
POPDSL_ELEMENT_NAME(half, "half")
POPDSL_ELEMENT_NAME(float, "float")
#undef POPDSL_ELEMENT_NAME

// What a member's declared type means: kind, rank, element type and alignment.
template <class F> struct FieldTraits {
  static const unsigned kind = std::is_arithmetic<F>::value || std::is_same<F, half>::value
                                   ? POPDSL_FIELD_STATE
                                   : POPDSL_FIELD_OTHER;
  static const unsigned rank = 0;
  typedef F Element;
  static const unsigned minAlign = alignof(F);
  static const unsigned layout0 = 0, layout1 = 0;
};
template <class T, VectorLayout L, unsigned A, bool I> struct FieldTraits<Vector<T, L, A, I> > {
  static const unsigned layout0 = static_cast<unsigned>(L);
  static const unsigned layout1 = FieldTraits<T>::kind == POPDSL_FIELD_STATE ? 0 : FieldTraits<T>::layout0;
  static const unsigned kind = FieldTraits<T>::kind == POPDSL_FIELD_STATE ? POPDSL_FIELD_STATE
                               : FieldTraits<T>::kind == POPDSL_FIELD_OTHER ? POPDSL_FIELD_OTHER
                               : FieldTraits<T>::rank == 1 ? FieldTraits<T>::kind
                                                            : POPDSL_FIELD_OTHER;
  static const unsigned rank = FieldTraits<T>::kind == POPDSL_FIELD_STATE ? 1 : 2;
  typedef typename FieldTraits<T>::Element Element;
  static const unsigned minAlign = FieldTraits<T>::kind == POPDSL_FIELD_STATE ? A : FieldTraits<T>::minAlign;
};

template <class P, unsigned Kind> struct EdgeTraits {
  static const unsigned kind = Kind;
  static const unsigned rank = 0;
  typedef P Element;
  static const unsigned minAlign = alignof(P);
  static const unsigned layout0 = 0, layout1 = 0;
};
template <class T, VectorLayout L, unsigned A, bool I, unsigned Kind>
struct EdgeTraits<Vector<T, L, A, I>, Kind> {
  static const unsigned layout0 = static_cast<unsigned>(L), layout1 = 0;
  static const unsigned kind = Kind;
  static const unsigned rank = 1;
  typedef T Element;
  static const unsigned minAlign = A;
};
template <class T, VectorListLayout L, unsigned A, bool I, unsigned Kind>
struct EdgeTraits<VectorList<T, L, A, I>, Kind> {
  static const unsigned layout0 = POPDSL_LIST_LAYOUT + static_cast<unsigned>(L), layout1 = layout0;
  static const unsigned kind = Kind;
  static const unsigned rank = 2;
  typedef T Element;
  static const unsigned minAlign = A;
};
template <class P> struct FieldTraits<Input<P> > : EdgeTraits<P, POPDSL_FIELD_INPUT> {};
template <class P> struct FieldTraits<Output<P> > : EdgeTraits<P, POPDSL_FIELD_OUTPUT> {};
template <class P> struct FieldTraits<InOut<P> > : EdgeTraits<P, POPDSL_FIELD_INOUT> {};

// The byte offset of a member (possibly of a base class) in V.
template <class V, class F, class C> std::size_t offsetOf(F C::*member) {
  typename std::aligned_storage<sizeof(V), alignof(V)>::type storage;
  V *v = reinterpret_cast<V *>(&storage);
  return static_cast<std::size_t>(reinterpret_cast<const char *>(&(v->*member)) -
                                  reinterpret_cast<const char *>(v));
}

template <class V, class F, class C> popdsl_field_info field(const char *name, F C::*member) {
  typedef typename std::remove_cv<F>::type Field;
  typedef FieldTraits<Field> Traits;
  popdsl_field_info info;
  info.name = name;
  info.kind = Traits::kind;
  info.rank = Traits::rank;
  typedef typename std::remove_cv<typename Traits::Element>::type Element;
  info.elementType = Traits::kind == POPDSL_FIELD_OTHER ? "" : ElementName<Element>::get();
  info.elementSize = static_cast<unsigned>(sizeof(Element));
  info.minAlign = Traits::minAlign;
  info.offset = offsetOf<V>(member);
  info.layout[0] = Traits::layout0;
  info.layout[1] = Traits::layout1;
  return info;
}

template <class R> struct Call {
  template <class F> static bool run(F f) { return f(); }
};
template <> struct Call<void> {
  template <class F> static bool run(F f) {
    f();
    return true;
  }
};

template <class V> bool compute(V *v, std::true_type /*multi-vertex*/) {
  bool ok = true;
  for (unsigned worker = 0; worker < poplar::MultiVertex::numWorkers(); ++worker)
    ok = Call<decltype(v->compute(worker))>::run([v, worker] { return v->compute(worker); }) && ok;
  return ok;
}
template <class V> bool compute(V *v, std::false_type) {
  return Call<decltype(v->compute())>::run([v] { return v->compute(); });
}

template <class V> int run(void *vertex, char *message, std::size_t messageSize) {
  try {
    return compute(static_cast<V *>(vertex), std::is_base_of<poplar::MultiVertex, V>()) ? 0 : 1;
#ifdef POPDSL_CHECK_VERTEX_ACCESS
  } catch (const poplar::codelet_detail::AccessFault &fault) {
    const popdsl_access_fault out = {fault.vector, fault.index, fault.size};
    if (messageSize >= sizeof out) std::memcpy(message, &out, sizeof out);
    return 3;
#endif
  } catch (const std::exception &e) {
    std::strncpy(message, e.what(), messageSize - 1);
  } catch (...) {
    std::strncpy(message, "an exception that is not a std::exception", messageSize - 1);
  }
  return 2;
}

// Whether V has a compute() (or compute(unsigned) for a MultiVertex) to run.
template <class V> struct HasCompute {
  template <class U> static std::true_type test(decltype(&U::compute));
  template <class U> static std::false_type test(...);
  static const bool value = decltype(test<V>(0))::value;
};

template <class V> popdsl_run_function runFunction(std::true_type) { return &run<V>; }
template <class V> popdsl_run_function runFunction(std::false_type) { return 0; }

template <class V> const char *prettyName() { return __PRETTY_FUNCTION__; }

template <class V>
popdsl_vertex_info describe(const popdsl_field_info *fields, unsigned numFields) {
  static_assert(!std::is_polymorphic<V>::value,
                "a vertex class cannot have virtual functions: the emulator never constructs vertices");
  popdsl_vertex_info info;
  info.prettyName = prettyName<V>();
  info.size = sizeof(V);
  info.align = alignof(V);
  info.numFields = numFields;
  info.fields = fields;
  info.run = runFunction<V>(std::integral_constant<bool, HasCompute<V>::value>());
  return info;
}

} // namespace popdsl_codelet
