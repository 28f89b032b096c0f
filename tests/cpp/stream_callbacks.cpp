// Streams fed and drained by callback classes with their own constructors, handed to
// the engine as std::unique_ptr<Derived>.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

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
  popops::addCodelets(graph);

  poplar::Tensor x = graph.addVariable(poplar::FLOAT, {1}, "x");
  graph.setTileMapping(x, 0);
  poplar::DataStream in = graph.addHostToDeviceFIFO("in", poplar::FLOAT, 1);
  poplar::DataStream out = graph.addDeviceToHostFIFO("out", poplar::FLOAT, 1);
  poplar::program::Sequence body;
  body.add(poplar::program::Copy(in, x));
  popops::mulInPlace(graph, x, x, body, "square");
  body.add(poplar::program::Copy(x, out));
  poplar::program::Repeat loop(3, body);

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
