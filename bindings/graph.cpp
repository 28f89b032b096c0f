// poplar::Graph, with numpy arrays for constant and initial values.
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

#include <sstream>

#include "bindings.hpp"

namespace popdsl_bindings {

namespace {

// Calls fn(typed pointer, count) with host data in the closest C++ type, or
// with uint16 bits for float16 (passed as `half`).
template <class Fn> void withHostValues(py::handle values, Fn fn) {
  py::array arr = py::array::ensure(values, py::array::c_style);
  if (!arr) throw py::type_error("values must be a number, a sequence or a numpy array");
  const std::size_t n = static_cast<std::size_t>(arr.size());
  const char kind = arr.dtype().kind();
  const auto size = arr.itemsize();
  const void *p = arr.data();
  if (kind == 'f' && size == 2) fn(static_cast<const std::uint16_t *>(p), n, true);
  else if (kind == 'f' && size == 4) fn(static_cast<const float *>(p), n, false);
  else if (kind == 'f' && size == 8) fn(static_cast<const double *>(p), n, false);
  else if (kind == 'b') fn(static_cast<const bool *>(p), n, false);
  else if (kind == 'i' && size == 1) fn(static_cast<const std::int8_t *>(p), n, false);
  else if (kind == 'i' && size == 2) fn(static_cast<const std::int16_t *>(p), n, false);
  else if (kind == 'i' && size == 4) fn(static_cast<const std::int32_t *>(p), n, false);
  else if (kind == 'i' && size == 8) fn(static_cast<const std::int64_t *>(p), n, false);
  else if (kind == 'u' && size == 1) fn(static_cast<const std::uint8_t *>(p), n, false);
  else if (kind == 'u' && size == 2) fn(static_cast<const std::uint16_t *>(p), n, false);
  else if (kind == 'u' && size == 4) fn(static_cast<const std::uint32_t *>(p), n, false);
  else if (kind == 'u' && size == 8) fn(static_cast<const std::uint64_t *>(p), n, false);
  else throw py::type_error("unsupported numpy dtype for tensor values: " + std::string(py::str(arr.dtype())));
}

std::size_t product(const std::vector<std::size_t> &shape) {
  std::size_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

void checkCount(std::size_t given, std::size_t expected, const std::string &what) {
  if (given != 1 && given != expected)
    throw py::value_error(what + ": " + std::to_string(given) + " values given for " +
                          std::to_string(expected) + " elements");
}

} // namespace

void bindGraph(py::module_ &m) {
  using namespace poplar;
  checkedEnum<VariableMappingMethod>(m, "VariableMappingMethod")
      .value("NONE", VariableMappingMethod::NONE)
      .value("LINEAR", VariableMappingMethod::LINEAR);
  checkedEnum<TensorCloneMethod>(m, "TensorCloneMethod")
      .value("PRESERVE_ORDER_AND_ALIASES", TensorCloneMethod::PRESERVE_ORDER_AND_ALIASES)
      .value("CREATE_NEW_ORDER", TensorCloneMethod::CREATE_NEW_ORDER)
      .value("PRESERVE_ORDER_UNLESS_ALIASES", TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES)
      .value("GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES", TensorCloneMethod::GATHER_AND_PRESERVE_TILE_ORDER_AND_ALIASES);
  checkedEnum<TensorCloneDuplicationMethod>(m, "TensorCloneDuplicationMethod")
      .value("DUPLICATE_BY_OUTER_DIMENSION", TensorCloneDuplicationMethod::DUPLICATE_BY_OUTER_DIMENSION)
      .value("DUPLICATE_BY_TILE_CONTIGUOUS_REGION", TensorCloneDuplicationMethod::DUPLICATE_BY_TILE_CONTIGUOUS_REGION);
  checkedEnum<DataStreamType>(m, "DataStreamType")
      .value("HostToDeviceFIFO", DataStreamType::HostToDeviceFIFO)
      .value("DeviceToHostFIFO", DataStreamType::DeviceToHostFIFO)
      .value("HostToDeviceBuffer", DataStreamType::HostToDeviceBuffer)
      .value("DeviceToHostBuffer", DataStreamType::DeviceToHostBuffer);
  checkedEnum<ReplicatedStreamMode>(m, "ReplicatedStreamMode")
      .value("REPLICATE", ReplicatedStreamMode::REPLICATE)
      .value("BROADCAST", ReplicatedStreamMode::BROADCAST);

  checkedEnum<SerializationFormat>(m, "SerializationFormat")
      .value("Binary", SerializationFormat::Binary)
      .value("JSON", SerializationFormat::JSON);
  // Lambdas rather than member pointers: they hold whichever const-ness the SDK gives.
  py::class_<TensorRearranger>(m, "TensorRearranger")
      .def(py::init<>())
      .def("rearrange", [](TensorRearranger &r, const Tensor &t) { return r.rearrange(t); }, py::arg("t"))
      .def("rearrange", [](TensorRearranger &r, const std::vector<Interval> &intervals) { return r.rearrange(intervals); },
           py::arg("intervals"))
      .def("undoRearrangement", [](TensorRearranger &r, const Tensor &t) { return r.undoRearrangement(t); },
           py::arg("t"))
      .def("undoRearrangement",
           [](TensorRearranger &r, const std::vector<Interval> &intervals) { return r.undoRearrangement(intervals); },
           py::arg("intervals"))
      .def("valid", &TensorRearranger::valid);

  py::class_<DataStream>(m, "DataStream")
      .def("handle", &DataStream::handle)
      .def("numElements", &DataStream::numElements)
      .def("elementType", &DataStream::elementType)
      .def("type", &DataStream::type)
      .def("replicationFactor", &DataStream::replicationFactor)
      .def("replicatedMode", &DataStream::replicatedMode)
      .def("__repr__", [](const DataStream &s) {
        return "<poplar.DataStream '" + s.handle() + "' " + std::to_string(s.numElements()) + " x " +
               s.elementType().toString().str() + ">";
      });
  py::class_<RemoteBuffer>(m, "RemoteBuffer")
      .def("handle", &RemoteBuffer::handle)
      .def("numElements", &RemoteBuffer::numElements)
      .def("getRepeats", &RemoteBuffer::getRepeats)
      .def("elementType", &RemoteBuffer::elementType)
      .def("isRearrangeOnHost", &RemoteBuffer::isRearrangeOnHost)
      .def("isOptimisedForMemory", &RemoteBuffer::isOptimisedForMemory)
      .def("getHostToIpuStream", &RemoteBuffer::getHostToIpuStream)
      .def("getIpuToHostStream", &RemoteBuffer::getIpuToHostStream)
      .def("__eq__", [](const RemoteBuffer &a, const RemoteBuffer &b) { return a == b; })
      .def("__hash__", [](const RemoteBuffer &b) { return std::hash<std::string>()(b.handle()); })
      .def("__repr__", [](const RemoteBuffer &b) {
        return "<poplar.RemoteBuffer '" + b.handle() + "' " + std::to_string(b.getRepeats()) + " x " +
               std::to_string(b.numElements()) + " x " + b.elementType().toString().str() + ">";
      });
  py::class_<ComputeSet>(m, "ComputeSet").def(py::init<unsigned>()).def("getId", &ComputeSet::getId);
  py::class_<Function>(m, "Function").def(py::init<unsigned>()).def("getId", &Function::getId);
  checkedEnum<poplar::FunctionBufferMappingType>(m, "FunctionBufferMappingType")
      .value("REMOTE", poplar::FunctionBufferMappingType::REMOTE);
  py::class_<poplar::FunctionBuffer>(m, "FunctionBuffer")
      .def(py::init<unsigned>())
      .def("getId", &poplar::FunctionBuffer::getId)
      .def("__eq__", [](const poplar::FunctionBuffer &a, const poplar::FunctionBuffer &b) { return a == b; })
      .def("__hash__", [](const poplar::FunctionBuffer &b) { return b.getId(); });
  py::class_<poplar::HostFunction>(m, "HostFunction")
      .def(py::init<unsigned>())
      .def("getId", &poplar::HostFunction::getId);

  // Streams are recorded on the Python object so Engine callbacks know their element type.
  auto recordStream = [](py::object self, const DataStream &s) {
    if (!py::hasattr(self, "_streams")) self.attr("_streams") = py::dict();
    self.attr("_streams")[py::str(s.handle())] = s;
    return s;
  };
  // A virtual graph records its streams, host functions and remote buffers where its
  // top-level graph does, so an Engine of either sees them all. (`_parent`, not
  // keep_alive, which crashes when a call fails to match an overload's arguments.)
  auto shareRecords = [](Graph &graph, Graph virtualGraph) {
    py::object self = py::cast(&graph, py::return_value_policy::reference);
    py::object out = py::cast(std::move(virtualGraph));
    out.attr("_parent") = self; // keeps the graph it was made from alive
    for (const char *records : {"_streams", "_hostFunctions", "_remoteBuffers"}) {
      if (!py::hasattr(self, records)) self.attr(records) = py::dict();
      out.attr(records) = self.attr(records);
    }
    return out;
  };
  py::class_<poplar::replication_factor>(m, "replication_factor")
      .def(py::init<unsigned>(), py::arg("n"))
      .def("__int__", [](const poplar::replication_factor &r) { return unsigned(r); });
  py::class_<Graph>(m, "Graph", py::dynamic_attr())
      .def(py::init<const Target &>(), py::arg("target"))
      .def(py::init<const Device &>(), py::arg("device"))
      .def(py::init<const Target &, poplar::replication_factor>(), py::arg("target"), py::arg("r"))
      .def(py::init<const Device &, poplar::replication_factor>(), py::arg("device"), py::arg("r"))
      .def("getTarget", &Graph::getTarget, py::return_value_policy::copy)
      .def("getReplicationFactor", &Graph::getReplicationFactor)
      .def("addReplicationIndexConstant", &Graph::addReplicationIndexConstant,
           py::arg("debugContext") = DebugContext())
      .def("addVariable",
           py::overload_cast<const Type &, ArrayRef<std::size_t>, const DebugContext &>(&Graph::addVariable),
           py::arg("type"), py::arg("shape"), py::arg("debugContext") = DebugContext())
      .def("addVariable",
           py::overload_cast<const Type &, ArrayRef<std::size_t>, VariableMappingMethod, const DebugContext &>(&Graph::addVariable),
           py::arg("type"), py::arg("shape"), py::arg("mappingMethod"), py::arg("debugContext") = DebugContext())
      .def("addConstant",
           [](Graph &g, const Type &type, std::vector<std::size_t> shape, py::handle values,
              const DebugContext &dc) {
             Tensor out;
             withHostValues(values, [&](auto *data, std::size_t n, bool half) {
               checkCount(n, product(shape), "addConstant '" + dc.getPathName() + "'");
               using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
               if constexpr (std::is_same<T, std::uint16_t>::value) {
                 if (half) {
                   out = n == 1 ? g.addConstantHalf(type, shape, data[0], dc) : g.addConstantHalf(type, shape, data, dc);
                   if (type != HALF) throw py::type_error("float16 values need type HALF");
                   return;
                 }
               }
               out = n == 1 ? g.addConstant<T>(type, shape, data[0], dc)
                            : g.addConstant<T>(type, shape, ArrayRef<T>(data, n), dc);
             });
             return out;
           },
           py::arg("type"), py::arg("shape"), py::arg("values"), py::arg("debugContext") = DebugContext(),
           "A constant from a scalar (broadcast to the shape) or one value per element")
      .def("clone", py::overload_cast<const Tensor &, const DebugContext &, TensorCloneMethod>(&Graph::clone),
           py::arg("t"), py::arg("debugContext") = DebugContext(),
           py::arg_v("method", TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES, "TensorCloneMethod.PRESERVE_ORDER_UNLESS_ALIASES"))
      .def("clone", py::overload_cast<const Type &, const Tensor &, const DebugContext &, TensorCloneMethod>(&Graph::clone),
           py::arg("type"), py::arg("t"), py::arg("debugContext") = DebugContext(),
           py::arg_v("method", TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES, "TensorCloneMethod.PRESERVE_ORDER_UNLESS_ALIASES"))
      .def("cloneN",
           py::overload_cast<const Tensor &, std::size_t, const DebugContext &, TensorCloneMethod, TensorCloneDuplicationMethod>(&Graph::cloneN),
           py::arg("t"), py::arg("N"), py::arg("debugContext") = DebugContext(),
           py::arg_v("method", TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES, "TensorCloneMethod.PRESERVE_ORDER_UNLESS_ALIASES"),
           py::arg_v("duplicationMethod", TensorCloneDuplicationMethod::DUPLICATE_BY_OUTER_DIMENSION,
                    "TensorCloneDuplicationMethod.DUPLICATE_BY_OUTER_DIMENSION"))
      .def("cloneN",
           py::overload_cast<const Type &, const Tensor &, std::size_t, const DebugContext &, TensorCloneMethod, TensorCloneDuplicationMethod>(&Graph::cloneN),
           py::arg("type"), py::arg("t"), py::arg("N"), py::arg("debugContext") = DebugContext(),
           py::arg_v("method", TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES, "TensorCloneMethod.PRESERVE_ORDER_UNLESS_ALIASES"),
           py::arg_v("duplicationMethod", TensorCloneDuplicationMethod::DUPLICATE_BY_OUTER_DIMENSION,
                    "TensorCloneDuplicationMethod.DUPLICATE_BY_OUTER_DIMENSION"))
      .def("setTileMapping", py::overload_cast<const Tensor &, unsigned>(&Graph::setTileMapping),
           py::arg("t"), py::arg("tileNum"))
      .def("setTileMapping", py::overload_cast<const Tensor &, const TileToTensorMapping &>(&Graph::setTileMapping),
           py::arg("t"), py::arg("mapping"))
      .def("getTileMapping", py::overload_cast<const Tensor &, bool, bool>(&Graph::getTileMapping, py::const_),
           py::arg("t"), py::arg("requireComplete") = true, py::arg("allowExternal") = false)
      .def("getTopLevelGraph", &Graph::getTopLevelGraph, py::return_value_policy::reference_internal)
      .def("createVirtualGraph",
           [shareRecords](Graph &self, const std::vector<unsigned> &perIpuTiles) {
             return shareRecords(self, self.createVirtualGraph(perIpuTiles));
           },
           py::arg("perIpuTiles"))
      .def("createVirtualGraph",
           [shareRecords](Graph &self, unsigned numTilesPerIPU) {
             return shareRecords(self, self.createVirtualGraph(numTilesPerIPU));
           },
           py::arg("numTilesPerIPU"))
      .def("createVirtualGraph",
           [shareRecords](Graph &self, unsigned lowerTile, unsigned upperTile) {
             return shareRecords(self, self.createVirtualGraph(lowerTile, upperTile));
           },
           py::arg("lowerTile"), py::arg("upperTile"))
      .def("convertVirtualTileToPhysicalTile", &Graph::convertVirtualTileToPhysicalTile, py::arg("virtualTileId"))
      .def("convertPhysicalTileToVirtualTile", &Graph::convertPhysicalTileToVirtualTile, py::arg("physicalTileId"))
      .def("getSortedContiguousRegions",
           [](Graph &g, const Tensor &t, const std::vector<Interval> &regions, bool removeAliasedIntervals) {
             std::vector<std::size_t> aliases;
             auto sorted = g.getSortedContiguousRegions(t, regions, removeAliasedIntervals, &aliases);
             return py::make_tuple(sorted, aliases);
           },
           py::arg("t"), py::arg("regions"), py::arg("removeAliasedIntervals") = false,
           "(the regions grouped by contiguous memory in memory order, the positions of aliased elements left out)")
      .def("getSimplifyingRearranger", &Graph::getSimplifyingRearranger, py::arg("t"))
      .def("reorderToSimplify",
           [](Graph &g, Tensor t, std::vector<Tensor> others, bool requireSimplestOrder) {
             std::vector<Tensor *> pointers;
             for (Tensor &o : others) pointers.push_back(&o);
             g.reorderToSimplify(&t, pointers, requireSimplestOrder);
             return py::make_tuple(t, others);
           },
           py::arg("t"), py::arg("others") = std::vector<Tensor>(), py::arg("requireSimplestOrder") = true,
           "(t reordered, the others reordered the same way): Python tensors are values, so they are returned")
      .def("findUnbroadcastTensor", &Graph::findUnbroadcastTensor, py::arg("t"))
      .def("outputComputeGraph",
           [](Graph &g, py::handle progs) {
             std::ostringstream out;
             g.outputComputeGraph(out, progs.is_none() ? std::vector<program::Program>() : programList(progs, "outputComputeGraph"));
             return out.str();
           },
           py::arg("progs") = py::none(), "the dump as a string")
      .def("serializeTensors",
           [](Graph &g, const std::vector<Tensor> &tensors, SerializationFormat format) {
             std::ostringstream out;
             g.serializeTensors(out, tensors, format);
             return py::bytes(out.str());
           },
           py::arg("tensors"), py::arg("format"), "the serialized tensors as bytes")
      .def("deserializeTensors",
           [](Graph &g, const py::bytes &data, SerializationFormat format) {
             std::istringstream in(std::string(data), std::ios::binary);
             return g.deserializeTensors(in, format);
           },
           py::arg("data"), py::arg("format"))
      .def("setInitialValue",
           [](Graph &g, const Tensor &t, py::handle values) {
             withHostValues(values, [&](auto *data, std::size_t n, bool half) {
               checkCount(n, t.numElements(), "setInitialValue");
               using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
               if constexpr (std::is_same<T, std::uint16_t>::value) {
                 if (half) {
                   std::vector<std::uint16_t> bits(data, data + n);
                   if (n == 1) bits.assign(t.numElements(), data[0]);
                   g.setInitialValueHalf(t, bits);
                   return;
                 }
               }
               if (n == 1) g.setInitialValue<T>(t, data[0]);
               else g.setInitialValue<T>(t, ArrayRef<T>(data, n));
             });
           },
           py::arg("t"), py::arg("values"))
      .def("addHostToDeviceFIFO",
           [recordStream](py::object self, const std::string &handle, const Type &type, std::size_t n,
                          ReplicatedStreamMode mode, const OptionFlags &options) {
             return recordStream(self, self.cast<Graph &>().addHostToDeviceFIFO(handle, type, n, mode, options));
           },
           py::arg("handle"), py::arg("elementType"), py::arg("numElements"),
           py::arg_v("mode", ReplicatedStreamMode::REPLICATE, "ReplicatedStreamMode.REPLICATE"), py::arg("options") = OptionFlags())
      .def("addDeviceToHostFIFO",
           [recordStream](py::object self, const std::string &handle, const Type &type, std::size_t n,
                          const OptionFlags &options) {
             return recordStream(self, self.cast<Graph &>().addDeviceToHostFIFO(handle, type, n, options));
           },
           py::arg("handle"), py::arg("elementType"), py::arg("numElements"), py::arg("options") = OptionFlags())
      .def("addFunctionBuffer", &Graph::addFunctionBuffer, py::arg("function"), py::arg("mappingType"))
      .def("addRemoteBuffer",
           [](py::object self, const std::string &handle, const Type &type, std::size_t numElements,
              std::size_t repeats, bool rearrangeOnHost, bool optimiseMemory) {
             RemoteBuffer b = self.cast<Graph &>().addRemoteBuffer(handle, type, numElements, repeats,
                                                                   rearrangeOnHost, optimiseMemory);
             // Recorded like streams: an Engine checks host buffers against it.
             if (!py::hasattr(self, "_remoteBuffers")) self.attr("_remoteBuffers") = py::dict();
             self.attr("_remoteBuffers")[py::str(handle)] = b;
             return b;
           },
           py::arg("handle"), py::arg("elementType"), py::arg("numElements"), py::arg("repeats") = 1,
           py::arg("rearrangeOnHost") = false, py::arg("optimiseMemory") = false)
      .def("createHostWrite", &Graph::createHostWrite, py::arg("handle"), py::arg("t"),
           py::arg("rearrangeOnHost") = false)
      .def("createHostRead", &Graph::createHostRead, py::arg("handle"), py::arg("t"),
           py::arg("rearrangeOnHost") = false)
      .def("addComputeSet", &Graph::addComputeSet, py::arg("debugContext") = DebugContext())
      .def("addHostFunction",
           [](py::object self, const std::string &handle, const std::vector<HostFunctionArgument> &ins,
              const std::vector<HostFunctionArgument> &outs) {
             auto f = self.cast<Graph &>().addHostFunction(handle, ins, outs);
             // Recorded like streams: an Engine needs the argument types to make numpy arrays.
             if (!py::hasattr(self, "_hostFunctions")) self.attr("_hostFunctions") = py::dict();
             self.attr("_hostFunctions")[py::str(handle)] = py::make_tuple(ins, outs);
             return f;
           },
           py::arg("handle"), py::arg("inputs"), py::arg("outputs"), "inputs/outputs: lists of (Type, element count)")
      .def("getVariable", &Graph::getVariable, py::arg("v"))
      .def("isConstant", &Graph::isConstant, py::arg("v"));
}

} // namespace popdsl_bindings
