#include <popops/Reduce.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "Elements.hpp"
#include "KernelSupport.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"
#include "poplar/ThreadPool.hpp"

namespace popops {

using poplar::Tensor;
using poplar::Type;
using namespace popops::detail;

namespace {

std::string opName(Operation op) {
  std::ostringstream s;
  s << op;
  return s.str();
}

// log(exp(a) + exp(b)) without overflow.
template <class T> T logAdd(T a, T b) {
  if (a < b) std::swap(a, b);
  if (b == -std::numeric_limits<T>::infinity() || a == std::numeric_limits<T>::infinity()) return a;
  return a + std::log1p(std::exp(b - a));
}

// The operations: the input types each accepts, the accumulator's starting
// value, how an element enters the accumulation and how it combines.
using ArithmeticInputs = TypeList<float, Half, std::int32_t>;

struct AddOp {
  using Inputs = ArithmeticInputs;
  static constexpr bool kSameTypeOutput = false;
  template <class A> static A identity() { return A(0); }
  template <class A> static A prepare(A x) { return x; }
  template <class A> static A combine(A acc, A x) { return wrappingAdd(acc, x); }
  // MAX and MIN also have combineOrdered, a quicker combine for values that are not NaN.
  static constexpr bool kHasOrderedCombine = false;
};
struct SquareAddOp : AddOp {
  template <class A> static A prepare(A x) { return wrappingMul(x, x); }
};
struct MulOp : AddOp {
  template <class A> static A identity() { return A(1); }
  template <class A> static A combine(A acc, A x) { return wrappingMul(acc, x); }
};
struct MaxOp : AddOp {
  static constexpr bool kSameTypeOutput = true;
  template <class A> static A identity() {
    if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  // A NaN, once met, stays: MAX and MIN propagate NaN as the element-wise ops do.
  template <class A> static A combine(A acc, A x) { return x > acc || x != x ? x : acc; }
  template <class A> static A combineOrdered(A acc, A x) { return x > acc ? x : acc; } // a vector max
  static constexpr bool kHasOrderedCombine = true;
};
struct MinOp : AddOp {
  static constexpr bool kSameTypeOutput = true;
  template <class A> static A identity() {
    if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  template <class A> static A combine(A acc, A x) { return x < acc || x != x ? x : acc; }
  template <class A> static A combineOrdered(A acc, A x) { return x < acc ? x : acc; }
  static constexpr bool kHasOrderedCombine = true;
};
struct LogicalAndOp : AddOp {
  using Inputs = TypeList<Bool>;
  template <class A> static A identity() { return A(1); }
  template <class A> static A combine(A acc, A x) { return acc && x; }
};
struct LogicalOrOp : LogicalAndOp {
  template <class A> static A identity() { return A(0); }
  template <class A> static A combine(A acc, A x) { return acc || x; }
};
struct LogAddOp : AddOp {
  using Inputs = FloatingTypes;
  template <class A> static A identity() { return -std::numeric_limits<A>::infinity(); }
  template <class A> static A combine(A acc, A x) { return logAdd(acc, x); }
};

template <class Fn> void withOperation(Operation op, Fn &&fn) {
  switch (op) {
  case Operation::ADD: return fn(AddOp{});
  case Operation::MUL: return fn(MulOp{});
  case Operation::MIN: return fn(MinOp{});
  case Operation::MAX: return fn(MaxOp{});
  case Operation::LOGICAL_AND: return fn(LogicalAndOp{});
  case Operation::LOGICAL_OR: return fn(LogicalOrOp{});
  case Operation::SQUARE_ADD: return fn(SquareAddOp{});
  case Operation::LOG_ADD: return fn(LogAddOp{});
  }
  throw poputil::poplibs_error("reduce: unknown operation " + std::to_string(static_cast<int>(op)));
}

// Accumulation types. Float inputs accumulate in double, so results do not
// depend on the order the emulator adds in (the device sums in a tree of float
// partials, which is closer to that than one sequential float sum); half in
// float, poplibs' default; int wraps like the device; bool as 0/1.
template <class In> struct AccumulatorOf { using type = double; };
template <> struct AccumulatorOf<Half> { using type = float; };
template <> struct AccumulatorOf<std::int32_t> { using type = std::int32_t; };
template <> struct AccumulatorOf<Bool> { using type = std::int32_t; };

// Output types each input type can reduce to (MAX and MIN: the input type only).
template <class In> struct OutputsOf { using type = FloatingTypes; };
template <> struct OutputsOf<std::int32_t> { using type = TypeList<std::int32_t>; };
template <> struct OutputsOf<Bool> { using type = TypeList<Bool>; };

template <class Op> bool supports(const Type &in, const Type &out) {
  bool ok = false;
  if (Op::Inputs::contains(in))
    Op::Inputs::visit(in, [&](auto inTag) {
      using In = typename decltype(inTag)::type;
      ok = Op::kSameTypeOutput ? in == out : OutputsOf<In>::type::contains(out);
    });
  return ok;
}

// The input viewed as [outer, reduced, inner]: the reduced dimensions in the
// middle, the kept ones around them in their order. The output is [outer, inner].
struct Layout {
  std::size_t outer = 1, reduced = 1, inner = 1;
};

struct Finish {
  bool logarithmic; // LOG_ADD: the scale is added and the update is a log-add
  bool update;
  const std::uint8_t *scale; // null when there is none
  Type scaleType;
};

template <bool roundToHalf, class Acc> Acc rounded(Acc v) {
  if constexpr (roundToHalf)
    return static_cast<Acc>(poplar::detail::halfToFloat(poplar::detail::floatToHalf(static_cast<float>(v))));
  else
    return v;
}

// Reduces one row of n elements in element order.
template <class Op, class In, class Acc, bool roundToHalf> Acc reduceRowInOrder(const In *row, std::size_t n) {
  Acc acc = Op::template identity<Acc>();
  for (std::size_t r = 0; r < n; ++r)
    acc = rounded<roundToHalf>(Op::combine(acc, rounded<roundToHalf>(Op::prepare(static_cast<Acc>(Element<In>::load(row[r]))))));
  return acc;
}

// Reduces one row of n elements. Without half rounding (which rounds after every step, in
// element order) it combines into independent accumulators (lanes), then the lanes pairwise,
// so the loop runs at the CPU's throughput instead of waiting on one accumulator's chain; a
// row's lanes do not depend on how the rows are split over threads. MAX and MIN combine as
// vector max/min, with probes (sums of x - x: 0 unless some x is NaN or infinite) that send a
// row holding NaN or infinity to the exact combine.
template <class Op, class In, class Acc, bool roundToHalf> Acc reduceRow(const In *row, std::size_t n) {
  constexpr std::size_t kLanes = 8;
  if constexpr (roundToHalf) {
    return reduceRowInOrder<Op, In, Acc, true>(row, n);
  } else {
    Acc lanes[kLanes], probes[kLanes] = {};
    std::fill(lanes, lanes + kLanes, Op::template identity<Acc>());
    std::size_t r = 0;
    for (; r + kLanes <= n; r += kLanes)
      for (std::size_t k = 0; k < kLanes; ++k) {
        const Acc x = Op::prepare(static_cast<Acc>(Element<In>::load(row[r + k])));
        if constexpr (Op::kHasOrderedCombine) {
          lanes[k] = Op::combineOrdered(lanes[k], x);
          probes[k] += x - x;
        } else {
          lanes[k] = Op::combine(lanes[k], x);
        }
      }
    for (std::size_t width = kLanes / 2; width > 0; width /= 2)
      for (std::size_t k = 0; k < width; ++k) {
        lanes[k] = Op::combine(lanes[k], lanes[k + width]);
        probes[k] += probes[k + width];
      }
    if (probes[0] != probes[0]) return reduceRowInOrder<Op, In, Acc, false>(row, n);
    Acc acc = lanes[0];
    for (; r < n; ++r) acc = Op::combine(acc, Op::prepare(static_cast<Acc>(Element<In>::load(row[r]))));
    return acc;
  }
}

// LOG_ADD of one row: its largest element first (MAX's row reduction, NaN included), then one
// exp an element (a log-add an element at a time took an exp and a log1p each). NaN anywhere
// gives NaN, else +inf gives +inf.
template <class In, class Acc> Acc logSumExpRow(const In *row, std::size_t n) {
  const Acc top = reduceRow<MaxOp, In, Acc, false>(row, n);
  if (top != top || std::isinf(top)) return top; // NaN, all -inf, or some +inf
  Acc sum = 0;
  for (std::size_t r = 0; r < n; ++r) sum += std::exp(static_cast<Acc>(Element<In>::load(row[r])) - top);
  return top + std::log(sum);
}

// Accumulates the outputs [begin, end) (flat [outer, inner] indices), each over its
// reduced elements in a fixed order, so splitting the outputs changes no result.
template <class Op, class In, class Acc, bool roundToHalf>
void accumulate(const In *in, const Layout &l, Acc *acc, std::size_t begin, std::size_t end) {
  if (l.inner == 1) { // reducing rows
    for (std::size_t o = begin; o < end; ++o) {
      const In *row = in + o * l.reduced;
      if constexpr (std::is_same_v<Op, LogAddOp> && !roundToHalf) acc[o] = logSumExpRow<In, Acc>(row, l.reduced);
      else acc[o] = reduceRow<Op, In, Acc, roundToHalf>(row, l.reduced);
    }
    return;
  }
  auto enter = [](In x) { return rounded<roundToHalf>(Op::prepare(static_cast<Acc>(Element<In>::load(x)))); };
  auto step = [](Acc a, Acc x) { return rounded<roundToHalf>(Op::combine(a, x)); };
  for (std::size_t o = begin / l.inner; o * l.inner < end; ++o) { // reducing columns: whole rows at a time
    const std::size_t first = std::max(begin, o * l.inner) - o * l.inner;
    const std::size_t last = std::min(end, (o + 1) * l.inner) - o * l.inner;
    Acc *a = acc + o * l.inner;
    std::fill(a + first, a + last, Op::template identity<Acc>());
    for (std::size_t r = 0; r < l.reduced; ++r) {
      const In *row = in + (o * l.reduced + r) * l.inner;
      for (std::size_t i = first; i < last; ++i) a[i] = step(a[i], enter(row[i]));
    }
  }
}

// Applies scale and update, and stores the results as Out.
template <class Out, class Acc> void finish(const Acc *acc, std::size_t n, Out *out, const Finish &f) {
  const double scale = f.scale ? static_cast<double>(poplar::detail::loadElement(f.scaleType, f.scale)) : 1.0;
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<Acc>) {
      Acc v = acc[i];
      if (f.scale) v = convertValue<Acc>(static_cast<double>(v) * scale);
      if (f.update) v = wrappingAdd(v, convertValue<Acc>(Element<Out>::load(out[i])));
      out[i] = storeAs<Out>(v);
    } else {
      double v = acc[i];
      if (f.scale) v = f.logarithmic ? v + scale : v * scale;
      if (f.update) {
        const double old = Element<Out>::load(out[i]);
        v = f.logarithmic ? logAdd(old, v) : old + v;
      }
      out[i] = storeAs<Out>(v);
    }
  }
}

// Outputs per block of work on the thread pool: about 32K input elements, and when reducing
// columns at least kLeastColumns of a row side by side, which a block reads as one run from
// each row (32 columns of [1024,1024] read 128 bytes of each 4 KB row: 231 us for the sum of
// its columns on two threads, 256 columns 112 us).
std::size_t outputsPerBlock(const Layout &l) {
  constexpr std::size_t kLeastColumns = 256;
  const std::size_t byWork = std::max<std::size_t>(1, 32768 / std::max<std::size_t>(1, l.reduced));
  return l.inner > 1 ? std::max(byWork, std::min(l.inner, kLeastColumns)) : byWork;
}

template <class Op, class In, class Out, bool roundToHalf>
std::function<void()> reduceRunner(DenseOperand in, DenseOperand out, Layout layout, Finish f) {
  using Acc = typename AccumulatorOf<In>::type;
  return [=, acc = std::vector<Acc>(layout.outer * layout.inner)]() mutable {
    const In *values = in.read<In>();
    poplar::detail::parallelBlocks(acc.size(), outputsPerBlock(layout),
                                   [&](std::size_t begin, std::size_t end, unsigned) {
                                     accumulate<Op, In, Acc, roundToHalf>(values, layout, acc.data(), begin, end);
                                   });
    finish(acc.data(), acc.size(), f.update ? out.update<Out>() : out.write<Out>(), f);
    out.commit();
  };
}

template <class Op>
std::function<void()> reduceRunnerFor(const Type &inType, const Type &outType, bool halfAccumulation,
                                      DenseOperand in, DenseOperand out, Layout layout, Finish f) {
  std::function<void()> run;
  Op::Inputs::visit(inType, [&](auto inTag) {
    using In = typename decltype(inTag)::type;
    OutputsOf<In>::type::visit(outType, [&](auto outTag) {
      using Out = typename decltype(outTag)::type;
      if constexpr (std::is_same_v<In, Half>) {
        if (halfAccumulation) {
          run = reduceRunner<Op, In, Out, true>(in, out, layout, f);
          return;
        }
      }
      run = reduceRunner<Op, In, Out, false>(in, out, layout, f);
    });
  });
  return run;
}

struct ReduceOptions {
  // The emulator reduces each output in one pass, with no partials between
  // tiles, so only the in-vertex type changes results.
  std::string interTileType = "float", inVertexType = "float";
};

ReduceOptions parseReduceOptions(const poplar::OptionFlags &options) {
  ReduceOptions o;
  const std::vector<std::string> types = {"float", "half"};
  parseOptions(options, {{"accumType.interTile", choiceOption("accumType.interTile", types, o.interTileType)},
                         {"accumType.inVertex", choiceOption("accumType.inVertex", types, o.inVertexType)}});
  return o;
}

// The reduced dimensions, checked against the rank, sorted and unique.
std::vector<unsigned> reducedDims(const Tensor &in, const std::vector<std::size_t> &dims) {
  std::set<unsigned> reduced;
  for (std::size_t d : dims) {
    if (d >= in.rank())
      throw poputil::poplibs_error("reduce: dimension " + std::to_string(d) +
                                   " is out of range for input " + describe(in) + " of rank " +
                                   std::to_string(in.rank()));
    reduced.insert(static_cast<unsigned>(d));
  }
  return {reduced.begin(), reduced.end()};
}

std::vector<std::size_t> reducedShape(const Tensor &in, const std::vector<std::size_t> &dims) {
  const std::vector<unsigned> reduced = reducedDims(in, dims);
  std::vector<std::size_t> shape;
  for (unsigned d = 0; d < in.rank(); ++d)
    if (!std::binary_search(reduced.begin(), reduced.end(), d)) shape.push_back(in.dim(d));
  return shape;
}

std::vector<std::size_t> withoutOnes(std::vector<std::size_t> shape) {
  shape.erase(std::remove(shape.begin(), shape.end(), std::size_t(1)), shape.end());
  return shape;
}

void checkReduction(const Tensor &in, const Tensor &out, const std::vector<std::size_t> &dims,
                    const ReduceParams &params) {
  const std::string op = opName(params.op);
  const std::vector<std::size_t> expected = reducedShape(in, dims);
  if (withoutOnes(out.shape()) != withoutOnes(expected))
    throw poputil::poplibs_error("reduce: output " + describe(out) + " does not have the shape " +
                                 bracketed(expected) + " of input " + describe(in) +
                                 " reduced over dimensions " + bracketed(dims));
  bool supported = false;
  withOperation(params.op, [&](auto opTag) {
    supported = supports<decltype(opTag)>(in.elementType(), out.elementType());
  });
  if (!supported)
    throw poputil::poplibs_error("reduce: operation " + op + " does not support input " +
                                 describe(in) + " with output type " +
                                 out.elementType().toString().str());
  const bool scalable = params.op == Operation::ADD || params.op == Operation::SQUARE_ADD ||
                        params.op == Operation::LOG_ADD;
  if ((params.update || params.useScale) && !scalable)
    throw poputil::poplibs_error("reduce: update and scale are only supported for ADD, SQUARE_ADD "
                                 "and LOG_ADD, not " + op + " (input " + describe(in) + ")");
  if (params.useScale) {
    if (!params.scale.valid())
      throw poputil::poplibs_error("reduce: the scale tensor of the " + op + " reduction of " +
                                   describe(in) + " is not valid");
    if (params.scale.numElements() != 1 || !CastTypes::contains(params.scale.elementType()))
      throw poputil::poplibs_error("reduce: the scale " + describe(params.scale) +
                                   " must be one numeric element");
  }
}

poplar::detail::KernelCompile reduceCompile(poplar::detail::ByteReader &params) {
  const std::uint64_t opId = params.u64();
  if (opId > static_cast<unsigned>(Operation::LOG_ADD)) params.corrupt();
  const auto op = static_cast<Operation>(opId);
  const bool update = params.boolean();
  const bool halfAccumulation = params.boolean();
  Layout layout;
  layout.outer = params.u64();
  layout.reduced = params.u64();
  layout.inner = params.u64();
  return [=](const std::vector<poplar::detail::Access> &operands) {
    // in (, scale), out: in is [outer, reduced, inner], out [outer, inner].
    const poplar::detail::KernelOperands checked("popops::Reduce", operands, 2, 3);
    checked.elements(0, checked.product({layout.outer, layout.reduced, layout.inner}))
        .elements(operands.size() - 1, checked.product({layout.outer, layout.inner}));
    if (operands.size() == 3) checked.elements(1, 1);
    const Access &inAccess = operands.front(), &outAccess = operands.back();
    const Finish f{op == Operation::LOG_ADD, update,
                   operands.size() == 3 ? operands[1].data() : nullptr,
                   operands.size() == 3 ? operands[1].type : Type()};
    DenseOperand inOperand(inAccess, inAccess.sharesVariableWith(outAccess));
    std::function<void()> run;
    withOperation(op, [&](auto opTag) {
      run = reduceRunnerFor<decltype(opTag)>(inAccess.type, outAccess.type, halfAccumulation,
                                             inOperand, DenseOperand(outAccess), layout, f);
    });
    return run;
  };
}
const poplar::detail::KernelKind reduceKind("popops::Reduce", reduceCompile);

poplar::detail::Kernel reduceKernel(poplar::Graph &graph, const Tensor &in, const Tensor &out,
                                    const std::vector<std::size_t> &dims, const ReduceParams &params,
                                    const poplar::OptionFlags &options) {
  const ReduceOptions reduceOptions = parseReduceOptions(options);
  checkReduction(in, out, dims, params);
  bool mapped = false;
  graph.getTileMapping(out, &mapped);
  if (!mapped) poputil::mapTensorLinearly(graph, out);

  const std::vector<unsigned> reduced = reducedDims(in, dims);
  const unsigned lastReduced = reduced.empty() ? 0 : reduced.back();
  std::vector<unsigned> order, inner;
  Layout layout;
  for (unsigned d = 0; d < in.rank(); ++d) {
    if (std::binary_search(reduced.begin(), reduced.end(), d)) continue;
    if (!reduced.empty() && d > lastReduced) {
      inner.push_back(d);
      layout.inner *= in.dim(d);
    } else {
      order.push_back(d);
      layout.outer *= in.dim(d);
    }
  }
  for (unsigned d : reduced) layout.reduced *= in.dim(d);
  order.insert(order.end(), reduced.begin(), reduced.end());
  order.insert(order.end(), inner.begin(), inner.end());

  std::vector<Tensor> reads = {in.dimShuffle(order)};
  if (params.useScale) reads.push_back(params.scale);
  poplar::detail::ByteWriter bytes;
  bytes.u64(static_cast<unsigned>(params.op)).boolean(params.update)
      .boolean(reduceOptions.inVertexType == "half").u64(layout.outer).u64(layout.reduced).u64(layout.inner);
  auto kernel = poplar::detail::makeKernel("popops::Reduce", std::move(reads), {out}, bytes.take(),
                                           "popops::Reduce" + opName(params.op));
  kernel.costShape = poplar::detail::CostShape::Reduction;
  return kernel;
}

Tensor createReduceOutput(poplar::Graph &graph, const Tensor &in, const Type &outType,
                          const std::vector<std::size_t> &dims, const ReduceParams &params,
                          const poplar::DebugContext &debugContext) {
  if (params.update)
    throw poputil::poplibs_error("Cannot do an update using reduce() (input " + describe(in) +
                                 "); call reduceWithOutput() instead.");
  return createLinearOutput(graph, outType, reducedShape(in, dims), {debugContext, "output"});
}

} // namespace

Tensor reduce(poplar::Graph &graph, const Tensor &in, const Type &outType,
              const std::vector<std::size_t> &dims, ReduceParams params,
              poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &options) {
  Tensor out = createReduceOutput(graph, in, outType, dims, params, debugContext);
  reduceWithOutput(graph, in, out, dims, params, prog, debugContext, options);
  return out;
}

Tensor reduce(poplar::Graph &graph, const Tensor &in, const std::vector<std::size_t> &dims,
              ReduceParams params, poplar::program::Sequence &prog,
              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return reduce(graph, in, in.elementType(), dims, params, prog, debugContext, options);
}

void reduceWithOutput(poplar::Graph &graph, const Tensor &in, const Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options) {
  poplar::detail::executeKernel(graph, prog, reduceKernel(graph, in, out, dims, params, options),
                                debugContext);
}

Tensor reduce(poplar::Graph &graph, const Tensor &in, const Type &outType,
              const std::vector<std::size_t> &dims, ReduceParams params,
              std::vector<poplar::ComputeSet> &css, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &options) {
  Tensor out = createReduceOutput(graph, in, outType, dims, params, debugContext);
  reduceWithOutput(graph, in, out, dims, params, css, debugContext, options);
  return out;
}

Tensor reduce(poplar::Graph &graph, const Tensor &in, const std::vector<std::size_t> &dims,
              ReduceParams params, std::vector<poplar::ComputeSet> &css,
              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  return reduce(graph, in, in.elementType(), dims, params, css, debugContext, options);
}

void reduceWithOutput(poplar::Graph &graph, const Tensor &in, const Tensor &out,
                      const std::vector<std::size_t> &dims, ReduceParams params,
                      std::vector<poplar::ComputeSet> &css, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options) {
  poplar::detail::Kernel kernel = reduceKernel(graph, in, out, dims, params, options);
  const poplar::ComputeSet cs = graph.addComputeSet(debugContext);
  poplar::detail::addKernel(graph, cs, std::move(kernel));
  css.push_back(cs);
}

void reduceMany(poplar::Graph &graph, const std::vector<SingleReduceOp> &reductions,
                std::vector<Tensor> &outputs, poplar::program::Sequence &prog,
                const poplar::DebugContext &debugContext, const poplar::OptionFlags &options) {
  const bool createOutputs = outputs.empty();
  if (!createOutputs && outputs.size() != reductions.size())
    throw poputil::poplibs_error("reduceMany: " + std::to_string(outputs.size()) +
                                 " outputs given for " + std::to_string(reductions.size()) +
                                 " reductions");
  std::vector<Tensor> results;
  std::vector<poplar::detail::Kernel> kernels;
  for (std::size_t i = 0; i < reductions.size(); ++i) {
    const SingleReduceOp &r = reductions[i];
    const Type outType = r.useOutType ? r.outType : r.in.elementType();
    results.push_back(createOutputs ? createReduceOutput(graph, r.in, outType, r.dims, r.params,
                                                         {debugContext, r.debugName})
                                    : outputs[i]);
    kernels.push_back(reduceKernel(graph, r.in, results.back(), r.dims, r.params, options));
  }
  // All in one compute set: the reductions run in parallel, as on the device.
  const poplar::ComputeSet cs = graph.addComputeSet(debugContext);
  for (auto &k : kernels) poplar::detail::addKernel(graph, cs, std::move(k));
  prog.add(poplar::program::Execute(cs, debugContext));
  if (createOutputs) outputs = std::move(results);
}

} // namespace popops
