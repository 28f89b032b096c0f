#pragma once
// What an Executable holds: the graph state and programs an Engine lowers.
#include <memory>
#include <vector>

#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>

#include "GraphState.hpp"

namespace poplar::detail {

struct ExecutableState {
  std::shared_ptr<GraphState> graph;
  std::vector<program::Program> programs;
  OptionFlags options; // validated engine options
};

// Checks engine options (POPLAR_ENGINE_OPTIONS overrides `given`); throws invalid_option.
OptionFlags validatedOptions(const OptionFlags &given);
// The RuntimeOptions keys only, with POPLAR_RUNTIME_OPTIONS over them.
OptionFlags validatedRuntimeOptions(const OptionFlags &given);
// Whether boolean option `key` is "true" (`dflt` when it is not set).
bool optionFlag(const OptionFlags &o, const char *key, bool dflt);

} // namespace poplar::detail
