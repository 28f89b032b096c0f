// popnn::gru as a program calls it: gruFwd, and gruBwdWithWU after a forward pass that keeps
// its intermediates, on inputs made from value(i, seed, scale) (test_popnn_gru.py makes the
// same in float64 numpy); prints "name: ... | v v v ..." lines.
#include <poplar/IPUModel.hpp>
#include <popnn/Gru.hpp>
#include <popnn/codelets.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "run_and_read.hpp"
#include "seeded_values.hpp"

namespace {

void print(const std::string &label, const std::string &shape, const std::vector<float> &values) {
  std::cout << label << ":" << shape << " |" << exactly(values) << '\n';
}

// A 2-batch, 3-step GRU of 4 inputs and 5 outputs with its operands filled in.
struct Gru {
  poplar::Device device;
  poplar::Graph graph;
  popnn::gru::GruParams params;
  poplar::Tensor in, init;
  popnn::gru::GruWeights weights;
  poplar::program::Sequence prog;

  Gru(bool resetAfter, bool fullSequence, std::vector<BasicGruCellUnit> order, bool kernelApart)
      : device(model().createDevice()), graph(device.getTarget()), params(poplar::FLOAT, 2, 3, {4, 5}) {
    popops::addCodelets(graph);
    poplin::addCodelets(graph);
    popnn::addCodelets(graph);
    params.resetAfter = resetAfter;
    params.outputFullSequence = fullSequence;
    params.cellOrder = order;
    in = popnn::gru::createInput(graph, params, "in");
    init = popnn::gru::createInitialState(graph, params, "init", {}, nullptr);
    if (kernelApart) { // as some programs make them
      std::tie(weights.inputWeights, weights.outputWeights) = popnn::gru::createWeightsKernel(graph, params, "k");
      weights.biases = popnn::gru::createWeightsBiases(graph, params, "biases");
    } else {
      weights = popnn::gru::createWeights(graph, params, "weights");
    }
    fill(graph, in, 0.1, 1.0);
    fill(graph, init, 0.2, 0.5);
    fill(graph, weights.inputWeights, 0.3, 0.6);
    fill(graph, weights.outputWeights, 0.4, 0.6);
    fill(graph, weights.biases, 0.5, 0.3);
  }

