// Streams fed and drained by callback classes with their own constructors, handed to
// the engine as std::unique_ptr<Derived>.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include "square_stream_loop.hpp"

#include <iostream>
#include <memory>
#include <vector>

// Supplies 1, 2, 3, ... scaled by `scale`, one element per copy.
class Counter : public poplar::LegacyStreamCallback {
public:
  explicit Counter(float scale) : scale_(scale) {}
  void fetch(void *p) override { *static_cast<float *>(p) = scale_ * static_cast<float>(++count_); }

private:
  float scale_;
  unsigned count_ = 0;
};

// Collects what the device sends.
class Collector : public poplar::StreamCallback {
public:
  explicit Collector(std::vector<float> &out) : out_(out) {}
  Result prefetch(void *) override { return Result::NotAvailable; }
  void fetch(void *p) override { out_.push_back(*static_cast<const float *>(p)); }
  void complete() override {}
  void invalidatePrefetched() override {}

private:
  std::vector<float> &out_;
};

int main() {
  poplar::IPUModel ipuModel;
  ipuModel.tilesPerIPU = 4;
  poplar::Device device = ipuModel.createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::program::Repeat loop = squareStreamLoop(graph);

  poplar::Engine engine(graph, loop);
  std::vector<float> received;
  engine.connectStreamToCallback("in", std::unique_ptr<Counter>(new Counter(0.5f)));
  engine.connectStreamToCallback("out", std::unique_ptr<Collector>(new Collector(received)));
  engine.load(device);
  engine.run(0);
  std::cout << "received:";
  for (float v : received) std::cout << ' ' << v;
  std::cout << '\n';
  return 0;
}
