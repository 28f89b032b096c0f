#pragma once
// Matrix multiplication: C = A x B for A [m,k] and B [k,n], and the grouped
// form for A [g,m,k] and B [g,k,n]. FLOAT and HALF operands; products are
// summed in the partials type and rounded once to the output type.
//
// Options (invalid keys or values throw poplar::invalid_option):
//   partialsType               "float" (default) or "half"; never less precise
//                              than the inputs, so it only matters for HALF inputs
//   availableMemoryProportion  a number in [0, 1]; only guides the planner
//   fullyConnectedPass         NONE, INFERENCE_FWD, TRAINING_FWD, TRAINING_BWD,
//                              TRAINING_WU; only guides the planner
//   inputRHSIsPreArranged, use128BitConvUnitLoad, enableMultiStageReduce,
//   enableFastReduce, remapOutputTensor, gatherOutput, disableSRForAMPVertices
//                              "true" or "false"; no effect on results
//   planConstraints            JSON for the planner; ignored
#include <unordered_map>
#include <cstddef>
#include <tuple>
#include <vector>

#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Type.hpp>
#include <poplin/Convolution.hpp>

namespace poplin {

namespace matmul {
// Deprecated: poplin::PlanningCache serves matmuls directly.
class PlanningCache : public poplin::PlanningCache {
public:
  poplin::PlanningCache &getImpl();
};
} // namespace matmul

struct MatMulParams {
  poplar::Type inputType;
  poplar::Type outputType;
  std::vector<std::size_t> aShape;
  std::vector<std::size_t> bShape;
  friend bool operator<(const MatMulParams &a, const MatMulParams &b);
};

using MatMulPlanParams =
    std::tuple<const poplar::Target *, const MatMulParams, const poplar::OptionFlags *>;

// Returns A x B as a new tensor of `outputType` (A's element type when omitted).
poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::Type &outputType,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
// Writes A x B to `out`, whose element type is the output type.
void matMulWithOutput(poplar::Graph &graph, const poplar::Tensor &A_, const poplar::Tensor &B_,
                      poplar::Tensor &out, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options_ = {}, PlanningCache *cache = nullptr);

poplar::Tensor matMulGrouped(poplar::Graph &graph, const poplar::Tensor &A,
                             const poplar::Tensor &B, poplar::program::Sequence &prog,
                             const poplar::Type &outputType,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options = {},
                             PlanningCache *cache = nullptr);
void matMulGroupedWithOutput(poplar::Graph &graph, const poplar::Tensor &A,
                             const poplar::Tensor &B, poplar::Tensor &out,
                             poplar::program::Sequence &prog,
                             const poplar::DebugContext &debugContext = {},
                             const poplar::OptionFlags &options_ = {},
                             PlanningCache *cache = nullptr);

// C += k * A x B. A tensor k has one element, read each time the program runs.
void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A,
               const poplar::Tensor &B, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, const poplar::Tensor &k,
               const poplar::Tensor &A, const poplar::Tensor &B, poplar::program::Sequence &prog,
               const poplar::DebugContext &debugContext = {},
               const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, float k,
                      const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);
void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, const poplar::Tensor &k,
                      const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog,
                      const poplar::DebugContext &debugContext = {},
                      const poplar::OptionFlags &options = {}, PlanningCache *cache = nullptr);

// Variables laid out for use as the operands or result of a matmul of aShape x
// bShape, with every element mapped to a tile.
poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                    const poplar::Type &outputType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {},
                                    PlanningCache *cache = nullptr);
poplar::Tensor createMatMulInputLHS(poplar::Graph &graph, const poplar::Type &dataType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {},
                                    PlanningCache *cache = nullptr);
poplar::Tensor createMatMulGroupedInputLHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType,
                                           const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {},
                                           PlanningCache *cache = nullptr);
poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                    const poplar::Type &outputType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {},
                                    PlanningCache *cache = nullptr);
poplar::Tensor createMatMulInputRHS(poplar::Graph &graph, const poplar::Type &dataType,
                                    const std::vector<std::size_t> &aShape,
                                    const std::vector<std::size_t> &bShape,
                                    const poplar::DebugContext &debugContext,
                                    const poplar::OptionFlags &options = {},
                                    PlanningCache *cache = nullptr);
poplar::Tensor createMatMulGroupedInputRHS(poplar::Graph &graph, const poplar::Type &inputType,
                                           const poplar::Type &outputType,
                                           const std::vector<std::size_t> &aShape,
                                           const std::vector<std::size_t> &bShape,
                                           const poplar::DebugContext &debugContext,
                                           const poplar::OptionFlags &options = {},
                                           PlanningCache *cache = nullptr);
poplar::Tensor createMatMulOutput(poplar::Graph &graph, const poplar::Type &inputType,
                                  const poplar::Type &outputType,
                                  const std::vector<std::size_t> &aShape,
                                  const std::vector<std::size_t> &bShape,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options = {},
                                  PlanningCache *cache = nullptr);
poplar::Tensor createMatMulOutput(poplar::Graph &graph, const poplar::Type &dataType,
                                  const std::vector<std::size_t> &aShape,
                                  const std::vector<std::size_t> &bShape,
                                  const poplar::DebugContext &debugContext,
                                  const poplar::OptionFlags &options = {},
                                  PlanningCache *cache = nullptr);
poplar::Tensor createMatMulGroupedOutput(poplar::Graph &graph, const poplar::Type &inputType,
                                         const poplar::Type &outputType,
                                         const std::vector<std::size_t> &aShape,
                                         const std::vector<std::size_t> &bShape,
                                         const poplar::DebugContext &debugContext,
                                         const poplar::OptionFlags &options = {},
                                         PlanningCache *cache = nullptr);

// Copies B (in `prog`) to a new tensor laid out as a matmul's right operand;
// later changes to B do not reach the copy.
poplar::Tensor preArrangeMatMulInputRHS(poplar::Graph &graph,
                                        const std::vector<std::size_t> &aShape,
                                        const poplar::Tensor &B, poplar::program::Sequence &prog,
                                        const poplar::Type &outputType,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {},
                                        PlanningCache *cache = nullptr);
poplar::Tensor preArrangeMatMulInputRHS(poplar::Graph &graph,
                                        const std::vector<std::size_t> &aShape,
                                        const poplar::Tensor &B, poplar::program::Sequence &prog,
                                        const poplar::DebugContext &debugContext = {},
                                        const poplar::OptionFlags &options = {},
                                        PlanningCache *cache = nullptr);
poplar::Tensor preArrangeMatMulGroupedInputRHS(poplar::Graph &graph,
                                               const std::vector<std::size_t> &aShape,
                                               const poplar::Tensor &B,
                                               poplar::program::Sequence &prog,
                                               const poplar::Type &outputType,
                                               const poplar::DebugContext &debugContext = {},
                                               const poplar::OptionFlags &options = {},
                                               PlanningCache *cache = nullptr);

// [g,m,k] -> [g,k,m], a view.
poplar::Tensor transposeGroupedMatrix(const poplar::Tensor &A);

void matmulValidateOptions(const poplar::OptionFlags &options);

} // namespace poplin
