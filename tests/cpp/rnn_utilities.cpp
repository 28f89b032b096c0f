// popnn/Rnn.hpp's parameters and tensor helpers, as a custom-RNN program uses them; prints
// "name: value" lines that test_popnn_rnn.py checks against values worked out by hand.
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/Rnn.hpp>
#include <poputil/exceptions.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "run_and_read.hpp"

namespace {

std::string shape(const poplar::Tensor &t) {
  std::string s;
  for (std::size_t d : t.shape()) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// Runs shiftRnnTensor on tBase = 1, 2, ... and tSingle = -1, -2, ...; prints the result.
void printShift(const char *label, unsigned multiple) {
  poplar::IPUModel model("ipu2");
  model.tilesPerIPU = 4;
  poplar::Device device = model.createDevice();
  poplar::Graph graph(device.getTarget());
  const popnn::rnn::RnnParams params(poplar::FLOAT, 1, 3, {2, 2});
  poplar::Tensor base = popnn::rnn::createOutputTensor(graph, params, multiple, 1);
  poplar::Tensor single = popnn::rnn::createInitialState(graph, params, true, multiple, 1);
  std::vector<float> baseValues(base.numElements()), singleValues(single.numElements());
  for (std::size_t i = 0; i < baseValues.size(); ++i) baseValues[i] = float(i + 1);
  for (std::size_t i = 0; i < singleValues.size(); ++i) singleValues[i] = -float(i + 1);
  graph.setInitialValue(base, poplar::ArrayRef<float>(baseValues));
  graph.setInitialValue(single, poplar::ArrayRef<float>(singleValues));
  poplar::program::Sequence prog;
  poplar::Tensor shifted = popnn::rnn::shiftRnnTensor(graph, params, base, single, prog, 1);
  std::cout << label << ": " << shape(shifted) << ',';
  for (float v : runAndRead(graph, prog, device, shifted)) std::cout << ' ' << v;
  std::cout << '\n';
}

} // namespace

int main() {
  for (unsigned tiles : {4u, 16u}) {
    poplar::IPUModel model("ipu2");
    model.tilesPerIPU = tiles;
    poplar::Graph graph(model.createTarget());
    const popnn::rnn::RnnParams params(poplar::FLOAT, 2, 3, {24, 8});
    std::cout << "tiles " << tiles << ": shards " << params.getMaxShards(graph) << ", bytes "
              << params.getInputBytesPerTile(graph) << ' ' << params.getOutputBytesPerTile(graph) << '\n';
    if (tiles != 4) continue;
    const poplar::Tensor input = popnn::rnn::createInputTensor(graph, params, 1, "x");
    std::cout << "shapes: " << shape(popnn::rnn::createInitialState(graph, params, true, 2, 1)) << ' '
              << shape(popnn::rnn::createInitialState(graph, params, false, 1, 1)) << ' ' << shape(input) << ' '
              << shape(popnn::rnn::createOutputTensor(graph, params, 1)) << ' '
              << shape(popnn::rnn::createOutputTensor(graph, params, 2, 1)) << ' '
              << shape(popnn::rnn::createRecurrentTensor(graph, params, 5, 1)) << '\n';
    std::cout << "input tile 0: " << graph.getTileMapping(input)[0].front() << '\n';
    const poplar::Tensor perBatch = graph.addVariable(poplar::UNSIGNED_INT, {2}, "steps");
    const poplar::Tensor shared = graph.addVariable(poplar::UNSIGNED_INT, {1}, "step");
    const popnn::rnn::RnnParams variable(poplar::HALF, 2, 5, perBatch, {8, 8});
    const popnn::rnn::RnnParams uniform(poplar::HALF, 2, 5, shared, {8, 8});
    std::cout << "variable: " << params.variableTimeSteps() << params.batchVariableTimeSteps() << ' '
              << variable.variableTimeSteps() << variable.batchVariableTimeSteps() << ' '
              << uniform.variableTimeSteps() << uniform.batchVariableTimeSteps() << ' ' << variable.timeSteps
              << '\n';
    try {
      popnn::rnn::RnnParams(poplar::FLOAT, 2, 3, {4, 4, 4});
    } catch (const poputil::poplibs_error &e) {
      std::cout << "bad sizes: " << e.what() << '\n';
    }
  }
  printShift("shift", 1);
  printShift("shift 2", 2);
  return 0;
}
