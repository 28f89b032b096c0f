// popnn/experimental/ROIAlign.hpp: pooled regions of a [2][2][5][6] feature map and the
// input gradient, for two parameter sets; prints "name: v v ..." lines
// (test_popnn_roi_align.py checks them against a numpy ROIAlign).
#include <poplar/IPUModel.hpp>
#include <popnn/experimental/ROIAlign.hpp>
#include <poputil/TileMapping.hpp>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "labelled_results.hpp"

int main() {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::program::Sequence prog;
  std::vector<float> values(2 * 2 * 5 * 6);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 3.f * std::sin(0.37f * float(i));
  poplar::Tensor data = filledTensor(graph, poplar::FLOAT, {2, 2, 5, 6}, values, "data");
  poplar::Tensor rois = filledTensor(graph, poplar::FLOAT, {4, 4},
                               {0.5f, 1.f, 4.f, 3.5f, -1.5f, -0.5f, 2.f, 6.f, 1.f, 1.f, 1.2f, 1.1f, 0.f, 0.f, 2.f, 2.f},
                               "rois");
  poplar::Tensor batchIndex = filledTensor(graph, poplar::INT, {4}, {1, 0, 1, 5}, "batchIndex");
  const std::vector<std::pair<std::string, popnn::experimental::roiAlignParams>> cases = {
      {"aligned", {2, 2, 3, true, 1.f}}, {"adaptive", {0, 3, 2, false, 0.5f}}};
  std::vector<std::string> names;
  std::vector<poplar::Tensor> results;
  for (const auto &c : cases) {
    const poplar::Tensor pooled = popnn::experimental::roiAlignFwd(graph, prog, data, rois, batchIndex, c.second);
    std::vector<float> ramp(pooled.numElements());
    for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = 0.25f * float(i) - 1.f;
    poplar::Tensor top = filledTensor(graph, poplar::FLOAT, pooled.shape(), ramp, "top");
    const poplar::Tensor gradient =
        popnn::experimental::roiAlignInputGradient(graph, prog, data, rois, batchIndex, top, c.second);
    names.insert(names.end(), {c.first + " pooled", c.first + " gradient"});
    results.insert(results.end(), {pooled, gradient});
  }
  try {
    poplar::Tensor flat = data.flatten();
    popnn::experimental::roiAlignFwd(graph, prog, flat, rois, batchIndex, cases[0].second);
  } catch (const std::exception &error) {
    std::cout << "bad data: " << error.what() << '\n';
  }
  printResults(graph, prog, device, names, results);
}
