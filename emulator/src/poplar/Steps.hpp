#pragma once
// The program steps an Engine runs: copies, compute sets, stream copies, prints, cycle counters, aborts, host calls.
#include <poplar/exceptions.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "Access.hpp"
#include "CodeletPrint.hpp"
#include "EngineState.hpp"
#include "VertexKernel.hpp"

namespace poplar::detail {

struct CopyStep : Step {
  Access src, dst;
  // A small dense copy is decided here once, not at every run (tiny steps in loops).
  std::uint8_t *denseDst = nullptr;
  const std::uint8_t *denseSrc = nullptr;
  std::size_t denseBytes = 0;
  CopyStep(Access from, Access to)
      : src(std::move(from)), dst(std::move(to)), denseDst(dst.data()), denseSrc(src.data()),
        denseBytes(denseCopyBytes(src, dst)) {}
  void run() override {
    if (denseBytes) std::memmove(denseDst, denseSrc, denseBytes);
    else copyElements(src, dst);
  }
};

struct StreamToTensorStep : Step {
  StreamState *stream;
  Access dst;
  std::vector<std::uint8_t> staging;
  void run() override {
    const std::size_t bytes = dst.numElements * dst.elemSize;
    if (dst.contiguous()) {
      stream->transfer(dst.data(), bytes, true);
    } else {
      staging.resize(bytes);
      stream->transfer(staging.data(), bytes, true);
      dst.scatter(staging.data());
    }
  }
};

struct TensorToStreamStep : Step {
  StreamState *stream;
  Access src;
  std::vector<std::uint8_t> staging;
  void run() override {
    const std::size_t bytes = src.numElements * src.elemSize;
    if (src.contiguous()) { // the host side only reads it (a device-to-host callback consumes its buffer)
      stream->transfer(src.data(), bytes, false);
      return;
    }
    staging.resize(bytes);
    src.gather(staging.data());
    stream->transfer(staging.data(), bytes, false);
  }
};

struct ExecuteStep : Step {
  std::vector<std::function<void()>> kernels;
  TileGroups vertices; // custom vertices, run tile by tile after the built-in kernels
  std::ostream *const *codeletStream; // where the vertices' printf goes
  void run() override {
    for (auto &k : kernels) k();
    if (!vertices.empty()) {
      CodeletPrintScope printing(*codeletStream);
      vertices.run(name);
    }
  }
  void reset() override { vertices.reset(); }
};

struct PrintTensorStep : Step {
  std::string title;
  std::vector<std::size_t> shape;
  Access src;
  PrintTensorFmt format;
  std::ostream **stream;
  void run() override {
    std::vector<std::uint8_t> data(src.numElements * src.elemSize);
    src.gather(data.data());
    **stream << formatTensor(title, src.type, shape, data.data(), format) << std::flush;
  }
};

// The decision of a control program; its cost is the branch (and loop) overhead.
struct ControlStep : Step {
  void run() override {}
};

// Writes the estimated cycle counter to a [lo32, hi32] UNSIGNED_INT tensor.
inline void storeCounter(const Access &dst, std::uint64_t value) {
  const std::uint32_t words[2] = {static_cast<std::uint32_t>(value), static_cast<std::uint32_t>(value >> 32)};
  dst.scatter(words);
}

// The counter is advanced by a step's cost before the step runs, so a stamp
// reads the counter after its own sync.
struct CycleStampStep : Step {
  const std::uint64_t *clock;
  Access dst;
  void run() override { storeCounter(dst, *clock); }
};

struct CycleCountStartStep : Step {
  const std::uint64_t *clock;
  std::uint64_t start = 0;
  void run() override { start = *clock; }
};

struct CycleCountEndStep : Step {
  const std::uint64_t *clock;
  const CycleCountStartStep *start;
  Access dst;
  void run() override { storeCounter(dst, *clock - start->start); }
};

struct AbortStep : Step {
  std::string message;
  const Scalar *condition = nullptr; // null: abort unconditionally
  void run() override {
    if (!condition || condition->isTrue())
      throw application_runtime_error(!message.empty() ? "Abort: " + message
                                      : !name.empty()  ? "Abort: " + name
                                                       : std::string("Abort program reached"));
  }
};

// Gathers the inputs, calls the connected host function, scatters its outputs.
struct HostCallStep : Step {
  HostFunctionSlot *function;
  std::vector<Access> inputs, outputs;
  std::vector<std::vector<std::uint8_t>> buffers; // inputs then outputs
  void run() override {
    if (!function->callback)
      throw stream_connection_error("Host function '" + function->info.handle +
                                    "' is not connected: call Engine::connectHostFunction before running");
    std::vector<const void *> ins;
    std::vector<void *> outs;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      buffers[i].resize(inputs[i].numElements * inputs[i].elemSize);
      inputs[i].gather(buffers[i].data());
      ins.push_back(buffers[i].data());
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      auto &buffer = buffers[inputs.size() + i];
      buffer.assign(outputs[i].numElements * outputs[i].elemSize, 0);
      outs.push_back(buffer.data());
    }
    (*function->callback)(ins, outs);
    for (std::size_t i = 0; i < outputs.size(); ++i) outputs[i].scatter(buffers[inputs.size() + i].data());
  }
};

} // namespace poplar::detail
