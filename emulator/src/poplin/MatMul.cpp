#include <poplin/MatMul.hpp>

#include <algorithm>
#include <climits>
#include <limits>
#include <optional>
#include <string>

#include <poputil/TileMapping.hpp>
#include <poputil/exceptions.hpp>

#include "FewRowsGemm.hpp"
#include "Gemm.hpp"
#include "MatMulOptions.hpp"
#include "PlanningCacheImpl.hpp"
#include "poplar/Kernel.hpp"
#include "poplar/KernelOperands.hpp"

namespace poplin {

namespace {

using poplar::Graph;
using poplar::Tensor;
using poplar::Type;
using poplar::program::Sequence;
using Shape = std::vector<std::size_t>;

std::string shapeText(const Shape &shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

// An operand as error messages name it: a tensor by its variables, shape and
// type; a shape given to a create function by the shape itself.
struct Operand {
  std::string role;
  Shape shape;
  std::string text;
};
Operand operand(const char *role, const Tensor &t) { return {role, t.shape(), t.getVarStr()}; }
Operand operand(const char *role, const Shape &shape) { return {role, shape, shapeText(shape)}; }

struct MatMulDims {
  std::size_t groups, m, k, n;
  Shape resultShape(bool grouped) const { return grouped ? Shape{groups, m, n} : Shape{m, n}; }
};

// A [m,k] and B [k,n], or A [g,m,k] and B [g,k,n] when grouped.
MatMulDims checkShapes(const std::string &api, const Operand &a, const Operand &b, bool grouped) {
  const std::size_t rank = grouped ? 3 : 2;
  for (const Operand *o : {&a, &b}) {
    if (o->shape.size() != rank)
      throw poputil::poplibs_error(api + ": " + o->role + " must have rank " +
                                   std::to_string(rank) + ", got " + o->text);
    for (std::size_t d : o->shape)
      if (d > INT_MAX) // the BLAS takes int dimensions
        throw poputil::poplibs_error(api + ": " + o->role + " " + o->text +
                                     " has a dimension over " + std::to_string(INT_MAX));
  }
  const std::size_t groups = grouped ? a.shape[0] : 1;
  if (grouped && b.shape[0] != groups)
    throw poputil::poplibs_error(api + ": " + a.role + " and " + b.role +
                                 " must have the same number of groups, got " + a.text +
                                 " and " + b.text);
  const std::size_t m = a.shape[rank - 2], k = a.shape[rank - 1];
  if (b.shape[rank - 2] != k) {
    const std::string expected =
        "[" + (grouped ? std::to_string(groups) + "," : "") + std::to_string(k) + ",n]";
    throw poputil::poplibs_error(api + ": inner dimensions differ: " + a.role + " " + a.text +
                                 " needs " + b.role + " of shape " + expected + ", got " + b.text);
  }
  return {groups, m, k, b.shape[rank - 1]};
}

void checkFloatingType(const std::string &api, const std::string &what, const Type &type) {
  if (type != poplar::FLOAT && type != poplar::HALF)
    throw poputil::poplibs_error(api + ": " + what + " must be FLOAT or HALF, got " +
                                 type.toString().str());
}

MatMulDims checkOperands(const std::string &api, const Tensor &A, const Tensor &B,
                         bool grouped) {
  const MatMulDims dims = checkShapes(api, operand("A", A), operand("B", B), grouped);
  if (A.elementType() != B.elementType())
    throw poputil::poplibs_error(api + ": A and B must have the same element type, got " +
                                 A.getVarStr() + " and " + B.getVarStr());
  checkFloatingType(api, "the element type of A and B", A.elementType());
  return dims;
}

// The tensor a product is written to (`out`) or accumulated into (`C`).
void checkResult(const std::string &api, const std::string &role, const Tensor &t,
                 const Shape &expected) {
  if (t.shape() != expected)
    throw poputil::poplibs_error(api + ": " + role + " must have shape " + shapeText(expected) +
                                 ", got " + t.getVarStr());
  checkFloatingType(api, "the element type of " + role, t.elementType());
}

void checkScale(const std::string &api, const Tensor &k) {
  if (k.numElements() != 1)
    throw poputil::poplibs_error(api + ": the scale k must have exactly one element, got " +
                                 k.getVarStr());
  checkFloatingType(api, "the element type of the scale k", k.elementType());
}

void rememberPlan(PlanningCache *cache, const Type &inputType, const Type &outputType,
                  const Shape &aShape, const Shape &bShape) {
  if (cache) cache->impl->plans.insert(MatMulParams{inputType, outputType, aShape, bShape});
}

// Spreads whole rows (the last dimension) over the tiles, at least 128 bytes
// on each tile used.
Tensor addMappedVariable(Graph &graph, const Type &type, const Shape &shape,
                         const poplar::DebugContext &debugContext) {
  Tensor t = graph.addVariable(type, shape, debugContext);
  const auto rowLength = static_cast<unsigned>(std::max<std::size_t>(shape.back(), 1));
  poputil::mapTensorLinearly(graph, t, 128 / graph.getTarget().getTypeSize(type), rowLength);
  return t;
}

// The columns of each panel createMatMulInputRHS lays B out in where the few-rows kernel
// reads B (poplin::detail::fewRowsTake of A's rows), one panel after the other, each with
// its rows back to back: a product of one row (an LSTM step at batch 1) then reads a panel
// of 256 floats a row as one stream, where over rows 4 KB apart it also read the parts of
// them other blocks read (Zen5, [1,256]x[256,1024] on two threads: 4.2 us over rows, 2.5 us
// over panels; no change at 32 rows). The last panel's columns past n are unused.
constexpr std::size_t kRhsPanelColumns = 256;

// B [g,k,n] (grouped) or [k,n] as the products of A with `m` rows read it fastest: FLOAT in
// column panels where the few-rows kernel takes the products and B is wider than a panel,
// else plain rows (BLAS and the kernel read those in place too; HALF is widened anyway).
Tensor addRhsVariable(Graph &graph, const Type &type, const MatMulDims &dims, bool grouped,
                      const poplar::DebugContext &debugContext) {
  const Shape shape = grouped ? Shape{dims.groups, dims.k, dims.n} : Shape{dims.k, dims.n};
  const std::size_t panels = (dims.n + kRhsPanelColumns - 1) / kRhsPanelColumns;
  if (type != poplar::FLOAT || panels < 2 || !detail::fewRowsTake(dims.m))
    return addMappedVariable(graph, type, shape, debugContext);
  const Tensor stored =
      addMappedVariable(graph, type, {dims.groups, panels, dims.k, kRhsPanelColumns}, debugContext);
  const Tensor b = stored.dimShuffle({0, 2, 1, 3})
                       .reshape({dims.groups, dims.k, panels * kRhsPanelColumns})
                       .slice(0, dims.n, 2);
  return grouped ? b : b.squeeze({0});
}

// The constant k of C += k * A x B, or a one-element tensor holding it.
struct Scale {
  float value = 1.0f;
  std::optional<Tensor> tensor;
};

// The registered kernel: reads the product's parameters (as addProduct writes
// them) and makes the BLAS call over the operands' memory.
poplar::detail::KernelCompile matMulCompile(poplar::detail::ByteReader &params) {
  detail::GemmProblem problem;
  problem.groups = params.u64();
  problem.m = params.u64();
  problem.k = params.u64();
  problem.n = params.u64();
  problem.accumulate = params.boolean();
  problem.partialsType = params.type();
  problem.alpha = static_cast<float>(params.f64());
  const bool scaleIsTensor = params.boolean();
  return [problem, scaleIsTensor](const std::vector<poplar::detail::Access> &operands) {
    // A, B (, k) (, C read when accumulating), C; the sizes BLAS gets must be those of
    // the operands, in int range.
    const poplar::detail::KernelOperands checked("poplin::MatMul", operands,
                                                 3 + (scaleIsTensor ? 1 : 0) + (problem.accumulate ? 1 : 0));
    const std::size_t c = operands.size() - 1;
    for (std::size_t dim : {problem.m, problem.k, problem.n})
      checked.require(dim <= static_cast<std::size_t>(std::numeric_limits<int>::max()), "a dimension exceeds int");
    checked.typeIn(0, {poplar::FLOAT, poplar::HALF}).sameType(0, 1).typeIn(c, {poplar::FLOAT, poplar::HALF})
        .elements(0, checked.product({problem.groups, problem.m, problem.k}))
        .elements(1, checked.product({problem.groups, problem.k, problem.n}))
        .elements(c, checked.product({problem.groups, problem.m, problem.n}));
    std::optional<poplar::detail::Access> alphaTensor;
    if (scaleIsTensor) {
      checked.elements(2, 1).typeIn(2, {poplar::FLOAT, poplar::HALF});
      alphaTensor = operands[2];
    }
    return detail::compileGemm(problem, operands[0], operands[1], operands.back(), alphaTensor);
  };
}
const poplar::detail::KernelKind matMulKind("poplin::MatMul", matMulCompile);

// Adds to `prog` a compute set writing A x B to C, or adding k * A x B to it
// when accumulating. Operands are already checked.
void addProduct(Graph &graph, Sequence &prog, const Tensor &A, const Tensor &B, const Tensor &C,
                bool grouped, const Scale &scale, bool accumulate,
                const detail::MatMulOptions &options, const poplar::DebugContext &debugContext) {
  const Tensor a = grouped ? A : A.expand({0});
  const Tensor b = grouped ? B : B.expand({0});
  const Tensor c = grouped ? C : C.expand({0});
  detail::GemmProblem problem;
  problem.groups = a.dim(0);
  problem.m = a.dim(1);
  problem.k = a.dim(2);
  problem.n = b.dim(2);
  problem.accumulate = accumulate;
  problem.partialsType = a.elementType() == poplar::HALF ? options.partialsType : poplar::FLOAT;
  problem.alpha = scale.value;

  std::vector<Tensor> reads = {a, b};
  if (scale.tensor) reads.push_back(*scale.tensor);
  if (accumulate) reads.push_back(c);
  poplar::detail::ByteWriter params;
  params.u64(problem.groups).u64(problem.m).u64(problem.k).u64(problem.n).boolean(problem.accumulate)
      .type(problem.partialsType).f64(problem.alpha).boolean(scale.tensor.has_value());
  auto kernel = poplar::detail::makeKernel("poplin::MatMul", std::move(reads), {c}, params.take());
  kernel.costShape = poplar::detail::CostShape::MatMul;
  poplar::detail::executeKernel(graph, prog, std::move(kernel), debugContext);
}

Tensor product(const std::string &api, Graph &graph, const Tensor &A, const Tensor &B,
               Sequence &prog, const Type &outputType, bool grouped,
               const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
               PlanningCache *cache) {
  const auto parsed = detail::parseMatMulOptions(options);
  const MatMulDims dims = checkOperands(api, A, B, grouped);
  checkFloatingType(api, "outputType", outputType);
  rememberPlan(cache, A.elementType(), outputType, A.shape(), B.shape());
  Tensor out = addMappedVariable(graph, outputType, dims.resultShape(grouped),
                                 {debugContext, "output"});
  addProduct(graph, prog, A, B, out, grouped, {}, false, parsed, debugContext);
  return out;
}

void productWithOutput(const std::string &api, Graph &graph, const Tensor &A, const Tensor &B,
                       const Tensor &out, Sequence &prog, bool grouped,
                       const poplar::DebugContext &debugContext,
                       const poplar::OptionFlags &options, PlanningCache *cache) {
  const auto parsed = detail::parseMatMulOptions(options);
  const MatMulDims dims = checkOperands(api, A, B, grouped);
  checkResult(api, "out", out, dims.resultShape(grouped));
  rememberPlan(cache, A.elementType(), out.elementType(), A.shape(), B.shape());
  addProduct(graph, prog, A, B, out, grouped, {}, false, parsed, debugContext);
}

void accumulateProduct(const std::string &api, Graph &graph, const Tensor &C, const Scale &k,
                       const Tensor &A, const Tensor &B, Sequence &prog, bool grouped,
                       const poplar::DebugContext &debugContext,
                       const poplar::OptionFlags &options, PlanningCache *cache) {
  const auto parsed = detail::parseMatMulOptions(options);
  const MatMulDims dims = checkOperands(api, A, B, grouped);
  checkResult(api, "C", C, dims.resultShape(grouped));
  if (k.tensor) checkScale(api, *k.tensor);
  rememberPlan(cache, A.elementType(), C.elementType(), A.shape(), B.shape());
  addProduct(graph, prog, A, B, C, grouped, k, true, parsed, debugContext);
}

// Checks a create function's arguments; returns the product's dimensions.
MatMulDims checkCreateArguments(const std::string &api, const Type &inputType,
                                const Type &outputType, const Shape &aShape,
                                const Shape &bShape, bool grouped,
                                const poplar::OptionFlags &options, PlanningCache *cache) {
  detail::parseMatMulOptions(options);
  const MatMulDims dims = checkShapes(api, operand("aShape", aShape), operand("bShape", bShape),
                                      grouped);
  checkFloatingType(api, "inputType", inputType);
  checkFloatingType(api, "outputType", outputType);
  rememberPlan(cache, inputType, outputType, aShape, bShape);
  return dims;
}

Tensor preArrange(const std::string &api, Graph &graph, const Shape &aShape, const Tensor &B,
                  Sequence &prog, const Type &outputType, bool grouped,
                  const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
                  PlanningCache *cache) {
  detail::parseMatMulOptions(options);
  const MatMulDims dims = checkShapes(api, operand("aShape", aShape), operand("B", B), grouped);
  checkFloatingType(api, "the element type of B", B.elementType());
  checkFloatingType(api, "outputType", outputType);
  rememberPlan(cache, B.elementType(), outputType, aShape, B.shape());
  Tensor arranged = addRhsVariable(graph, B.elementType(), dims, grouped, debugContext);
  prog.add(poplar::program::Copy(B, arranged, false, debugContext));
  return arranged;
}

} // namespace

Tensor matMul(Graph &graph, const Tensor &A, const Tensor &B, Sequence &prog,
              const Type &outputType, const poplar::DebugContext &debugContext,
              const poplar::OptionFlags &options, PlanningCache *cache) {
  return product("poplin::matMul", graph, A, B, prog, outputType, false, debugContext, options,
                 cache);
}

Tensor matMul(Graph &graph, const Tensor &A, const Tensor &B, Sequence &prog,
              const poplar::DebugContext &debugContext, const poplar::OptionFlags &options,
              PlanningCache *cache) {
  return product("poplin::matMul", graph, A, B, prog, A.elementType(), false, debugContext,
                 options, cache);
}

void matMulWithOutput(Graph &graph, const Tensor &A_, const Tensor &B_, Tensor &out,
                      Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options_, PlanningCache *cache) {
  productWithOutput("poplin::matMulWithOutput", graph, A_, B_, out, prog, false, debugContext,
                    options_, cache);
}

Tensor matMulGrouped(Graph &graph, const Tensor &A, const Tensor &B, Sequence &prog,
                     const Type &outputType, const poplar::DebugContext &debugContext,
                     const poplar::OptionFlags &options, PlanningCache *cache) {
  return product("poplin::matMulGrouped", graph, A, B, prog, outputType, true, debugContext,
                 options, cache);
}

void matMulGroupedWithOutput(Graph &graph, const Tensor &A, const Tensor &B, Tensor &out,
                             Sequence &prog, const poplar::DebugContext &debugContext,
                             const poplar::OptionFlags &options_, PlanningCache *cache) {
  productWithOutput("poplin::matMulGroupedWithOutput", graph, A, B, out, prog, true,
                    debugContext, options_, cache);
}

void matMulAcc(Graph &graph, const Tensor &C, float k, const Tensor &A, const Tensor &B,
               Sequence &prog, const poplar::DebugContext &debugContext,
               const poplar::OptionFlags &options, PlanningCache *cache) {
  accumulateProduct("poplin::matMulAcc", graph, C, {k, std::nullopt}, A, B, prog, false,
                    debugContext, options, cache);
}

void matMulAcc(Graph &graph, const Tensor &C, const Tensor &k, const Tensor &A, const Tensor &B,
               Sequence &prog, const poplar::DebugContext &debugContext,
               const poplar::OptionFlags &options, PlanningCache *cache) {
  accumulateProduct("poplin::matMulAcc", graph, C, {1.0f, k}, A, B, prog, false, debugContext,
                    options, cache);
}

void matMulGroupedAcc(Graph &graph, const Tensor &C, float k, const Tensor &A, const Tensor &B,
                      Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options, PlanningCache *cache) {
  accumulateProduct("poplin::matMulGroupedAcc", graph, C, {k, std::nullopt}, A, B, prog, true,
                    debugContext, options, cache);
}

void matMulGroupedAcc(Graph &graph, const Tensor &C, const Tensor &k, const Tensor &A,
                      const Tensor &B, Sequence &prog, const poplar::DebugContext &debugContext,
                      const poplar::OptionFlags &options, PlanningCache *cache) {
  accumulateProduct("poplin::matMulGroupedAcc", graph, C, {1.0f, k}, A, B, prog, true,
                    debugContext, options, cache);
}

// A in plain rows: both BLAS and the few-rows kernel read A's rows in place as they lie
// (B's layout is the one that pays, addRhsVariable).
Tensor createMatMulInputLHS(Graph &graph, const Type &inputType, const Type &outputType,
                            const Shape &aShape, const Shape &bShape,
                            const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options, PlanningCache *cache) {
  checkCreateArguments("poplin::createMatMulInputLHS", inputType, outputType, aShape, bShape,
                       false, options, cache);
  return addMappedVariable(graph, inputType, aShape, debugContext);
}

Tensor createMatMulInputLHS(Graph &graph, const Type &dataType, const Shape &aShape,
                            const Shape &bShape, const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options, PlanningCache *cache) {
  return createMatMulInputLHS(graph, dataType, dataType, aShape, bShape, debugContext, options,
                              cache);
}

Tensor createMatMulGroupedInputLHS(Graph &graph, const Type &inputType, const Type &outputType,
                                   const Shape &aShape, const Shape &bShape,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options, PlanningCache *cache) {
  checkCreateArguments("poplin::createMatMulGroupedInputLHS", inputType, outputType, aShape,
                       bShape, true, options, cache);
  return addMappedVariable(graph, inputType, aShape, debugContext);
}

Tensor createMatMulInputRHS(Graph &graph, const Type &inputType, const Type &outputType,
                            const Shape &aShape, const Shape &bShape,
                            const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options, PlanningCache *cache) {
  const MatMulDims dims = checkCreateArguments("poplin::createMatMulInputRHS", inputType,
                                               outputType, aShape, bShape, false, options, cache);
  return addRhsVariable(graph, inputType, dims, false, debugContext);
}

Tensor createMatMulInputRHS(Graph &graph, const Type &dataType, const Shape &aShape,
                            const Shape &bShape, const poplar::DebugContext &debugContext,
                            const poplar::OptionFlags &options, PlanningCache *cache) {
  return createMatMulInputRHS(graph, dataType, dataType, aShape, bShape, debugContext, options,
                              cache);
}

Tensor createMatMulGroupedInputRHS(Graph &graph, const Type &inputType, const Type &outputType,
                                   const Shape &aShape, const Shape &bShape,
                                   const poplar::DebugContext &debugContext,
                                   const poplar::OptionFlags &options, PlanningCache *cache) {
  const MatMulDims dims = checkCreateArguments("poplin::createMatMulGroupedInputRHS", inputType,
                                               outputType, aShape, bShape, true, options, cache);
  return addRhsVariable(graph, inputType, dims, true, debugContext);
}

Tensor createMatMulOutput(Graph &graph, const Type &inputType, const Type &outputType,
                          const Shape &aShape, const Shape &bShape,
                          const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options, PlanningCache *cache) {
  const MatMulDims dims = checkCreateArguments("poplin::createMatMulOutput", inputType,
                                               outputType, aShape, bShape, false, options, cache);
  return addMappedVariable(graph, outputType, dims.resultShape(false), debugContext);
}

Tensor createMatMulOutput(Graph &graph, const Type &dataType, const Shape &aShape,
                          const Shape &bShape, const poplar::DebugContext &debugContext,
                          const poplar::OptionFlags &options, PlanningCache *cache) {
  return createMatMulOutput(graph, dataType, dataType, aShape, bShape, debugContext, options,
                            cache);
}

Tensor createMatMulGroupedOutput(Graph &graph, const Type &inputType, const Type &outputType,
                                 const Shape &aShape, const Shape &bShape,
                                 const poplar::DebugContext &debugContext,
                                 const poplar::OptionFlags &options, PlanningCache *cache) {
  const MatMulDims dims = checkCreateArguments("poplin::createMatMulGroupedOutput", inputType,
                                               outputType, aShape, bShape, true, options, cache);
  return addMappedVariable(graph, outputType, dims.resultShape(true), debugContext);
}

Tensor preArrangeMatMulInputRHS(Graph &graph, const Shape &aShape, const Tensor &B,
                                Sequence &prog, const Type &outputType,
                                const poplar::DebugContext &debugContext,
                                const poplar::OptionFlags &options, PlanningCache *cache) {
  return preArrange("poplin::preArrangeMatMulInputRHS", graph, aShape, B, prog, outputType,
                    false, debugContext, options, cache);
}

Tensor preArrangeMatMulInputRHS(Graph &graph, const Shape &aShape, const Tensor &B,
                                Sequence &prog, const poplar::DebugContext &debugContext,
                                const poplar::OptionFlags &options, PlanningCache *cache) {
  return preArrange("poplin::preArrangeMatMulInputRHS", graph, aShape, B, prog,
                    B.elementType(), false, debugContext, options, cache);
}

Tensor preArrangeMatMulGroupedInputRHS(Graph &graph, const Shape &aShape, const Tensor &B,
                                       Sequence &prog, const Type &outputType,
                                       const poplar::DebugContext &debugContext,
                                       const poplar::OptionFlags &options,
                                       PlanningCache *cache) {
  return preArrange("poplin::preArrangeMatMulGroupedInputRHS", graph, aShape, B, prog,
                    outputType, true, debugContext, options, cache);
}

Tensor transposeGroupedMatrix(const Tensor &A) {
  if (A.rank() != 3)
    throw poputil::poplibs_error("poplin::transposeGroupedMatrix: A must have rank 3, got " +
                                 A.getVarStr());
  return A.dimShuffle({0, 2, 1});
}

void matmulValidateOptions(const poplar::OptionFlags &options) {
  detail::parseMatMulOptions(options);
}

} // namespace poplin
