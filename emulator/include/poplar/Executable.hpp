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
struct Internals;
} // namespace detail

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
  Executable(Executable &&) noexcept;
  Executable &operator=(Executable &&) noexcept;
  ~Executable();

  void serialize(std::ostream &out) const;
  static Executable deserialize(std::istream &in, bool checkPackageHash = true);
  static Executable deserialize(std::unique_ptr<std::istream> in, bool checkPackageHash = true);

private:
  friend struct detail::Internals;
  explicit Executable(std::shared_ptr<const detail::ExecutableState> state);
  std::shared_ptr<const detail::ExecutableState> state_;
};

Executable compileGraph(const Graph &graph, ArrayRef<program::Program> progs,
                        const OptionFlags &opt = {}, ProgressFunc progressCallBack = ProgressFunc(),
                        const DebugContext &debugContext = {});
Executable compileGraph(Graph &&graph, ArrayRef<program::Program> progs, const OptionFlags &opt = {},
                        ProgressFunc progressCallBack = ProgressFunc(),
                        const DebugContext &debugContext = {});

} // namespace poplar
