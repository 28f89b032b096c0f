"""The codelet headers as the SDK gives them to a host-side codelet compile (__IPU__
undefined; docs/codelet_headers.rst): poplar/Vertex.hpp and print.h define no IPU vector
types, so a codelet library with its own fallbacks under #ifndef __IPU__ compiles, and
ipudef.h, included, gives the SDK's vector types; the builtins that codelets written for
hardware call without an include (counter, random bits) are there."""
import numpy as np
import pytest

from popdsl import poplar, program

pytestmark = pytest.mark.usefixtures("codelet_cache")

# As public codelet libraries do (their own IPU-model vector types, std::array based).
OWN_FALLBACKS = r"""
#include <poplar/Vertex.hpp>
#include <poplar/HalfFloat.hpp>
#include <print.h>
#ifndef __IPU__
#include <array>
using float2 = std::array<float, 2>;
using float4 = std::array<float, 4>;
using half2 = std::array<half, 2>;
using half4 = std::array<half, 4>;
using int2 = std::array<int, 2>;
using uint2 = std::array<unsigned, 2>;
using char4 = std::array<char, 4>;
using long2 = std::array<long, 2>;
#endif

class PairSums : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;
  poplar::Output<poplar::Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) {
      const float2 pair = {in[2 * i], in[2 * i + 1]};
      out[i] = pair[0] + pair[1];
    }
    return true;
  }
};
"""

# ipudef.h itself: the SDK's vector types, as vector extensions (lane-wise arithmetic).
WITH_IPUDEF = r"""
#include <poplar/Vertex.hpp>
#include <ipudef.h>

class LaneProducts : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;
  poplar::Output<poplar::Vector<float>> out;
  bool compute() {
    const float2 a = {in[0], in[1]}, b = {in[2], in[3]};
    const float2 p = a * b;
    const longlong2 wide = {1LL << 40, 3};
    const half4 h = {half(0.5f), half(1.5f), half(2.5f), half(3.5f)};
    out[0] = p[0];
    out[1] = p[1];
    out[2] = static_cast<float>((wide[0] >> 40) + wide[1]);
    out[3] = static_cast<float>(h[1] + h[3]);
    return sizeof(long4) == 4 * sizeof(long) && sizeof(uchar2) == 2 && sizeof(half8) == 16;
  }
};
"""


def run_vertex(source, vertex_type, values, outputs):
    model = poplar.IPUModel("ipu2")
    model.tilesPerIPU = 4
    device = model.createDevice()
    graph = poplar.Graph(device.getTarget())
    graph.addCodelets(source)
    x = graph.addVariable(poplar.FLOAT, [len(values)], "in")
    y = graph.addVariable(poplar.FLOAT, [outputs], "out")
    for t in (x, y):
        graph.setTileMapping(t, 0)
    graph.setInitialValue(x, np.asarray(values, np.float32))
    cs = graph.addComputeSet("cs")
    graph.setTileMapping(graph.addVertex(cs, vertex_type, {"in": x, "out": y}), 0)
    graph.createHostRead("out", y)
    engine = poplar.Engine(graph, program.Execute(cs))
    engine.load(device)
    engine.run(0)
    return engine.readTensor("out", np.empty(outputs, np.float32))


def test_a_library_with_its_own_ipu_model_vector_types_compiles_and_runs():
    np.testing.assert_allclose(run_vertex(OWN_FALLBACKS, "PairSums", [1, 2, 3, 5, -1, 0.5], 3), [3, 8, -0.5])


def test_ipudef_gives_the_sdks_vector_types():
    np.testing.assert_allclose(run_vertex(WITH_IPUDEF, "LaneProducts", [2, 3, 4, 5], 4), [8, 15, 4, 5])


# Written for hardware: the cycle counter and random bits as compiler builtins, no include.
HARDWARE_BUILTINS = r"""
#include <poplar/Vertex.hpp>

class Darts : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;
  poplar::Output<poplar::Vector<float>> out;
  bool compute() {
    const unsigned n = static_cast<unsigned>(in[0]);
    const unsigned start = __builtin_ipu_get_scount_l();
    unsigned hits = 0, topBits = 0;
    for (unsigned i = 0; i < n; ++i) {
      const float x = (float)__builtin_ipu_urand32() / 4294967295.0f;
      const float y = (float)__builtin_ipu_urand32() / 4294967295.0f;
      hits += x * x + y * y < 1.0f;
      topBits += static_cast<unsigned>(__builtin_ipu_urand64() >> 63);
    }
    const unsigned end = __builtin_ipu_get_scount_l();
    out[0] = static_cast<float>(hits) / n;
    out[1] = static_cast<float>(topBits) / n;
    out[2] = end != start && __builtin_ipu_get_scount_u() >= 0u ? 1.0f : 0.0f;
    return true;
  }
};
"""


def test_hardware_builtins_give_a_counter_and_uniform_random_bits():
    n = 200_000
    hit_rate, top_bit_rate, counted = run_vertex(HARDWARE_BUILTINS, "Darts", [n], 3)
    # Uniform points in the unit square land in the quarter disc with probability pi/4:
    # within 5 standard deviations of it, and the top bit of urand64 is set half the time.
    p = np.pi / 4
    assert abs(hit_rate - p) < 5 * np.sqrt(p * (1 - p) / n)
    assert abs(top_bit_rate - 0.5) < 5 * np.sqrt(0.25 / n)
    assert counted == 1.0  # the counter moved over the loop


# As the SDK's lightweight-profiling examples write a vertex: fields private by default and
# the supervisor target on compute (the SDK's host compile ignores it; GCC would refuse it).
PRIVATE_SUPERVISOR = r"""
#include <poplar/Vertex.hpp>

class Triple : public poplar::SupervisorVertex {
  poplar::Input<poplar::Vector<float>> in;
  poplar::Output<poplar::Vector<float>> out;

public:
  __attribute__((target("supervisor"))) bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) out[i] = 3 * in[i];
    return true;
  }
};
"""


def test_private_fields_and_the_supervisor_target_attribute_compile_and_run():
    np.testing.assert_allclose(run_vertex(PRIVATE_SUPERVISOR, "Triple", [1, -2, 0.5], 3), [3, -6, 1.5])


# As popc's libc++ allows (its <algorithm> brings <cstring>): std::memcpy with no <cstring>,
# the way graphcore/examples' NMS codelets reinterpret a float's bits.
MEMCPY_WITHOUT_CSTRING = r"""
#include <algorithm>
#include <poplar/Vertex.hpp>

class SignBits : public poplar::Vertex {
public:
  poplar::Input<poplar::Vector<float>> in;
  poplar::Output<poplar::Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i) {
      unsigned bits;
      std::memcpy(&bits, &in[i], sizeof bits);
      out[i] = static_cast<float>(bits >> 31);
    }
    return true;
  }
};
"""


def test_std_memcpy_is_there_with_only_algorithm_included_as_under_popc():
    np.testing.assert_allclose(run_vertex(MEMCPY_WITHOUT_CSTRING, "SignBits", [1, -2, 0.5, -0.0], 4), [0, 1, 0, 1])
