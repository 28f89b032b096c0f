#include "ExprEval.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "Elements.hpp"
#include "poplar/AlignedBytes.hpp"
#include "poplar/HalfConversion.hpp"
#include "poplar/ThreadPool.hpp"
#include "poplar/TypeInfo.hpp"

namespace popops::detail {

using namespace popops::expr;
using poplar::Type;
using poplar::detail::Access;
using poplar::detail::Segment;

namespace {

constexpr std::size_t kChunk = 1024;

// How a node's values are held while computing.
enum class Rep { F32, I32, U32, I64, U64, B8 };

Rep repOf(Type t) {
  using namespace poplar;
  if (t == FLOAT || t == HALF) return Rep::F32;
  if (t == BOOL) return Rep::B8;
  if (t == LONGLONG || t == LONG) return Rep::I64;
  if (t == UNSIGNED_LONGLONG || t == UNSIGNED_LONG) return Rep::U64;
  if (poplar::detail::typeInfo(t).kind == poplar::detail::TypeKind::Unsigned) return Rep::U32;
  return Rep::I32;
}

// Writes k copies of the element at src (size bytes) to dst.
void repeatElement(std::uint8_t *dst, const std::uint8_t *src, std::size_t k, unsigned size) {
  const auto fill = [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, src, sizeof v);
    for (std::size_t i = 0; i < k; ++i) std::memcpy(dst + i * sizeof v, &v, sizeof v);
  };
  switch (size) {
  case 1: return fill(std::uint8_t());
  case 2: return fill(std::uint16_t());
  case 4: return fill(std::uint32_t());
  case 8: return fill(std::uint64_t());
  default:
    for (std::size_t i = 0; i < k; ++i) std::memcpy(dst + i * size, src, size);
  }
}

// Walks an Access's segments in flat order, a chunk at a time.
class Cursor {
public:
  explicit Cursor(const Access &a) : a_(a) {
    std::size_t start = 0;
    for (const Segment &s : a.segments) {
      starts_.push_back(start);
      start += s.count;
    }
  }

  // The next n elements in place, if they are contiguous in one segment.
  std::uint8_t *direct(std::size_t n) const {
    if (seg_ >= a_.segments.size()) return nullptr;
    const Segment &s = a_.segments[seg_];
    const bool dense = s.stride == static_cast<std::ptrdiff_t>(a_.elemSize) || s.count == 1;
    return dense && s.count - within_ >= n ? s.base + within_ * a_.elemSize : nullptr;
  }
  void skip(std::size_t n) { walk(n, [](std::uint8_t *, std::ptrdiff_t, std::size_t) {}); }
  // Element copies go through copyRun, whose loops know the element size: a
  // memcpy of a run-time size per element would cost a library call each.
  void read(std::uint8_t *dst, std::size_t n) {
    const unsigned size = a_.elemSize;
    walk(n, [&](std::uint8_t *p, std::ptrdiff_t stride, std::size_t k) {
      if (stride == 0) // a broadcast element: a fill, which vectorizes where a strided copy does not
        repeatElement(dst, p, k, size);
      else
        poplar::detail::copyRun(dst, size, p, stride, k, size);
      dst += k * size;
    });
  }
  void write(const std::uint8_t *src, std::size_t n) {
    const unsigned size = a_.elemSize;
    walk(n, [&](std::uint8_t *p, std::ptrdiff_t stride, std::size_t k) {
      poplar::detail::copyRun(p, stride, src, size, k, size);
      src += k * size;
    });
  }
  // Moves to flat element `index`.
  void seek(std::size_t index) {
    const auto after = std::upper_bound(starts_.begin(), starts_.end(), index);
    seg_ = static_cast<std::size_t>(after - starts_.begin()) - (after == starts_.begin() ? 0 : 1);
    within_ = seg_ < starts_.size() ? index - starts_[seg_] : 0;
  }

private:
  template <class F> void walk(std::size_t n, F f) {
    while (n) {
      const Segment &s = a_.segments[seg_];
      const std::size_t k = std::min(n, s.count - within_);
      f(s.base + static_cast<std::ptrdiff_t>(within_) * s.stride, s.stride, k);
      within_ += k;
      n -= k;
      if (within_ == s.count) ++seg_, within_ = 0;
    }
  }
  const Access &a_;
  std::vector<std::size_t> starts_; // the flat index of each segment's first element
  std::size_t seg_ = 0, within_ = 0;
};

// Converts n (at most kChunk) stored elements of `type` to the node representation of that type.
template <class T> void widen(Type type, const std::uint8_t *src, T *dst, std::size_t n) {
  using namespace poplar;
  const auto load = [&](auto tag) {
    using S = decltype(tag);
    for (std::size_t i = 0; i < n; ++i) {
      S v;
      std::memcpy(&v, src + i * sizeof(S), sizeof(S));
      dst[i] = static_cast<T>(v);
    }
  };
  if (type == HALF) {
    std::uint16_t halves[kChunk]; // src may not be 2-byte aligned
    std::memcpy(halves, src, 2 * n);
    if constexpr (std::is_same<T, float>::value) {
      poplar::detail::halvesToFloats(halves, dst, n);
    } else {
      for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<T>(poplar::detail::halfToFloat(halves[i]));
    }
  } else if (type == SHORT) load(std::int16_t());
  else if (type == UNSIGNED_SHORT) load(std::uint16_t());
  else if (type == CHAR || type == SIGNED_CHAR) load(std::int8_t());
  else if (type == UNSIGNED_CHAR) load(std::uint8_t());
  else if (type == BOOL) load(std::uint8_t());
  else std::memcpy(dst, src, n * sizeof(T)); // the representation is the storage
}

template <class T> void narrow(Type type, const T *src, std::uint8_t *dst, std::size_t n) {
  using namespace poplar;
  const auto store = [&](auto tag) {
    using S = decltype(tag);
    for (std::size_t i = 0; i < n; ++i) {
      const S v = static_cast<S>(src[i]);
      std::memcpy(dst + i * sizeof(S), &v, sizeof(S));
    }
  };
  if (type == HALF) {
    std::uint16_t halves[kChunk];
    if constexpr (std::is_same<T, float>::value) {
      poplar::detail::floatsToHalves(src, halves, n);
    } else {
      for (std::size_t i = 0; i < n; ++i) halves[i] = poplar::detail::floatToHalf(static_cast<float>(src[i]));
    }
    std::memcpy(dst, halves, 2 * n);
  } else if (type == SHORT) store(std::int16_t());
  else if (type == UNSIGNED_SHORT) store(std::uint16_t());
  else if (type == CHAR || type == SIGNED_CHAR) store(std::int8_t());
  else if (type == UNSIGNED_CHAR) store(std::uint8_t());
  else std::memcpy(dst, src, n * sizeof(T));
}

bool storedAsRep(Type t) {
  using namespace poplar;
  return t == FLOAT || t == INT || t == UNSIGNED_INT || t == BOOL || t == LONGLONG ||
         t == UNSIGNED_LONGLONG;
}

// A value in node representation To (Elements.hpp's convertValue); B8's uint8_t holds a bool.
template <class To, class From> To convertRep(From v) {
  if constexpr (std::is_same<To, std::uint8_t>::value) return convertValue<bool>(v);
  else return convertValue<To>(v);
}

struct Node {
  Type type;
  Rep rep;
  std::uint8_t *storage = nullptr; // kChunk values of the representation (NodeBuffers)
  const void *values = nullptr;    // this chunk's values (storage or memory)
  std::function<void(std::size_t n)> compute;
};

// A node writes only its own buffer, which no input's values (another node's buffer or
// engine memory) overlap: the kernels say so with __restrict, so their loops vectorize.
template <class T> T *buf(Node &n) { return reinterpret_cast<T *>(n.storage); }
template <class T> const T *vals(const Node &n) { return static_cast<const T *>(n.values); }

template <class T> T safeDivide(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    if (b == 0) return 0;
    if constexpr (std::is_signed<T>::value)
      if (b == T(-1)) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(a));
    return a / b;
  } else {
    return a / b;
  }
}

