#pragma once
#include <cassert>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <iosfwd> // std::stringstream for addCodelets, streams for the dumps and serialization
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>
// Not used here: standard headers that programs written for the SDK use without including,
// because the SDK's and poplibs' headers bring them in (tests/python/test_sdk_headers.py).
#include <algorithm>
#include <array>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>
#if __cplusplus >= 201703L
#include <optional> // SDK-era programs use std::optional after including only Poplar headers
#endif

#include <poplar/ArrayRef.hpp>
#include <poplar/CodeletFileType.hpp>
#include <poplar/DataStream.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Device.hpp>
#include <poplar/FunctionBufferMappingType.hpp>
#include <poplar/GraphElements.hpp>
#include <poplar/Interval.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/PerfEstimateFunc.hpp>
#include <poplar/SerializationFormat.hpp>
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/TensorCloneMethod.hpp>
#include <poplar/TensorRearranger.hpp>
#include <poplar/Type.hpp>
#include <poplar/TypeTraits.hpp>
#include <poplar/VariableMappingMethod.hpp>
#include <poplar/exceptions.hpp>

namespace poplar {

namespace program {
class Program;
}
namespace detail {
struct GraphState;
struct Internals;
struct VirtualTiles;
} // namespace detail

// The element type and count of one host function argument.
using HostFunctionArgument = std::tuple<Type, std::size_t>;

// Index: tile; value: intervals of the flattened tensor mapped to that tile.
using TileToTensorMapping = std::vector<std::vector<Interval>>;

class replication_factor {
public:
  explicit replication_factor(unsigned n) : n_(n) {}
  operator unsigned() const { return n_; }

private:
  unsigned n_;
};

class Graph {
public:
  using TileToTensorMapping = poplar::TileToTensorMapping;
  Graph();
  explicit Graph(const Target &target, replication_factor r = replication_factor(1));
  explicit Graph(const Device &device, replication_factor r = replication_factor(1));
  ~Graph();
  Graph(Graph &&) noexcept;
  Graph &operator=(Graph &&) noexcept;

  // A replicated graph's target is one replica's: the device's IPUs divided by the
  // replication factor.
  const Target &getTarget() const;
  unsigned getReplicationFactor() const;
  // A scalar UNSIGNED_INT constant holding each replica's own index (map it to a tile).
  Tensor addReplicationIndexConstant(const DebugContext &debugContext = {});
  // The graph this one is part of: itself, or the graph a virtual graph was made from.
  Graph &getTopLevelGraph();

  // ---- Virtual graphs ---------------------------------------------------------
  // The same graph (variables, compute sets, functions, streams) seen through some of
  // its tiles, numbered from 0: tensors and vertices it maps go to those tiles, and its
  // target has only them. Programs built with either run in the top-level graph's Engine.
  // The first numTilesPerIPU tiles of each IPU.
  Graph createVirtualGraph(unsigned numTilesPerIPU);
  // Tiles [lowerTile, upperTile): within one IPU, or whole IPUs.
  Graph createVirtualGraph(unsigned lowerTile, unsigned upperTile);
  // Tiles perIpuTiles (indices within an IPU) of each IPU.
  Graph createVirtualGraph(const std::vector<unsigned> &perIpuTiles);
  // A tile of this graph as a tile of the top-level graph (the emulator's tiles are
  // physical), and back.
  unsigned convertVirtualTileToPhysicalTile(unsigned virtualTileId) const;
  unsigned convertPhysicalTileToVirtualTile(unsigned physicalTileId) const;

