// A program written for IPU hardware: it acquires the first free IPU from the device
// manager, builds a graph on its target and runs it. test_ipu_as_model.py runs it with and
// without POPDSL_IPU_AS_MODEL and checks the "name: value" lines it prints.
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

#include <algorithm>
#include <iostream>
#include <vector>

#include "expect_error.hpp"

namespace {

// The acquire loop hardware examples use: the first device whose attach() succeeds.
bool acquire(std::vector<poplar::Device> &devices, poplar::Device &device) {
  auto it = std::find_if(devices.begin(), devices.end(), [](const poplar::Device &d) { return d.attach(); });
  if (it == devices.end()) return false;
  device = std::move(*it);
  return true;
}

} // namespace

int main() {
  poplar::DeviceManager manager; // default-constructed, as the SDK allows
  auto devices = manager.getDevices(poplar::TargetType::IPU, 1);
  std::cout << "devices: " << devices.size() << ' ' << manager.getNumDevices() << '\n';
  poplar::Device device;
  if (!acquire(devices, device)) {
    std::cout << "acquired: none\n";
    return 0;
  }
  const poplar::Target &target = device.getTarget();
  std::cout << "acquired: id " << device.getId() << ", " << poplar::toString(target.getTargetType()) << ' '
            << target.getTargetArchString() << ", IPUs " << target.getNumIPUs() << ", tiles "
            << target.getTilesPerIPU() << '\n';

  // The pair holding IPU 0 overlaps the attached device; the next pair is free.
  auto pairs = poplar::DeviceManager::createDeviceManager().getDevices(poplar::TargetType::IPU, 2);
  std::cout << "pairs: " << pairs.size() << ", first attaches " << pairs[0].attach() << ", second attaches "
            << pairs[1].attach() << ", second id " << pairs[1].getId() << '\n';
  std::cout << "children of 30: " << manager.getChildDeviceIds(30, 8).size() << ' '
            << manager.getChildDeviceIds(30, 8)[1] << '\n';
  expectError("device 99", [&] { manager.getDevice(99); });

  poplar::Graph graph(target);
  popops::addCodelets(graph);
  poplar::Tensor x = graph.addVariable(poplar::FLOAT, {4}, "x");
  graph.setTileMapping(x, 0);
  poplar::program::Sequence prog;
  popops::mulInPlace(graph, x, 2.0f, prog);
  graph.createHostWrite("x", x);
  graph.createHostRead("x", x);
  poplar::Engine engine(graph, prog);
  engine.load(device);
  std::vector<float> values = {1, 2, 3, 4.5f};
  engine.writeTensor("x", values.data(), values.data() + values.size());
  engine.run(0);
  engine.readTensor("x", values.data(), values.data() + values.size());
  std::cout << "doubled:";
  for (float v : values) std::cout << ' ' << v;
  std::cout << '\n';
  device.detach();
  std::cout << "reattached: " << manager.getDevice(0).attach() << '\n';
  return 0;
}