template <class T> T safeRemainder(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    if (b == 0 || (std::is_signed<T>::value && b == T(-1))) return 0;
    return a % b;
  } else {
    return std::fmod(a, b);
  }
}

// exp of a float in straight-line code that GCC vectorizes (std::exp is a library call
// per element, several times slower than the vector loop). x = n ln2 + r with |r| <=
// ln2/2; e^r from its degree-7 Taylor polynomial (truncation error below 1e-8) as fused
// multiply-adds, its terms in pairs in powers of r^2: a dependent chain of 5 operations
// where Horner's rule without fusing made 14; 2^n built in the exponent bits in two halves,
// so results that underflow to subnormals or overflow to infinity come out as std::exp's.
// Within 2 ulp of the exact result; NaN stays NaN.
inline float vectorExp(float x) {
  // Beyond the clamps the result is 0 or inf. NaN fails `x > -104` and computes as -104
  // (converting NaN to int would be undefined); it is put back at the end.
  const float floored = x > -104.0f ? x : -104.0f;
  const float clamped = floored < 89.0f ? floored : 89.0f;
  const float roundingShift = 12582912.0f;                                      // 1.5 * 2^23
  const float n = std::fma(clamped, 1.44269504f, roundingShift) - roundingShift; // round(x / ln2)
  const float r = std::fma(-n, 1.42860677e-06f, std::fma(-n, 0.693145752f, clamped)); // ln2 in two parts
  const float r2 = r * r;
  const float high = std::fma(r2, std::fma(r, 1.0f / 5040, 1.0f / 720), std::fma(r, 1.0f / 120, 1.0f / 24));
  const float p = 1 + std::fma(r2, std::fma(r2, high, std::fma(r, 1.0f / 6, 1.0f / 2)), r);
  const std::int32_t k = static_cast<std::int32_t>(n), half = k >> 1;
  const auto powerOfTwo = [](std::int32_t e) {
    const std::uint32_t bits = static_cast<std::uint32_t>(e + 127) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  };
  const float result = p * powerOfTwo(half) * powerOfTwo(k - half);
  return x != x ? x : result;
}

