// Stream callbacks that prefetch, written as for the SDK: a class implementing only
// prefetch, fetch and complete (invalidatePrefetched keeps its default body), and one
// that also hears when its prefetched data is thrown away. Prints, per engine option
// set, the calls each callback saw and the values the device sent back.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include "square_stream_loop.hpp"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

// Supplies 1, 2, 3, ...; every `refuseEvery`-th prefetch (0: none) says NotAvailable.
class Counter : public poplar::StreamCallback {
public:
  Counter(std::string &log, unsigned refuseEvery) : log_(log), refuseEvery_(refuseEvery) {}
  Result prefetch(void *p) override {
    ++prefetches_;
    if (refuseEvery_ && prefetches_ % refuseEvery_ == 0) {
      log_ += "p- ";
      return Result::NotAvailable;
    }
    give(p, "p");
    return Result::Success;
  }
  void fetch(void *p) override { give(p, "f"); }
  void complete() override { log_ += "c "; }

protected:
  std::string &log_;

private:
  void give(void *p, const char *how) {
    *static_cast<float *>(p) = static_cast<float>(++next_);
    log_ += how + std::to_string(next_) + " ";
  }
  unsigned refuseEvery_, prefetches_ = 0, next_ = 0;
};

// A Counter that is told when its prefetched value will not be used.
class ForgetfulCounter : public Counter {
public:
  using Counter::Counter;
  void invalidatePrefetched() override { log_ += "i "; }
};

int main() {
  poplar::IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  poplar::Device device = ipuModel.createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::program::Repeat loop = squareStreamLoop(graph);

  const std::vector<std::pair<std::string, poplar::OptionFlags>> optionSets = {
      {"default", {}},
      {"no-overlap", {{"exchange.streamBufferOverlap", "none"}, {"exchange.enablePrefetch", "true"}}},
      {"prefetch-off", {{"exchange.enablePrefetch", "false"}}},
      {"overlap-any", {{"exchange.streamBufferOverlap", "any"}}}};
  for (const auto &options : optionSets) {
    poplar::Engine engine(graph, loop, options.second);
    engine.load(device);
    std::vector<float> received(6);
    engine.connectStream("out", received.data(), received.data() + received.size());
    std::string log;
    engine.connectStreamToCallback("in", std::unique_ptr<Counter>(new Counter(log, 0)));
    engine.run(0);
    engine.run(0);
    std::cout << options.first << " calls: " << log << "\n" << options.first << " received:";
    for (float v : received) std::cout << ' ' << v;
    std::cout << '\n';
  }

  // NotAvailable leaves the copy to fetch; connecting another callback, and destroying
  // the engine, discard what the one connected before prefetched.
  std::string log;
  {
    poplar::Engine engine(graph, loop);
    engine.load(device);
    std::vector<float> received(6);
    engine.connectStream("out", received.data(), received.data() + received.size());
    engine.connectStreamToCallback("in", std::unique_ptr<ForgetfulCounter>(new ForgetfulCounter(log, 2)));
    engine.run(0);
    log += "| ";
    engine.connectStreamToCallback("in", std::unique_ptr<ForgetfulCounter>(new ForgetfulCounter(log, 0)));
    log += "| ";
    engine.run(0);
    log += "| ";
    std::cout << "refusing received:";
    for (float v : received) std::cout << ' ' << v;
    std::cout << '\n';
  }
  std::cout << "refusing calls: " << log << '\n';
  return 0;
}
