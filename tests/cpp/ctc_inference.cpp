// popnn/CTCInference.hpp: beam-search decoding of two entries, with a beam wide enough to
// be exact and a narrow one, from logits and from log probabilities; prints "name: v v ..."
// lines (test_popnn_ctc_inference.py checks them against every alignment enumerated).
#include <poplar/IPUModel.hpp>
#include <popnn/CTCInference.hpp>
#include <popops/Cast.hpp>

#include <cmath>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "labelled_results.hpp"

int main() {
  poplar::Device device = poplar::IPUModel("ipu2").createDevice();
  poplar::Graph graph(device.getTarget());
  poplar::program::Sequence prog;
  const unsigned maxTime = 4, batch = 2, classes = 3, blank = 2;
  const popnn::ctc::Plan plan = popnn::ctc_infer::plan(graph, poplar::FLOAT, batch, maxTime, classes, 40);
  poplar::Tensor data = popnn::ctc_infer::createDataInput(graph, poplar::FLOAT, batch, maxTime, classes, plan, "data");
  std::vector<float> values(data.numElements());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 2.f * std::sin(1.3f * float(i) + 0.5f);
  graph.setInitialValue(data, poplar::ArrayRef<float>(values));
  const poplar::Tensor dataLengths = filledTensor(graph, poplar::UNSIGNED_INT, {batch}, {4, 3}, "dataLengths");

  std::vector<std::string> names;
  std::vector<poplar::Tensor> results;
  auto keep = [&](const std::string &name, const std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor> &r) {
    names.insert(names.end(), {name + " probs", name + " lengths", name + " labels"});
    results.insert(results.end(), {std::get<0>(r), std::get<1>(r), std::get<2>(r)});
  };
  keep("wide logits", popnn::ctc_infer::beamSearchDecoderLogits(graph, data, dataLengths, prog, blank, 40, 3, plan));
  keep("narrow logits", popnn::ctc_infer::beamSearchDecoderLogits(graph, data, dataLengths, prog, blank, 2, 2, plan));
  keep("wide log probabilities", popnn::ctc_infer::beamSearchDecoderLogProbabilities(graph, data, dataLengths, prog,
                                                                                     blank, 40, 3, plan));
  std::cout << "plan: " << plan << '\n';
  reportError("too many paths", [&] {
    popnn::ctc_infer::beamSearchDecoderLogits(graph, data, dataLengths, prog, blank, 2, 3, plan);
  });
  reportError("bad option", [&] {
    popnn::ctc_infer::beamSearchDecoderLogits(graph, data, dataLengths, prog, blank, 2, 1, plan, {}, {{"x", "1"}});
  });
  // The lengths and labels are UNSIGNED_INT: read them cast to FLOAT.
  for (poplar::Tensor &t : results)
    if (t.elementType() != poplar::FLOAT) t = popops::cast(graph, t, poplar::FLOAT, prog);
  printResults(graph, prog, device, names, results);
}
