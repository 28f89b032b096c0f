"""The codelets the custom-vertex tests share: one source, so the suite compiles it once."""

SOURCE = r"""
#include <poplar/Vertex.hpp>
#include <cstdint>
#include <ipu_builtins.h>
#include <ipu_memory_intrinsics>
#include <ipu_vector_math>
#include <print.h>
#include <stdexcept>

using namespace poplar;
static constexpr auto ONE_PTR = VectorLayout::ONE_PTR;

// Poplar tutorial 3's vertex.
class SumVertex : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() {
    *out = 0;
    for (const auto &v : in) *out += v;
    return true;
  }
};

class ScaleInPlace : public Vertex {
public:
  InOut<Vector<float>> data;
  float factor; // a plain field set with setInitialValue
  void compute() {
    for (auto &x : data) x *= factor;
  }
};

// Element i is written by worker i % numWorkers().
class WorkerIds : public MultiVertex {
public:
  Output<Vector<unsigned>> out;
  void compute(unsigned workerId) {
#ifdef __IPU__
    __builtin_ipu_put(workerId, 0); // IPU-only code: skipped on the host
#endif
    for (unsigned i = workerId; i < out.size(); i += numWorkers()) out[i] = workerId * 1000 + i;
  }
};

class RowSums : public Vertex {
public:
  Input<VectorList<float, VectorListLayout::DELTANELEMENTS>> rows;
  Output<Vector<float>> sums;
  bool compute() {
    for (unsigned r = 0; r < rows.size(); ++r) {
      float s = 0;
      for (float x : rows[r]) s += x;
      sums[r] = s;
    }
    return true;
  }
};

// out[k] = data[pick[k]][k] for k < n: a list of edges and two plain fields.
class Pick : public Vertex {
public:
  Vector<Input<Vector<float, ONE_PTR>>, ONE_PTR> data;
  Vector<unsigned> pick;
  const unsigned n;
  Output<Vector<float>> out;
  bool compute() {
    for (unsigned k = 0; k < n; ++k) out[k] = data[pick[k]][k];
    return true;
  }
};

// Scalar edges: a constant edge, an integer and a half.
class Affine : public Vertex {
public:
  Input<float> scale;
  Input<int> offset;
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  InOut<half> count;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] * scale + offset;
    *count = *count + half(1);
    return true;
  }
};

// True only when its input arrives aligned as its Vector type asks.
class Aligned16 : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 16>> in;
  Output<float> total;
  bool compute() {
    float4 acc = {0, 0, 0, 0};
    const float4 *v = reinterpret_cast<const float4 *>(&in[0]);
    for (unsigned i = 0; i < in.size() / 4; ++i) acc += v[i];
    *total = acc[0] + acc[1] + acc[2] + acc[3];
    return reinterpret_cast<std::uintptr_t>(&in[0]) % 16 == 0;
  }
};

// The host equivalents of IPU intrinsics: out[i] = exp(in[i]) (0 for NaN), and the
// sum of |in[4:]| through half4 vectors in sum.
class Intrinsics : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  Output<half> sum;
  bool compute() {
    const float *p = &in[0];
    for (unsigned i = 0; i < in.size(); ++i) {
      const float x = ipu::load_postinc(&p, 1);
      out[i] = __builtin_ipu_isnan(x) ? 0.0f : ipu::exp(x);
    }
    half4 acc = {0, 0, 0, 0};
    for (unsigned i = 4; i + 4 <= in.size(); i += 4) {
      const half4 v = {half(in[i]), half(in[i + 1]), half(in[i + 2]), half(in[i + 3])};
      acc += ipu::fabs(v);
    }
    *sum = acc[0] + acc[1] + acc[2] + acc[3];
    return true;
  }
};

// compute() returns false when its input is negative; throws when it is NaN.
class CheckPositive : public Vertex {
public:
  Input<float> x;
  bool compute() {
    if (*x != *x) throw std::runtime_error("x is NaN");
    return *x >= 0;
  }
};

// Seen as the compiler sees them: vertices from macros count, disabled ones do not.
#define SCALE_VERTEX(NAME, K)                                                                \
  class NAME : public Vertex {                                                               \
  public:                                                                                    \
    InOut<float> x;                                                                          \
    bool compute() {                                                                         \
      *x *= K;                                                                               \
      return true;                                                                           \
    }                                                                                        \
  };
SCALE_VERTEX(Times3, 3)
#ifdef __IPU__
class IpuOnly : public Vertex {
public:
  bool compute() { return true; }
};
#endif
#if 0
class Disabled : public Vertex {};
#endif

// Keeps state between runs (until the engine loads again).
class Counter : public Vertex {
public:
  unsigned count;
  Output<unsigned> out;
  void compute() { *out = ++count; }
};

namespace custom {
template <typename T> class AddConst : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  T c;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] + c;
    return true;
  }
};
template class AddConst<float>;
template class AddConst<half>;
template class AddConst<unsigned>;

// Default template arguments are left out of the name; `>` inside parentheses is not a bracket.
template <typename T, bool Wide = (sizeof(T) > 2)> class Width : public Vertex {
public:
  Output<unsigned> out;
  bool compute() {
    *out = Wide ? sizeof(T) * 10 : sizeof(T);
    return true;
  }
};
template class Width<half>;
template class Width<float>;
} // namespace custom
"""
