#include <popops/Fill.hpp>
#include <popops/Zero.hpp>
#include <poputil/exceptions.hpp>

#include <algorithm>
#include <cstring>

#include "Elements.hpp"
#include "KernelSupport.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popops {

using poplar::Tensor;
using namespace popops::detail;

namespace detail {
namespace {

template <class Word> void fillSegment(const poplar::detail::Segment &s, const std::uint8_t *pattern) {
  Word word;
  std::memcpy(&word, pattern, sizeof(Word));
  if (s.stride == static_cast<std::ptrdiff_t>(sizeof(Word))) {
    std::fill_n(reinterpret_cast<Word *>(s.base), s.count, word);
    return;
  }
  for (std::size_t k = 0; k < s.count; ++k)
    std::memcpy(s.base + static_cast<std::ptrdiff_t>(k) * s.stride, &word, sizeof(Word));
}

} // namespace

void fillAccess(const Access &a, const std::vector<std::uint8_t> &pattern) {
  for (const auto &s : a.segments) {
    switch (a.elemSize) {
    case 1: fillSegment<std::uint8_t>(s, pattern.data()); break;
    case 2: fillSegment<std::uint16_t>(s, pattern.data()); break;
    case 4: fillSegment<std::uint32_t>(s, pattern.data()); break;
    default: fillSegment<std::uint64_t>(s, pattern.data()); break;
    }
  }
}

} // namespace detail

namespace {

// The element types poplibs has Fill vertices for.
using FillTypes = TypeList<float, Half, std::int32_t, std::uint32_t, Bool, std::int8_t, std::uint8_t,
                           std::int64_t, std::uint64_t>;

// One element of t's type holding `value`, as bytes.
template <typename FillValueType>
std::vector<std::uint8_t> fillPattern(const Tensor &t, FillValueType value) {
  if (!FillTypes::contains(t.elementType()))
    throw poputil::poplibs_error("fill: cannot fill " + describe(t) + ": popops has no fill for type " +
                                 t.elementType().toString().str());
  std::vector<std::uint8_t> pattern;
  FillTypes::visit(t.elementType(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T element = storeAs<T>(value);
    pattern.resize(sizeof(T));
    std::memcpy(pattern.data(), &element, sizeof(T));
  });
  return pattern;
}

poplar::detail::KernelCompile fillCompile(poplar::detail::ByteReader &params) {
  const std::vector<std::uint8_t> pattern = params.raw();
  return [pattern](const std::vector<poplar::detail::Access> &operands) {
    poplar::detail::KernelOperands("popops::Fill", operands, 1)
        .require(pattern.size() == operands[0].elemSize, "the fill value is not one element of the target");
    const Access target = operands[0];
    return std::function<void()>([target, pattern] { fillAccess(target, pattern); });
  };
}
const poplar::detail::KernelKind fillKind("popops::Fill", fillCompile);

poplar::detail::Kernel fillKernel(const Tensor &target, const std::vector<std::uint8_t> &pattern) {
  return poplar::detail::makeKernel("popops::Fill", {}, {target}, poplar::detail::ByteWriter().raw(pattern).take());
}

// The parts of t covering the given flat regions.
std::vector<Tensor> regionsOf(const Tensor &t, const std::vector<poplar::Interval> &regions) {
  const Tensor flat = t.flatten();
  std::vector<Tensor> parts;
  for (const auto &r : regions)
    if (r.size() != 0) parts.push_back(flat.slice(r));
  return parts;
}

template <typename FillValueType>
void fillRegions(poplar::Graph &graph, const Tensor &t, const std::vector<poplar::Interval> &regions,
                 poplar::ComputeSet cs, FillValueType value) {
  auto pattern = fillPattern(t, value);
  const std::vector<Tensor> parts = regionsOf(t, regions);
  if (!parts.empty()) poplar::detail::addKernel(graph, cs, fillKernel(poplar::concat(parts), pattern));
}

} // namespace

template <typename FillValueType>
void fill(poplar::Graph &graph, Tensor t, const std::vector<poplar::Interval> &tileRegions, unsigned,
          poplar::ComputeSet fillCS, FillValueType fillValue) {
  fillRegions(graph, t, tileRegions, fillCS, fillValue);
}

template <typename FillValueType>
void fill(poplar::Graph &graph, const Tensor &t, unsigned tile, poplar::ComputeSet fillCS,
          FillValueType fillValue) {
  const auto mapping = graph.getTileMapping(t);
  if (tile < mapping.size()) fillRegions(graph, t, mapping[tile], fillCS, fillValue);
}

template <typename FillValueType>
void fill(poplar::Graph &graph, const Tensor &t, const std::vector<std::vector<poplar::Interval>> &mapping,
          poplar::ComputeSet fillCS, FillValueType fillValue) {
  std::vector<poplar::Interval> regions;
  for (const auto &tileRegions : mapping) regions.insert(regions.end(), tileRegions.begin(), tileRegions.end());
  fillRegions(graph, t, regions, fillCS, fillValue);
}

template <typename FillValueType>
void fill(poplar::Graph &graph, const Tensor &t, poplar::program::Sequence &prog,
          FillValueType fillValue, const poplar::DebugContext &debugContext) {
  poplar::detail::executeKernel(graph, prog, fillKernel(t, fillPattern(t, fillValue)), debugContext);
}

#define POPOPS_INSTANTIATE_FILL(T)                                                                 \
  template void fill<T>(poplar::Graph &, Tensor, const std::vector<poplar::Interval> &, unsigned,  \
                        poplar::ComputeSet, T);                                                    \
  template void fill<T>(poplar::Graph &, const Tensor &, unsigned, poplar::ComputeSet, T);         \
  template void fill<T>(poplar::Graph &, const Tensor &,                                           \
                        const std::vector<std::vector<poplar::Interval>> &, poplar::ComputeSet, T); \
  template void fill<T>(poplar::Graph &, const Tensor &, poplar::program::Sequence &, T,           \
                        const poplar::DebugContext &);
POPOPS_INSTANTIATE_FILL(double)
POPOPS_INSTANTIATE_FILL(float)
POPOPS_INSTANTIATE_FILL(int)
POPOPS_INSTANTIATE_FILL(unsigned)
POPOPS_INSTANTIATE_FILL(long long)
POPOPS_INSTANTIATE_FILL(unsigned long long)
#undef POPOPS_INSTANTIATE_FILL

void zero(poplar::Graph &graph, Tensor t, const std::vector<poplar::Interval> &tileRegions,
          unsigned tile, poplar::ComputeSet zeroCS) {
  fill(graph, t, tileRegions, tile, zeroCS, 0);
}

void zero(poplar::Graph &graph, const Tensor &t, unsigned tile, poplar::ComputeSet zeroCS) {
  fill(graph, t, tile, zeroCS, 0);
}

void zero(poplar::Graph &graph, const Tensor &t,
          const std::vector<std::vector<poplar::Interval>> &mapping, poplar::ComputeSet zeroCS) {
  fill(graph, t, mapping, zeroCS, 0);
}

void zero(poplar::Graph &graph, const Tensor &t, poplar::program::Sequence &prog,
          const poplar::DebugContext &debugContext) {
  fill(graph, t, prog, 0, debugContext);
}

} // namespace popops
