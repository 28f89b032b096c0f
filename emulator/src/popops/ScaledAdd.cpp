#include <popops/ScaledAdd.hpp>
#include <poputil/exceptions.hpp>

#include <cmath>

#include "Elements.hpp"
#include "KernelSupport.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace popops {

using poplar::Tensor;
using namespace popops::detail;

namespace {

using ScaledAddTypes = TypeList<float, Half, std::int32_t, std::uint32_t>;

// A scale: a constant, or a one-element tensor read each time the kernel runs.
struct Scale {
  float constant = 1;
  Tensor tensor; // invalid for a constant
};

// Where the kernel finds a scale at run time.
struct ScaleSlot {
  double constant = 1;
  const std::uint8_t *address = nullptr;
  poplar::Type type;
  double value() const {
    return address ? static_cast<double>(poplar::detail::loadElement(type, address)) : constant;
  }
};

// The scale in A's computation type. For HALF data poplibs uses the scale
// rounded to half when that is within the tolerance, and the float otherwise.
template <class A> typename Element<A>::Value scaleFor(double s, double tolerance) {
  if constexpr (std::is_same_v<A, Half>) {
    const float f = static_cast<float>(s);
    const float h = poplar::detail::halfToFloat(poplar::detail::floatToHalf(f));
    return std::abs(h - f) <= tolerance * std::abs(f) ? h : f;
  } else {
    return convertValue<typename Element<A>::Value>(s);
  }
}

// A = alpha*A + beta*B, or with xMinusAX: A = A - alpha*A + beta*B; beta is
// negated for the subtracting forms.
template <class A, class B, bool xMinusAX>
std::function<void()> scaledAddRunner(DenseOperand a, DenseOperand b, ScaleSlot alpha, ScaleSlot beta,
                                      bool negateBeta, double tolerance) {
  using V = typename Element<A>::Value;
  return [=]() mutable {
    const V sa = scaleFor<A>(alpha.value(), tolerance);
    const V sb = wrappingMul(scaleFor<A>(beta.value(), tolerance), static_cast<V>(negateBeta ? -1 : 1));
    const B *bv = b.read<B>(); // first: B may be a snapshot of A
    A *av = a.update<A>();
    for (std::size_t i = 0, n = a.size(); i < n; ++i) {
      const V x = Element<A>::load(av[i]);
      const V y = convertValue<V>(Element<B>::load(bv[i]));
      const V r = xMinusAX ? wrappingAdd(wrappingAdd(x, wrappingMul(wrappingMul(sa, x), static_cast<V>(-1))),
                                         wrappingMul(sb, y))
                           : wrappingAdd(wrappingMul(sa, x), wrappingMul(sb, y));
      av[i] = Element<A>::store(r);
    }
    a.commit();
  };
}

struct ScaledAddOptions {
  bool optimizeForSpeed = false; // layout only
  double scaleFloatToHalfTolerance = 1e-6;
};

ScaledAddOptions parseScaledAddOptions(const poplar::OptionFlags &options) {
  ScaledAddOptions o;
  parseOptions(options, {{"optimizeForSpeed", boolOption("optimizeForSpeed", o.optimizeForSpeed)},
                         {"scaleFloatToHalfTolerance",
                          doubleOption("scaleFloatToHalfTolerance", o.scaleFloatToHalfTolerance)}});
  return o;
}

void checkScale(const char *fn, const Scale &s) {
  if (s.tensor.valid() && (s.tensor.numElements() != 1 || !CastTypes::contains(s.tensor.elementType())))
    throw poputil::poplibs_error(std::string(fn) + ": the scale " + describe(s.tensor) +
                                 " must be one numeric element");
}

poplar::detail::KernelCompile scaledAddCompile(poplar::detail::ByteReader &params) {
  const bool xMinusAX = params.boolean(), subtract = params.boolean();
  const double alphaConstant = params.f64(), betaConstant = params.f64();
  const bool alphaIsTensor = params.boolean(), betaIsTensor = params.boolean();
  const double tolerance = params.f64();
  return [=](const std::vector<poplar::detail::Access> &operands) {
    const std::size_t scales = (alphaIsTensor ? 1 : 0) + (betaIsTensor ? 1 : 0);
    const poplar::detail::KernelOperands checked("popops::ScaledAdd", operands, 2 + scales);
    checked.elements(0, operands.back().numElements);
    for (std::size_t i = 1; i <= scales; ++i) checked.elements(i, 1);
    const Access &aAccess = operands.back(), &bAccess = operands[0];
    std::size_t next = 1;
    auto slot = [&](bool isTensor, double constant) {
      if (!isTensor) return ScaleSlot{constant, nullptr, poplar::Type()};
      const Access &s = operands[next++];
      return ScaleSlot{0, s.data(), s.type};
    };
    const ScaleSlot alphaSlot = slot(alphaIsTensor, alphaConstant);
    const ScaleSlot betaSlot = slot(betaIsTensor, betaConstant);
    const DenseOperand a(aAccess), b(bAccess, bAccess.sharesVariableWith(aAccess));
    std::function<void()> run;
    ScaledAddTypes::visit(aAccess.type, [&](auto aTag) {
      ScaledAddTypes::visit(bAccess.type, [&](auto bTag) {
        using AT = typename decltype(aTag)::type;
        using BT = typename decltype(bTag)::type;
        run = xMinusAX ? scaledAddRunner<AT, BT, true>(a, b, alphaSlot, betaSlot, subtract, tolerance)
                       : scaledAddRunner<AT, BT, false>(a, b, alphaSlot, betaSlot, subtract, tolerance);
      });
    });
    return run;
  };
}
const poplar::detail::KernelKind scaledAddKind("popops::ScaledAdd", scaledAddCompile);

void scaledArithmetic(poplar::Graph &graph, const char *fn, const Tensor &A, const Scale &alpha,
                      const Tensor &B, const Scale &beta, bool subtract, bool xMinusAX,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options) {
  const ScaledAddOptions o = parseScaledAddOptions(options);
  for (const Tensor *t : {&A, &B})
    if (!ScaledAddTypes::contains(t->elementType()))
      throw poputil::poplibs_error(std::string(fn) + ": " + describe(*t) + " has type " +
                                   t->elementType().toString().str() +
                                   "; scaled add supports float, half, int and unsigned int");
  if (A.shape() != B.shape())
    throw poputil::poplibs_error(std::string(fn) + ": A " + describe(A) + " and B " + describe(B) +
                                 " have different shapes");
  checkScale(fn, alpha);
  checkScale(fn, beta);

  std::vector<Tensor> reads = {B};
  for (const Scale *s : {&alpha, &beta})
    if (s->tensor.valid()) reads.push_back(s->tensor);
  poplar::detail::ByteWriter params;
  params.boolean(xMinusAX).boolean(subtract).f64(alpha.constant).f64(beta.constant)
      .boolean(alpha.tensor.valid()).boolean(beta.tensor.valid()).f64(o.scaleFloatToHalfTolerance);
  auto kernel = poplar::detail::makeKernel("popops::ScaledAdd", std::move(reads), {A}, params.take(),
                                           xMinusAX ? "popops::XMinusaXPlusbY" : "popops::ScaledAdd");
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
}

Scale constantScale(float s) { return Scale{s, Tensor()}; }
Scale tensorScale(const Tensor &t) { return Scale{0, t}; }

} // namespace