  static poplar::IPUModel model() {
    poplar::IPUModel m("ipu2");
    m.tilesPerIPU = 4;
    return m;
  }
};

void forward(const std::string &label, bool resetAfter, bool fullSequence, std::vector<BasicGruCellUnit> order) {
  Gru gru(resetAfter, fullSequence, order, resetAfter);
  std::cout << label << " weights: " << (gru.weights.inputWeights.dim(0) == BASIC_GRU_CELL_NUM_UNITS) << ' '
            << gru.weights.biases.rank() << '\n';
  const poplar::Tensor out =
      popnn::gru::gruFwd(gru.graph, gru.params, gru.init, gru.in, gru.weights, nullptr, gru.prog, "gru");
  std::string shape;
  for (std::size_t d : out.shape()) shape += ' ' + std::to_string(d);
  print(label, shape, runAndRead(gru.graph, gru.prog, gru.device, out));
}

// Forward keeping the intermediates, then gruBwdWithWU (or gruBwd and gruWU when `split`)
// with outputGrad from value(i, 0.6, 1); prints the gradients of the initial state, the
// input and the weights.
void train(const std::string &label, bool resetAfter, bool fullSequence, std::vector<BasicGruCellUnit> order,
           bool split) {
  Gru gru(resetAfter, fullSequence, order, false);
  poplar::Tensor intermediates, inputGrad;
  const poplar::Tensor out =
      popnn::gru::gruFwd(gru.graph, gru.params, gru.init, gru.in, gru.weights, &intermediates, gru.prog, "gru");
  const poplar::Tensor outGrad = gru.graph.clone(out, "outGrad");
  fill(gru.graph, outGrad, 0.6, 1.0);
  popnn::gru::GruWeights grads;
  poplar::Tensor initGrad;
  if (split) {
    poplar::Tensor bwdIntermediates;
    initGrad = popnn::gru::gruBwd(gru.graph, gru.params, gru.prog, gru.init, intermediates, gru.weights, gru.in, out,
                                  outGrad, &inputGrad, &bwdIntermediates, "bwd", {}, nullptr);
    grads = popnn::gru::gruWU(gru.graph, gru.params, gru.prog, gru.init, intermediates, bwdIntermediates,
                              gru.weights, gru.in, out, "wu", {}, nullptr);
  } else {
    initGrad = popnn::gru::gruBwdWithWU(gru.graph, gru.params, gru.prog, gru.init, intermediates, gru.weights,
                                        gru.in, out, outGrad, &inputGrad, grads, "bwd", {}, nullptr);
  }
  const poplar::Tensor all = poplar::concat({initGrad.flatten(), inputGrad.flatten(), grads.inputWeights.flatten(),
                                             grads.outputWeights.flatten(), grads.biases.flatten()});
  print(label, " " + std::to_string(all.numElements()), runAndRead(gru.graph, gru.prog, gru.device, all));
}

// AUGRU: auGruFwd keeping its intermediates, then auGruBwdWithWU (or auGruBwd and auGruWU
// when `split`), with the attention [batch][steps] from value(i, 0.7, 0.45); prints the
// output, then the gradients as train() does and the attention's last.
void attention(const std::string &label, bool split) {
  Gru gru(false, true, popnn::gru::getDefaultBasicGruCellOrder(), false);
  const poplar::Tensor att = popnn::gru::createAttention(gru.graph, gru.params, "att");
  std::cout << label << " attention: " << att.dim(0) << 'x' << att.dim(1) << '\n';
  fill(gru.graph, att, 0.7, 0.45);
  poplar::Tensor intermediates, inputGrad, attGrad;
  const poplar::Tensor out = popnn::gru::auGruFwd(gru.graph, gru.params, gru.init, gru.in, gru.weights,
                                                  &intermediates, att, gru.prog, "augru");
  const poplar::Tensor outGrad = gru.graph.clone(out, "outGrad");
  fill(gru.graph, outGrad, 0.6, 1.0);
  popnn::gru::GruWeights grads;
  poplar::Tensor initGrad;
  if (split) {
    poplar::Tensor bwdIntermediates;
    initGrad = popnn::gru::auGruBwd(gru.graph, gru.params, gru.prog, gru.init, intermediates, gru.weights, gru.in,
                                    out, outGrad, &inputGrad, &bwdIntermediates, att, &attGrad, "bwd", {}, nullptr);
    grads = popnn::gru::auGruWU(gru.graph, gru.params, gru.prog, gru.init, intermediates, bwdIntermediates,
                                gru.weights, gru.in, out, "wu", {}, nullptr);
  } else {
    initGrad = popnn::gru::auGruBwdWithWU(gru.graph, gru.params, gru.prog, gru.init, intermediates, gru.weights,
                                          gru.in, out, outGrad, &inputGrad, grads, att, &attGrad, "bwd", {}, nullptr);
  }
  const poplar::Tensor all =
      poplar::concat({out.flatten(), initGrad.flatten(), inputGrad.flatten(), grads.inputWeights.flatten(),
                      grads.outputWeights.flatten(), grads.biases.flatten(), attGrad.flatten()});
  print(label, " " + std::to_string(all.numElements()), runAndRead(gru.graph, gru.prog, gru.device, all));
}

} // namespace

int main() {
  forward("default", false, true, popnn::gru::getDefaultBasicGruCellOrder());
  forward("reset after", true, false,
          {BASIC_GRU_CELL_CANDIDATE, BASIC_GRU_CELL_RESET_GATE, BASIC_GRU_CELL_UPDATE_GATE});
  train("grad default", false, true, popnn::gru::getDefaultBasicGruCellOrder(), false);
  train("grad reset after", true, false,
        {BASIC_GRU_CELL_UPDATE_GATE, BASIC_GRU_CELL_CANDIDATE, BASIC_GRU_CELL_RESET_GATE}, false);
  train("grad split", false, false, {BASIC_GRU_CELL_CANDIDATE, BASIC_GRU_CELL_UPDATE_GATE, BASIC_GRU_CELL_RESET_GATE},
        true);
  train("grad split reset after", true, true, popnn::gru::getDefaultBasicGruCellOrder(), true);
  attention("augru", false);
  attention("augru split", true);
  return 0;
}
