// The C++-only Engine API: the ArrayRef templates of readTensor/writeTensor/
// connectStream, RuntimeOptions, stop(), time stamps, execution profiling switches,
// resumable stream callbacks, and compiled executables moved through unique_ptr
// streams. Prints "name: value" lines that test_core_api.py checks.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "expect_error.hpp"

namespace {

// Supplies 1, 2, 3, ... and asks the engine to stop after the second element.
class StopAfterTwo : public poplar::LegacyStreamCallback {
public:
  StopAfterTwo(poplar::Engine *&engine, unsigned &fetches) : engine_(engine), fetches_(fetches) {}
  void fetch(void *p) override {
    *static_cast<int *>(p) = static_cast<int>(++fetches_);
    if (fetches_ == 2) engine_->stop();
  }

private:
  poplar::Engine *&engine_;
  unsigned &fetches_;
};

// Fills the buffer from another thread a little later, then notifies the engine.
class LateFiller : public poplar::ResumableStreamCallback {
public:
  explicit LateFiller(bool &awaitingSeen) : awaitingSeen_(awaitingSeen) {}
  ~LateFiller() override {
    if (filler_.joinable()) filler_.join();
  }
  Result prefetch(void *) override { return Result::NotAvailable; }
  void fetch(void *p) override {
    if (filler_.joinable()) filler_.join();
    filler_ = std::thread([this, p] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      awaitingSeen_ = awaitingSeen_ || isAwaiting();
      *static_cast<int *>(p) = 42;
      notify();
    });
  }
  void complete() override { completed = true; }
  // The engine never asks (its copies run on the host): nothing is ever ready early.
  static bool readyEarly() { return Result::NotAvailable == Result::Success; }
  void invalidatePrefetched() override {}
  bool completed = false;

private:
  bool &awaitingSeen_;
  std::thread filler_;
};

} // namespace