void scaledAddTo(poplar::Graph &graph, Tensor A, Tensor B, float scaleB, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  scaledArithmetic(graph, "scaledAddTo", A, constantScale(1), B, constantScale(scaleB), false, false, prog,
                   debugContext, options);
}

void scaledAddTo(poplar::Graph &graph, Tensor A, Tensor B, Tensor scaleB, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  scaledArithmetic(graph, "scaledAddTo", A, constantScale(1), B, tensorScale(scaleB), false, false, prog,
                   debugContext, options);
}

void scaledSubtractFrom(poplar::Graph &graph, Tensor A, Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options) {
  scaledArithmetic(graph, "scaledSubtractFrom", A, constantScale(1), B, constantScale(scaleB), true, false,
                   prog, debugContext, options);
}

void scaledSubtractFrom(poplar::Graph &graph, Tensor A, Tensor B, Tensor scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options) {
  scaledArithmetic(graph, "scaledSubtractFrom", A, constantScale(1), B, tensorScale(scaleB), true, false,
                   prog, debugContext, options);
}

void scaledAddTo(poplar::Graph &graph, Tensor A, float scaleA, Tensor B, float scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                 const poplar::OptionFlags &options) {
  scaledAddTo(graph, A, scaleA, B, scaleB, prog, ScaledAddSpecialisation::DEFAULT, debugContext, options);
}

void scaledAddTo(poplar::Graph &graph, Tensor A, Tensor scaleA, Tensor B, Tensor scaleB,
                 poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                 const poplar::OptionFlags &options) {
  scaledAddTo(graph, A, scaleA, B, scaleB, prog, ScaledAddSpecialisation::DEFAULT, debugContext, options);
}

void scaledAddTo(poplar::Graph &graph, Tensor A, float scaleA, Tensor B, float scaleB,
                 poplar::program::Sequence &prog, const ScaledAddSpecialisation speciality,
                 const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  scaledArithmetic(graph, "scaledAddTo", A, constantScale(scaleA), B, constantScale(scaleB), false,
                   speciality == ScaledAddSpecialisation::X_MINUS_AX_PLUS_BY, prog, debugContext, options);
}

void scaledAddTo(poplar::Graph &graph, Tensor A, Tensor scaleA, Tensor B, Tensor scaleB,
                 poplar::program::Sequence &prog, const ScaledAddSpecialisation speciality,
                 const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  scaledArithmetic(graph, "scaledAddTo", A, tensorScale(scaleA), B, tensorScale(scaleB), false,
                   speciality == ScaledAddSpecialisation::X_MINUS_AX_PLUS_BY, prog, debugContext, options);
}

void scaledSubtractFrom(poplar::Graph &graph, Tensor A, float scaleA, Tensor B, float scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options) {
  scaledArithmetic(graph, "scaledSubtractFrom", A, constantScale(scaleA), B, constantScale(scaleB), true,
                   false, prog, debugContext, options);
}

void scaledSubtractFrom(poplar::Graph &graph, Tensor A, Tensor scaleA, Tensor B, Tensor scaleB,
                        poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                        const poplar::OptionFlags &options) {
  scaledArithmetic(graph, "scaledSubtractFrom", A, tensorScale(scaleA), B, tensorScale(scaleB), true, false,
                   prog, debugContext, options);
}

} // namespace popops
