#include <popops/Cast.hpp>
#include <poputil/exceptions.hpp>

#include "Elements.hpp"
#include "KernelSupport.hpp"
#include "poplar/HalfConversion.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"
#include "poplar/ThreadPool.hpp"

namespace popops {

using poplar::Tensor;
using poplar::Type;
using namespace popops::detail;

namespace {

void checkCastTypes(const Tensor &src, const Type &dstType) {
  if (!CastTypes::contains(src.elementType()) || !CastTypes::contains(dstType))
    throw poputil::poplibs_error("cast: cannot cast " + describe(src) + " to " +
                                 dstType.toString().str() + ": unsupported element type");
}

void checkCast(const Tensor &src, const Tensor &dst) {
  checkCastTypes(src, dst.elementType());
  if (src.shape() != dst.shape())
    throw poputil::poplibs_error("cast: source " + describe(src) + " and destination " +
                                 describe(dst) + " have different shapes");
}

// Elements per block of work on the thread pool.
constexpr std::size_t kElementsPerBlock = 32768;

template <class From, class To> std::function<void()> castRunner(DenseOperand src, DenseOperand dst) {
  return [src, dst]() mutable {
    const From *in = src.read<From>();
    To *out = dst.write<To>();
    poplar::detail::parallelBlocks(src.size(), kElementsPerBlock, [&](std::size_t begin, std::size_t end, unsigned) {
      static_assert(sizeof(Half) == sizeof(std::uint16_t), "a Half is its bits");
      if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Half>)
        poplar::detail::floatsToHalves(in + begin, reinterpret_cast<std::uint16_t *>(out + begin), end - begin);
      else if constexpr (std::is_same_v<From, Half> && std::is_same_v<To, float>)
        poplar::detail::halvesToFloats(reinterpret_cast<const std::uint16_t *>(in + begin), out + begin, end - begin);
      else
        for (std::size_t i = begin; i < end; ++i) out[i] = storeAs<To>(Element<From>::load(in[i]));
    });
    dst.commit();
  };
}

poplar::detail::KernelCompile castCompile(poplar::detail::ByteReader &) {
  return [](const std::vector<poplar::detail::Access> &operands) {
    poplar::detail::KernelOperands("popops::Cast", operands, 2).elements(1, operands[0].numElements);
    const Access &from = operands[0], &to = operands[1];
    if (from.type == to.type)
      return std::function<void()>([from, to] { poplar::detail::copyElements(from, to); });
    const DenseOperand src(from, from.sharesVariableWith(to)), dst(to);
    std::function<void()> run;
    CastTypes::visit(from.type, [&](auto fromTag) {
      CastTypes::visit(to.type, [&](auto toTag) {
        run = castRunner<typename decltype(fromTag)::type, typename decltype(toTag)::type>(src, dst);
      });
    });
    return run;
  };
}
const poplar::detail::KernelKind castKind("popops::Cast", castCompile);

poplar::detail::Kernel castKernel(const Tensor &src, const Tensor &dst) {
  checkCast(src, dst);
  return poplar::detail::makeKernel("popops::Cast", {src}, {dst});
}

} // namespace

poplar::program::Program cast(poplar::Graph &graph, Tensor src, Tensor dst,
                              const poplar::DebugContext &debugContext) {
  const poplar::ComputeSet cs = graph.addComputeSet(debugContext);
  cast(graph, src, dst, cs);
  return poplar::program::Execute(cs, debugContext);
}

void cast(poplar::Graph &graph, Tensor src, Tensor dst, poplar::ComputeSet cs) {
  poplar::detail::addKernel(graph, cs, castKernel(src, dst));
}

Tensor cast(poplar::Graph &graph, Tensor src, const Type &dstType, poplar::ComputeSet cs,
            const poplar::DebugContext &debugContext) {
  checkCastTypes(src, dstType);
  Tensor dst = graph.clone(dstType, src, debugContext);
  cast(graph, src, dst, cs);
  return dst;
}

Tensor cast(poplar::Graph &graph, const Tensor &src, const Type &dstType,
            poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkCastTypes(src, dstType);
  Tensor dst = graph.clone(dstType, src, debugContext);
  castWithOutput(graph, src, dst, prog, debugContext);
  return dst;
}

void castWithOutput(poplar::Graph &graph, const Tensor &src, const Tensor &dst,
                    poplar::program::Sequence &prog, const poplar::DebugContext &debugContext) {
  checkCast(src, dst);
  if (src.elementType() == dst.elementType())
    prog.add(poplar::program::Copy(src, dst, false, debugContext));
  else
    prog.add(cast(graph, src, dst, debugContext));
}

} // namespace popops
