#pragma once
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <poplar/ArrayRef.hpp>
#include <poplar/DebugContext.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/Program.hpp>

namespace poplar {

namespace detail {
struct ExecutableState;
}

using ProgressFunc = std::function<void(int, int)>;

// A compiled graph and its programs, from which Engines are made.
//
// Emulator: an executable holds the graph's variables (types, shapes, tile mapping,
// initial and constant data), streams, host handles and functions, the programs
// and every compute set's kernels as (kind, operands, parameters). Unlike the SDK
// (which refuses to serialize IPU_MODEL executables) it serializes for every target:
// deserializing re-creates the kernels from a registry, without the code that
// built the graph. A serialized executable carries a checksum; it is not a
// defence against deliberately crafted files.
class Executable {
public:
  Executable();
  explicit Executable(std::shared_ptr<const detail::ExecutableState> state);
  Executable(Executable &&) noexcept;
  Executable &operator=(Executable &&) noexcept;
  ~Executable();

  void serialize(std::ostream &out) const;
  static Executable deserialize(std::istream &in, bool checkPackageHash = true);
  static Executable deserialize(std::unique_ptr<std::istream> in, bool checkPackageHash = true);

  // Emulator: the compiled content.
  const detail::ExecutableState &state() const;
  const std::shared_ptr<const detail::ExecutableState> &statePtr() const { return state_; }

private:
  std::shared_ptr<const detail::ExecutableState> state_;
};

Executable compileGraph(const Graph &graph, ArrayRef<program::Program> progs,
                        const OptionFlags &opt = {}, ProgressFunc progressCallBack = ProgressFunc(),
                        const DebugContext &debugContext = {});
Executable compileGraph(Graph &&graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
                        ProgressFunc progressCallBack = ProgressFunc(),
                        const DebugContext &debugContext = {});

namespace detail {
// The serialized parts of an executable, in a canonical form: equal graphs, programs,
// options and targets give equal bytes. Names: "target", "graph", "programs", "options".
std::vector<std::pair<std::string, std::string>> executableSections(const Executable &exe);
// The data streams of the executable's graph.
std::vector<DataStream> executableStreams(const Executable &exe);
// The host functions of the executable's graph: handle, input and output arguments.
struct HostFunctionInfo {
  std::string handle;
  std::vector<HostFunctionArgument> ins, outs;
};
std::vector<HostFunctionInfo> executableHostFunctions(const Executable &exe);
} // namespace detail

} // namespace poplar