  Tensor addVariable(const Type &type, ArrayRef<std::size_t> shape,
                     const DebugContext &debugContext = {});
  Tensor addVariable(const Type &type, ArrayRef<std::size_t> shape,
                     VariableMappingMethod mappingMethod, const DebugContext &debugContext = {});
  // A quarter variable whose format and scale are the one-element QUARTER_METADATA
  // tensor `metadata` (MetadataCreation.hpp); without one (or with a null pointer), a
  // quarter variable gets a metadata variable of its own, mapped to tile 0.
  Tensor addVariable(const Type &type, const Tensor &metadata, ArrayRef<std::size_t> shape,
                     const DebugContext &debugContext = {});
  Tensor addVariable(const Type &type, const Tensor &metadata, ArrayRef<std::size_t> shape,
                     VariableMappingMethod mappingMethod, const DebugContext &debugContext = {});
  Tensor addVariable(const Type &type, const Tensor *metadata, ArrayRef<std::size_t> shape,
                     const DebugContext &debugContext = {});
  Tensor addVariable(const Type &type, const Tensor *metadata, ArrayRef<std::size_t> shape,
                     VariableMappingMethod mappingMethod, const DebugContext &debugContext = {});

  // A constant holding `values` (one per element) or one `value` broadcast to the shape.
  template <class T>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, ArrayRef<T> values,
                     const DebugContext &debugContext = {}) {
    checkHostValueCount(shape, values.size(), debugContext);
    return addConstantFromHost(type, shape, values.data(), equivalentHostType<T>(),
                               values.size(), debugContext);
  }
  template <class T>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, const T *values,
                     const DebugContext &debugContext = {}) {
    return addConstantFromHost(type, shape, values, equivalentHostType<T>(),
                               numElementsOf(shape), debugContext);
  }
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, T value,
                     const DebugContext &debugContext = {}) {
    return addConstantFromHost(type, shape, &value, equivalentHostType<T>(), 1, debugContext);
  }
  // A constant from host values of the type `traits` describes: one per element,
  // or (broadcast) one value for every element.
  Tensor addConstant(const Type &type, ArrayRef<std::size_t> shape, const void *data,
                     const TypeTraits &traits, bool broadcast, const DebugContext &debugContext = {});
  Tensor addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, const uint16_t *data,
                         const DebugContext &debugContext = {});
  Tensor addConstantHalf(const Type &type, ArrayRef<std::size_t> shape, uint16_t value,
                         const DebugContext &debugContext = {});

  Tensor clone(const Tensor &t, const DebugContext &debugContext = {},
               TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
  Tensor clone(const Type &type, const Tensor &t, const DebugContext &debugContext = {},
               TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES);
  Tensor cloneN(const Tensor &t, std::size_t N, const DebugContext &debugContext = {},
                TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES,
                TensorCloneDuplicationMethod duplicationMethod =
                    TensorCloneDuplicationMethod::DUPLICATE_BY_OUTER_DIMENSION);
  Tensor cloneN(const Type &type, const Tensor &t, std::size_t N,
                const DebugContext &debugContext = {},
                TensorCloneMethod method = TensorCloneMethod::PRESERVE_ORDER_UNLESS_ALIASES,
                TensorCloneDuplicationMethod duplicationMethod =
                    TensorCloneDuplicationMethod::DUPLICATE_BY_OUTER_DIMENSION);

  void setTileMapping(const Tensor &t, unsigned tileNum);
  void setTileMapping(const Tensor &t, const TileToTensorMapping &mapping);
  // `allowExternal` admits external variables; the emulator has none, so it changes nothing.
  // In a virtual graph, elements on tiles outside it count as unmapped.
  TileToTensorMapping getTileMapping(const Tensor &t, bool requireComplete = true,
                                     bool allowExternal = false) const;
  TileToTensorMapping getTileMapping(const Tensor &t, bool *isComplete, bool allowExternal = false) const;
  TileToTensorMapping getVariableTileMapping(const Tensor &t) const;

  template <class T> void setInitialValue(const Tensor &t, ArrayRef<T> values) {
    checkHostValueCount(t.shape(), values.size(), {});
    setInitialValueFromHost(t, values.data(), equivalentHostType<T>(), values.size());
  }
  template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
  void setInitialValue(const Tensor &t, T value) {
    setInitialValueFromHost(t, &value, equivalentHostType<T>(), 1);
  }
  void setInitialValueHalf(const Tensor &t, uint16_t value);
  void setInitialValueHalf(const Tensor &t, ArrayRef<uint16_t> values);

  DataStream addHostToDeviceFIFO(StringRef handle, const Type &elementType,
                                 std::size_t numElements,
                                 ReplicatedStreamMode mode = ReplicatedStreamMode::REPLICATE,
                                 const OptionFlags &options = {});
  DataStream addDeviceToHostFIFO(StringRef handle, const Type &elementType,
                                 std::size_t numElements, const OptionFlags &options = {});
  void createHostWrite(StringRef handle, const Tensor &t, bool rearrangeOnHost = false);
  void createHostRead(StringRef handle, const Tensor &t, bool rearrangeOnHost = false);
  // Off-chip memory of `repeats` rows of numElements elements each, copied to and from
  // tensors by program::Copy (one row, or rows chosen by an offset tensor).
  RemoteBuffer addRemoteBuffer(StringRef handle, const Type &elementType, std::size_t numElements,
                               std::size_t repeats = 1, bool rearrangeOnHost = false,
                               bool optimiseMemory = false);

  ComputeSet addComputeSet(const DebugContext &debugContext = {});
  Function addFunction(const program::Program &program);
  // A buffer holding `function`'s code (REMOTE: in remote memory). From then on the code
  // is not on the tiles until a program::Copy(buffer, function) loads it: calling the
  // function before any such load since the Engine was loaded is an error.
  FunctionBuffer addFunctionBuffer(const Function &function, FunctionBufferMappingType mappingType);
  // A host function `handle` taking arguments `in` and producing `out`; an Engine
  // connects it with Engine::connectHostFunction and programs call it with program::Call.
  HostFunction addHostFunction(StringRef handle, ArrayRef<HostFunctionArgument> in,
                               ArrayRef<HostFunctionArgument> out);

  // Host element types accepted by addConstant / setInitialValue.
  enum class HostType { Bool, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };

  // ---- Codelets and custom vertices ----------------------------------------
  // A field and what it connects to: a tensor, one tensor per element of a list
  // field ({"in", t}, {"data", std::vector<Tensor>{a, b}}), or a value of the
  // field's type ({"n", 3}, {"scale", 0.5f}): the initial value of a plain field,
  // a constant edge of an Input field.
  struct ConnectionDesc {
    ConnectionDesc(StringRef field, Tensor tensor) : field(field.str()), tensors(1, tensor), isList(false) {}
    ConnectionDesc(StringRef field, ArrayRef<Tensor> tensorList)
        : field(field.str()), tensors(tensorList.vec()), isList(true) {}
    template <class ValueType, class = typename std::enable_if<std::is_arithmetic<ValueType>::value>::type>
    ConnectionDesc(StringRef field, ValueType v)
        : field(field.str()), isList(false), isValue(true), valueType(equivalentHostType<ValueType>()) {
      static_assert(sizeof(ValueType) <= sizeof(value), "ConnectionDesc: value type too large");
      std::memcpy(value, &v, sizeof v);
    }
    std::string field;
    std::vector<Tensor> tensors;
    bool isList;
    bool isValue = false;
    HostType valueType = HostType::Bool;
    alignas(8) unsigned char value[8] = {}; // a ValueType, when isValue
  };

  // Compiles codelets (a C++ file, several, or source text) with the host C++
  // compiler and registers their vertex classes; compile errors raise
  // graph_program_compilation_error with the compiler's messages.
  bool addCodelets(StringRef src, CodeletFileType type = CodeletFileType::Auto,
                   StringRef compileFlags = "", StringRef targetName = "");
  // A std::string names one file: without this, it converts equally well to StringRef and
  // to a one-element ArrayRef<std::string>, and the call would be ambiguous.
  template <class S, typename std::enable_if<std::is_same<S, std::string>::value, int>::type = 0>
  bool addCodelets(const S &src, CodeletFileType type = CodeletFileType::Auto, StringRef compileFlags = "",
                   StringRef targetName = "") {
    return addCodelets(StringRef(src), type, compileFlags, targetName);
  }
  bool addCodelets(ArrayRef<std::string> srcs, StringRef compileFlags = "", StringRef targetName = "");
  bool addCodelets(std::stringstream &stream, StringRef compileFlags = "",
                   CodeletFileType type = CodeletFileType::CppSource, StringRef targetName = "");
  bool hasCodelet(StringRef vertexType) const;

  VertexRef addVertex(ComputeSet cs, StringRef vertexType);
  VertexRef addVertex(ComputeSet cs, StringRef vertexType, ArrayRef<ConnectionDesc> connections);
  void connect(FieldRef field, const Tensor &tensor);
  void connect(FieldRef field, ArrayRef<Tensor> tensors);
  // A constant edge holding `value`.
  template <class T>
  typename std::enable_if<std::is_arithmetic<T>::value>::type connect(FieldRef field, T value) {
    connectConstantFromHost(field, &value, equivalentHostType<T>());
  }
  void setFieldSize(FieldRef field, std::size_t size);
  std::size_t getFieldSize(FieldRef field) const;
  void setTileMapping(VertexRef v, unsigned tileNum);
  unsigned getTileMapping(VertexRef v) const;
  void setPerfEstimate(const VertexRef &v, std::uint64_t cycles, std::uint64_t flops = 0);
  void setPerfEstimate(const VertexRef &v, const VertexPerfEstimate &estimate);
  // The vertex's own estimate, else its type's registered estimator's; throws
  // missing_perf_estimate when it has neither.
  VertexPerfEstimate getPerfEstimate(const VertexRef &v) const;
  // The estimate of every vertex of type `vertexTypeName` without one of its own,
  // evaluated when the graph is compiled.
  void registerPerfEstimator(StringRef vertexTypeName, PerfEstimateFunc f);
  // The most elements dimension `dimIndex` of a vector field can hold (its layout's
  // count, else the memory its pointer reaches); see docs/custom_vertices.rst.
  std::size_t getMaxFieldDim(StringRef vertexName, StringRef fieldName, unsigned dimIndex) const;
  // The largest value a plain field (or each element of a plain Vector field) can hold.
  double getMaxVertexFieldValue(StringRef vertexName, StringRef fieldName) const;
  // The same as T; throws poplar_error when T cannot represent it exactly.
  template <class T> T getMaxVertexFieldValueAs(StringRef vertexName, StringRef fieldName) const {
    static_assert(std::is_arithmetic<T>::value, "getMaxVertexFieldValueAs<T>: T must be an arithmetic type");
    T value;
    maxVertexFieldValueAs(vertexName, fieldName, equivalentHostType<T>(), &value);
    return value;
  }
  // The initial value of a plain (non-edge) field: one value, or one per element of a Vector field.
  template <class T>
  typename std::enable_if<std::is_arithmetic<T>::value>::type setInitialValue(const FieldRef &field, T value) {
    setFieldInitialValueFromHost(field, &value, equivalentHostType<T>(), 1, false);
  }
  template <class T> void setInitialValue(const FieldRef &field, ArrayRef<T> values) {
    setFieldInitialValueFromHost(field, values.data(), equivalentHostType<T>(), values.size(), true);
  }
  template <class T> void setInitialValue(const FieldRef &field, const std::vector<T> &values) {
    setInitialValue(field, ArrayRef<T>(values));
  }
  void setInitialValueHalf(FieldRef field, uint16_t value);
  void setInitialValueHalf(FieldRef field, ArrayRef<uint16_t> values);
  unsigned getNumVertices() const;
  std::vector<ComputeSet> getComputeSets() const;
  // ---- end of codelets and custom vertices -----------------------------------

  // ---- Element order and memory layout ---------------------------------------
  // The elements of `regions` (intervals of t flattened) grouped into runs that are
  // contiguous in memory, the groups in memory order: each inner list is one run, as
  // intervals of t. With removeAliasedIntervals, an element that shares memory with
  // one already taken is left out, and `aliases` (when given) receives, for every
  // element left out, its position in t.
  std::vector<std::vector<Interval>> getSortedContiguousRegions(const Tensor &t, ArrayRef<Interval> regions,
                                                                bool removeAliasedIntervals = false,
                                                                std::vector<std::size_t> *aliases = nullptr) const;
  // The reordering of t's elements into memory order, as few contiguous regions as can be.
  TensorRearranger getSimplifyingRearranger(const Tensor &t) const;
  // Reorders *t into memory order and each of `others` (of t's size) the same way;
  // all become 1-D. The emulator always finds the simplest order.
  void reorderToSimplify(Tensor *t, ArrayRef<Tensor *> others, bool requireSimplestOrder = true) const;
  // t with every dimension that is a broadcast (all its indices share memory)
  // reduced to size 1; t itself when it has none.
  Tensor findUnbroadcastTensor(const Tensor &t) const;

  // ---- Dumps and serialization -------------------------------------------------
  // A text description of the graph: its variables (name, shape, type, constness,
  // tiles), compute sets with their vertices, then each of `progs` as dumpProgram writes it.
  void outputComputeGraph(std::ostream &out, ArrayRef<program::Program> progs = {}) const;
  // The older SDKs' name for outputComputeGraph; writes the same.
  void outputVertexGraph(std::ostream &out, ArrayRef<program::Program> progs = {}) const;
  // The whole graph as one JSON document, in either format (the SDK's binary format is
  // Cap'n Proto, which nothing here reads): the target, every variable and constant (name,
  // type, shape, tile intervals) and every compute set with its vertices (type, tile).
  void serialize(std::ostream &out, SerializationFormat format) const;
  // Writes the type, shape, debug name and tile mapping of each tensor;
  // deserializeTensors adds a new variable for each one written, with that type,
  // shape, name and mapping (values and aliasing between the tensors are not kept).
  void serializeTensors(std::ostream &out, ArrayRef<Tensor> tensors, SerializationFormat format) const;
  std::vector<Tensor> deserializeTensors(std::istream &in, SerializationFormat format);

  bool isConstant(VariableRef v) const;
  Tensor getVariable(VariableRef v) const;
  std::size_t numVariables() const;

private:
  friend struct detail::Internals;
  template <class T> static constexpr HostType equivalentHostType() {
    if (std::is_same<T, bool>::value) return HostType::Bool;
    if (std::is_floating_point<T>::value) return sizeof(T) == 4 ? HostType::F32 : HostType::F64;
    if (std::is_signed<T>::value)
      return sizeof(T) == 1 ? HostType::I8 : sizeof(T) == 2 ? HostType::I16
                                          : sizeof(T) == 4 ? HostType::I32 : HostType::I64;
    return sizeof(T) == 1 ? HostType::U8 : sizeof(T) == 2 ? HostType::U16
                                        : sizeof(T) == 4 ? HostType::U32 : HostType::U64;
  }
  static std::size_t numElementsOf(ArrayRef<std::size_t> shape);
  static void checkHostValueCount(ArrayRef<std::size_t> shape, std::size_t count,
                                  const DebugContext &debugContext);
  Tensor addConstantFromHost(const Type &type, ArrayRef<std::size_t> shape, const void *values,
                             HostType hostType, std::size_t count,
                             const DebugContext &debugContext);
  void setInitialValueFromHost(const Tensor &t, const void *values, HostType hostType,
                               std::size_t count);
  void connectConstantFromHost(FieldRef field, const void *value, HostType hostType);
  // A ConnectionDesc's value: a plain field's initial value, else an Input's constant edge.
  void connectValueFromHost(FieldRef field, const void *value, HostType hostType);
  void maxVertexFieldValueAs(StringRef vertexName, StringRef fieldName, HostType hostType, void *out) const;
  void setFieldInitialValueFromHost(const FieldRef &field, const void *values, HostType hostType,
                                    std::size_t count, bool isList);

  // The tile of the top-level graph that `tile` of this graph is.
  unsigned topLevelTile(unsigned tile) const;
  Graph(std::shared_ptr<detail::GraphState> state, std::shared_ptr<const detail::VirtualTiles> view);
  Graph virtualGraph(const Target &target, std::vector<unsigned> tiles, const std::string &what);

  std::shared_ptr<detail::GraphState> state_;
  // Null for a top-level graph; a virtual graph's target and tiles.
  std::shared_ptr<const detail::VirtualTiles> view_;
};

} // namespace poplar