int main() {
  poplar::IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  poplar::Device device = ipuModel.createDevice();
  poplar::Graph graph(device.getTarget());

  poplar::Tensor v = graph.addVariable(poplar::FLOAT, {4}, "v");
  poplar::Tensor n = graph.addVariable(poplar::INT, {1}, "n");
  graph.setTileMapping(v, 0);
  graph.setTileMapping(n, 1);
  graph.createHostWrite("v-in", v);
  graph.createHostRead("v-out", v);
  graph.createHostRead("n-out", n);
  poplar::DataStream ints = graph.addHostToDeviceFIFO("ints", poplar::INT, 1);
  poplar::DataStream floats = graph.addHostToDeviceFIFO("floats", poplar::FLOAT, 4);

  const poplar::DataStream copied(floats);
  std::cout << "data stream: " << copied.handle() << ' ' << copied.numElements() << ' ' << copied.elementType()
            << ' ' << copied.replicationFactor() << ' '
            << (copied.replicatedMode() == poplar::ReplicatedStreamMode::REPLICATE) << ' '
            << (copied.type() == poplar::DataStreamType::HostToDeviceFIFO) << ' '
            << (ints.type() == poplar::DataStreamType::HostToDeviceFIFO) << ' '
            << (copied.replicatedMode() == poplar::ReplicatedStreamMode::BROADCAST) << '\n';

  poplar::program::Repeat fiveInts(5, poplar::program::Copy(ints, n));
  poplar::program::Copy twoFloatCopies(floats, v);
  poplar::program::Sequence floatsTwice({twoFloatCopies, twoFloatCopies});

  // A vertex that prints what it sees (print.h's printf).
  std::stringstream codelet;
  codelet << "#include <poplar/Vertex.hpp>\n#include <print.h>\n"
             "class Announce : public poplar::Vertex {\npublic:\n  poplar::Input<float> x;\n"
             "  bool compute() { printf(\"vertex sees %.2f\\n\", *x); return true; }\n};\n";
  graph.addCodelets(codelet);
  poplar::ComputeSet announce = graph.addComputeSet("announce");
  poplar::VertexRef vertex = graph.addVertex(announce, "Announce", {{"x", v[1]}});
  graph.setTileMapping(vertex, 0);
  graph.setPerfEstimate(vertex, 10);

  // Programs: 0 reads five ints, 1 copies two chunks of floats, 2 prints v[1].
  std::vector<poplar::program::Program> progs = {fiveInts, floatsTwice, poplar::program::Execute(announce)};
  std::vector<std::string> progress;
  poplar::Executable exe = poplar::compileGraph(
      std::move(graph), progs, {}, [&](int done, int total) {
        progress.push_back(std::to_string(done) + "/" + std::to_string(total));
      });
  std::cout << "progress:";
  for (const auto &p : progress) std::cout << ' ' << p;
  std::cout << '\n';

  std::ostringstream saved;
  exe.serialize(saved);
  std::unique_ptr<std::istream> in(new std::istringstream(saved.str()));
  poplar::Engine engine(poplar::Executable::deserialize(std::move(in)));
  poplar::Engine *self = &engine;

  poplar::RuntimeOptions runtime(poplar::OptionFlags{{"streamCallbacks.numWorkerThreads", "2"}});
  engine.prepare(device, runtime);
  engine.deploy();

  const std::vector<float> values = {0.5f, 1.5f, -2.0f, 8.0f};
  engine.writeTensor("v-in", poplar::ArrayRef<float>(values));
  std::vector<float> back(4);
  engine.readTensor("v-out", poplar::ArrayRef<float>(back));
  std::cout << "written and read:";
  for (float x : back) std::cout << ' ' << x;
  std::cout << '\n';

  // A circular buffer of six floats feeds two copies of four: 1..4, then 5, 6, 1, 2.
  std::vector<float> ring = {1, 2, 3, 4, 5, 6};
  engine.connectStream("floats", poplar::ArrayRef<float>(ring));
  engine.run(1, "floats", runtime);
  engine.readTensor("v-out", poplar::ArrayRef<float>(back));
  std::cout << "circular:";
  for (float x : back) std::cout << ' ' << x;
  std::cout << '\n';

  unsigned fetches = 0;
  engine.connectStreamToCallback("ints", std::unique_ptr<StopAfterTwo>(new StopAfterTwo(self, fetches)));
  engine.run(0);
  std::vector<int> last(1);
  engine.readTensor("n-out", poplar::ArrayRef<int>(last));
  std::cout << "stopped after: " << fetches << " fetches, n = " << last[0] << '\n';

  bool awaitingSeen = false;
  std::unique_ptr<LateFiller> filler(new LateFiller(awaitingSeen));
  LateFiller *fillerPtr = filler.get();
  engine.connectStreamToCallback("ints", std::move(filler));
  const poplar::Engine::TimerTimePoint start = engine.getTimeStamp();
  engine.run(0);
  const poplar::Engine::TimerTimePoint end = engine.getTimeStamp();
  engine.readTensor("n-out", poplar::ArrayRef<int>(last));
  std::cout << "resumable: n = " << last[0] << ", awaited " << (awaitingSeen ? "yes" : "no") << ", completed "
            << (fillerPtr->completed ? "yes" : "no") << ", awaiting now " << (fillerPtr->isAwaiting() ? "yes" : "no")
            << ", ready early " << (LateFiller::readyEarly() ? "yes" : "no") << '\n';
  std::cout << "timing: " << engine.reportTiming(start, end) << '\n';
  expectError("timing backwards", [&] { engine.reportTiming(end, start); });

  // The profiled runs above stay printable after profiling is disabled (SDK programs
  // profile a window of runs and print at the end); with none left there is nothing to print.
  engine.disableExecutionProfiling();
  std::ostringstream window;
  engine.printProfileSummary(window);
  const std::size_t runsAt = window.str().find("Programs run:");
  std::istringstream runsLine(runsAt == std::string::npos ? std::string() : window.str().substr(runsAt + 13));
  std::string runs = "none";
  runsLine >> runs;
  std::cout << "profile after disabling: " << runs << " runs\n";
  engine.resetExecutionProfile();
  expectError("profile while disabled", [&] {
    std::ostringstream summary;
    engine.printProfileSummary(summary);
  });
  engine.enableExecutionProfiling();
  std::ostringstream summary;
  engine.printProfileSummary(summary);
  std::cout << "profile when enabled: " << (summary.str().find("Execution") != std::string::npos ? "yes" : "no")
            << '\n';

  expectError("bad runtime option", [] { poplar::RuntimeOptions bad(poplar::OptionFlags{{"debug.instrument", "true"}}); });
  expectError("bad runtime value",
              [] { poplar::RuntimeOptions bad(poplar::OptionFlags{{"streamCallbacks.numWorkerThreads", "many"}}); });
  expectError("short buffer", [&] { engine.readTensor("v-out", poplar::ArrayRef<float>(back.data(), 3)); });
  std::ostringstream printed;
  engine.setPrintStream(printed);
  engine.run(2);
  std::cout << "vertex printed: " << printed.str();

  std::cout << "streams:";
  for (const auto &s : engine.listStreams()) std::cout << ' ' << s;
  std::cout << '\n';
  std::cout << "engine options: " << engine.getEngineOptions().size() << '\n';
  return 0;
}
