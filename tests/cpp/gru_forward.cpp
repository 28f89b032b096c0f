// popnn::gru::gruFwd as an inference program calls it, on inputs made from value(i, seed)
// (test_popnn_gru.py makes the same in float64 numpy); prints "name: v v v ..." lines.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/Gru.hpp>
#include <popnn/codelets.hpp>
#include <popops/codelets.hpp>
#include <poplin/codelets.hpp>
#include <poputil/exceptions.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "run_and_read.hpp"

namespace {

// A deterministic value in (-scale, scale), rounded to float.
float value(std::size_t i, double seed, double scale) { return float(scale * std::sin(0.37 * double(i) + seed)); }

void fill(poplar::Graph &graph, const poplar::Tensor &t, double seed, double scale) {
  std::vector<float> v(t.numElements());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(i, seed, scale);
  graph.setInitialValue(t, poplar::ArrayRef<float>(v));
}

void run(const char *label, bool resetAfter, bool fullSequence, std::vector<BasicGruCellUnit> order) {
  poplar::IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplin::addCodelets(graph);
  popnn::addCodelets(graph);
  popnn::gru::GruParams params(poplar::FLOAT, 2, 3, {4, 5});
  params.resetAfter = resetAfter;
  params.outputFullSequence = fullSequence;
  params.cellOrder = order;
  const poplar::Tensor in = popnn::gru::createInput(graph, params, "in");
  const poplar::Tensor init = popnn::gru::createInitialState(graph, params, "init", {}, nullptr);
  // The kernel and the biases made apart for the second run, as some programs do.
  popnn::gru::GruWeights weights;
  if (resetAfter) {
    std::tie(weights.inputWeights, weights.outputWeights) = popnn::gru::createWeightsKernel(graph, params, "kernel");
    weights.biases = popnn::gru::createWeightsBiases(graph, params, "biases");
  } else {
    weights = popnn::gru::createWeights(graph, params, "weights");
  }
  std::cout << label << " weights: " << (weights.inputWeights.dim(0) == BASIC_GRU_CELL_NUM_UNITS) << ' '
            << weights.biases.rank() << '\n';
  fill(graph, in, 0.1, 1.0);
  fill(graph, init, 0.2, 0.5);
  fill(graph, weights.inputWeights, 0.3, 0.6);
  fill(graph, weights.outputWeights, 0.4, 0.6);
  fill(graph, weights.biases, 0.5, 0.3);
  poplar::program::Sequence prog;
  const poplar::Tensor out = popnn::gru::gruFwd(graph, params, init, in, weights, nullptr, prog, "gru");
  const std::vector<float> values = runAndRead(graph, prog, device, out);
  std::cout << label << ":";
  for (std::size_t d : out.shape()) std::cout << ' ' << d;
  std::cout << " |";
  for (float v : values) {
    char text[32];
    std::snprintf(text, sizeof text, " %.9g", double(v));
    std::cout << text;
  }
  std::cout << '\n';
  if (!resetAfter) {
    poplar::Tensor kept;
    try {
      popnn::gru::gruFwd(graph, params, init, in, weights, &kept, prog, "gru");
    } catch (const poputil::poplibs_error &e) {
      std::cout << "intermediates: " << e.what() << '\n';
    }
  }
}

} // namespace

int main() {
  run("default", false, true, popnn::gru::getDefaultBasicGruCellOrder());
  run("reset after", true, false,
      {BASIC_GRU_CELL_CANDIDATE, BASIC_GRU_CELL_RESET_GATE, BASIC_GRU_CELL_UPDATE_GATE});
  return 0;
}