// tanh of a float in straight-line code that GCC vectorizes (std::tanh is a library call
// per element, ~25 ns). Below |x| = 0.5, x + x^3 P(x^2), P a degree-4 least-squares fit to
// (tanh(x) - x) / x^3 weighted by relative error (0.7 ulp); above, 1 - 2 / (e^2|x| + 1)
// with vectorExp (no cancellation to speak of there); beyond 9.1, 1 in float. The sign is
// copied from x, so -0 stays -0 and NaN stays NaN.
inline float vectorTanh(float x) {
  const float a = std::fabs(x);
  const float u = a * a;
  const float series = std::fma(
      u, std::fma(u, std::fma(u, std::fma(u, -0.006660073064267635f, 0.021306009963154793f), -0.05390097573399544f),
                  0.13332980871200562f),
      -0.333333283662796f);
  const float polynomial = std::fma(a * u, series, a);
  const float viaExp = 1.0f - 2.0f / (vectorExp(2.0f * (a < 9.1f ? a : 9.1f)) + 1.0f);
  const float magnitude = a < 0.5f ? polynomial : (a < 9.1f ? viaExp : 1.0f);
  return x != x ? x : std::copysign(magnitude, x);
}

// log of a float in straight-line code that GCC vectorizes (std::log is a library call per
// element). x = 2^k m with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^23 first), f = m - 1
// exactly, and log(m) = 2 atanh(s) for s = f / (2 + f), its series to s^9 (|s| <= 0.1716:
// truncation below 2e-9 relative), summed as f - (f^2/2 - s (f^2/2 + R)) so that the exact f
// carries most of it; k ln2 in two parts (vectorExp's). Within 1 ulp of the correctly rounded
// log for every positive float (checked exhaustively); 0 gives -inf, below 0 NaN, NaN stays NaN.
inline float vectorLog(float x) {
  const bool subnormal = x < 1.17549435e-38f; // zero and below too: replaced at the end
  const float scaled = subnormal ? x * 8388608.0f : x;
  std::uint32_t bits;
  std::memcpy(&bits, &scaled, sizeof bits);
  const std::uint32_t offset = bits - 0x3f3504f3u; // the exponent counted from sqrt(1/2)'s
  const std::int32_t k = (static_cast<std::int32_t>(offset) >> 23) - static_cast<std::int32_t>(subnormal) * 23;
  const std::uint32_t mantissaBits = (offset & 0x007fffffu) + 0x3f3504f3u;
  float m;
  std::memcpy(&m, &mantissaBits, sizeof m);
  const float f = m - 1.0f;
  const float s = f / (2.0f + f), z = s * s;
  const float series = z * (2.0f / 3 + z * (2.0f / 5 + z * (2.0f / 7 + z * (2.0f / 9))));
  const float halfSquare = 0.5f * f * f;
  const float kf = static_cast<float>(k);
  const float result = kf * 0.693145752f + (f - (halfSquare - (s * (halfSquare + series) + kf * 1.42860677e-06f)));
  // Selects in this form, not one chain of conditions, GCC turns into blends.
  const float inf = std::numeric_limits<float>::infinity();
  const float edge = x == 0.0f ? -inf : x; // 0, +inf and NaN
  const float positive = x > 0.0f && x < inf ? result : edge;
  return x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : positive;
}

// 1 / (1 + e^-x) with vectorExp: e^-x overflows to inf for x < -88.7, giving 0 as it should.
inline float vectorSigmoid(float x) { return 1.0f / (1.0f + vectorExp(-x)); }

// The transcendental float loops, also compiled for x86-64-v3 (AVX2 and FMA) and AVX-512:
// the loader picks the clone the CPU supports (GCC's target_clones, an ifunc). The clones
// must give identical results, so the functions fuse multiply-adds where they say so
// (std::fma: one instruction in those clones, a library call in the baseline one) and
// nowhere else: GCC would contract a * b + c where the target has FMA
// (-ffp-contract=fast) but not in the baseline clone, so contraction is off in these loops
// (VECTOR_MATH). A compiler without GCC's optimize attribute gets no clones.
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && __has_attribute(optimize)
#define VECTOR_MATH __attribute__((optimize("fp-contract=off")))
#define VECTOR_CLONES __attribute__((target_clones("avx512f", "arch=x86-64-v3", "default"), flatten))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_MATH
#define VECTOR_CLONES
#endif

// y = f(x) at the build's baseline ISA; the clones inline it for theirs.
template <float (*F)(float)>
VECTOR_MATH void baselineFloatLoop(const float *__restrict x, float *__restrict y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = F(x[i]);
}
template <float (*F)(float)>
VECTOR_MATH VECTOR_CLONES void clonedFloatLoop(const float *__restrict x, float *__restrict y, std::size_t n) {
  baselineFloatLoop<F>(x, y, n);
}

using FloatLoop = void (*)(const float *, float *, std::size_t);

// POPDSL_BASELINE_VECTOR_MATH=1 runs the loops at the baseline ISA, as the default clone
// does: a test seam, to check the clones against it on a CPU that picks another.
bool baselineVectorMath() {
  static const bool baseline = [] {
    const char *env = std::getenv("POPDSL_BASELINE_VECTOR_MATH");
    return env && *env && std::strcmp(env, "0") != 0;
  }();
  return baseline;
}

template <float (*F)(float)> FloatLoop vectorLoop() {
  return baselineVectorMath() ? baselineFloatLoop<F> : clonedFloatLoop<F>;
}

