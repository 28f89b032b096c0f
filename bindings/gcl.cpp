// gcl: collectives between the replicas of a replicated graph (gcl/Collectives.hpp).
#include <gcl/Collectives.hpp>

#include "backend.hpp"
#include "bindings.hpp"

namespace popdsl_bindings {

void bindGcl(py::module_ &m) {
  using namespace gcl;
  using poplar::Graph;
  using poplar::Tensor;
  using poplar::program::Sequence;
  using PD = const poplar::DebugContext &;
  using PO = const poplar::OptionFlags &;
  const auto dc = py::arg("debugContext") = poplar::DebugContext();
  const auto options = py::arg("options") = poplar::OptionFlags();
  const auto graph = py::arg("graph"), data = py::arg("data"), op = py::arg("op"), prog = py::arg("prog"),
             group = py::arg("group");

  checkedEnum<CollectiveOperator>(m, "CollectiveOperator")
      .value("ADD", CollectiveOperator::ADD)
      .value("MEAN", CollectiveOperator::MEAN)
      .value("MUL", CollectiveOperator::MUL)
      .value("MIN", CollectiveOperator::MIN)
      .value("MAX", CollectiveOperator::MAX)
      .value("LOGICAL_AND", CollectiveOperator::LOGICAL_AND)
      .value("LOGICAL_OR", CollectiveOperator::LOGICAL_OR)
      .value("SQUARE_ADD", CollectiveOperator::SQUARE_ADD)
      .value("LOCAL", CollectiveOperator::LOCAL);
  checkedEnum<CommGroupType>(m, "CommGroupType")
      .value("ALL", CommGroupType::ALL)
      .value("CONSECUTIVE", CommGroupType::CONSECUTIVE)
      .value("ORTHOGONAL", CommGroupType::ORTHOGONAL);
  py::class_<CommGroup>(m, "CommGroup")
      .def(py::init<>())
      .def(py::init<CommGroupType, unsigned, unsigned>(), py::arg("groupType"), py::arg("groupSize"),
           py::arg("replicaStride") = 1)
      .def_readwrite("type", &CommGroup::type)
      .def_readwrite("replicaGroupSize", &CommGroup::replicaGroupSize)
      .def_readwrite("replicaStride", &CommGroup::replicaStride);

  m.def("allReduceCrossReplica",
        py::overload_cast<Graph &, const Tensor &, CollectiveOperator, Sequence &, const CommGroup &, PD, PO>(
            &allReduceCrossReplica),
        graph, data, op, prog, group, dc, options);
  m.def("allReduceCrossReplica",
        py::overload_cast<Graph &, const Tensor &, CollectiveOperator, Sequence &, PD, PO>(&allReduceCrossReplica),
        graph, data, op, prog, dc, options);
  m.def("allReduceCrossReplica",
        py::overload_cast<Graph &, const std::vector<Tensor> &, CollectiveOperator, Sequence &, const CommGroup &,
                          PD, PO>(&allReduceCrossReplica),
        graph, py::arg("datas"), op, prog, group, dc, options);
  m.def("allReduceInPlaceCrossReplica",
        [](Graph &g, Tensor data, CollectiveOperator o, Sequence &p, const CommGroup &grp, PD d, PO opts) {
          allReduceInPlaceCrossReplica(g, data, o, p, grp, d, opts);
        },
        graph, data, op, prog, group, dc, options);
  m.def("allReduceInPlaceCrossReplica",
        [](Graph &g, Tensor data, CollectiveOperator o, Sequence &p, PD d, PO opts) {
          allReduceInPlaceCrossReplica(g, data, o, p, d, opts);
        },
        graph, data, op, prog, dc, options);
  m.def("allReduceToDestinationCrossReplica",
        [](Graph &g, const Tensor &in, Tensor destination, CollectiveOperator o, Sequence &p, const CommGroup &grp,
           PD d, PO opts) { allReduceToDestinationCrossReplica(g, in, destination, o, p, grp, d, opts); },
        graph, data, py::arg("destination"), op, prog, group, dc, options);
  m.def("reduceScatterCrossReplica",
        py::overload_cast<Graph &, const Tensor &, CollectiveOperator, Sequence &, const CommGroup &, PD, PO>(
            &reduceScatterCrossReplica),
        graph, data, op, prog, group, dc, options);
  m.def("reduceScatterCrossReplica",
        py::overload_cast<Graph &, const Tensor &, CollectiveOperator, Sequence &, PD, PO>(&reduceScatterCrossReplica),
        graph, data, op, prog, dc, options);
  m.def("allGatherCrossReplica",
        py::overload_cast<Graph &, const Tensor &, Sequence &, const CommGroup &, PD, PO>(&allGatherCrossReplica),
        graph, data, prog, group, dc, options);
  m.def("allGatherCrossReplica",
        py::overload_cast<Graph &, const Tensor &, Sequence &, PD, PO>(&allGatherCrossReplica), graph, data, prog,
        dc, options);
  m.def("allToAllCrossReplica",
        py::overload_cast<Graph &, const Tensor &, Sequence &, const CommGroup &, PD, PO>(&allToAllCrossReplica),
        graph, data, prog, group, dc, options);
  m.def("allToAllCrossReplica",
        py::overload_cast<Graph &, const Tensor &, Sequence &, PD, PO>(&allToAllCrossReplica), graph, data, prog,
        dc, options);
  m.def("broadcastCrossReplica", &backend::broadcastCrossReplica, graph, data, prog, py::arg_v("group", CommGroup(), "CommGroup()"),
        py::arg("rootReplica") = 0u, dc, options);
}

} // namespace popdsl_bindings
