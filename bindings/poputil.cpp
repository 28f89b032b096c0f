// poputil: tile mapping helpers, use tracking, layout structure, numpy-style
// broadcasting, duplicate and the other utilities.
#include <poputil/Broadcast.hpp>
#include <poputil/TileMapping.hpp>
#include <poputil/Util.hpp>
#include <poputil/VarStructure.hpp>
#include <poputil/exceptions.hpp>

#include <pybind11/functional.h>

#include "bindings.hpp"

namespace popdsl_bindings {

void bindPoputil(py::module_ &m) {
  using namespace poputil;
  using poplar::Graph;
  using poplar::Tensor;
  py::register_exception<poplibs_error>(m, "poplibs_error", PyExc_RuntimeError);

  m.def("calcLinearTileMapping",
        py::overload_cast<const Graph &, std::vector<std::size_t>, unsigned, unsigned, unsigned, bool>(&calcLinearTileMapping),
        py::arg("graph"), py::arg("shape"), py::arg("minElementsPerTile"), py::arg("grainSize"),
        py::arg("offset") = 0, py::arg("ascendingOrder") = true);
  m.def("calcLinearTileMapping", py::overload_cast<const Graph &, const Tensor &, unsigned, bool>(&calcLinearTileMapping),
        py::arg("graph"), py::arg("t"), py::arg("offset") = 0, py::arg("ascendingOrder") = true);
  m.def("mapTensorLinearly", py::overload_cast<Graph &, const Tensor &>(&mapTensorLinearly), py::arg("graph"), py::arg("t"));
  m.def("mapTensorLinearly", py::overload_cast<Graph &, const Tensor &, unsigned, unsigned>(&mapTensorLinearly),
        py::arg("graph"), py::arg("t"), py::arg("minElementsPerTile"), py::arg("grainSize"));
  m.def("mapTensorLinearlyWithOffset",
        py::overload_cast<Graph &, const Tensor &, unsigned, unsigned, unsigned, bool>(&mapTensorLinearlyWithOffset),
        py::arg("graph"), py::arg("t"), py::arg("minElementsPerTile"), py::arg("grainSize"), py::arg("offset"),
        py::arg("ascendingOrder") = true);
  m.def("mapTensorLinearlyWithOffset", py::overload_cast<Graph &, const Tensor &, unsigned, bool>(&mapTensorLinearlyWithOffset),
        py::arg("graph"), py::arg("t"), py::arg("offset") = 0, py::arg("ascendingOrder") = true);

  m.def("calcLinearTileMappingAndNewOffset", &calcLinearTileMappingAndNewOffset, py::arg("graph"), py::arg("t"),
        py::arg("offset") = 0);
  m.def("chooseMappingOffset", py::overload_cast<std::size_t, const std::vector<std::size_t> &>(&chooseMappingOffset),
        py::arg("numTiles"), py::arg("shape"));
  m.def("chooseMappingOffset",
        py::overload_cast<std::size_t, const std::vector<std::size_t> &, std::size_t>(&chooseMappingOffset),
        py::arg("numTiles"), py::arg("shape"), py::arg("seed"));
  m.def("getTileImbalance", py::overload_cast<const Graph::TileToTensorMapping &, unsigned, unsigned>(&getTileImbalance),
        py::arg("mapping"), py::arg("minElementsPerTile") = 0, py::arg("grainSize") = 1);
  m.def("getTileImbalance", py::overload_cast<const Graph &, const Tensor &, unsigned, unsigned>(&getTileImbalance),
        py::arg("graph"), py::arg("t"), py::arg("minElementsPerTile") = 0, py::arg("grainSize") = 1);
  m.def("dimIsSplitOverTiles", &dimIsSplitOverTiles, py::arg("graph"), py::arg("t"), py::arg("dimension"));
  m.def("dimIsSplitOverIPUs", &dimIsSplitOverIPUs, py::arg("graph"), py::arg("t"), py::arg("dimension"));
  m.def("createBroadcastOperand", &createBroadcastOperand, py::arg("graph"), py::arg("fullTensor"), py::arg("type"),
        py::arg("dim"), py::arg("ditherMapping") = false, py::arg("debugContext") = poplar::DebugContext());
  m.def("transformTileIndex", &transformTileIndex, py::arg("tile"), py::arg("numTiles"), py::arg("offset"),
        py::arg("ascending"));
  m.def("invTransformTileIndex", &invTransformTileIndex, py::arg("tile"), py::arg("numTiles"), py::arg("offset"),
        py::arg("ascending"));
  const auto cloneMethod = py::arg_v("method", poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES,
                                      "poplar.TensorCloneMethod.PRESERVE_ORDER_UNLESS_ALIASES");
  m.def("cloneToIpu", &cloneToIpu, py::arg("graph"), py::arg("t"), py::arg("dstIPU"),
        py::arg("debugContext") = poplar::DebugContext(), cloneMethod);
  m.def("copyToIpu", &copyToIpu, py::arg("masterGraph"), py::arg("t"), py::arg("prog"), py::arg("dstIPU"),
        py::arg("debugContext") = poplar::DebugContext(), cloneMethod);
  // C++ sets copySrc/copyDst through references; Python gets (clone, copySrc, copyDst).
  m.def("createIpuCopy", [](Graph &g, const Tensor &t, unsigned dstIpu, const poplar::DebugContext &d,
                            poplar::TensorCloneMethod method) {
    Tensor copySrc, copyDst;
    Tensor clone = createIpuCopy(g, t, dstIpu, copySrc, copyDst, d, method);
    return py::make_tuple(clone, copySrc, copyDst);
  }, py::arg("graph"), py::arg("t"), py::arg("dstIpu"), py::arg("debugContext") = poplar::DebugContext(),
        py::arg_v("method", poplar::TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES,
                   "poplar.TensorCloneMethod.PRESERVE_ORDER_AND_ALIASES"));

  m.def("cloneToGraph", &cloneToGraph, py::arg("srcGraph"), py::arg("dstGraph"), py::arg("t"),
        py::arg("debugContext") = poplar::DebugContext(), cloneMethod);
  m.def("cloneAndExpandAliasing", &cloneAndExpandAliasing, py::arg("graph"), py::arg("t"), py::arg("offset") = 0,
        py::arg("debugContext") = poplar::DebugContext());

  py::class_<TensorUseTracker> tracker(m, "TensorUseTracker");
  py::enum_<TensorUseTracker::MappingMethod>(tracker, "MappingMethod")
      .value("OptimizeHaloRegions", TensorUseTracker::MappingMethod::OptimizeHaloRegions)
      .value("ConstrainMappingToUsedTiles", TensorUseTracker::MappingMethod::ConstrainMappingToUsedTiles)
      .value("None_", TensorUseTracker::MappingMethod::None); // None is a Python keyword
  const auto mappingMethod = py::arg_v("mappingMethod", TensorUseTracker::MappingMethod::None,
                                        "TensorUseTracker.MappingMethod.None_");
  tracker.def(py::init<unsigned, unsigned, bool>(), py::arg("numTiles"), py::arg("startTile") = 0,
              py::arg("ascendingMappingOrder") = true)
      .def(py::init<const TensorUseTracker &>(), py::arg("other"))
      .def("add", py::overload_cast<const Graph &, unsigned, const Tensor &>(&TensorUseTracker::add), py::arg("graph"),
           py::arg("tile"), py::arg("t"))
      .def("add", py::overload_cast<TensorUseTracker>(&TensorUseTracker::add), py::arg("other"))
      .def("resolve", &TensorUseTracker::resolve, py::arg("graph"), py::arg("grainSize"),
           py::arg("minElementsPerTile"), py::arg("extendPartialUsage") = false, mappingMethod)
      .def("mapTensorsByUse", &TensorUseTracker::mapTensorsByUse, py::arg("graph"), py::arg("grainSize"),
           py::arg("minElementsPerTile"), py::arg("extendPartialUsage") = false, mappingMethod)
      .def("empty", &TensorUseTracker::empty);

  m.def("detectInnermostGrouping", &detectInnermostGrouping, py::arg("graph"), py::arg("t"));
  m.def("detectDimGroupings", &detectDimGroupings, py::arg("graph"), py::arg("t"));
  m.def("createPartitionableTensor", &createPartitionableTensor, py::arg("graph"), py::arg("type"), py::arg("shape"),
        py::arg("nPartitions"), py::arg("debugContext") = poplar::DebugContext());
  m.def("iterateTensorPartitions", &iterateTensorPartitions, py::arg("t"), py::arg("nPartitions"), py::arg("f"));

  using poplar::Interval;
  using Regions = std::vector<Interval>;
  using Sequences = std::vector<Regions>;
  // C++ merges in place; Python gets the merged regions back.
  m.def("mergeAdjacentRegions", [](Regions regions) {
    mergeAdjacentRegions(regions);
    return regions;
  }, py::arg("regions"));
  m.def("mergeAdjacentRegions", [](Sequences mapping) {
    mergeAdjacentRegions(mapping);
    return mapping;
  }, py::arg("mapping"));
  m.def("flattenIntervals", &flattenIntervals, py::arg("intervals"));
  m.def("intervalSequenceNumElements", &intervalSequenceNumElements, py::arg("seq"));
  const auto minPerPartition = py::arg("minElementsPerPartition") = 0u,
             maxPerPartition = py::arg("maxElementsPerPartition") = UINT_MAX,
             maxPerRegion = py::arg("maxElementsPerRegion") = UINT_MAX;
  m.def("splitRegions",
        py::overload_cast<const Regions &, unsigned, unsigned, unsigned, unsigned, unsigned>(&splitRegions),
        py::arg("regions"), py::arg("grainSize"), py::arg("maxPartitions"), minPerPartition, maxPerPartition,
        maxPerRegion);
  m.def("splitRegions",
        py::overload_cast<const Sequences &, unsigned, unsigned, unsigned, unsigned, unsigned>(&splitRegions),
        py::arg("regions"), py::arg("grainSize"), py::arg("maxPartitions"), minPerPartition, maxPerPartition,
        maxPerRegion);
  m.def("splitRegionsBetweenWorkers",
        py::overload_cast<const poplar::Target &, const Regions &, unsigned, unsigned, unsigned, unsigned>(
            &splitRegionsBetweenWorkers),
        py::arg("target"), py::arg("regions"), py::arg("grainSize"), minPerPartition, maxPerPartition, maxPerRegion);
  m.def("splitRegionsBetweenWorkers",
        py::overload_cast<const poplar::Target &, const Sequences &, unsigned, unsigned, unsigned, unsigned>(
            &splitRegionsBetweenWorkers),
        py::arg("target"), py::arg("regions"), py::arg("grainSize"), minPerPartition, maxPerPartition, maxPerRegion);
  m.def("balancedPartition", &balancedPartition, py::arg("rangeUpperBound"), py::arg("splitCount"));
  m.def("calculateUnshufflingIntervals", &calculateUnshufflingIntervals, py::arg("intervals"));
  m.def("castToDeviceHalfValue", &castToDeviceHalfValue, py::arg("target"), py::arg("input"));
  m.def("checkAccuracyWhenCast", &checkAccuracyWhenCast, py::arg("target"), py::arg("input"), py::arg("inputType"),
        py::arg("outputType"), py::arg("tolerance"));
  m.def("factorDims", &factorDims, py::arg("t"), py::arg("factors"), py::arg("startDim") = 0);
  m.def("unfactorDims", &unfactorDims, py::arg("t"), py::arg("numDims"), py::arg("startDim") = 0);

  // C++ rebinds its reference arguments; Python gets the broadcast views back.
  m.def("broadcastToMatch", [](Tensor a, const std::vector<std::size_t> &shape) {
    broadcastToMatch(a, shape);
    return a;
  }, py::arg("a"), py::arg("shape"));
  m.def("broadcastToMatch", [](Tensor a, Tensor b) {
    broadcastToMatch(a, b);
    return py::make_tuple(a, b);
  }, py::arg("a"), py::arg("b"));
  m.def("broadcastToMatch", [](Tensor a, Tensor b, Tensor c) {
    broadcastToMatch(a, b, c);
    return py::make_tuple(a, b, c);
  }, py::arg("a"), py::arg("b"), py::arg("c"));
  m.def("expandToMatchRanks", [](Tensor a, Tensor b) {
    expandToMatchRanks(a, b);
    return py::make_tuple(a, b);
  }, py::arg("a"), py::arg("b"));
  m.def("canBroadcastToMatch", &canBroadcastToMatch, py::arg("a"), py::arg("b"));
  m.def("duplicate", &duplicate, py::arg("graph"), py::arg("src"), py::arg("prog"),
        py::arg("debugContext") = poplar::DebugContext(),
        py::arg_v("method", poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES,
                                      "poplar.TensorCloneMethod.PRESERVE_ORDER_UNLESS_ALIASES"));
  m.def("cloneN", &poputil::cloneN, py::arg("graph"), py::arg("t"), py::arg("N"),
        py::arg("debugContext") = poplar::DebugContext(),
        py::arg_v("method", poplar::TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES,
                                      "poplar.TensorCloneMethod.PRESERVE_ORDER_UNLESS_ALIASES"));

  // Arguments are typed at run time in Python: each is named as C++ templateVertex names
  // it, and bound enums by their C++ scope (popdsl._core.popops.expr -> popops::expr).
  m.def("templateVertex", [](const std::string &name, py::args args) {
    std::string params;
    for (py::handle a : args) {
      std::string text;
      const py::handle cls = py::type::of(a);
      if (py::isinstance<poplar::Type>(a)) text = std::string(a.cast<poplar::Type>().toString());
      else if (py::isinstance<py::bool_>(a)) text = a.cast<bool>() ? "true" : "false";
      else if (py::hasattr(cls, "__members__")) {
        std::string scope = cls.attr("__module__").cast<std::string>();
        const std::string root = "_core.";
        const auto at = scope.find(root);
        scope = at == std::string::npos ? "" : scope.substr(at + root.size());
        for (std::size_t dot; (dot = scope.find('.')) != std::string::npos;) scope.replace(dot, 1, "::");
        text = (scope.empty() ? "" : scope + "::") + cls.attr("__name__").cast<std::string>() +
               "::" + a.attr("name").cast<std::string>();
      } else if (py::isinstance<py::int_>(a) || py::isinstance<py::str>(a)) text = py::str(a);
      else
        throw py::type_error("templateVertex: cannot name a template argument of type " +
                             cls.attr("__name__").cast<std::string>() +
                             " (expected a poplar Type, bool, int, str or bound enum)");
      params += (params.empty() ? "<" : ",") + text;
    }
    return params.empty() ? name : name + params + ">";
  }, py::arg("name"));
}

} // namespace popdsl_bindings