// The float arithmetic a map's expressions are mostly made of, cloned like the
// transcendental loops: the build's baseline ISA (SSE2) takes four floats at a time, and
// IEEE adds, subtracts, multiplies, divides and the comparisons of maximum and minimum give
// the same values at any vector width (NaN stays NaN, its payload aside).
template <float (*F)(float, float)>
VECTOR_MATH void baselineFloatPairLoop(const float *__restrict x, const float *__restrict y, float *__restrict z,
                                       std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) z[i] = F(x[i], y[i]);
}
template <float (*F)(float, float)>
VECTOR_MATH VECTOR_CLONES void clonedFloatPairLoop(const float *__restrict x, const float *__restrict y,
                                                   float *__restrict z, std::size_t n) {
  baselineFloatPairLoop<F>(x, y, z, n);
}

using FloatPairLoop = void (*)(const float *, const float *, float *, std::size_t);

template <float (*F)(float, float)> FloatPairLoop vectorPairLoop() {
  return baselineVectorMath() ? baselineFloatPairLoop<F> : clonedFloatPairLoop<F>;
}

// Simple operations, named so that the float clones (as cheap as the pair loops above) and
// the other types' loops share them.
template <class T> T negated(T x) { return wrappingSub(T(0), x); }
template <class T> T squared(T x) { return wrappingMul(x, x); }
template <class T> T absoluteOf(T x) {
  if constexpr (std::is_signed<T>::value) return x < 0 ? wrappingSub(T(0), x) : x;
  else return x;
}
template <class T> T rectified(T x) { return x > T(0) ? x : T(0); }
inline float inverseOf(float x) { return 1.0f / x; }
// Correctly rounded, so the same at any vector width (vectorized: -fno-math-errno).
inline float squareRootOf(float x) { return std::sqrt(x); }
inline float inverseSquareRootOf(float x) { return 1.0f / std::sqrt(x); }
// NaN propagates, whichever operand it is (x + y is then NaN), as in numpy.
template <class T> T maximumOf(T x, T y) { return x != x || y != y ? x + y : x < y ? y : x; }
template <class T> T minimumOf(T x, T y) { return x != x || y != y ? x + y : y < x ? y : x; }

template <class T> T shiftAmount(T b) { return static_cast<T>(b & (sizeof(T) * 8 - 1)); }

template <class T> std::function<void(std::size_t)> unaryKernel(UnaryOpType op, Node &out, const Node &a) {
  using U = UnaryOpType;
  auto loop = [&out, &a](auto f) {
    return [&out, &a, f](std::size_t n) {
      const T *__restrict x = vals<T>(a);
      using R = decltype(f(T()));
      R *__restrict y = buf<R>(out);
      for (std::size_t i = 0; i < n; ++i) y[i] = f(x[i]);
      out.values = y;
    };
  };
  auto floatLoop = [&out, &a](FloatLoop f) {
    return [&out, &a, f](std::size_t n) {
      float *y = buf<float>(out);
      f(vals<float>(a), y, n);
      out.values = y;
    };
  };
  if constexpr (std::is_floating_point<T>::value) {
    switch (op) {
    case U::ABSOLUTE: return floatLoop(vectorLoop<absoluteOf<float>>());
    case U::ASIN: return loop([](T x) { return std::asin(x); });
    case U::CBRT: return loop([](T x) { return std::cbrt(x); });
    case U::CEIL: return loop([](T x) { return std::ceil(x); });
    case U::COS: return loop([](T x) { return std::cos(x); });
    case U::ERF: return loop([](T x) { return std::erf(x); });
    case U::EXPONENT:
      if constexpr (std::is_same<T, float>::value) return floatLoop(vectorLoop<vectorExp>());
      else return loop([](T x) { return std::exp(x); });
    case U::EXPONENT_MINUS_ONE: return loop([](T x) { return std::expm1(x); });
    case U::EXPONENT2: return loop([](T x) { return std::exp2(x); });
    case U::FLOOR: return loop([](T x) { return std::floor(x); });
    case U::GELU_ERF: return loop([](T x) { return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752))); });
    case U::INVERSE: return floatLoop(vectorLoop<inverseOf>());
    case U::IS_FINITE: return loop([](T x) { return std::uint8_t(std::isfinite(x)); });
    case U::IS_INF: return loop([](T x) { return std::uint8_t(std::isinf(x)); });
    case U::IS_NAN: return loop([](T x) { return std::uint8_t(std::isnan(x)); });
    case U::LOGARITHM:
      if constexpr (std::is_same<T, float>::value) return floatLoop(vectorLoop<vectorLog>());
      else return loop([](T x) { return std::log(x); });
    case U::LOGARITHM_ONE_PLUS: return loop([](T x) { return std::log1p(x); });
    case U::NEARBY_INT: return loop([](T x) { return std::nearbyint(x); });
    case U::NEGATE: return floatLoop(vectorLoop<negated<float>>());
    case U::RELU: return floatLoop(vectorLoop<rectified<float>>());
    case U::SIN: return loop([](T x) { return std::sin(x); });
    case U::TAN: return loop([](T x) { return std::tan(x); });
    case U::TANH:
      if constexpr (std::is_same<T, float>::value) return floatLoop(vectorLoop<vectorTanh>());
      else return loop([](T x) { return std::tanh(x); });
    case U::ROUND: return loop([](T x) { return std::round(x); });
    case U::SQRT:
      if constexpr (std::is_same<T, float>::value) return floatLoop(vectorLoop<squareRootOf>());
      else return loop([](T x) { return std::sqrt(x); });
    case U::SQUARE: return floatLoop(vectorLoop<squared<float>>());
    case U::SIGMOID:
      if constexpr (std::is_same<T, float>::value) return floatLoop(vectorLoop<vectorSigmoid>());
      else return loop([](T x) { return T(1) / (T(1) + std::exp(-x)); });
    case U::RSQRT:
      if constexpr (std::is_same<T, float>::value) return floatLoop(vectorLoop<inverseSquareRootOf>());
      else return loop([](T x) { return T(1) / std::sqrt(x); });
    case U::TRUNC: return loop([](T x) { return std::trunc(x); });
    default: break;
    }
  }
  if constexpr (std::is_integral<T>::value && !std::is_same<T, std::uint8_t>::value) {
    switch (op) {
    case U::BITWISE_NOT: return loop([](T x) { return static_cast<T>(~x); });
    case U::POPCOUNT: return loop([](T x) { return static_cast<T>(__builtin_popcountll(static_cast<std::make_unsigned_t<T>>(x))); });
    case U::COUNT_LEADING_ZEROS:
      return loop([](T x) {
        const auto u = static_cast<std::make_unsigned_t<T>>(x);
        return static_cast<T>(u ? __builtin_clzll(u) - (64 - 8 * sizeof(T)) : 8 * sizeof(T));
      });
    default: break;
    }
  }
  if constexpr (!std::is_same<T, std::uint8_t>::value) {
    switch (op) {
    case U::ABSOLUTE: return loop([](T x) { return absoluteOf(x); });
    case U::NEGATE: return loop([](T x) { return negated(x); });
    case U::SIGNUM: return loop([](T x) { return static_cast<T>((T(0) < x) - (x < T(0))); });
    case U::SQUARE: return loop([](T x) { return squared(x); });
    case U::RELU: return loop([](T x) { return rectified(x); });
    default: break;
    }
  }
  if constexpr (std::is_same<T, std::uint8_t>::value)
    if (op == U::LOGICAL_NOT) return loop([](T x) { return std::uint8_t(!x); });
  throw std::logic_error("unary operation not supported for this representation");
}

