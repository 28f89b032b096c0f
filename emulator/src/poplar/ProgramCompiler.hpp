#pragma once
// Lowering an engine's programs to steps and instructions (ProgramCompiler.cpp).
#include <string>
#include <vector>

#include <poplar/Executable.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>

#include "EngineState.hpp"

namespace poplar::detail {

// Compiles `programs` (then the functions they call or load) into `s`, calling
// progress(i + 1, total) after program i, then checks that every variable used is
// mapped to tiles and, unless debug.allowOutOfMemory, that the tiles hold them.
void compilePrograms(EngineState &s, const std::vector<program::Program> &programs, const ProgressFunc &progress,
                     int total);

// Programs and host writes may only write tensors whose every element has one home.
void checkWritableTensor(const Tensor &t, const std::string &what);

} // namespace poplar::detail
