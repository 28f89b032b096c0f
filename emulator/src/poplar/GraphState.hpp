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

#include "Kernel.hpp"
#include "Variable.hpp"

namespace poplar::detail {

struct ComputeSetInfo {
  std::string name;
  std::vector<Kernel> kernels;
};

struct GraphState {
  Target target;
  std::shared_ptr<VarTable> vars = std::make_shared<VarTable>();
  std::vector<ComputeSetInfo> computeSets;
  std::vector<program::Program> functions;
  std::map<std::string, DataStream> streams;
  std::map<std::string, Tensor> hostWrites;
  std::map<std::string, Tensor> hostReads;
  std::vector<HostFunctionInfo> hostFunctions;
  int hwSeedsVar = -1; // the variable behind getHwSeeds/setHwSeeds, once used

  unsigned addVariable(Type type, const std::vector<std::size_t> &shape, std::string name,
                       bool isConstant);
  ComputeSetInfo &computeSet(unsigned id);
};

} // namespace poplar::detail