template <class T> std::function<void(std::size_t)> binaryKernel(BinaryOpType op, Node &out, const Node &a, const Node &b) {
  using B = BinaryOpType;
  auto loop = [&out, &a, &b](auto f) {
    return [&out, &a, &b, f](std::size_t n) {
      const T *__restrict x = vals<T>(a);
      const T *__restrict y = vals<T>(b);
      using R = decltype(f(T(), T()));
      R *__restrict z = buf<R>(out);
      for (std::size_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
      out.values = z;
    };
  };
  if constexpr (std::is_same<T, float>::value) {
    auto pairLoop = [&out, &a, &b](FloatPairLoop f) -> std::function<void(std::size_t)> {
      return [&out, &a, &b, f](std::size_t n) {
        float *z = buf<float>(out);
        f(vals<float>(a), vals<float>(b), z, n);
        out.values = z;
      };
    };
    switch (op) {
    case B::ADD: return pairLoop(vectorPairLoop<wrappingAdd<float>>());
    case B::SUBTRACT: return pairLoop(vectorPairLoop<wrappingSub<float>>());
    case B::MULTIPLY: return pairLoop(vectorPairLoop<wrappingMul<float>>());
    case B::DIVIDE: return pairLoop(vectorPairLoop<safeDivide<float>>());
    case B::MAXIMUM: return pairLoop(vectorPairLoop<maximumOf<float>>());
    case B::MINIMUM: return pairLoop(vectorPairLoop<minimumOf<float>>());
    default: break;
    }
  }
  switch (op) {
  case B::EQUAL: return loop([](T x, T y) { return std::uint8_t(x == y); });
  case B::NOT_EQUAL: return loop([](T x, T y) { return std::uint8_t(x != y); });
  case B::LESS_THAN: return loop([](T x, T y) { return std::uint8_t(x < y); });
  case B::LESS_THAN_EQUAL: return loop([](T x, T y) { return std::uint8_t(x <= y); });
  case B::GREATER_THAN: return loop([](T x, T y) { return std::uint8_t(x > y); });
  case B::GREATER_THAN_EQUAL: return loop([](T x, T y) { return std::uint8_t(x >= y); });
  default: break;
  }
  if constexpr (std::is_same<T, std::uint8_t>::value) {
    if (op == B::LOGICAL_AND) return loop([](T x, T y) { return std::uint8_t(x && y); });
    if (op == B::LOGICAL_OR) return loop([](T x, T y) { return std::uint8_t(x || y); });
  } else {
    switch (op) {
    // Integers wrap as on the device (wrapping*: no signed overflow in C++).
    case B::ADD: return loop([](T x, T y) { return wrappingAdd(x, y); });
    case B::SUBTRACT: return loop([](T x, T y) { return wrappingSub(x, y); });
    case B::MULTIPLY: return loop([](T x, T y) { return wrappingMul(x, y); });
    case B::DIVIDE: return loop([](T x, T y) { return safeDivide(x, y); });
    case B::REMAINDER: return loop([](T x, T y) { return safeRemainder(x, y); });
    case B::MAXIMUM: return loop([](T x, T y) { return maximumOf(x, y); });
    case B::MINIMUM: return loop([](T x, T y) { return minimumOf(x, y); });
    default: break;
    }
  }
  if constexpr (std::is_floating_point<T>::value) {
    switch (op) {
    case B::ATAN2: return loop([](T x, T y) { return std::atan2(x, y); });
    case B::POWER: return loop([](T x, T y) { return std::pow(x, y); });
    case B::INV_STD_DEV_TO_VARIANCE: return loop([](T x, T eps) { return T(1) / (x * x) - eps; });
    case B::VARIANCE_TO_INV_STD_DEV: return loop([](T x, T eps) { return T(1) / std::sqrt(x + eps); });
    default: break;
    }
  }
  if constexpr (std::is_integral<T>::value && !std::is_same<T, std::uint8_t>::value) {
    using UT = std::make_unsigned_t<T>;
    switch (op) {
    case B::BITWISE_AND: return loop([](T x, T y) { return static_cast<T>(x & y); });
    case B::BITWISE_OR: return loop([](T x, T y) { return static_cast<T>(x | y); });
    case B::BITWISE_XOR: return loop([](T x, T y) { return static_cast<T>(x ^ y); });
    case B::BITWISE_XNOR: return loop([](T x, T y) { return static_cast<T>(~(x ^ y)); });
    case B::SHIFT_LEFT: return loop([](T x, T y) { return static_cast<T>(static_cast<UT>(x) << shiftAmount(y)); });
    case B::SHIFT_RIGHT: return loop([](T x, T y) { return static_cast<T>(static_cast<UT>(x) >> shiftAmount(y)); });
    case B::SHIFT_RIGHT_SIGN_EXTEND:
      return loop([](T x, T y) { return static_cast<T>(static_cast<std::make_signed_t<T>>(x) >> shiftAmount(y)); });
    default: break;
    }
  }
  throw std::logic_error("binary operation not supported for this representation");
}

template <class T> std::function<void(std::size_t)> ternaryKernel(TernaryOpType op, Node &out, const Node &a, const Node &b, const Node &c) {
  if (op == TernaryOpType::SELECT)
    return [&out, &a, &b, &c](std::size_t n) {
      const T *__restrict x = vals<T>(a);
      const T *__restrict y = vals<T>(b);
      const std::uint8_t *__restrict cond = vals<std::uint8_t>(c);
      T *__restrict z = buf<T>(out);
      for (std::size_t i = 0; i < n; ++i) z[i] = cond[i] ? x[i] : y[i];
      out.values = z;
    };
  return [&out, &a, &b, &c](std::size_t n) {
    const T *__restrict x = vals<T>(a);
    const T *__restrict lo = vals<T>(b);
    const T *__restrict hi = vals<T>(c);
    T *__restrict z = buf<T>(out);
    for (std::size_t i = 0; i < n; ++i) {
      const T m = x[i] < lo[i] ? lo[i] : x[i];
      z[i] = hi[i] < m ? hi[i] : m;
    }
    out.values = z;
  };
}

// Calls fn with a value of the C++ type that represents `rep`.
template <class F> decltype(auto) withRep(Rep rep, F fn) {
  switch (rep) {
  case Rep::F32: return fn(float());
  case Rep::I32: return fn(std::int32_t());
  case Rep::U32: return fn(std::uint32_t());
  case Rep::I64: return fn(std::int64_t());
  case Rep::U64: return fn(std::uint64_t());
  case Rep::B8: break;
  }
  return fn(std::uint8_t());
}

// The buffers of a Program's nodes (and its staging buffer), each kChunk values of up to 8
// bytes, cut from one block kStagger bytes apart so that no two start at the same offset
// modulo 4 KB. A loop storing to one buffer while loading from another at the same offset
// modulo 4 KB stalls at every store: the CPU first compares only an address's low 12 bits
// to find the store a load depends on ("4K aliasing"). Separately allocated 8 KB buffers
// lay so: the LSTM cell's map over [32,256] floats took 61-66 us on one thread, 32-35 us
// with its buffers staggered (Sapphire Rapids).
class NodeBuffers {
public:
  explicit NodeBuffers(std::size_t count) : count_(count), block_(poplar::detail::alignedBytes(count * kStride)) {}
  std::uint8_t *next() {
    if (used_ == count_) throw std::logic_error("popops map: more expression nodes than counted");
    return block_.get() + kStride * used_++;
  }

private:
  static constexpr std::size_t kStagger = 192; // 64 buffers on, two are a multiple of 4 KB apart
  static constexpr std::size_t kStride = kChunk * 8 + kStagger;
  std::size_t count_, used_ = 0;
  poplar::detail::AlignedBytes block_;
};

// The nodes `e` can make: one per operation and per input occurrence, and the staging buffer.
std::size_t nodeCount(const TypedExpr &e) {
  std::size_t count = 1;
  for (const TypedExpr &a : e.args) count += nodeCount(a);
  return count;
}

class Program {
public:
  Program(const TypedExpr &root, std::vector<Access> inputs, Access output)
      : inputs_(std::move(inputs)), output_(std::move(output)), outCursor_(output_),
        buffers_(nodeCount(root) + 1), staging_(buffers_.next()) {
    for (const Access &a : inputs_) cursors_.emplace_back(a);
    inputNodes_.assign(inputs_.size(), nullptr);
    root_ = build(root);
  }

  // Evaluates output elements [begin, end).
  void run(std::size_t begin, std::size_t end) {
    for (auto &c : cursors_) c.seek(begin);
    outCursor_.seek(begin);
    for (std::size_t pos = begin; pos < end; pos += kChunk) {
      const std::size_t n = std::min(kChunk, end - pos);
      for (auto &node : nodes_)
        if (node->compute) node->compute(n);
      const Node &r = *root_;
      withRep(r.rep, [&](auto tag) {
        using T = decltype(tag);
        if (storedAsRep(r.type)) {
          outCursor_.write(static_cast<const std::uint8_t *>(r.values), n);
        } else {
          narrow<T>(r.type, vals<T>(r), staging_, n);
          outCursor_.write(staging_, n);
        }
      });
    }
  }

private:
  Node *newNode(Type type) {
    nodes_.push_back(std::make_unique<Node>());
    Node *n = nodes_.back().get();
    n->type = type;
    n->rep = repOf(type);
    n->storage = buffers_.next();
    n->values = n->storage;
    return n;
  }

  // Nodes are appended children-first, so computing them in order respects dependencies.
  Node *build(const TypedExpr &e) {
    using K = TypedExpr::Kind;
    if (e.kind == K::Input) {
      if (!inputNodes_[e.input]) inputNodes_[e.input] = buildInput(e.input, e.type);
      return inputNodes_[e.input];
    }
    std::vector<Node *> args;
    for (const TypedExpr &a : e.args) args.push_back(build(a));
    Node *n = newNode(e.type);
    const bool roundHalf = e.type == poplar::HALF;
    switch (e.kind) {
    case K::Const:
      withRep(n->rep, [&](auto tag) {
        using T = decltype(tag);
        const T v = convertRep<T>(roundHalf ? static_cast<long double>(poplar::detail::halfToFloat(
                                                    poplar::detail::floatToHalf(static_cast<float>(e.value))))
                                              : e.value);
        std::fill(buf<T>(*n), buf<T>(*n) + kChunk, v);
      });
      return n;
    case K::Cast:
      n->compute = castKernel(*n, *args[0]);
      break;
    case K::Unary:
      n->compute = withRep(args[0]->rep, [&](auto tag) {
        return unaryKernel<decltype(tag)>(static_cast<UnaryOpType>(e.op), *n, *args[0]);
      });
      break;
    case K::Binary:
      n->compute = withRep(args[0]->rep, [&](auto tag) {
        return binaryKernel<decltype(tag)>(static_cast<BinaryOpType>(e.op), *n, *args[0], *args[1]);
      });
      break;
    case K::Ternary:
      n->compute = withRep(args[0]->rep, [&](auto tag) {
        return ternaryKernel<decltype(tag)>(static_cast<TernaryOpType>(e.op), *n, *args[0], *args[1], *args[2]);
      });
      break;
    case K::Input:
      break;
    }
    if (roundHalf && e.kind != K::Cast) {
      auto compute = std::move(n->compute);
      n->compute = [compute, n](std::size_t count) {
        compute(count);
        poplar::detail::roundToHalves(buf<float>(*n), count);
      };
    }
    return n;
  }

  static std::function<void(std::size_t)> castKernel(Node &out, const Node &in) {
    const bool toHalf = out.type == poplar::HALF;
    return withRep(out.rep, [&](auto toTag) {
      using To = decltype(toTag);
      return withRep(in.rep, [&](auto fromTag) -> std::function<void(std::size_t)> {
        using From = decltype(fromTag);
        return [&out, &in, toHalf](std::size_t n) {
          const From *__restrict x = vals<From>(in);
          To *__restrict y = buf<To>(out);
          for (std::size_t i = 0; i < n; ++i) y[i] = convertRep<To>(x[i]);
          if constexpr (std::is_same<To, float>::value)
            if (toHalf) poplar::detail::roundToHalves(y, n);
          out.values = y;
        };
      });
    });
  }

  Node *buildInput(unsigned index, Type type) {
    Node *n = newNode(type);
    Cursor &cursor = cursors_[index];
    n->compute = [n, &cursor, type](std::size_t count) {
      if (storedAsRep(type)) {
        if (std::uint8_t *p = cursor.direct(count)) {
          n->values = p;
          cursor.skip(count);
          return;
        }
        cursor.read(n->storage, count);
        n->values = n->storage;
        return;
      }
      std::uint8_t raw[kChunk * 2];
      cursor.read(raw, count);
      withRep(n->rep, [&](auto tag) { widen(type, raw, buf<decltype(tag)>(*n), count); });
      n->values = n->storage;
    };
    return n;
  }

  std::vector<Access> inputs_;
  Access output_;
  std::vector<Cursor> cursors_;
  Cursor outCursor_;
  NodeBuffers buffers_;
  std::uint8_t *staging_; // the root's values narrowed to its stored type
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Node *> inputNodes_;
  Node *root_ = nullptr;
};

// The work of one element of `e`, in units of about a simple vector operation on it
// (an add, a load or a store; the transcendentals as measured against it): a map's
// blocks are sized by work, not elements, so an expensive map splits over threads
// sooner than a cheap one of the same size.
std::size_t workPerElement(const TypedExpr &e) {
  using K = TypedExpr::Kind;
  using U = UnaryOpType;
  using B = BinaryOpType;
  constexpr std::size_t kDivide = 2, kExp = 11, kSigmoid = 12, kLog = 13, kTanh = 24, kLibraryCall = 200;
  std::size_t own = e.kind == K::Const ? 0 : 1;
  if (e.kind == K::Unary && repOf(e.args[0].type) == Rep::F32) {
    switch (static_cast<U>(e.op)) {
    case U::EXPONENT: own = kExp; break;
    case U::LOGARITHM: own = kLog; break;
    case U::SIGMOID: own = kSigmoid; break;
    case U::TANH: own = kTanh; break;
    case U::INVERSE: case U::SQRT: case U::RSQRT: own = kDivide; break;
    case U::ASIN: case U::CBRT: case U::COS: case U::ERF: case U::EXPONENT_MINUS_ONE: case U::EXPONENT2:
    case U::GELU_ERF: case U::LOGARITHM_ONE_PLUS: case U::SIN: case U::TAN:
      own = kLibraryCall;
      break;
    default: break;
    }
  }
  if (e.kind == K::Binary) {
    switch (static_cast<B>(e.op)) {
    case B::ATAN2: case B::POWER: own = kLibraryCall; break;
    case B::REMAINDER: own = repOf(e.type) == Rep::F32 ? kLibraryCall : kDivide; break;
    case B::DIVIDE: case B::VARIANCE_TO_INV_STD_DEV: case B::INV_STD_DEV_TO_VARIANCE: own = kDivide; break;
    default: break;
    }
  }
  if (e.type == poplar::HALF && e.kind != K::Const) own += 2; // the rounding to half after it
  for (const TypedExpr &a : e.args) own += workPerElement(a);
  return own;
}

bool sameElements(const Access &a, const Access &b) {
  return std::equal(a.segments.begin(), a.segments.end(), b.segments.begin(), b.segments.end(),
                    [](const Segment &x, const Segment &y) {
                      return x.base == y.base && x.count == y.count && (x.count == 1 || x.stride == y.stride);
                    });
}

// Runs blocks of the output on the thread pool, each slot with its own Program (built
// when the slot first needs it), since a Program's buffers and cursors are its state.
class ParallelProgram {
public:
  ParallelProgram(const TypedExpr &root, std::vector<Access> inputs, Access output)
      : root_(root), inputs_(std::move(inputs)), output_(std::move(output)),
        block_(blockElements(output_.numElements, workPerElement(root) + 1)), // + 1: the store
        programs_(poplar::detail::ThreadPool::instance().size()) {
    programs_[0] = std::make_unique<Program>(root_, inputs_, output_);
    // An input that overlaps the output in other places must read each element before
    // the output's write to it, which only the one pass in element order guarantees.
    for (const Access &in : inputs_)
      blocked_ &= !in.sharesVariableWith(output_) || sameElements(in, output_);
  }

  void run() {
    const std::size_t n = output_.numElements;
    if (!blocked_) {
      programs_[0]->run(0, n);
      return;
    }
    poplar::detail::parallelBlocks(n, block_, [this](std::size_t begin, std::size_t end, unsigned slot) {
      auto &program = programs_[slot];
      if (!program) program = std::make_unique<Program>(root_, inputs_, output_);
      program->run(begin, end);
    });
  }

private:
  // A map of less work than kParallelWork (about 5 us) runs inline: waking a worker
  // costs a few microseconds. Above it, blocks of about kBlockWork (1 us), which the
  // calling thread keeps taking while a worker wakes; at most kMaxBlocks of them.
  static constexpr std::size_t kParallelWork = 192 * 1024, kBlockWork = 32 * 1024, kMaxBlocks = 256;

  // Elements per block (whole chunks) for n elements of `work` each: a function of the
  // map alone, never of the thread count.
  static std::size_t blockElements(std::size_t n, std::size_t work) {
    const std::size_t total = n * work;
    const std::size_t blocks = total < kParallelWork ? 1 : std::min(total / kBlockWork, kMaxBlocks);
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    return (chunks + blocks - 1) / blocks * kChunk;
  }

  TypedExpr root_;
  std::vector<Access> inputs_;
  Access output_;
  std::size_t block_; // elements per block
  std::vector<std::unique_ptr<Program>> programs_;
  bool blocked_ = true;
};

} // namespace

void expFloats(const float *x, float *y, std::size_t n) { vectorLoop<vectorExp>()(x, y, n); }

std::function<void()> compileExpression(const TypedExpr &root, std::vector<Access> inputs,
                                        Access output) {
  auto program = std::make_shared<ParallelProgram>(root, std::move(inputs), std::move(output));
  return [program] { program->run(); };
}

} // namespace popops::detail
