#pragma once
// Everything a Graph holds, shared with the Engines compiled from it.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <poplar/DataStream.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Target.hpp>
#include <poplar/EmulatorExtensions.hpp>
#include <poplar/Internals.hpp>
#include <poplar/Tensor.hpp>

#include "Codelets.hpp"
#include "Kernel.hpp"
#include "Variable.hpp"
#include "VertexState.hpp"

namespace poplar::detail {

struct ComputeSetInfo {
  std::string name;
  std::vector<Kernel> kernels;
};

// What a virtual graph (Graph::createVirtualGraph) sees of its top-level graph.
struct VirtualTiles {
  Target target;                     // its own: its IPUs and tiles per IPU
  std::vector<unsigned> tiles;       // tile i of the virtual graph is top-level tile tiles[i]
  std::vector<unsigned> virtualTile; // per top-level tile: its tile here, or kNotHere
  static constexpr unsigned kNotHere = ~0u;
};

// The bytes of a remote buffer's rows, or 0 when that does not fit in std::size_t.
std::size_t remoteBufferBytes(const Type &type, std::size_t numElements, std::size_t repeats);

struct GraphState {
  Target target;
  // The top-level Graph object (virtual graphs return it from getTopLevelGraph); null
  // once it is destroyed.
  Graph *topLevel = nullptr;
  std::shared_ptr<VarTable> vars = std::make_shared<VarTable>();
  std::vector<ComputeSetInfo> computeSets;
  std::vector<program::Program> functions;
  // The function whose code each function buffer holds (in remote memory: REMOTE is the
  // one FunctionBufferMappingType).
  std::vector<unsigned> functionBuffers;
  std::map<std::string, DataStream> streams;
  std::map<std::string, RemoteBuffer> remoteBuffers;
  std::map<std::string, Tensor> hostWrites;
  std::map<std::string, Tensor> hostReads;
  std::vector<HostFunctionInfo> hostFunctions;
  int hwSeedsVar = -1; // the variable behind getHwSeeds/setHwSeeds, once used
  // Replicas run the graph in lockstep, each with its own memory; the engine writes
  // each replica's index into these constants (addReplicationIndexConstant).
  unsigned replicationFactor = 1;
  std::vector<unsigned> replicaIndexVars;
  // Custom vertices: the codelets added (in order), their classes by name, the vertices.
  std::vector<CodeletSource> codelets;
  std::vector<std::string> codeletKeys; // parallel to codelets
  std::map<std::string, std::shared_ptr<const VertexClass>> vertexClasses;
  std::vector<VertexInfo> vertices;
  std::map<std::string, PerfEstimateFunc> perfEstimators; // by vertex type
  // Registers the vertex classes of `source` (compiled or cached); false if already added.
  bool addCodelets(const CodeletSource &source);

  unsigned addVariable(Type type, const std::vector<std::size_t> &shape, std::string name,
                       bool isConstant);
  ComputeSetInfo &computeSet(unsigned id);
  // The compute set `cs` names; `what` (the operation) is in the error when it is
  // another graph's or unknown.
  ComputeSetInfo &computeSet(ComputeSet cs, const std::string &what);
};

// Converts `count` host values of a C++ type to device elements of `type`.
// Element `i` of host values of a C++ type.
long double hostValue(const void *values, Graph::HostType hostType, std::size_t i);
void convertFromHost(const Type &type, const void *values, Graph::HostType hostType, std::size_t count,
                     std::vector<std::uint8_t> &out);

} // namespace poplar::detail
