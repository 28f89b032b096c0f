// popnn/CTCLoss.hpp: losses and gradients of three entries (one too short for its labels)
// from logits and from log probabilities, with the options; prints "name: v v ..." lines
// (test_popnn_ctc_loss.py checks them against every alignment enumerated in numpy).
#include <poplar/IPUModel.hpp>
#include <popnn/CTCLoss.hpp>
#include <poputil/TileMapping.hpp>

#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "labelled_results.hpp"

int main() {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::program::Sequence prog;
  const unsigned maxTime = 6, batch = 3, classes = 4, maxLabels = 3, blank = 0;
  const popnn::ctc::Plan plan = popnn::ctc::plan(graph, poplar::FLOAT, poplar::FLOAT, batch, maxTime, maxLabels,
                                                 classes, {{"partialsType", "float"}});
  poplar::Tensor data = popnn::ctc::createDataInput(graph, poplar::FLOAT, batch, maxTime, classes, plan, "data");
  std::vector<float> values(data.numElements());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 1.5f * std::sin(0.7f * float(i) + 0.3f);
  graph.setInitialValue(data, poplar::ArrayRef<float>(values));
  poplar::Tensor labels = popnn::ctc::createLabelsInput(graph, poplar::UNSIGNED_INT, batch, maxLabels, plan, "labels");
  graph.setInitialValue(labels, poplar::ArrayRef<unsigned>(std::vector<unsigned>{1, 2, 0, 3, 3, 0, 1, 2, 3}));
  const poplar::Tensor dataLengths = filledTensor(graph, poplar::UNSIGNED_INT, {batch}, {6, 5, 2}, "dataLengths");
  const poplar::Tensor labelLengths = filledTensor(graph, poplar::UNSIGNED_INT, {batch}, {2, 2, 3}, "labelLengths");

  std::vector<std::string> names;
  std::vector<poplar::Tensor> results;
  auto keep = [&](const std::string &name, const poplar::Tensor &t) {
    names.push_back(name);
    results.push_back(t);
  };
  const auto fromLogits = popnn::ctc::calcLossAndGradientLogits(graph, poplar::FLOAT, data, labels, dataLengths,
                                                                labelLengths, prog, blank, plan);
  keep("logits loss", fromLogits.first);
  keep("logits gradient", fromLogits.second);
  const auto fromLogProbs = popnn::ctc::calcLossAndGradientLogProbabilities(
      graph, poplar::FLOAT, data, labels, dataLengths, labelLengths, prog, blank, plan, {},
      {{"includeSoftmaxGradient", "false"}, {"zeroInfinity", "true"}});
  keep("log probabilities loss", fromLogProbs.first);
  keep("log probabilities gradient", fromLogProbs.second);
  keep("logits loss alone", popnn::ctc::calcCTCLossLogits(graph, poplar::FLOAT, data, labels, dataLengths,
                                                          labelLengths, prog, blank, plan));
  keep("log probabilities loss alone",
       popnn::ctc::calcCTCLossLogProbabilities(graph, poplar::FLOAT, data, labels, dataLengths, labelLengths, prog,
                                               blank, plan, {}, {{"zeroInfinity", "true"}}));

  std::ostringstream described;
  described << plan;
  std::cout << "plan: " << described.str() << '\n';
  const popnn::ctc::Plan copy = plan, other = popnn::ctc::plan(graph, poplar::FLOAT, poplar::HALF, batch, maxTime,
                                                               maxLabels, classes);
  popnn::ctc::Plan empty; // (Plan(std::unique_ptr<Impl>) needs the Impl, which plan() has)
  std::cout << "plans compare: " << (copy == plan) << (other != plan) << ((other < plan) != (plan < other))
            << (empty == popnn::ctc::Plan()) << (&copy.getImpl() != &plan.getImpl()) << '\n';
  reportError("bad option", [&] {
    popnn::ctc::calcCTCLossLogits(graph, poplar::FLOAT, data, labels, dataLengths, labelLengths, prog, blank, plan, {},
                                  {{"zeroInfinity", "yes"}});
  });
  reportError("bad blank", [&] {
    popnn::ctc::calcCTCLossLogits(graph, poplar::FLOAT, data, labels, dataLengths, labelLengths, prog, 4, plan);
  });
  reportError("bad plan", [&] {
    popnn::ctc::calcCTCLossLogits(graph, poplar::FLOAT, data, labels, dataLengths, labelLengths, prog, blank, empty);
  });
  reportError("bad plan option", [&] {
    popnn::ctc::plan(graph, poplar::FLOAT, poplar::FLOAT, 1, 1, 1, 2, {{"availableMemoryProportion", "1.5"}});
  });

  printResults(graph, prog, device, names, results);
}
