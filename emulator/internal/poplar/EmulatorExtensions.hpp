#pragma once
// What the emulator offers beyond the SDK's API, for the bindings (popdsl's sessions,
// profiles, executable cache and seeds). The SDK has none of these; they are not
// installed with the public headers.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <poplar/Engine.hpp>
#include <poplar/Executable.hpp>
#include <poplar/Graph.hpp>
#include <poplar/OptionFlags.hpp>
#include <poplar/ProfileData.hpp>
#include <poplar/Program.hpp>

namespace poplar {
namespace detail {

// An engine for `exe` that reports the lowering of its programs to `progress`
// (the SDK's Engine(const Executable &, const OptionFlags &) has no progress argument).
Engine makeEngine(const Executable &exe, const OptionFlags &opt, ProgressFunc progress);

// The seed the hardware random seeds (getHwSeeds) are derived from; engine option
// "prng.seed" sets the first one.
void setRandomSeed(Engine &engine, std::uint64_t seed);
std::uint64_t getRandomSeed(const Engine &engine);

// The element type and number of elements of the engine's host read (`read`) or write
// handle `handle`; false when it has no such handle.
bool hostTensor(const Engine &engine, const std::string &handle, bool read, Type &type, std::size_t &numElements);

// What the engine recorded about its programs and memory (cycles are estimates).
ProfileData getProfileData(const Engine &engine);

// The same for programs that share their tree (copies of one program).
const void *programIdentity(const program::Program &program);

// The serialized parts of an executable, in a canonical form: equal graphs, programs,
// options and targets give equal bytes. Names: "target", "graph", "programs", "options".
std::vector<std::pair<std::string, std::string>> executableSections(const Executable &exe);
// The same sections read from a serialized executable (its frame and checksum checked)
// without building it: nothing in them is compiled. Throws poplar_error when damaged.
std::vector<std::pair<std::string, std::string>> serializedExecutableSections(const std::string &bytes);
// The names of the codelets (sources or codelet objects, as Graph::addCodelets was given
// them) that Executable::deserialize would compile and load into this process from
// `bytes`, read without compiling or loading any. Throws poplar_error when damaged.
std::vector<std::string> serializedExecutableCodelets(const std::string &bytes);
// The data streams of the executable's graph.
std::vector<DataStream> executableStreams(const Executable &exe);
// The remote buffers of the executable's graph.
std::vector<RemoteBuffer> executableRemoteBuffers(const Executable &exe);
// The host functions of the executable's graph: handle, input and output arguments.
struct HostFunctionInfo {
  std::string handle;
  std::vector<HostFunctionArgument> ins, outs;
};
std::vector<HostFunctionInfo> executableHostFunctions(const Executable &exe);

// The direction of each edge field of vertex type `vertexType` ("Input", "Output" or
// "InOut"), as its codelet declares it, in field order; unknown_vertex_type when no
// codelets added to the graph define it.
std::vector<std::pair<std::string, std::string>> vertexFieldDirections(const Graph &graph,
                                                                       const std::string &vertexType);

} // namespace detail
} // namespace poplar
