// poplin: matrix multiplication (plain, grouped, accumulating), the create and
// pre-arrange helpers, the planning cache, and linspace and meshgrid2d.
#include <poplin/Convolution.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/MeshGrid.hpp>
#include <poplin/codelets.hpp>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindPoplin(py::module_ &m) {
  using namespace poplin;
  using poplar::DebugContext;
  using poplar::Graph;
  using poplar::OptionFlags;
  using poplar::Tensor;
  using poplar::Type;
  using poplar::program::Sequence;
  using Shape = std::vector<std::size_t>;

  py::class_<PlanningCache>(m, "PlanningCache", "Plans of matmuls and convolutions made so far, shared between calls")
      .def(py::init<>())
      .def("size", &PlanningCache::size);

  m.def("addCodelets", &addCodelets, py::arg("graph"));
  m.def("matmulValidateOptions", &matmulValidateOptions, py::arg("options"));
  m.def("linspace", &linspace, py::arg("graph"), py::arg("type"), py::arg("left"), py::arg("right"),
        py::arg("count"), py::arg("debugContext") = DebugContext());
  m.def("meshgrid2d", &meshgrid2d, py::arg("graph"), py::arg("x"), py::arg("y"));

  // The SDK's trailing arguments; the create functions' debugContext gets a default here.
  const auto dc = py::arg("debugContext") = DebugContext();
  const auto options = py::arg("options") = OptionFlags();
  const auto cache = py::arg("cache") = static_cast<PlanningCache *>(nullptr);

  m.def("matMul",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, Sequence &, const Type &,
                          const DebugContext &, const OptionFlags &, PlanningCache *>(&matMul),
        py::arg("graph"), py::arg("A"), py::arg("B"), py::arg("prog"), py::arg("outputType"), dc,
        options, cache);
  m.def("matMul",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, Sequence &,
                          const DebugContext &, const OptionFlags &, PlanningCache *>(&matMul),
        py::arg("graph"), py::arg("A"), py::arg("B"), py::arg("prog"), dc, options, cache);
  // C++ takes `out` by non-const reference but never rebinds it.
  m.def("matMulWithOutput",
        [](Graph &graph, const Tensor &A, const Tensor &B, Tensor out, Sequence &prog,
           const DebugContext &debugContext, const OptionFlags &opts, PlanningCache *planningCache) {
          matMulWithOutput(graph, A, B, out, prog, debugContext, opts, planningCache);
        },
        py::arg("graph"), py::arg("A"), py::arg("B"), py::arg("out"), py::arg("prog"), dc,
        options, cache);
  m.def("matMulGrouped", &matMulGrouped, py::arg("graph"), py::arg("A"), py::arg("B"),
        py::arg("prog"), py::arg("outputType"), dc, options, cache);
  m.def("matMulGroupedWithOutput",
        [](Graph &graph, const Tensor &A, const Tensor &B, Tensor out, Sequence &prog,
           const DebugContext &debugContext, const OptionFlags &opts, PlanningCache *planningCache) {
          matMulGroupedWithOutput(graph, A, B, out, prog, debugContext, opts, planningCache);
        },
        py::arg("graph"), py::arg("A"), py::arg("B"), py::arg("out"), py::arg("prog"), dc,
        options, cache);

  // The tensor-scale overloads come first so a Tensor k is never tried as a float.
  m.def("matMulAcc",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, const Tensor &, const Tensor &,
                          Sequence &, const DebugContext &, const OptionFlags &, PlanningCache *>(
            &matMulAcc),
        py::arg("graph"), py::arg("C"), py::arg("k"), py::arg("A"), py::arg("B"), py::arg("prog"),
        dc, options, cache);
  m.def("matMulAcc",
        py::overload_cast<Graph &, const Tensor &, float, const Tensor &, const Tensor &,
                          Sequence &, const DebugContext &, const OptionFlags &, PlanningCache *>(
            &matMulAcc),
        py::arg("graph"), py::arg("C"), py::arg("k"), py::arg("A"), py::arg("B"), py::arg("prog"),
        dc, options, cache);
  m.def("matMulGroupedAcc",
        py::overload_cast<Graph &, const Tensor &, const Tensor &, const Tensor &, const Tensor &,
                          Sequence &, const DebugContext &, const OptionFlags &, PlanningCache *>(
            &matMulGroupedAcc),
        py::arg("graph"), py::arg("C"), py::arg("k"), py::arg("A"), py::arg("B"), py::arg("prog"),
        dc, options, cache);
  m.def("matMulGroupedAcc",
        py::overload_cast<Graph &, const Tensor &, float, const Tensor &, const Tensor &,
                          Sequence &, const DebugContext &, const OptionFlags &, PlanningCache *>(
            &matMulGroupedAcc),
        py::arg("graph"), py::arg("C"), py::arg("k"), py::arg("A"), py::arg("B"), py::arg("prog"),
        dc, options, cache);

  using CreateWithTypes = Tensor (*)(Graph &, const Type &, const Type &, const Shape &,
                                     const Shape &, const DebugContext &, const OptionFlags &,
                                     PlanningCache *);
  using CreateWithDataType = Tensor (*)(Graph &, const Type &, const Shape &, const Shape &,
                                        const DebugContext &, const OptionFlags &,
                                        PlanningCache *);
  const auto defineCreate = [&](const char *name, CreateWithTypes create) {
    m.def(name, create, py::arg("graph"), py::arg("inputType"), py::arg("outputType"),
          py::arg("aShape"), py::arg("bShape"), dc, options, cache);
  };
  const auto defineCreateOneType = [&](const char *name, CreateWithDataType create) {
    m.def(name, create, py::arg("graph"), py::arg("dataType"), py::arg("aShape"),
          py::arg("bShape"), dc, options, cache);
  };
  defineCreate("createMatMulInputLHS", &createMatMulInputLHS);
  defineCreateOneType("createMatMulInputLHS", &createMatMulInputLHS);
  defineCreate("createMatMulInputRHS", &createMatMulInputRHS);
  defineCreateOneType("createMatMulInputRHS", &createMatMulInputRHS);
  defineCreate("createMatMulOutput", &createMatMulOutput);
  defineCreateOneType("createMatMulOutput", &createMatMulOutput);
  defineCreate("createMatMulGroupedInputLHS", &createMatMulGroupedInputLHS);
  defineCreate("createMatMulGroupedInputRHS", &createMatMulGroupedInputRHS);
  defineCreate("createMatMulGroupedOutput", &createMatMulGroupedOutput);

  m.def("preArrangeMatMulInputRHS",
        py::overload_cast<Graph &, const Shape &, const Tensor &, Sequence &, const Type &,
                          const DebugContext &, const OptionFlags &, PlanningCache *>(
            &preArrangeMatMulInputRHS),
        py::arg("graph"), py::arg("aShape"), py::arg("B"), py::arg("prog"), py::arg("outputType"),
        dc, options, cache);
  m.def("preArrangeMatMulInputRHS",
        py::overload_cast<Graph &, const Shape &, const Tensor &, Sequence &,
                          const DebugContext &, const OptionFlags &, PlanningCache *>(
            &preArrangeMatMulInputRHS),
        py::arg("graph"), py::arg("aShape"), py::arg("B"), py::arg("prog"), dc, options, cache);
  m.def("preArrangeMatMulGroupedInputRHS", &preArrangeMatMulGroupedInputRHS, py::arg("graph"),
        py::arg("aShape"), py::arg("B"), py::arg("prog"), py::arg("outputType"), dc, options,
        cache);
  m.def("transposeGroupedMatrix", &transposeGroupedMatrix, py::arg("A"));
}

} // namespace popdsl_bindings
