// The Engine option keys Poplar documents (Engine and RuntimeOptions), each with the
// values it accepts, and the emulator's own (emulator.numThreads: the most threads
// a run of the engine uses; emulator.checkVertexAccess: custom vertices check every field
// access, VertexKernel.hpp). The emulator models only a few (prng.seed, debug.instrument,
// debug.allowOutOfMemory, autoReport.*); the others are accepted, checked and kept
// in the engine's options, so getEngineOptions() reports them.
#include <poplar/exceptions.hpp>

#include <regex.h>

#include <functional>
#include <map>
#include <vector>

#include "ExecutableState.hpp"

namespace poplar::detail {

namespace {

// Returns what the value should have been, or "" when it is valid.
using Check = std::function<std::string(const std::string &value)>;

Check boolean() {
  return [](const std::string &v) { return v == "true" || v == "false" ? "" : "true or false"; };
}

Check oneOf(std::vector<std::string> choices) {
  return [choices](const std::string &v) {
    std::string list;
    for (const auto &c : choices) {
      if (c == v) return std::string();
      list += (list.empty() ? "" : ", ") + c;
    }
    return "one of " + list;
  };
}

// An unsigned integer, decimal or 0x hexadecimal; `alsoAllowed` names one word
// accepted as well ("auto" for streamCallbacks.numWorkerThreads).
Check unsignedInteger(std::string alsoAllowed = "") {
  return [alsoAllowed](const std::string &v) {
    if (!alsoAllowed.empty() && v == alsoAllowed) return std::string();
    const std::string expected = "an unsigned integer" + (alsoAllowed.empty() ? "" : " or " + alsoAllowed);
    if (v.empty() || v[0] == '-' || v[0] == '+') return expected;
    try {
      std::size_t used = 0;
      std::stoull(v, &used, 0);
      return used == v.size() ? std::string() : expected;
    } catch (const std::exception &) {
      return expected;
    }
  };
}

Check nonNegativeNumber() {
  return [](const std::string &v) {
    try {
      std::size_t used = 0;
      const double x = std::stod(v, &used);
      return used == v.size() && x >= 0 ? std::string() : std::string("a non-negative number");
    } catch (const std::exception &) {
      return std::string("a non-negative number");
    }
  };
}

Check text() {
  return [](const std::string &v) { return v.empty() ? "a non-empty string" : ""; };
}

// POSIX's extended syntax, through the C library: std::regex would check the ECMAScript
// dialect, but compiling its templates took 4 of this file's 10 CPU-seconds at -O3.
Check regex() {
  return [](const std::string &v) {
    regex_t compiled;
    if (regcomp(&compiled, v.c_str(), REG_EXTENDED | REG_NOSUB) != 0) return std::string("a regular expression");
    regfree(&compiled);
    return std::string();
  };
}

// The RuntimeOptions keys (also Engine options).
const std::map<std::string, Check> &runtimeOptions() {
  static const std::map<std::string, Check> options = {
      {"target.syncMethod", oneOf({"polling", "hybrid", "default"})},
      {"target.syncPollPeriodUs", unsignedInteger()},
      {"target.exceptionPollPeriodUs", unsignedInteger()},
      {"target.hostSyncTimeout", nonNegativeNumber()},
      {"streamCallbacks.multiThreadMode", oneOf({"singleThread", "collaborative", "dedicated"})},
      {"streamCallbacks.numaAware", boolean()},
      {"streamCallbacks.numWorkerThreads", unsignedInteger("auto")},
  };
  return options;
}

const std::map<std::string, Check> &documentedOptions() {
  static const std::map<std::string, Check> options = [] {
    std::map<std::string, Check> all = runtimeOptions();
    all.insert({
      // debug.*
      {"debug.instrument", boolean()},
      {"debug.instrumentCompute", boolean()},
      {"debug.instrumentControlFlow", boolean()},
      {"debug.instrumentExternalExchange", boolean()},
      {"debug.computeInstrumentationLevel", oneOf({"vertex", "tile", "ipu", "device"})},
      {"debug.retainDebugInformation", boolean()},
      {"debug.allowOutOfMemory", boolean()},
      {"debug.outputAllSymbols", boolean()},
      {"debug.floatPointOpException", boolean()},
      {"debug.nanOverflowMode", boolean()},
      {"debug.trace", boolean()},
      {"debug.runtimeVerify", boolean()},
      {"debug.executionProfile", text()},
      {"debug.branchRecordTile", unsignedInteger()},
      {"debug.loweredVarDumpFile", text()},
      // opt.*
      {"opt.maxCompilationThreads", unsignedInteger()},
      {"opt.maxCopyMergeSize", unsignedInteger()},
      {"opt.enableInlining", boolean()},
      {"opt.useAutoloader", boolean()},
      {"opt.internalExchangeOptimisationTarget", oneOf({"balanced", "cycles", "memory"})},
      {"opt.enableMultiAccessCopies", boolean()},
      // exchange.*
      {"exchange.streamBufferOverlap", oneOf({"none", "hostRearrangeOnly", "any"})},
      {"exchange.enablePrefetch", boolean()},
      {"exchange.multicastPolicy", text()},
      // target.*
      {"target.deterministicWorkers", oneOf({"true", "false", "portable"})},
      {"target.syncReplicasIndependently", boolean()},
      {"target.saveArchive", text()},
      {"target.workerStackSizeInBytes", unsignedInteger()},
      {"target.firstRuntimeReplica", unsignedInteger()},
      {"target.numberRuntimeReplica", unsignedInteger()},
      // autoReport.* (AutoReport.cpp writes the files)
      {"autoReport.all", boolean()},
      {"autoReport.directory", text()},
      {"autoReport.outputGraphProfile", boolean()},
      {"autoReport.outputExecutionProfile", boolean()},
      {"autoReport.outputLoweredVars", boolean()},
      {"autoReport.outputSerializedGraph", boolean()},
      {"autoReport.outputDebugInfo", boolean()},
      {"autoReport.executionProfileProgramRunCount", unsignedInteger()},
      // profiler.*
      {"profiler.format", oneOf({"v1", "v2", "v3"})},
      {"profiler.includeFlopEstimates", boolean()},
      {"profiler.includeCycleEstimates", boolean()},
      {"profiler.perExecutionStreamCopyCycles", boolean()},
      {"profiler.blocks.filter", regex()},
      {"profiler.programs.filter", regex()},
      {"profiler.blocks.tile", unsignedInteger()},
      {"profiler.blocks.implicitFlush", boolean()},
      {"profiler.blocks.bufferSize", unsignedInteger()},
      // prng.*
      {"prng.enableStochasticRounding", boolean()},
      {"prng.seed", unsignedInteger()},
      {"prng.enable", boolean()},
      {"optimizeForSpeed", boolean()},
      // emulator.* (the emulator's own: the SDK has no such keys)
      {"emulator.numThreads", unsignedInteger("auto")},
      {"emulator.checkVertexAccess", boolean()},
    });
    return all;
  }();
  return options;
}

// `options` with `environmentVariable`'s JSON over them, each key and value checked.
OptionFlags checkedOptions(const OptionFlags &given, const char *environmentVariable,
                           const std::map<std::string, Check> &documented) {
  OptionFlags options = given;
  readJSONFromEnv(environmentVariable, options); // the environment overrides the code
  for (const auto &kv : options) {
    const auto it = documented.find(kv.first);
    if (it == documented.end()) throw invalid_option("Unrecognised option '" + kv.first + "'");
    const std::string expected = it->second(kv.second);
    if (!expected.empty())
      throw invalid_option("Invalid value '" + kv.second + "' for option '" + kv.first + "': expected " +
                           expected);
  }
  return options;
}

} // namespace

OptionFlags validatedOptions(const OptionFlags &given) {
  return checkedOptions(given, "POPLAR_ENGINE_OPTIONS", documentedOptions());
}

OptionFlags validatedRuntimeOptions(const OptionFlags &given) {
  return checkedOptions(given, "POPLAR_RUNTIME_OPTIONS", runtimeOptions());
}

bool optionFlag(const OptionFlags &o, const char *key, bool dflt) {
  auto it = o.find(key);
  return it == o.end() ? dflt : it->second == "true";
}

} // namespace poplar::detail
